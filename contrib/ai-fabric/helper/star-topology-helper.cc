// SPDX-License-Identifier: GPL-2.0-only
#include "star-topology-helper.h"

#include "fabric-topology-registry.h"

#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(StarTopologyHelper);

TypeId
StarTopologyHelper::GetTypeId()
{
    static TypeId tid = TypeId("ns3::StarTopologyHelper")
                            .SetParent<FabricTopologyHelper>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<StarTopologyHelper>()
                            .AddAttribute("Radix",
                                          "Ports of the switch; 0 = as many as hosts.",
                                          UintegerValue(0),
                                          MakeUintegerAccessor(&StarTopologyHelper::m_radix),
                                          MakeUintegerChecker<uint32_t>());
    return tid;
}

StarTopologyHelper::StarTopologyHelper() = default;

std::string
StarTopologyHelper::GetKind() const
{
    return "star";
}

void
StarTopologyHelper::DoValidate() const
{
    if (m_radix != 0 && GetNHosts() > m_radix)
    {
        std::ostringstream os;
        os << "x GpusPerServer must be <= Radix " << m_radix << " (got " << GetNHosts() << ")";
        throw FabricConfigError("Servers", os.str());
    }
}

uint32_t
StarTopologyHelper::PlannedSwitches() const
{
    return 1;
}

void
StarTopologyHelper::DoBuild(Ptr<FabricTopology> topo)
{
    const uint32_t sw = NewSwitch(topo, "switch");
    for (uint32_t h = 0; h < GetNHosts(); ++h)
    {
        Connect(topo, h, sw, m_linkRate, m_hostCable);
    }
    topo->SetBisectionBandwidth(double(GetNHosts()) * double(m_linkRate.GetBitRate()) / 2.0);
}

namespace
{

const bool g_starRegistered = FabricTopologyRegistry::Add([] {
    FabricTopologyInfo e;
    e.name = "star";
    e.help = "one switch with a port per GPU";
    e.create = [](const TopologyParams& p) -> Ptr<FabricTopologyHelper> {
        Ptr<StarTopologyHelper> h = CreateObject<StarTopologyHelper>();
        h->SetAttribute("Servers", UintegerValue(p.servers));
        h->SetAttribute("GpusPerServer", UintegerValue(p.gpusPerServer));
        return h;
    };
    e.serversPerLeafGroup = [](const TopologyParams& p) { return p.servers; };
    e.aggregationLevels = [](const TopologyParams&) -> uint32_t { return 1; }; // one switch
    e.size = [](const TopologyParams& p) {
        return LeafSpineSize(uint64_t(p.servers) * p.gpusPerServer, 0, p.leafRadix);
    };
    return e;
}());

} // namespace

} // namespace ns3

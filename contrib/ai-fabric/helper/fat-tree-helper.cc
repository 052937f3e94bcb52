// SPDX-License-Identifier: GPL-2.0-only
#include "fat-tree-helper.h"

#include "fabric-topology-registry.h"

#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FatTreeHelper);

TypeId
FatTreeHelper::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FatTreeHelper")
            .SetParent<FabricTopologyHelper>()
            .SetGroupName("AiFabric")
            .AddConstructor<FatTreeHelper>()
            .AddAttribute("Tiers",
                          "2 (leaf-spine) or 3 (k-ary fat-tree).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&FatTreeHelper::m_tiers),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("LeafRadix",
                          "Ports per switch for 2 tiers.",
                          UintegerValue(64),
                          MakeUintegerAccessor(&FatTreeHelper::m_leafRadix),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("K",
                          "Switch radix k for 3 tiers (even); 0 = smallest that fits.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FatTreeHelper::m_k),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Oversubscription",
                          "Leaf downlink:uplink ratio for 2 tiers (>= 1).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&FatTreeHelper::m_oversubscription),
                          MakeDoubleChecker<double>());
    return tid;
}

FatTreeHelper::FatTreeHelper() = default;

std::string
FatTreeHelper::GetKind() const
{
    return m_tiers == 3 ? "fat-tree-3" : "fat-tree";
}

uint32_t
FatTreeHelper::GetK() const
{
    if (m_k)
    {
        return m_k;
    }
    uint32_t k = 2;
    while (uint64_t(k) * k * k / 4 < GetNHosts())
    {
        k += 2;
    }
    return k;
}

void
FatTreeHelper::DoValidate() const
{
    auto str = [](auto v) {
        std::ostringstream os;
        os << v;
        return os.str();
    };
    if (m_tiers != 2 && m_tiers != 3)
    {
        throw FabricConfigError("Tiers", "must be 2 or 3 (got " + str(m_tiers) + ")");
    }
    if (!(m_oversubscription >= 1.0) || !std::isfinite(m_oversubscription))
    {
        throw FabricConfigError("Oversubscription",
                                "must be >= 1 (got " + str(m_oversubscription) + ")");
    }
    if (m_tiers == 3)
    {
        const uint32_t k = GetK();
        if (k < 2 || k % 2 != 0)
        {
            throw FabricConfigError("K", "must be even and >= 2 (got " + str(k) + ")");
        }
        if (uint64_t(k) * k * k / 4 < GetNHosts())
        {
            throw FabricConfigError("K",
                                    "of " + str(k) + " holds at most " +
                                        str(uint64_t(k) * k * k / 4) + " hosts (need " +
                                        str(GetNHosts()) + ")");
        }
        return;
    }
    if (m_leafRadix < 2)
    {
        throw FabricConfigError("LeafRadix", "must be >= 2 (got " + str(m_leafRadix) + ")");
    }
    uint32_t down = 0;
    uint32_t up = 0;
    SplitRadix(m_leafRadix, m_oversubscription, down, up);
    if (down < 1 || up < 1)
    {
        throw FabricConfigError("LeafRadix", "leaves no up or down port at this oversubscription");
    }
    const uint32_t leaves = (GetNHosts() + down - 1) / down;
    if (leaves > m_leafRadix)
    {
        throw FabricConfigError("Servers",
                                "x GpusPerServer must be <= " + str(uint64_t(down) * m_leafRadix) +
                                    " hosts for a 2-tier fat-tree of radix " + str(m_leafRadix) +
                                    " (got " + str(GetNHosts()) + ")");
    }
}

void
FatTreeHelper::DoBuild(Ptr<FabricTopology> topo)
{
    if (m_tiers == 3)
    {
        BuildThreeTier(topo);
    }
    else
    {
        BuildTwoTier(topo);
    }
}

uint32_t
FatTreeHelper::GetLeafDown() const
{
    uint32_t down = 0;
    uint32_t up = 0;
    SplitRadix(m_leafRadix, m_oversubscription, down, up);
    return std::max<uint32_t>(1, down);
}

uint32_t
FatTreeHelper::GetPartitionGroups() const
{
    if (m_tiers == 3)
    {
        return GetK();
    }
    return (GetNHosts() + GetLeafDown() - 1) / GetLeafDown();
}

bool
FatTreeHelper::GetPartitionGroup(const std::string& role, uint32_t index, uint32_t& group) const
{
    if (m_tiers == 3)
    {
        // Switches: k * k/2 edges, then k * k/2 aggregation switches, then the cores.
        const uint32_t half = GetK() / 2;
        if (role == "host")
        {
            group = index / (half * half);
        }
        else if (role == "edge")
        {
            group = index / half;
        }
        else if (role == "aggregation")
        {
            group = (index - GetK() * half) / half;
        }
        else
        {
            return false;
        }
        return true;
    }
    if (role == "host")
    {
        group = index / GetLeafDown();
        return true;
    }
    if (role == "leaf")
    {
        group = index; // the leaves are switches 0 .. leaves - 1
        return true;
    }
    return false;
}

void
FatTreeHelper::BuildTwoTier(Ptr<FabricTopology> topo)
{
    uint32_t down = 0;
    uint32_t up = 0;
    SplitRadix(m_leafRadix, m_oversubscription, down, up);
    const uint32_t hosts = GetNHosts();
    const uint32_t nLeaves = (hosts + down - 1) / down;
    const uint32_t perLeaf = std::min(hosts, down);
    const uint32_t u =
        nLeaves <= 1
            ? 0
            : std::max<uint32_t>(1,
                                 std::min(up,
                                          static_cast<uint32_t>(std::ceil(
                                              double(perLeaf) / m_oversubscription - 1e-9))));
    std::vector<uint32_t> leaf(nLeaves);
    for (auto& l : leaf)
    {
        l = NewSwitch(topo, "leaf");
    }
    std::vector<uint32_t> spine(u);
    for (auto& s : spine)
    {
        s = NewSwitch(topo, "spine");
    }
    for (uint32_t h = 0; h < hosts; ++h)
    {
        Connect(topo, h, leaf[h / down], m_linkRate, m_hostCable);
    }
    for (uint32_t l : leaf)
    {
        for (uint32_t s : spine)
        {
            Connect(topo, l, s, GetFabricRate(), m_fabricCable);
        }
    }
    const double hostBw = double(hosts) * double(m_linkRate.GetBitRate());
    const double upBw = double(nLeaves) * u * double(GetFabricRate().GetBitRate());
    topo->SetBisectionBandwidth((nLeaves <= 1 ? hostBw : std::min(hostBw, upBw)) / 2.0);
}

void
FatTreeHelper::BuildThreeTier(Ptr<FabricTopology> topo)
{
    const uint32_t k = GetK();
    const uint32_t half = k / 2;
    const uint32_t hosts = GetNHosts();
    std::vector<uint32_t> edge(size_t(k) * half);
    std::vector<uint32_t> agg(size_t(k) * half);
    std::vector<uint32_t> core(size_t(half) * half);
    for (auto& e : edge)
    {
        e = NewSwitch(topo, "edge");
    }
    for (auto& a : agg)
    {
        a = NewSwitch(topo, "aggregation");
    }
    for (auto& c : core)
    {
        c = NewSwitch(topo, "core");
    }
    for (uint32_t h = 0; h < hosts; ++h)
    {
        Connect(topo, h, edge[h / half], m_linkRate, m_hostCable);
    }
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t e = 0; e < half; ++e)
        {
            for (uint32_t a = 0; a < half; ++a)
            {
                Connect(topo,
                        edge[p * half + e],
                        agg[p * half + a],
                        GetFabricRate(),
                        m_fabricCable);
            }
        }
        for (uint32_t a = 0; a < half; ++a)
        {
            for (uint32_t c = 0; c < half; ++c)
            {
                Connect(topo,
                        agg[p * half + a],
                        core[a * half + c],
                        GetFabricRate(),
                        m_fabricCable);
            }
        }
    }
    const double hostBw = double(hosts) * double(m_linkRate.GetBitRate());
    topo->SetBisectionBandwidth(hostBw / 2.0);
}

namespace
{

const bool g_fatTreeRegistered = FabricTopologyRegistry::Add([] {
    FabricTopologyInfo e;
    e.name = "fat-tree";
    e.help = "leaf-spine (2 tiers) or k-ary fat-tree (3 tiers), GPUs of a server on one leaf";
    e.sharedKeys = {"tiers"};
    e.create = [](const TopologyParams& p) -> Ptr<FabricTopologyHelper> {
        Ptr<FatTreeHelper> h = CreateObject<FatTreeHelper>();
        h->SetAttribute("LeafRadix", UintegerValue(p.leafRadix));
        h->SetAttribute("Oversubscription", DoubleValue(p.oversubscription));
        if (p.tiers != 0)
        {
            h->SetAttribute("Tiers", UintegerValue(p.tiers));
        }
        h->SetAttribute("Servers", UintegerValue(p.servers));
        h->SetAttribute("GpusPerServer", UintegerValue(p.gpusPerServer));
        return h;
    };
    e.check = [](const TopologyParams& p) -> std::string {
        if (p.tiers == 1)
        {
            return "topology.tiers: fat-tree has 2 (leaf-spine) or 3 tiers (got 1)";
        }
        if (p.tiers == 3 && p.oversubscription != 1.0)
        {
            return "topology.oversubscription: the 3-tier (k-ary) fat-tree is 1:1; must be 1 "
                   "with topology.tiers 3";
        }
        return "";
    };
    e.serversPerLeafGroup = [](const TopologyParams& p) -> uint32_t {
        const double r = p.oversubscription;
        const uint32_t down = std::max<uint32_t>(1, uint32_t(p.leafRadix * r / (r + 1)));
        return std::max<uint32_t>(1, down / p.gpusPerServer);
    };
    e.noSharp = "the fat-tree's rails share leaves with no common aggregation root";
    e.size = [](const TopologyParams& p) {
        return LeafSpineSize(uint64_t(p.servers) * p.gpusPerServer,
                             p.oversubscription <= 0 ? 0 : p.oversubscription,
                             p.leafRadix);
    };
    return e;
}());

} // namespace

} // namespace ns3

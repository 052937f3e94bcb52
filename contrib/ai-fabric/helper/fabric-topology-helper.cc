// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-topology-helper.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/fabric-enum-accessor.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/ib-credit-flow-control.h"
#include "ns3/node.h"
#include "ns3/switch-buffer-manager.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <sstream>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricTopologyHelper);

TypeId
FabricTopologyHelper::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricTopologyHelper")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddAttribute("Servers",
                          "Number of servers (>= 1).",
                          UintegerValue(16),
                          MakeUintegerAccessor(&FabricTopologyHelper::m_servers),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute(
                "GpusPerServer",
                "GPUs per server (one NVLink domain), each with its own NIC and host node (1..72: "
                "up to a GB200 NVL72 rack).",
                UintegerValue(8),
                MakeUintegerAccessor(&FabricTopologyHelper::m_gpusPerServer),
                MakeUintegerChecker<uint32_t>())
            .AddAttribute("LinkRate",
                          "Rate of host (NIC) links.",
                          DataRateValue(DataRate("400Gbps")),
                          MakeDataRateAccessor(&FabricTopologyHelper::m_linkRate),
                          MakeDataRateChecker())
            .AddAttribute("FabricLinkRate",
                          "Rate of switch-to-switch links; 0 = LinkRate.",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&FabricTopologyHelper::m_fabricRate),
                          MakeDataRateChecker())
            .AddAttribute("HostCableLength",
                          "Host-to-leaf cable length in metres (5 ns/m).",
                          DoubleValue(3.0),
                          MakeDoubleAccessor(&FabricTopologyHelper::m_hostCable),
                          MakeDoubleChecker<double>())
            .AddAttribute("FabricCableLength",
                          "Switch-to-switch cable length in metres (5 ns/m).",
                          DoubleValue(50.0),
                          MakeDoubleAccessor(&FabricTopologyHelper::m_fabricCable),
                          MakeDoubleChecker<double>())
            .AddAttribute("Network",
                          "Hosts are numbered Network+1, Network+2, ... (host order).",
                          Ipv4AddressValue(Ipv4Address("10.0.0.0")),
                          MakeIpv4AddressAccessor(&FabricTopologyHelper::m_network),
                          MakeIpv4AddressChecker())
            .AddAttribute("LinkLayer",
                          "Ethernet (RoCEv2/TCP; flow control as set on the link helper) or "
                          "InfiniBand: IB ports (LRH/VCRC framing) with IbCreditFlowControl, "
                          "hosts numbered by LID 1..N (address 0.0.0.LID), switches forwarding "
                          "by linear forwarding tables. Set it before other link settings.",
                          EnumValue(FabricNetDevice::ETHERNET),
                          MakeFabricEnumAccessor<FabricNetDevice::LinkLayer>(
                              &FabricTopologyHelper::SetLinkLayer),
                          MakeEnumChecker(FabricNetDevice::ETHERNET,
                                          "Ethernet",
                                          FabricNetDevice::INFINIBAND,
                                          "InfiniBand"))
            .AddAttribute(
                "InNetworkAggregation",
                "Give every switch an in-network aggregation node (SHARP's aggregation engine) "
                "on a port of its own, at the sum of the switch's port rates: endpoints "
                "GetNHosts()+j of the topology, addressed after the hosts, for CollNet "
                "(CollNetCollective). Rail-optimized fat-tree and star topologies.",
                BooleanValue(false),
                MakeBooleanAccessor(&FabricTopologyHelper::m_aggregation),
                MakeBooleanChecker());
    return tid;
}

FabricTopologyHelper::FabricTopologyHelper()
{
    m_switchFactory.SetTypeId("ns3::FabricSwitch");
    m_bufferFactory.SetTypeId("ns3::SwitchBufferManager");
}

FabricTopologyHelper::~FabricTopologyHelper() = default;

void
FabricTopologyHelper::SetLinkLayer(FabricNetDevice::LinkLayer ll)
{
    m_linkLayer = ll;
    m_link.SetLinkLayer(ll);
    if (ll == FabricNetDevice::INFINIBAND)
    {
        m_switchFactory.Set("PathSelection", EnumValue(FabricSwitch::LFT));
    }
}

FabricNetDevice::LinkLayer
FabricTopologyHelper::GetLinkLayer() const
{
    return m_linkLayer;
}

void
FabricTopologyHelper::SetSwitchAttribute(std::string name, const AttributeValue& value)
{
    m_switchFactory.Set(name, value);
}

void
FabricTopologyHelper::SetBufferAttribute(std::string name, const AttributeValue& value)
{
    m_bufferFactory.Set(name, value);
    if (name == "EcnKmin" || name == "EcnKmax")
    {
        const auto* u = dynamic_cast<const UintegerValue*>(&value);
        (name == "EcnKmin" ? m_ecnKmin : m_ecnKmax) = u ? int64_t(u->Get()) : -1;
    }
}

FabricLinkHelper&
FabricTopologyHelper::GetLinkHelper()
{
    return m_link;
}

DataRate
FabricTopologyHelper::GetFabricRate() const
{
    return m_fabricRate.GetBitRate() > 0 ? m_fabricRate : m_linkRate;
}

uint32_t
FabricTopologyHelper::PlannedSwitches() const
{
    return 0;
}

uint32_t
FabricTopologyHelper::GetNHosts() const
{
    return m_servers * m_gpusPerServer;
}

void
FabricTopologyHelper::SplitRadix(uint32_t radix,
                                 double oversubscription,
                                 uint32_t& down,
                                 uint32_t& up)
{
    down = static_cast<uint32_t>(std::floor(radix * oversubscription / (oversubscription + 1.0)));
    up = radix - down;
}

void
FabricTopologyHelper::Validate() const
{
    auto str = [](auto v) {
        std::ostringstream os;
        os << v;
        return os.str();
    };
    if (m_servers < 1)
    {
        throw FabricConfigError("Servers", "must be >= 1 (got " + str(m_servers) + ")");
    }
    if (m_gpusPerServer < 1 || m_gpusPerServer > 72)
    {
        throw FabricConfigError("GpusPerServer",
                                "must be in [1, 72] (got " + str(m_gpusPerServer) + ")");
    }
    if (uint64_t(m_servers) * m_gpusPerServer > (1u << 22))
    {
        throw FabricConfigError("Servers",
                                "x GpusPerServer must be <= 4194304 hosts (got " +
                                    str(uint64_t(m_servers) * m_gpusPerServer) + ")");
    }
    if (m_linkLayer == FabricNetDevice::INFINIBAND &&
        uint64_t(m_servers) * m_gpusPerServer > 0xbffe)
    {
        throw FabricConfigError("Servers",
                                "x GpusPerServer must be <= 49150 hosts on InfiniBand (unicast "
                                "LIDs 1..0xBFFF; got " +
                                    str(uint64_t(m_servers) * m_gpusPerServer) + ")");
    }
    if (m_linkRate.GetBitRate() == 0)
    {
        throw FabricConfigError("LinkRate", "must be > 0 bit/s");
    }
    if (!(m_hostCable >= 0) || !(m_fabricCable >= 0))
    {
        throw FabricConfigError(m_hostCable >= 0 ? "FabricCableLength" : "HostCableLength",
                                "must be >= 0 m");
    }
    DoValidate();
    if (m_aggregation && PlannedSwitches() == 0)
    {
        throw FabricConfigError("InNetworkAggregation",
                                "needs a rail-optimized fat-tree or a star topology (" + GetKind() +
                                    " has no aggregation tree)");
    }
    // What the buffer attributes get wrong whatever the ports (the rest is checked in Build),
    // from the values alone: creating a SwitchBufferManager here would take a random stream
    // and shift every automatically numbered stream after it (and so the results).
    auto ecn = [](int64_t set, const char* name) -> uint64_t {
        if (set >= 0)
        {
            return uint64_t(set);
        }
        TypeId::AttributeInformation info;
        SwitchBufferManager::GetTypeId().LookupAttributeByName(name, &info);
        const auto* u = dynamic_cast<const UintegerValue*>(PeekPointer(info.initialValue));
        return u ? u->Get() : 0;
    };
    const SwitchBufferManager::ConfigProblem p =
        SwitchBufferManager::CheckEcnThresholds(ecn(m_ecnKmin, "EcnKmin"),
                                                ecn(m_ecnKmax, "EcnKmax"));
    if (p)
    {
        throw FabricConfigError(p.attribute, p.message);
    }
}

Ptr<Node>
FabricTopologyHelper::NewNode(const std::string& role, uint32_t index) const
{
    return CreateObject<Node>(GetSystemIdOf(role, index));
}

uint32_t
FabricTopologyHelper::GetSystemIdOf(const std::string& role, uint32_t index) const
{
    return m_systemIdOf ? m_systemIdOf(role, index) : 0;
}

void
FabricTopologyHelper::SetSystemIdOf(
    std::function<uint32_t(const std::string& role, uint32_t index)> f)
{
    m_partitionRanks = 0;
    m_systemIdOf = std::move(f);
}

void
FabricTopologyHelper::SetPartition(uint32_t ranks)
{
    m_partitionRanks = ranks;
    if (ranks <= 1)
    {
        m_systemIdOf = nullptr;
        return;
    }
    m_systemIdOf = [this, ranks](const std::string& role, uint32_t index) -> uint32_t {
        uint32_t group = 0;
        if (GetPartitionGroups() < ranks)
        {
            // Whole servers, contiguous; the switches round robin (host cables cut too).
            return role == "host" ? static_cast<uint32_t>(uint64_t(index / m_gpusPerServer) *
                                                          ranks / m_servers)
                                  : index % ranks;
        }
        if (GetPartitionGroup(role, index, group))
        {
            return static_cast<uint32_t>(uint64_t(group) * ranks / GetPartitionGroups());
        }
        return index % ranks;
    };
}

void
FabricTopologyHelper::CheckPartition() const
{
    const uint32_t ranks = m_partitionRanks;
    if (ranks <= 1)
    {
        return;
    }
    if (m_aggregation)
    {
        throw FabricConfigError("Ranks",
                                "must be 1 with InNetworkAggregation: an aggregation node is not "
                                "yet placed on its switch's rank (got " +
                                    std::to_string(ranks) + ")");
    }
    if (GetPartitionGroups() < ranks && m_servers < ranks)
    {
        throw FabricConfigError(
            "Ranks",
            "must be at most the topology's " + std::to_string(GetPartitionGroups()) +
                " partition groups (leaves with their hosts, pods, or server blocks with their "
                "rail leaves) or, cutting host cables too, its " +
                std::to_string(m_servers) + " servers (got " + std::to_string(ranks) + ")");
    }
    for (uint32_t h = 0; h < GetNHosts(); ++h)
    {
        const uint32_t first = h / m_gpusPerServer * m_gpusPerServer;
        if (GetSystemIdOf("host", h) != GetSystemIdOf("host", first))
        {
            throw FabricConfigError(
                "Ranks",
                "must keep each server's GPUs on one rank (NVLink is not carried between "
                "ranks): server " +
                    std::to_string(h / m_gpusPerServer) + "'s GPUs fall under two groups (got " +
                    std::to_string(ranks) + " ranks)");
        }
    }
}

void
FabricTopologyHelper::CheckRankCables(const FabricTopology& topo) const
{
    const uint32_t ranks = m_partitionRanks;
    if (ranks <= 1)
    {
        return;
    }
    // What one rank tells the others (a flow's end, a collective's message, a PFC poll) travels
    // with the frames of the cables cut between them (FabricRankMailbox::Broadcast).
    std::vector<bool> cut(size_t(ranks) * ranks, false);
    for (const FabricLinkInfo& l : topo.GetLinks())
    {
        const uint32_t a = l.devA->GetNode()->GetSystemId();
        const uint32_t b = l.devB->GetNode()->GetSystemId();
        if (a < ranks && b < ranks)
        {
            cut[size_t(a) * ranks + b] = cut[size_t(b) * ranks + a] = true;
        }
    }
    for (uint32_t a = 0; a < ranks; ++a)
    {
        for (uint32_t b = a + 1; b < ranks; ++b)
        {
            if (!cut[size_t(a) * ranks + b])
            {
                throw FabricConfigError(
                    "Ranks",
                    "must leave a cable between every two ranks (what one rank tells the others "
                    "travels on the cables cut between them): ranks " +
                        std::to_string(a) + " and " + std::to_string(b) + " of " +
                        std::to_string(ranks) + " share none on this topology; use fewer ranks");
            }
        }
    }
}

uint32_t
FabricTopologyHelper::GetPartitionGroups() const
{
    return 0;
}

bool
FabricTopologyHelper::GetPartitionGroup(const std::string&, uint32_t, uint32_t&) const
{
    return false;
}

Ptr<FabricTopology>
FabricTopologyHelper::Build()
{
    Validate();
    CheckPartition();
    Ptr<FabricTopology> topo = CreateObject<FabricTopology>();
    topo->SetKind(GetKind());
    topo->SetServerShape(m_servers, m_gpusPerServer);
    const bool ib = m_linkLayer == FabricNetDevice::INFINIBAND;
    const uint32_t base = ib ? 0 : m_network.Get(); // InfiniBand: the address is the LID
    for (uint32_t i = 0; i < GetNHosts(); ++i)
    {
        topo->AddHost(NewNode("host", i), Ipv4Address(base + i + 1));
    }
    const uint32_t aggregators = m_aggregation ? PlannedSwitches() : 0;
    for (uint32_t k = 0; k < aggregators; ++k)
    {
        topo->AddAggregator(NewNode("aggregator", k), Ipv4Address(base + GetNHosts() + k + 1));
    }
    DoBuild(topo);
    NS_ABORT_MSG_IF(aggregators && topo->GetNSwitches() != aggregators,
                    "FabricTopologyHelper: PlannedSwitches() differs from the switches built");
    for (uint32_t j = 0; j < aggregators; ++j)
    {
        // Fast enough to take every port's traffic at once: it never sets the pace.
        Ptr<FabricSwitch> sw = topo->GetSwitch(j);
        const uint16_t ports = sw->GetNPorts();
        uint64_t bps = 0;
        for (uint16_t p = 0; p < ports; ++p)
        {
            bps += sw->GetPort(p)->GetDataRate().GetBitRate();
        }
        Connect(topo, topo->GetAggregatorOf(j), topo->GetNEndpoints() + j, DataRate(bps), 0.0);
        // A port's receive buffer for each port it serves: credits then never hold it back.
        const FabricLinkInfo& link = topo->GetLinks().back();
        for (Ptr<FabricNetDevice> d : {link.devA, link.devB})
        {
            if (Ptr<IbCreditFlowControl> fc = DynamicCast<IbCreditFlowControl>(d->GetFlowControl()))
            {
                UintegerValue rx;
                fc->GetAttribute("RxBufferBytes", rx);
                fc->SetAttribute("RxBufferBytes", UintegerValue(rx.Get() * ports));
            }
        }
    }
    topo->PopulateRoutes();
    for (uint32_t j = 0; j < topo->GetNSwitches(); ++j)
    {
        // A fixed BufferSize too small for this switch's ports: a config error, not an abort.
        const SwitchBufferManager::ConfigProblem p = topo->GetSwitch(j)->CheckBufferConfig();
        if (p)
        {
            throw FabricConfigError(p.attribute, p.message);
        }
    }
    for (uint32_t j = 0; j < topo->GetNSwitches(); ++j)
    {
        topo->GetSwitch(j)->ConfigureBuffer();
        if (ib)
        {
            topo->GetSwitch(j)->BuildLinearForwardingTable(1, topo->GetNEndpoints());
        }
    }
    return topo;
}

uint32_t
FabricTopologyHelper::NewSwitch(Ptr<FabricTopology> topo, const std::string& role)
{
    Ptr<Node> node = NewNode(role, topo->GetNSwitches());
    Ptr<FabricSwitch> sw = m_switchFactory.Create<FabricSwitch>();
    sw->SetBufferManager(m_bufferFactory.Create<SwitchBufferManager>());
    node->AggregateObject(sw);
    return topo->AddSwitch(node, sw, role);
}

void
FabricTopologyHelper::Connect(Ptr<FabricTopology> topo,
                              uint32_t a,
                              uint32_t b,
                              DataRate rate,
                              double cableMeters)
{
    const uint32_t h = topo->GetNEndpoints();
    Ptr<Node> na = a < h ? topo->GetHostNode(a) : topo->GetSwitchNode(a - h);
    Ptr<Node> nb = b < h ? topo->GetHostNode(b) : topo->GetSwitchNode(b - h);
    NetDeviceContainer d = m_link.Install(na, nb, rate, cableMeters);
    Ptr<FabricNetDevice> da = DynamicCast<FabricNetDevice>(d.Get(0));
    Ptr<FabricNetDevice> db = DynamicCast<FabricNetDevice>(d.Get(1));
    if (a >= h)
    {
        topo->GetSwitch(a - h)->AddPort(da);
    }
    if (b >= h)
    {
        topo->GetSwitch(b - h)->AddPort(db);
    }
    topo->AddLink(a, b, da, db);
}

} // namespace ns3

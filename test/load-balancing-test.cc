// SPDX-License-Identifier: GPL-2.0-only
// Ethernet load balancing: flowlets keep a flow on its port while its packets come closer than
// the gap and may move after one; spraying spreads one flow's packets evenly over every
// equal-cost port; several queue pairs per connection carry a connection's messages round robin.
#include "test-util.h"

#include "ns3/rdma-collective-transport.h"

#include <map>
#include <set>

using namespace ns3;

namespace
{

/// Leaf 0 of a radix-8 leaf-spine (4 hosts, 4 uplinks per leaf) with `sel` path selection.
Ptr<FabricTopology>
Fabric(FabricSwitch::PathSelection sel, uint32_t flowletSlots = 4096)
{
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("Servers", UintegerValue(8));
    ft->SetAttribute("GpusPerServer", UintegerValue(1));
    ft->SetAttribute("LeafRadix", UintegerValue(8));
    ft->SetSwitchAttribute("PathSelection", EnumValue(sel));
    ft->SetSwitchAttribute("FlowletGap", TimeValue(MicroSeconds(10)));
    ft->SetSwitchAttribute("FlowletTableSize", UintegerValue(flowletSlots));
    return ft->Build();
}

FabricFrame
Frame(Ptr<FabricTopology> topo, uint32_t flow)
{
    FabricFrame fr;
    fr.src = topo->GetHostAddress(flow % 4).Get();
    fr.dst = topo->GetHostAddress(4 + (flow / 4) % 4).Get();
    fr.srcPort = static_cast<uint16_t>(10000 + flow);
    fr.dstPort = 4791;
    fr.protocol = 17;
    fr.ComputeFlowHash();
    return fr;
}

} // namespace

TEST_F(FabricTest, FlowletKeepsAFlowOnItsPortUntilAGap)
{
    // A table large enough that no two of the 64 flows share a slot (a shared slot starts a new
    // flowlet, as in hardware).
    Ptr<FabricTopology> topo = Fabric(FabricSwitch::FLOWLET, 1U << 22);
    Ptr<FabricSwitch> leaf0 = topo->GetSwitch(0);
    // 64 flows: a packet every 5 us (within the 10 us gap) for 100 us never moves; after a
    // 50 us pause each flow's next flowlet takes a random uplink: about 3/4 of them move.
    constexpr uint32_t kFlows = 64;
    std::vector<int32_t> first(kFlows);
    uint32_t moved = 0;
    bool stable = true;
    for (uint32_t f = 0; f < kFlows; ++f)
    {
        first[f] = leaf0->SelectEgressPort(Frame(topo, f));
    }
    for (int t = 5; t <= 100; t += 5)
    {
        Simulator::Schedule(MicroSeconds(t), [&]() {
            for (uint32_t f = 0; f < kFlows; ++f)
            {
                stable = stable && leaf0->SelectEgressPort(Frame(topo, f)) == first[f];
            }
        });
    }
    Simulator::Schedule(MicroSeconds(150), [&]() {
        for (uint32_t f = 0; f < kFlows; ++f)
        {
            moved += leaf0->SelectEgressPort(Frame(topo, f)) != first[f] ? 1 : 0;
        }
    });
    Simulator::Run();
    EXPECT_TRUE(stable) << "no flow may move within a flowlet";
    // Binomial(64, 3/4): mean 48, sd 3.5.
    EXPECT_GT(moved, 34u);
    EXPECT_LT(moved, 62u);
    Simulator::Destroy();
}

TEST_F(FabricTest, SprayingSpreadsOneFlowOverEveryUplink)
{
    for (const auto sel : {FabricSwitch::SPRAY, FabricSwitch::ECMP})
    {
        Ptr<FabricTopology> topo = Fabric(sel);
        Ptr<FabricSwitch> leaf0 = topo->GetSwitch(0);
        std::map<int32_t, uint32_t> perPort;
        const FabricFrame fr = Frame(topo, 7);
        for (int i = 0; i < 4000; ++i)
        {
            ++perPort[leaf0->SelectEgressPort(fr)];
        }
        if (sel == FabricSwitch::ECMP)
        {
            EXPECT_EQ(perPort.size(), 1u) << "ECMP keeps a flow on one port";
            continue;
        }
        ASSERT_EQ(perPort.size(), 4u);
        double chi2 = 0;
        for (const auto& kv : perPort)
        {
            chi2 += (kv.second - 1000.0) * (kv.second - 1000.0) / 1000.0;
        }
        EXPECT_LT(chi2, 16.27) << "uniform over 4 ports (chi-square, 3 dof, p = 0.001)";
        Simulator::Destroy();
    }
}

TEST_F(FabricTest, QueuePairsPerConnectionTakeMessagesRoundRobin)
{
    // 8 messages from rank 0 to rank 5 on one channel over 4 queue pairs per connection: four
    // queue pairs at each end, each carrying two of the messages; every message arrives.
    Ptr<FabricTopology> topo = Fabric(FabricSwitch::ECMP);
    RdmaHelper rdma;
    rdma.Install(topo);
    Ptr<RdmaCollectiveTransport> t = CreateObject<RdmaCollectiveTransport>();
    t->SetAttribute("QpsPerConnection", UintegerValue(4));
    t->SetRanks(topo->GetEndpoints());

    struct Listener : CollectiveTransportListener
    {
        std::set<uint64_t> arrived;

        void MessageArrived(uint64_t token) override
        {
            arrived.insert(token);
        }
    } l;

    for (uint64_t m = 0; m < 8; ++m)
    {
        t->Send(0, 5, 1 << 20, &l, m, 0);
    }
    Simulator::Run();
    EXPECT_EQ(l.arrived.size(), 8u);
    Ptr<RdmaNic> nic = topo->GetHostNode(0)->GetObject<RdmaNic>();
    EXPECT_EQ(nic->GetNQueuePairs(), 4u);
    for (uint32_t q = 1; q <= 4; ++q)
    {
        EXPECT_EQ(nic->GetQueuePair(q)->GetStats().bytesCompleted, 2u << 20) << "queue pair " << q;
    }
    Simulator::Destroy();
}

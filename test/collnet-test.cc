// SPDX-License-Identifier: GPL-2.0-only
// CollNet on SHARP switches: the aggregation nodes and their trees, the bytes each NIC and
// aggregator carries, the NVLink-bound rate, and the tuner's model against the packet level.
#include "test-util.h"

#include <set>

using namespace ns3;

namespace
{

/// An InfiniBand rail fabric of `servers` x 8 H100 at 400G with an aggregation node per switch;
/// `leafRadix` 4 puts each rail on several leaves (reduced again at a spine; 64-port spines).
Ptr<FabricTopology>
SharpFabric(uint32_t servers, uint32_t leafRadix = 64)
{
    Ptr<RailOptimizedFatTreeHelper> rail = CreateObject<RailOptimizedFatTreeHelper>();
    rail->SetAttribute("LinkLayer", EnumValue(FabricNetDevice::INFINIBAND));
    rail->SetAttribute("Servers", UintegerValue(servers));
    rail->SetAttribute("GpusPerServer", UintegerValue(8));
    rail->SetAttribute("LeafRadix", UintegerValue(leafRadix));
    rail->SetAttribute("SpineRadix", UintegerValue(64));
    rail->SetAttribute("InNetworkAggregation", BooleanValue(true));
    return rail->Build();
}

struct SharpRun
{
    Cluster c;
    double seconds{0};
};

/// One CollNet AllReduce of `bytes` on `topo` (IB congestion control as the runner's default).
SharpRun
RunCollNet(Ptr<FabricTopology> topo, uint64_t bytes, uint32_t channels = 1)
{
    SharpRun r;
    r.c.topo = topo;
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::IbCongestionControl");
    rdma.Install(topo);
    rdma.InstallAggregators(topo);
    r.c.rdma = CreateObject<RdmaCollectiveTransport>();
    r.c.rdma->SetRanks(topo->GetEndpoints());
    r.c.nvlink = CreateObject<NvlinkTransport>();
    r.c.nvlink->SetRanks(topo->GetNHosts());
    for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
    {
        topo->GetHostNode(h)->AddApplication(CreateObject<GpuTrainingApp>());
    }
    r.c.job = CreateObject<TrainingJob>();
    r.c.job->SetAttribute("Steps", UintegerValue(1));
    r.c.job->SetAttribute("Bytes", UintegerValue(bytes));
    r.c.job->SetAttribute("Channels", UintegerValue(channels));
    r.c.job->SetAttribute("Algorithm", TypeIdValue(CollNetCollective::GetTypeId()));
    r.c.job->SetInNetworkTree(
        std::make_shared<const InNetworkTree>(InNetworkTreeHelper::Build(topo)));
    r.c.job->Setup(topo->GetHosts(), 8, r.c.rdma, r.c.nvlink);
    r.c.job->Start();
    Simulator::Run();
    r.seconds = r.c.job->GetSteps().at(0).CollectiveTime().GetSeconds();
    return r;
}

} // namespace

TEST_F(FabricTest, InNetworkTreesFollowTheRails)
{
    // One leaf per rail (radix 64, 4 servers): the leaf's aggregator is the root.
    Ptr<FabricTopology> one = SharpFabric(4);
    EXPECT_EQ(one->GetNHosts(), 32u);
    EXPECT_EQ(one->GetNAggregators(), one->GetNSwitches());
    const InNetworkTree t1 = InNetworkTreeHelper::Build(one);
    EXPECT_EQ(t1.Check(32, 8), "");
    for (uint32_t r = 0; r < 32; ++r)
    {
        EXPECT_EQ(t1.leafOf[r], t1.leafOf[r % 8]) << "rank " << r << ": one leaf per rail";
        EXPECT_EQ(t1.RootOf(r), t1.leafOf[r]);
    }
    EXPECT_EQ(std::set<uint32_t>(t1.leafOf.begin(), t1.leafOf.end()).size(), 8u);
    Simulator::Destroy();

    // Radix 4 (2 down): each rail's 4 servers on 2 leaves, reduced again at one spine.
    Ptr<FabricTopology> two = SharpFabric(4, 4);
    const InNetworkTree t2 = InNetworkTreeHelper::Build(two);
    EXPECT_EQ(t2.Check(32, 8), "");
    std::set<uint32_t> roots;
    for (uint32_t g = 0; g < 8; ++g)
    {
        std::set<uint32_t> leaves;
        for (uint32_t srv = 0; srv < 4; ++srv)
        {
            leaves.insert(t2.leafOf[srv * 8 + g]);
            EXPECT_EQ(t2.RootOf(srv * 8 + g), t2.RootOf(g));
        }
        EXPECT_EQ(leaves.size(), 2u) << "rail " << g;
        const uint32_t root = t2.RootOf(g);
        EXPECT_EQ(two->GetSwitchRole(root - 32), "spine");
        roots.insert(root);
    }
    EXPECT_GT(roots.size(), 1u) << "rails spread over the spines";
}

TEST_F(FabricTest, CollNetSendsEachNicsShareOnceEachWay)
{
    // 4 x 8 GPUs, S = 16 MiB: each GPU's NIC sends S/8 up and receives S/8 (a ring: ~2S/8
    // each way); each leaf aggregator sends its 4 servers the total, S/8 each; no spine bytes.
    const uint64_t s = 16 << 20;
    SharpRun r = RunCollNet(SharpFabric(4), s);
    Ptr<CollectiveExecutor> e = r.c.job->GetExecutor();
    ASSERT_TRUE(e->IsDone());
    for (uint32_t rank = 0; rank < 32; ++rank)
    {
        // Its scatters (7 x S/8), its send up (S/8), its gathers (7 x S/8).
        EXPECT_EQ(e->GetBytesSent(rank), 15 * s / 8) << "rank " << rank;
    }
    uint64_t aggregated = 0;
    for (uint32_t k = 0; k < r.c.topo->GetNAggregators(); ++k)
    {
        aggregated += e->GetBytesSent(32 + k);
    }
    EXPECT_EQ(aggregated, 4 * s) << "every server's S/8 per rail, once";
    EXPECT_EQ(e->GetNetworkBytes(), 2 * 4 * s);
    uint64_t spine = 0;
    for (uint32_t j = 0; j < r.c.topo->GetNSwitches(); ++j)
    {
        if (r.c.topo->GetSwitchRole(j) == "spine")
        {
            for (uint16_t p = 0; p < r.c.topo->GetSwitch(j)->GetNPorts(); ++p)
            {
                spine += r.c.topo->GetSwitch(j)->GetPort(p)->GetCounters().txBytes;
            }
        }
    }
    EXPECT_EQ(spine, 0u);
}

TEST_F(FabricTest, CollNetRunsAtTheNvlinkBound)
{
    // Each GPU's NVLink carries 2(G-1)/G S (scatter and gather); its NIC S/G each way, half a
    // ring's. So busbw = 2(N-1)/N / (2(G-1)/G) x NVLink x 0.82 (419 GB/s on 16 GPUs... here
    // 2 servers: 2(15/16)/(14/8) x 369 = 395 GB/s), above the 8 NICs' ring bound.
    const uint64_t s = 256 << 20;
    SharpRun r = RunCollNet(SharpFabric(2), s);
    const double busbw = double(s) / r.seconds * 2 * 15 / 16 / 1e9;
    const double bound = 2.0 * 15 / 16 / (2.0 * 7 / 8) * 450 * 0.82;
    std::cout << "collnet 2 x 8, 256 MiB: " << r.seconds * 1e6 << " us, busbw " << busbw
              << " GB/s (NVLink bound " << bound << ")" << std::endl;
    EXPECT_GT(busbw, 0.93 * bound);
    EXPECT_LT(busbw, bound);
}

TEST_F(FabricTest, TunerEstimatesMatchThePacketLevelModelForCollNet)
{
    for (uint32_t radix : {64u, 4u})
    {
        Ptr<CollectiveTuner> tuner = CreateObject<CollectiveTuner>();
        tuner->SetAttribute("ProtocolLatency", BooleanValue(false));
        tuner->SetAttribute("NicRate", DataRateValue(DataRate(uint64_t(400e9 * 4096 / 4122))));
        tuner->SetAttribute("AggregationLevels", UintegerValue(radix == 64 ? 1 : 2));
        for (uint64_t bytes : {uint64_t(64) << 10, uint64_t(64) << 20, uint64_t(256) << 20})
        {
            CollectiveSpec spec;
            spec.bytes = bytes;
            spec.ranks = 32;
            spec.gpusPerServer = 8;
            const double model = tuner->EstimateSeconds("collnet", spec);
            const double sim = RunCollNet(SharpFabric(4, radix), bytes).seconds;
            Simulator::Destroy();
            std::cout << "collnet 4 x 8, radix " << radix << ", " << (bytes >> 10) << " KiB: model "
                      << model * 1e6 << " us, simulated " << sim * 1e6 << " us" << std::endl;
            EXPECT_NEAR(model / sim, 1.0, 0.05) << "radix " << radix << ", " << bytes << " B";
        }
    }
}

TEST_F(FabricTest, CollNetNeedsTheSwitchesTrees)
{
    Ptr<CollNetCollective> a = CreateObject<CollNetCollective>();
    CollectiveSpec spec;
    spec.bytes = 1 << 20;
    spec.ranks = 16;
    spec.gpusPerServer = 8;
    EXPECT_NE(a->Check(spec).find("in-network aggregation"), std::string::npos);
    Ptr<FabricTopology> topo = SharpFabric(2);
    spec.inNetwork = std::make_shared<const InNetworkTree>(InNetworkTreeHelper::Build(topo));
    EXPECT_EQ(a->Check(spec), "");
    spec.op = CollectiveSpec::ALLGATHER;
    EXPECT_EQ(a->Check(spec), "collnet runs AllReduce only");
    spec.op = CollectiveSpec::ALLREDUCE;
    spec.protocol = CollectiveProtocol::LL;
    EXPECT_NE(a->Check(spec).find("simple protocol only"), std::string::npos);
    spec.protocol = CollectiveProtocol::SIMPLE;
    spec.ranks = 24; // the tree is for 16 GPUs
    EXPECT_NE(a->Check(spec).find("16 GPUs"), std::string::npos);
    // A topology without aggregation nodes has no trees.
    Ptr<RailOptimizedFatTreeHelper> plain = CreateObject<RailOptimizedFatTreeHelper>();
    plain->SetAttribute("Servers", UintegerValue(2));
    EXPECT_THROW(InNetworkTreeHelper::Build(plain->Build()), FabricConfigError);
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("InNetworkAggregation", BooleanValue(true));
    EXPECT_THROW(ft->Validate(), FabricConfigError);
}

// SPDX-License-Identifier: GPL-2.0-only
// Multi-plane fabrics with multi-port NICs (Alibaba HPN's dual plane): a queue pair sends on one
// port at the port's rate, NCCL's merged NIC stripes a collective over every port and matches a
// single-plane fabric of the same NIC rate, a port whose link goes down hands its queue pairs to
// the other plane without a timeout, and a failure beyond the NIC's own link is routed around
// by migrating after a timeout.
#include "test-util.h"

using namespace ns3;

namespace
{

/// `servers` servers of `gpus` GPUs on radix-`radix` switches in `planes` planes, 400G NICs.
Ptr<FabricTopology>
PlaneFabric(uint32_t servers,
            uint32_t gpus,
            uint32_t radix,
            uint32_t planes,
            FabricNetDevice::LinkLayer ll = FabricNetDevice::ETHERNET)
{
    Ptr<RailOptimizedFatTreeHelper> h = CreateObject<RailOptimizedFatTreeHelper>();
    h->SetLinkLayer(ll);
    h->SetAttribute("Servers", UintegerValue(servers));
    h->SetAttribute("GpusPerServer", UintegerValue(gpus));
    h->SetAttribute("LeafRadix", UintegerValue(radix));
    h->SetAttribute("Planes", UintegerValue(planes));
    return h->Build();
}

/// Line-rate time of `bytes` of RDMA WRITE payload in full packets at `bps`.
double
WireSeconds(Ptr<RdmaNic> nic, uint64_t bytes, double bps)
{
    const uint64_t packets = (bytes + nic->GetPathMtu() - 1) / nic->GetPathMtu();
    return double(packets) * nic->GetMaxPacketWireBytes() * 8 / bps;
}

struct PortMoves
{
    std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> v;

    void Add(uint32_t qpn, uint32_t from, uint32_t to)
    {
        v.emplace_back(qpn, from, to);
    }
};

} // namespace

// One queue pair sends on one port, at the port's 200 Gb/s; two queue pairs of one NIC take
// both ports (round robin) and move the same bytes in half the time.
TEST_F(FabricTest, QueuePairSendsOnOnePortAtThePortRate)
{
    const uint64_t bytes = 8 << 20;
    auto run = [&](uint32_t qps) {
        Ptr<FabricTopology> topo = PlaneFabric(2, 1, 4, 2);
        RdmaHelper rdma;
        rdma.SetCongestionControl("ns3::RdmaNoCc");
        rdma.Install(topo);
        Completions done;
        std::vector<Ptr<RdmaQueuePair>> q;
        for (uint32_t i = 0; i < qps; ++i)
        {
            auto [a, b] = RdmaHelper::Connect(topo->GetHostNode(0), topo->GetHostNode(1));
            EXPECT_EQ(a->GetPort(), i % 2) << "ports in turn";
            EXPECT_EQ(a->GetLineRate().GetBitRate(), uint64_t(200e9));
            a->SetCompletionCallback(done.Cb());
            a->PostWrite(bytes / qps);
            q.push_back(a);
        }
        Simulator::Run();
        EXPECT_EQ(done.v.size(), qps);
        double end = 0;
        for (const auto& c : done.v)
        {
            EXPECT_EQ(c.status, RdmaCompletion::SUCCESS);
            end = std::max(end, c.completed.GetSeconds());
        }
        const uint64_t port1 = topo->GetHostDevice(0, 1)->GetCounters().txDataFrames;
        const double ideal =
            WireSeconds(topo->GetHostNode(0)->GetObject<RdmaNic>(), bytes / qps, 200e9);
        Simulator::Destroy();
        return std::make_tuple(end, port1, ideal);
    };
    const auto [one, oneOnPort1, ideal1] = run(1);
    EXPECT_EQ(oneOnPort1, 0u) << "the other port stays idle";
    EXPECT_GT(one, ideal1);
    EXPECT_LT(one, ideal1 * 1.02 + 5e-6) << one << " s against " << ideal1;
    const auto [two, twoOnPort1, ideal2] = run(2);
    EXPECT_EQ(twoOnPort1, bytes / 2 / 4096);
    EXPECT_NEAR(two / one, 0.5, 0.02);
}

struct PlaneCase
{
    const char* name;
    FabricNetDevice::LinkLayer ll;
};

void
PrintTo(const PlaneCase& c, std::ostream* os)
{
    *os << c.name;
}

class PlaneCollectiveTest : public FabricTest, public ::testing::WithParamInterface<PlaneCase>
{
};

// NCCL's merged NIC over two planes of 200G ports carries a bandwidth-bound AllReduce as one
// plane of 400G NICs does (within the per-piece packet rounding), each port half the bytes.
TEST_P(PlaneCollectiveTest, TwoPlanesCarryAnAllReduceAsOnePlaneDoes)
{
    auto run = [](uint32_t planes, FabricNetDevice::LinkLayer ll) {
        RdmaHelper rdma;
        rdma.SetCongestionControl("ns3::RdmaNoCc");
        Cluster c = MakeJob(PlaneFabric(4, 2, 8, planes, ll),
                            "ns3::RingCollective",
                            "allreduce",
                            64 << 20,
                            1,
                            Time(0),
                            true,
                            rdma);
        c.job->SetAttribute("Channels", UintegerValue(4));
        c.job->Setup(c.topo->GetHosts(), 2, c.rdma, c.nvlink);
        c.job->Start();
        Simulator::Run();
        EXPECT_TRUE(c.job->IsFinished());
        const double t = c.job->GetSteps().at(0).CollectiveTime().GetSeconds();
        double imbalance = 0;
        for (uint32_t h = 0; h < c.topo->GetNHosts() && planes > 1; ++h)
        {
            const double p0 = double(c.topo->GetHostDevice(h, 0)->GetCounters().txBytes);
            const double p1 = double(c.topo->GetHostDevice(h, 1)->GetCounters().txBytes);
            imbalance = std::max(imbalance, std::abs(p0 - p1) / (p0 + p1));
        }
        Simulator::Destroy();
        return std::make_pair(t, imbalance);
    };
    const PlaneCase k = GetParam();
    const auto [one, none] = run(1, k.ll);
    const auto [two, imbalance] = run(2, k.ll);
    std::cout << k.name << ": one plane " << one * 1e3 << " ms, two planes " << two * 1e3
              << " ms, port imbalance " << imbalance << std::endl;
    EXPECT_NEAR(two / one, 1.0, 0.02);
    EXPECT_LT(imbalance, 0.01) << "each port carries half";
}

INSTANTIATE_TEST_SUITE_P(LinkLayers,
                         PlaneCollectiveTest,
                         ::testing::Values(PlaneCase{"RoCEv2", FabricNetDevice::ETHERNET},
                                           PlaneCase{"InfiniBand", FabricNetDevice::INFINIBAND}),
                         [](const ::testing::TestParamInfo<PlaneCase>& i) {
                             return std::string(i.param.name);
                         });

// A port's link goes down mid-transfer: its queue pair moves to the other port (PortChange),
// the packets lost with the link come back by go-back-N's NAK, not a timeout, and it returns
// home when the link is back. Without PortFailover the queue pair sends into the dead link
// until it exhausts its retries, as a single-port NIC would.
TEST_F(FabricTest, PortFailoverMovesQueuePairsToTheLivePlane)
{
    const uint64_t bytes = 32 << 20;
    auto run = [&](bool failover, bool repair) {
        Ptr<FabricTopology> topo = PlaneFabric(2, 1, 4, 2);
        RdmaHelper rdma;
        rdma.SetCongestionControl("ns3::RdmaNoCc");
        rdma.SetNicAttribute("PortFailover", BooleanValue(failover));
        rdma.Install(topo);
        Completions done;
        PortMoves moves;
        Ptr<RdmaNic> nic = topo->GetHostNode(0)->GetObject<RdmaNic>();
        nic->TraceConnectWithoutContext("PortChange", MakeCallback(&PortMoves::Add, &moves));
        auto [a, b] = RdmaHelper::Connect(topo->GetHostNode(0), topo->GetHostNode(1), 0, 0, 0);
        a->SetCompletionCallback(done.Cb());
        a->PostWrite(bytes);
        const uint32_t link = topo->GetVertexLinks(0)[0]; // gpu0's port 0
        Simulator::Schedule(MicroSeconds(100), &FabricTopology::SetLinkUp, topo, link, false);
        if (repair)
        {
            Simulator::Schedule(MicroSeconds(400), &FabricTopology::SetLinkUp, topo, link, true);
        }
        Simulator::Run();
        auto out = std::make_tuple(done.v,
                                   moves.v,
                                   nic->GetCounters(),
                                   a->GetPort(),
                                   WireSeconds(nic, bytes, 200e9));
        Simulator::Destroy();
        return out;
    };
    {
        const auto [done, moves, counters, port, ideal] = run(true, false);
        ASSERT_EQ(done.size(), 1u);
        EXPECT_EQ(done[0].status, RdmaCompletion::SUCCESS);
        ASSERT_EQ(moves.size(), 1u);
        EXPECT_EQ(moves[0], std::make_tuple(1u, 0u, 1u));
        EXPECT_EQ(port, 1u);
        EXPECT_EQ(counters.timeouts, 0u) << "a NAK, not a timeout, recovers the lost packets";
        EXPECT_EQ(counters.portChanges, 1u);
        // The lost packets and a round trip: microseconds on top of the line-rate time.
        EXPECT_LT(done[0].completed.GetSeconds(), ideal * 1.02 + 10e-6);
    }
    {
        const auto [done, moves, counters, port, ideal] = run(true, true);
        ASSERT_EQ(done.size(), 1u);
        EXPECT_EQ(done[0].status, RdmaCompletion::SUCCESS);
        ASSERT_EQ(moves.size(), 2u);
        EXPECT_EQ(moves[1], std::make_tuple(1u, 1u, 0u)) << "back on its home port";
        EXPECT_EQ(port, 0u);
    }
    {
        const auto [done, moves, counters, port, ideal] = run(false, false);
        ASSERT_EQ(done.size(), 1u);
        EXPECT_EQ(done[0].status, RdmaCompletion::RETRY_EXCEEDED);
        EXPECT_TRUE(moves.empty());
        EXPECT_EQ(counters.timeouts, 7u);
    }
}

// The peer's port fails (the sender's own link is up, so nothing tells its NIC): its packets
// into that plane are lost until a retransmission timeout; with MigrateOnTimeout the queue pair
// then moves to the other plane and completes one timeout (67.1 ms) late, without it the queue
// pair exhausts its retries.
TEST_F(FabricTest, MigrateOnTimeoutRoutesAroundARemoteFailure)
{
    auto run = [](bool migrate) {
        Ptr<FabricTopology> topo = PlaneFabric(4, 1, 4, 2); // 2 leaves per rail and plane
        RdmaHelper rdma;
        rdma.SetCongestionControl("ns3::RdmaNoCc");
        rdma.SetNicAttribute("MigrateOnTimeout", BooleanValue(migrate));
        rdma.Install(topo);
        Completions done;
        auto [a, b] = RdmaHelper::Connect(topo->GetHostNode(0), topo->GetHostNode(3), 0, 0, 0);
        a->SetCompletionCallback(done.Cb());
        topo->SetLinkUp(topo->GetVertexLinks(3)[0], false); // gpu3's port in plane 0
        a->PostWrite(1 << 20);
        Simulator::Run();
        auto out = std::make_tuple(done.v, a->GetPort(), a->GetStats().timeouts);
        Simulator::Destroy();
        return out;
    };
    const auto [done, port, timeouts] = run(true);
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].status, RdmaCompletion::SUCCESS);
    EXPECT_EQ(port, 1u);
    EXPECT_EQ(timeouts, 1u);
    const double rto = (4096e-9 * (1 << 14));
    EXPECT_GT(done[0].completed.GetSeconds(), rto);
    EXPECT_LT(done[0].completed.GetSeconds(), rto + 100e-6);
    const auto [failed, stayed, tries] = run(false);
    ASSERT_EQ(failed.size(), 1u);
    EXPECT_EQ(failed[0].status, RdmaCompletion::RETRY_EXCEEDED);
    EXPECT_EQ(stayed, 0u);
}

// Flow workloads on a multi-plane NIC: the offered load is a share of the NIC's whole rate
// (both ports), and a flow, one queue pair on one port, takes its ideal FCT at that port's rate
// whichever port it got (the ideal follows the plane the requester sends in).
TEST_F(FabricTest, FlowsOnTwoPlanesKeepTheLoadAndTheirIdealFct)
{
    Ptr<FabricTopology> topo = PlaneFabric(4, 1, 4, 2); // 2 leaves per rail and plane
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    rdma.Install(topo);
    Ptr<FlowWorkload> w = CreateObject<FlowWorkload>();
    w->SetAttribute("Load", DoubleValue(0.5));
    w->SetDistribution(FlowSizeDistribution::Named("websearch"));
    w->SetAttribute("Duration", TimeValue(Time(0))); // the arrival rate, no arrival
    w->Install(topo);
    w->Start();
    EXPECT_DOUBLE_EQ(w->GetArrivalRate(),
                     0.5 * 400e9 / (8 * FlowSizeDistribution::Named("websearch").GetMean()));
    std::vector<uint32_t> flows;
    Time t(0);
    for (uint32_t dst : {1u, 3u}) // same leaf; the other leaf (through a spine)
    {
        for (int i = 0; i < 2; ++i) // the second flow's queue pair is on the other port
        {
            Simulator::Schedule(t, [&flows, w, dst, i]() {
                // Run one after the other: each flow alone, a queue pair each (port 0, 1).
                flows.push_back(w->StartFlow(0, dst, 1000000 + i));
            });
            t += MilliSeconds(1);
        }
    }
    Simulator::Run();
    ASSERT_EQ(w->GetNCompleted(), flows.size());
    std::set<uint32_t> ports;
    for (uint32_t i : flows)
    {
        const FlowRecord& r = w->GetFlows()[i];
        const int64_t hops = r.dst == 1 ? 2 * 2 : 2 * 4;
        EXPECT_NEAR(double((r.end - r.start).GetNanoSeconds()),
                    double(r.ideal.GetNanoSeconds()),
                    double(hops))
            << r.bytes << " B to " << r.dst;
        // At 200G: 1 MB is 245 packets of 4,182 wire bytes, 41 us of serialization.
        EXPECT_GT(r.ideal.GetSeconds(), 1e6 / 4096 * 4182 * 8 / 200e9);
    }
    for (uint32_t q = 1; q <= topo->GetHostNode(0)->GetObject<RdmaNic>()->GetNQueuePairs(); ++q)
    {
        ports.insert(topo->GetHostNode(0)->GetObject<RdmaNic>()->GetQueuePair(q)->GetPort());
    }
    EXPECT_EQ(ports.size(), 2u) << "flows went out of both ports";
}

// Both ports down, then the one that is not the queue pair's home comes back: the queue pair,
// stranded on a dead port, moves to it and completes after a retransmission timeout.
TEST_F(FabricTest, QueuePairStrandedOnADeadPortTakesTheFirstPortBack)
{
    Ptr<FabricTopology> topo = PlaneFabric(2, 1, 4, 2);
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    rdma.Install(topo);
    Completions done;
    auto [a, b] = RdmaHelper::Connect(topo->GetHostNode(0), topo->GetHostNode(1), 0, 0, 0);
    a->SetCompletionCallback(done.Cb());
    a->PostWrite(8 << 20);
    const auto links = topo->GetVertexLinks(0);
    // Port 1 goes first, so when port 0 fails there is nowhere to go: it stays on port 0.
    Simulator::Schedule(MicroSeconds(50), &FabricTopology::SetLinkUp, topo, links[1], false);
    Simulator::Schedule(MicroSeconds(80), &FabricTopology::SetLinkUp, topo, links[0], false);
    Simulator::Schedule(MicroSeconds(300), &FabricTopology::SetLinkUp, topo, links[1], true);
    Simulator::Run();
    ASSERT_EQ(done.v.size(), 1u);
    EXPECT_EQ(done.v[0].status, RdmaCompletion::SUCCESS);
    EXPECT_EQ(a->GetPort(), 1u);
    EXPECT_EQ(a->GetHomePort(), 0u);
    EXPECT_GE(a->GetStats().timeouts, 1u) << "what was lost while both were down";
}

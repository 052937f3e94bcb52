// SPDX-License-Identifier: GPL-2.0-only
// Rings as NCCL lays them: rail-local channels (no spine, busbw up to the NIC count), the
// rank-order ring's channels, and lazy rings against their written-out schedule.
#include "test-util.h"

#include <set>

using namespace ns3;

namespace
{

/// A ring AllReduce of 64 MiB on `channels` channels, 4 servers x 8 GPUs at 400G, no CC, run.
Cluster
RunRingOnFourServers(uint32_t channels)
{
    Ptr<RailOptimizedFatTreeHelper> rail = CreateObject<RailOptimizedFatTreeHelper>();
    rail->SetAttribute("Servers", UintegerValue(4));
    rail->SetAttribute("GpusPerServer", UintegerValue(8));
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    Cluster c = MakeJob(rail->Build(),
                        "ns3::RingCollective",
                        "allreduce",
                        64 << 20,
                        1,
                        Time(0),
                        true,
                        rdma);
    c.job->SetAttribute("Channels", UintegerValue(channels));
    c.job->Setup(c.topo->GetHosts(), 8, c.rdma, c.nvlink);
    c.job->Start();
    Simulator::Run();
    return c;
}

} // namespace

TEST_F(FabricTest, ChannelsSpreadAFlatRingOverMorePaths)
{
    Config::SetDefault("ns3::RingCollective::RailLocal", BooleanValue(false));
    auto run = [](uint32_t channels) {
        Cluster c = RunRingOnFourServers(channels);
        const double t = c.job->GetSteps().at(0).CollectiveTime().GetSeconds();
        const uint64_t sent = c.job->GetBytesSentPerRank()[7];
        const uint32_t qps = c.rdma->GetNQueuePairs();
        Simulator::Destroy();
        return std::make_tuple(t, sent, qps);
    };
    auto [t1, b1, q1] = run(1);
    auto [t8, b8, q8] = run(8);
    EXPECT_EQ(b1, b8) << "channels split the buffer, not the work";
    EXPECT_EQ(q8, 8 * q1) << "each channel has its own queue pairs";
    std::cout << "flat ring, 32 GPUs, 64 MiB: 1 channel " << t1 * 1e3 << " ms, 8 channels "
              << t8 * 1e3 << " ms" << std::endl;
    EXPECT_LT(t8, t1) << "more flows per cross-rail hop average out ECMP collisions";
}

namespace
{

/// Wire bytes sent by every port of the switches with `role`.
uint64_t
SwitchTxBytes(Ptr<FabricTopology> topo, const std::string& role)
{
    uint64_t bytes = 0;
    for (uint32_t j = 0; j < topo->GetNSwitches(); ++j)
    {
        if (topo->GetSwitchRole(j) != role)
        {
            continue;
        }
        Ptr<Node> n = topo->GetSwitchNode(j);
        for (uint32_t d = 0; d < n->GetNDevices(); ++d)
        {
            if (Ptr<FabricNetDevice> dev = DynamicCast<FabricNetDevice>(n->GetDevice(d)))
            {
                bytes += dev->GetCounters().txBytes;
            }
        }
    }
    return bytes;
}

} // namespace

TEST_F(FabricTest, RailLocalRingChannelsEachLeaveThroughTheirOwnRail)
{
    // Schedule level: 4 servers x 8 GPUs, 8 channels. Every network transfer leaves through a
    // NIC on the destination's rail, channel c's on rail c, and each ring visits every rank.
    CollectiveSpec spec;
    spec.ranks = 32;
    spec.gpusPerServer = 8;
    spec.bytes = 32 << 20;
    spec.channels = 8;
    Ptr<RingCollective> ring = CreateObject<RingCollective>();
    const CollectiveSchedule lazy = ring->Build(spec);
    EXPECT_TRUE(lazy.transfers.empty()) << "a ring is run lazily";
    EXPECT_EQ(lazy.rings.size(), 8u);
    const CollectiveSchedule s = lazy.Materialized();
    EXPECT_EQ(s.transfers.size(), lazy.TransferCount());
    EXPECT_EQ(s.BytesSentPerRank(32), lazy.BytesSentPerRank(32));
    std::vector<std::set<uint32_t>> railsOfChannel(8);
    uint64_t network = 0;
    for (const CollectiveTransfer& t : s.transfers)
    {
        if (t.src / 8 == t.dst / 8)
        {
            EXPECT_EQ(t.nicDelta, 0);
            continue;
        }
        ++network;
        const uint32_t nic = t.src + t.nicDelta;
        EXPECT_EQ(nic / 8, t.src / 8) << "the NIC is in the sender's server";
        EXPECT_EQ(nic % 8, t.dst % 8) << "same rail at both ends";
        EXPECT_EQ(t.dst / 8, (t.src / 8 + 1) % 4) << "to the next server";
        railsOfChannel[t.channel].insert(nic % 8);
    }
    for (uint32_t c = 0; c < 8; ++c)
    {
        EXPECT_EQ(railsOfChannel[c], std::set<uint32_t>{c}) << "channel " << c;
        std::vector<uint32_t> order;
        std::vector<uint32_t> nic;
        ring->Order(spec, c, order, nic);
        EXPECT_EQ(std::set<uint32_t>(order.begin(), order.end()).size(), 32u);
    }
    // 2(N-1) steps x one hop per server boundary (4 per step) x 8 channels.
    EXPECT_EQ(network, 2u * 31 * 4 * 8);
    const std::vector<uint64_t> sent = s.BytesSentPerRank(32);
    for (uint32_t r = 0; r < 32; ++r)
    {
        EXPECT_EQ(sent[r], 2 * 31 * (spec.bytes / 32)) << "rank " << r;
    }
}

TEST_F(FabricTest, RailLocalRingUsesNoSpineAndScalesWithChannelsUpToTheNicCount)
{
    // 4 servers x 8 GPUs at 400G, one leaf per rail: a rail-local ring never needs a spine, and
    // its busbw grows with the channels until every NIC carries one (alpha-beta model below).
    auto run = [](uint32_t channels, bool pxn) {
        Config::SetDefault("ns3::RingCollective::Pxn", BooleanValue(pxn));
        Cluster c = RunRingOnFourServers(channels);
        EXPECT_TRUE(c.job->IsFinished());
        const double t = c.job->GetSteps().at(0).CollectiveTime().GetSeconds();
        const uint64_t spine = SwitchTxBytes(c.topo, "spine");
        const uint64_t leaf = SwitchTxBytes(c.topo, "leaf");
        Simulator::Destroy();
        return std::make_tuple(t, spine, leaf);
    };
    const double s = 64 << 20;
    const double n = 32;
    // Per ring step a channel moves S/(channels N) over every hop; the NIC hop (400G at
    // 4096/4182 goodput) is the slowest, and the channels run in parallel on distinct NICs.
    const double nic = 400e9 / 8 * 4096 / 4182;
    double prev = 1e9;
    for (uint32_t ch : {1u, 2u, 4u, 8u})
    {
        auto [t, spine, leaf] = run(ch, false);
        const double model = 2 * (n - 1) / n * s / ch / nic;
        std::cout << ch << " channels: " << t * 1e3 << " ms (model " << model * 1e3
                  << " ms), busbw " << 2 * (n - 1) / n * s / t / 1e9 << " GB/s" << std::endl;
        EXPECT_EQ(spine, 0u) << ch << " channels";
        EXPECT_GT(leaf, 0u);
        EXPECT_NEAR(t / model, 1.0, 0.05) << ch << " channels";
        EXPECT_LT(t, prev);
        prev = t;
    }
    // PXN: the exit GPU's data takes one more NVLink hop to the rail's GPU; still no spine.
    auto [tp, spineP, leafP] = run(8, true);
    EXPECT_EQ(spineP, 0u);
    EXPECT_NEAR(tp / prev, 1.0, 0.15) << "PXN " << tp * 1e3 << " ms";
}

// A lazily run ring and its written-out DAG give the same simulation to the nanosecond: every
// rank's end, the bytes each sent, the queue pairs; with chunks, channels and PXN hops.
TEST_F(FabricTest, LazyRingMatchesItsWrittenOutScheduleToTheNanosecond)
{
    struct Outcome
    {
        std::vector<int64_t> ends;
        std::vector<uint64_t> sent;
        uint32_t qps;
        uint64_t nvlinkBytes;
    };

    auto run = [](bool lazy, bool pxn) {
        Config::SetDefault("ns3::RingCollective::Pxn", BooleanValue(pxn));
        Ptr<RailOptimizedFatTreeHelper> rail = CreateObject<RailOptimizedFatTreeHelper>();
        rail->SetAttribute("Servers", UintegerValue(3));
        rail->SetAttribute("GpusPerServer", UintegerValue(4));
        Cluster c = MakeJob(rail->Build(),
                            "ns3::RingCollective",
                            "allreduce",
                            3 << 20,
                            2,
                            MicroSeconds(5),
                            true);
        c.job->SetAttribute("Channels", UintegerValue(4));
        c.job->SetAttribute("Chunks", UintegerValue(3));
        c.job->SetAttribute("LazySchedules", BooleanValue(lazy));
        c.job->Setup(c.topo->GetHosts(), 4, c.rdma, c.nvlink);
        c.job->Start();
        Simulator::Run();
        EXPECT_TRUE(c.job->IsFinished());
        Outcome o;
        for (const TrainingStepRecord& r : c.job->GetSteps())
        {
            for (Time t : r.collectiveEnd)
            {
                o.ends.push_back(t.GetTimeStep());
            }
        }
        o.sent = c.job->GetBytesSentPerRank();
        o.qps = c.rdma->GetNQueuePairs();
        o.nvlinkBytes = c.job->GetExecutor()->GetNvlinkBytes();
        Simulator::Destroy();
        return o;
    };
    for (bool pxn : {false, true})
    {
        const Outcome a = run(true, pxn);
        const Outcome b = run(false, pxn);
        ASSERT_EQ(a.ends.size(), 2u * 12) << "two steps of 12 ranks";
        EXPECT_EQ(a.ends, b.ends) << "pxn " << pxn;
        EXPECT_EQ(a.sent, b.sent);
        EXPECT_EQ(a.qps, b.qps);
        EXPECT_EQ(a.nvlinkBytes, b.nvlinkBytes);
    }
}

// The hierarchical AllReduce's rail rings run lazily: the schedule holds the intra-server
// phases as transfers, one ring per rail and channel and a RING_DONE mark per rank and chunk,
// never the 2(M-1)·M·chunks transfers of a rail ring; written out it is AppendRing's DAG.
TEST(HierarchicalScheduleTest, RailRingsAreLazyAndWriteOutToTheSameTransfers)
{
    HierarchicalCollective alg;
    CollectiveSpec spec;
    spec.op = CollectiveSpec::ALLREDUCE;
    spec.bytes = 3 << 20;
    spec.ranks = 6 * 4; // M = 6 servers of G = 4
    spec.gpusPerServer = 4;
    spec.chunks = 3;
    spec.channels = 2;
    const CollectiveSchedule lazy = alg.Build(spec);
    const uint32_t m = 6;
    const uint32_t g = 4;
    ASSERT_EQ(lazy.rings.size(), g * spec.channels) << "a ring per rail and channel";
    uint64_t marks = 0;
    for (const CollectiveTransfer& t : lazy.transfers)
    {
        marks += t.kind == CollectiveTransfer::RING_DONE;
    }
    // Intra-server reduce-scatter and all-gather: 2 x M x G x (G-1) transfers a chunk and
    // channel; a mark per rank, chunk and channel.
    EXPECT_EQ(lazy.transfers.size() - marks, uint64_t(2) * m * g * (g - 1) * 3 * 2);
    EXPECT_EQ(marks, uint64_t(m) * g * 3 * 2);
    const uint64_t railTransfers = uint64_t(g) * 2 * (m - 1) * m * 3 * 2;
    EXPECT_EQ(lazy.TransferCount(), lazy.transfers.size() - marks + railTransfers);
    for (const CollectiveRing& r : lazy.rings)
    {
        EXPECT_EQ(r.Size(), m);
        EXPECT_EQ(r.steps, 2 * (m - 1));
        EXPECT_EQ(r.after.size(), r.Size() * r.chunks) << "it waits for the reduce-scatter";
        EXPECT_NE(r.done, UINT32_MAX);
    }
    const CollectiveSchedule s = lazy.Materialized();
    EXPECT_TRUE(s.rings.empty());
    EXPECT_EQ(s.transfers.size(), lazy.TransferCount());
    EXPECT_EQ(s.BytesSentPerRank(spec.ranks), lazy.BytesSentPerRank(spec.ranks));
    for (uint32_t i = 0; i < s.transfers.size(); ++i)
    {
        const CollectiveTransfer& t = s.transfers[i];
        EXPECT_NE(t.kind, CollectiveTransfer::RING_DONE);
        for (uint32_t k = 0; k < t.depCount; ++k)
        {
            ASSERT_LT(s.deps[t.depBegin + k], i) << "dependencies point backwards";
            // A transfer waits for data that arrived at its source.
            EXPECT_EQ(s.transfers[s.deps[t.depBegin + k]].dst, t.src);
        }
    }
    // Each NIC carries 2(M-1)/M of its rail's slice S/G (the class's formula).
    const std::vector<uint64_t> sent = lazy.BytesSentPerRank(spec.ranks);
    const double nvlink = 2.0 * (g - 1) / g * spec.bytes;
    const double rail = 2.0 * (m - 1) / m * spec.bytes / g;
    for (uint32_t r = 0; r < spec.ranks; ++r)
    {
        EXPECT_NEAR(double(sent[r]), nvlink + rail, 64.0) << "rank " << r;
    }
}

// The lazy hierarchical AllReduce and its written-out DAG give the same simulation to the
// nanosecond, with ranks ready at different times (compute jitter), chunks and channels.
TEST_F(FabricTest, LazyHierarchicalMatchesItsWrittenOutScheduleToTheNanosecond)
{
    auto run = [](bool lazy) {
        Ptr<RailOptimizedFatTreeHelper> rail = CreateObject<RailOptimizedFatTreeHelper>();
        rail->SetAttribute("Servers", UintegerValue(4));
        rail->SetAttribute("GpusPerServer", UintegerValue(4));
        Cluster c = MakeJob(rail->Build(),
                            "ns3::HierarchicalCollective",
                            "allreduce",
                            3 << 20,
                            2,
                            MicroSeconds(20),
                            true);
        for (uint32_t r = 0; r < c.topo->GetNHosts(); ++r)
        {
            // Ranks ready at different times (fixed, so both runs draw the same).
            c.topo->GetHostNode(r)->GetApplication(0)->SetAttribute(
                "Jitter",
                StringValue("ns3::ConstantRandomVariable[Constant=" +
                            std::to_string((r * 7 % 16) * 0.03) + "]"));
        }
        c.job->SetAttribute("Channels", UintegerValue(2));
        c.job->SetAttribute("Chunks", UintegerValue(3));
        c.job->SetAttribute("LazySchedules", BooleanValue(lazy));
        c.job->Setup(c.topo->GetHosts(), 4, c.rdma, c.nvlink);
        c.job->Start();
        Simulator::Run();
        EXPECT_TRUE(c.job->IsFinished());
        std::vector<int64_t> ends;
        for (const TrainingStepRecord& r : c.job->GetSteps())
        {
            for (Time t : r.collectiveEnd)
            {
                ends.push_back(t.GetTimeStep());
            }
            ends.push_back(r.barrier.GetTimeStep());
        }
        auto out = std::make_tuple(ends,
                                   c.job->GetBytesSentPerRank(),
                                   c.job->GetExecutor()->GetNvlinkBytes(),
                                   c.job->GetExecutor()->GetNetworkBytes());
        Simulator::Destroy();
        return out;
    };
    const auto a = run(true);
    const auto b = run(false);
    ASSERT_EQ(std::get<0>(a).size(), 2u * 17) << "two steps of 16 ranks";
    EXPECT_EQ(std::get<0>(a), std::get<0>(b));
    EXPECT_EQ(std::get<1>(a), std::get<1>(b));
    EXPECT_EQ(std::get<2>(a), std::get<2>(b));
    EXPECT_EQ(std::get<3>(a), std::get<3>(b));
}

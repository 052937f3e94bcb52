// SPDX-License-Identifier: GPL-2.0-only
// CollectiveTuner: its alpha-beta estimates against the packet-level model, and its choices.
#include "test-util.h"

using namespace ns3;

namespace
{

/// The packet-level AllReduce time of `algorithm` on `servers` x 8 GPUs at 400G RoCEv2.
double
SimulatedSeconds(const std::string& algorithm,
                 uint64_t bytes,
                 uint32_t channels,
                 uint32_t servers = 4)
{
    Ptr<RailOptimizedFatTreeHelper> rail = CreateObject<RailOptimizedFatTreeHelper>();
    rail->SetAttribute("Servers", UintegerValue(servers));
    rail->SetAttribute("GpusPerServer", UintegerValue(8));
    Cluster c = MakeJob(rail->Build(), algorithm, "allreduce", bytes, 1, Time(0), true);
    c.job->SetAttribute("Channels", UintegerValue(channels));
    c.job->Setup(c.topo->GetHosts(), 8, c.rdma, c.nvlink);
    c.job->Start();
    Simulator::Run();
    const double t = c.job->GetSteps().at(0).CollectiveTime().GetSeconds();
    Simulator::Destroy();
    return t;
}

CollectiveSpec
Spec(uint64_t bytes, uint32_t channels, uint32_t servers = 4)
{
    CollectiveSpec s;
    s.bytes = bytes;
    s.ranks = 8 * servers;
    s.gpusPerServer = 8;
    s.channels = channels;
    return s;
}

} // namespace

// The tuner's own model and the packet-level result agree on an uncongested fabric at three
// sizes, for each algorithm it chooses between: within 1% except where the ring's latency-bound
// and NIC-bound terms are close (16 MiB here: the model takes their max and misses by 2.7%,
// the interaction of the two).
TEST_F(FabricTest, TunerEstimatesMatchThePacketLevelModel)
{
    Ptr<CollectiveTuner> tuner = CreateObject<CollectiveTuner>();
    tuner->SetAttribute("ProtocolLatency", BooleanValue(false));
    for (uint64_t bytes : {uint64_t(1) << 20, uint64_t(16) << 20, uint64_t(128) << 20})
    {
        const double ring = tuner->EstimateSeconds("ring", Spec(bytes, 8));
        const double hier = tuner->EstimateSeconds("hierarchical", Spec(bytes, 1));
        const double simRing = SimulatedSeconds("ns3::RingCollective", bytes, 8);
        const double simHier = SimulatedSeconds("ns3::HierarchicalCollective", bytes, 1);
        std::cout << (bytes >> 20) << " MiB: ring " << ring * 1e6 << " us (simulated "
                  << simRing * 1e6 << "), hierarchical " << hier * 1e6 << " us (simulated "
                  << simHier * 1e6 << ")" << std::endl;
        EXPECT_NEAR(ring / simRing, 1.0, 0.05) << (bytes >> 20) << " MiB ring";
        EXPECT_NEAR(hier / simHier, 1.0, 0.05) << (bytes >> 20) << " MiB hierarchical";
    }
    // NCCL's 2 channels per NIC: each NIC carries two rings' segments per step.
    const double ring16 = tuner->EstimateSeconds("ring", Spec(128 << 20, 16));
    const double sim16 = SimulatedSeconds("ns3::RingCollective", 128 << 20, 16);
    std::cout << "128 MiB, 16 channels: ring " << ring16 * 1e6 << " us (simulated " << sim16 * 1e6
              << ")" << std::endl;
    EXPECT_NEAR(ring16 / sim16, 1.0, 0.05);
}

// The same for NCCL's pipelined algorithms where their network edges see no incast: the tree
// and NVLS on one server, NVLS-Tree and the tree on two (each server one edge per tree).
TEST_F(FabricTest, TunerEstimatesMatchThePacketLevelModelForPipelinedAlgorithms)
{
    Ptr<CollectiveTuner> tuner = CreateObject<CollectiveTuner>();
    tuner->SetAttribute("ProtocolLatency", BooleanValue(false));

    struct Case
    {
        const char* name;
        const char* tid;
        uint32_t servers;
        uint32_t channels;
    };

    for (const Case& k : {Case{"tree", "ns3::DoubleBinaryTreeCollective", 1, 16},
                          Case{"nvls", "ns3::NvlsCollective", 1, 1},
                          Case{"tree", "ns3::DoubleBinaryTreeCollective", 2, 16},
                          Case{"nvls-tree", "ns3::NvlsTreeCollective", 2, 1}})
    {
        for (uint64_t bytes : {uint64_t(64) << 10, uint64_t(64) << 20, uint64_t(256) << 20})
        {
            const double model = tuner->EstimateSeconds(k.name, Spec(bytes, k.channels, k.servers));
            const double sim = SimulatedSeconds(k.tid, bytes, k.channels, k.servers);
            std::cout << k.name << " on " << k.servers << " server(s), " << (bytes >> 10)
                      << " KiB: model " << model * 1e6 << " us, simulated " << sim * 1e6 << " us"
                      << std::endl;
            EXPECT_NEAR(model / sim, 1.0, 0.05)
                << k.name << " " << k.servers << " servers " << (bytes >> 10) << " KiB";
        }
    }
}

TEST_F(FabricTest, TunerPicksTheFasterAlgorithmPerSize)
{
    Ptr<CollectiveTuner> tuner = CreateObject<CollectiveTuner>();
    tuner->SetAttribute("ProtocolLatency", BooleanValue(false));
    CollectiveSpec s = Spec(8, 16);
    s.ranks = 128;
    EXPECT_EQ(tuner->Choose(s).algorithm, "nvls-tree")
        << "small: an NVLS step and 2 log2(16) tree hops beat the ring's 254 steps";
    tuner->SetAttribute("Nvls", BooleanValue(false));
    EXPECT_EQ(tuner->Choose(s).algorithm, "tree") << "without NVLS: 2 (7 + 4) tree hops";
    EXPECT_LT(tuner->EstimateSeconds("nvls-tree", s), 0);
    tuner->SetAttribute("Nvls", BooleanValue(true));
    s.bytes = 64 << 20;
    EXPECT_EQ(tuner->Choose(s).algorithm, "ring")
        << "large: the ring's 16 channels keep every NIC busy; the trees lose to incast";
    s.ranks = 1024;
    EXPECT_EQ(tuner->Choose(s).algorithm, "nvls-tree") << "1,024 GPUs: 2,046 ring steps of 4 KiB";
    s.op = CollectiveSpec::ALLGATHER;
    EXPECT_EQ(tuner->Choose(s).algorithm, "ring")
        << "the trees and hierarchical are AllReduce only";
    EXPECT_LT(tuner->EstimateSeconds("hierarchical", s), 0);
    EXPECT_LT(tuner->EstimateSeconds("nvls", s), 0) << "NVLS stays inside one server";
    // One server: NVLS's S (G+1)/G per link beats a ring's 2 S (G-1)/G.
    s = Spec(uint64_t(1) << 30, 1, 1);
    EXPECT_EQ(tuner->Choose(s).algorithm, "nvls");
}

namespace
{

/// The packet-level time of `tid` under `protocol` with NCCL's protocol latencies on.
double
SimulatedWithProtocol(const char* tid,
                      const char* protocol,
                      uint64_t bytes,
                      uint32_t channels,
                      uint32_t servers)
{
    Config::SetDefault("ns3::TrainingJob::ProtocolLatency", BooleanValue(true));
    Config::SetDefault("ns3::TrainingJob::Protocol", StringValue(protocol));
    const double t = SimulatedSeconds(tid, bytes, channels, servers);
    Config::SetDefault("ns3::TrainingJob::ProtocolLatency", BooleanValue(false));
    Config::SetDefault("ns3::TrainingJob::Protocol", StringValue("simple"));
    return t;
}

} // namespace

// Each protocol's wire bytes and NCCL's latencies, in the tuner and in the packet-level model:
// ring and tree under LL, LL128 and Simple agree within 5% at three sizes. Between the latency-
// and the bandwidth-bound regimes the max of the two misses by more (6.3% for the tree with LL
// at 1 MiB, 6.3% for the Simple ring at 64 MiB: the ports' queues delay the latency chain).
TEST_F(FabricTest, TunerEstimatesMatchThePacketLevelModelForEveryProtocol)
{
    Ptr<CollectiveTuner> tuner = CreateObject<CollectiveTuner>();

    struct Case
    {
        const char* name;
        const char* tid;
        uint32_t servers;
        uint32_t channels;
    };

    for (const Case& k : {Case{"ring", "ns3::RingCollective", 2, 16},
                          Case{"tree", "ns3::DoubleBinaryTreeCollective", 2, 16}})
    {
        for (CollectiveProtocol::Kind p :
             {CollectiveProtocol::LL, CollectiveProtocol::LL128, CollectiveProtocol::SIMPLE})
        {
            for (uint64_t bytes : {uint64_t(8), uint64_t(64) << 10, uint64_t(256) << 20})
            {
                CollectiveSpec spec = Spec(bytes, k.channels, k.servers);
                spec.protocol = p;
                const double model = tuner->EstimateSeconds(k.name, spec);
                const double sim = SimulatedWithProtocol(k.tid,
                                                         CollectiveProtocol::Name(p),
                                                         bytes,
                                                         k.channels,
                                                         k.servers);
                std::cout << k.name << " " << CollectiveProtocol::Name(p) << ", " << bytes
                          << " B: model " << model * 1e6 << " us, simulated " << sim * 1e6 << " us"
                          << std::endl;
                EXPECT_NEAR(model / sim, 1.0, 0.05)
                    << k.name << " " << CollectiveProtocol::Name(p) << " " << bytes << " B";
            }
        }
    }
}

// With NCCL's protocol latencies the tuner picks as NCCL's does on 16 x 8 H100: LL on the tree
// for small messages (one hop per tree level instead of 254 ring steps, no fence), LL128 for
// the ring in the middle, Simple for the ring when the bandwidth term dominates.
TEST_F(FabricTest, TunerPicksAProtocolPerSize)
{
    Ptr<CollectiveTuner> tuner = CreateObject<CollectiveTuner>();
    CollectiveSpec s = Spec(8, 16, 16);
    CollectiveTuner::Choice c = tuner->Choose(s);
    EXPECT_EQ(c.algorithm, "tree");
    EXPECT_EQ(c.protocol, CollectiveProtocol::LL);
    s.bytes = 128 << 20;
    c = tuner->Choose(s);
    EXPECT_EQ(c.algorithm, "ring");
    EXPECT_EQ(c.protocol, CollectiveProtocol::LL128);
    s.bytes = uint64_t(1) << 30;
    c = tuner->Choose(s);
    EXPECT_EQ(c.algorithm, "ring");
    EXPECT_EQ(c.protocol, CollectiveProtocol::SIMPLE);
    // NVLS runs Simple only.
    s.protocol = CollectiveProtocol::LL;
    EXPECT_LT(tuner->EstimateSeconds("nvls-tree", s), 0);
}

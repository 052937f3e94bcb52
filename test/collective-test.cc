// SPDX-License-Identifier: GPL-2.0-only
// Collectives and training steps: alpha-beta model, bytes per rank, hierarchical vs flat,
// stragglers, loss, determinism (rings as NCCL lays them: ring-test.cc).
#include "process-util.h"
#include "test-util.h"

#include <cmath>
#include <nlohmann/json.hpp>

using namespace ns3;

namespace
{

// Wire overhead of a RoCEv2 packet (IPv4/UDP/BTH/ICRC + Ethernet/802.1Q/FCS + preamble/IFG).
constexpr double kRoceOverhead = 86;

} // namespace

struct AlphaBetaCase
{
    uint32_t ranks;
    uint64_t bytes;
};

/// Printed in test listings (ctest names): the values, never the struct's raw bytes.
void
PrintTo(const AlphaBetaCase& c, std::ostream* os)
{
    *os << c.ranks << " ranks, " << c.bytes << " B";
}

class RingAlphaBetaTest : public FabricTest, public ::testing::WithParamInterface<AlphaBetaCase>
{
};

TEST_P(RingAlphaBetaTest, RingAllReduceMatchesAlphaBetaModel)
{
    const AlphaBetaCase p = GetParam();
    Ptr<FabricTopology> topo = BuildStar(p.ranks);
    Cluster c = MakeJob(topo, "ns3::RingCollective", "allreduce", p.bytes, 1, Time(0), false);
    c.job->Start();
    Simulator::Run();
    ASSERT_TRUE(c.job->IsFinished());
    const double measured = c.job->GetSteps()[0].CollectiveTime().GetSeconds();
    // alpha: one message's fixed cost from post to data in remote GPU memory, from the model's
    // parameters: NIC tx + PCIe read + 2 cables (3 m, 15 ns) + switch (500 ns, cut-through) +
    // NIC rx + PCIe write + the RETH of the first packet. B: 400G x 4096 / (4096 + 86).
    const double line = 400e9;
    const double alpha = 300e-9 + 250e-9 + 2 * 15e-9 + 500e-9 + 300e-9 + 250e-9 + 16 * 8 / line;
    const double b = line / 8 * 4096 / (4096 + kRoceOverhead);
    const double n = p.ranks;
    const double model = 2 * (n - 1) * alpha + 2 * (n - 1) / n * double(p.bytes) / b;
    EXPECT_NEAR(measured / model, 1.0, 0.02)
        << "measured " << measured * 1e6 << " us, model " << model * 1e6 << " us";
}

INSTANTIATE_TEST_SUITE_P(Sizes,
                         RingAlphaBetaTest,
                         ::testing::Values(AlphaBetaCase{4, 1 << 20},
                                           AlphaBetaCase{4, 16 << 20},
                                           AlphaBetaCase{8, 8 << 20},
                                           AlphaBetaCase{8, 64 << 20},
                                           AlphaBetaCase{16, 32 << 20}),
                         [](const ::testing::TestParamInfo<AlphaBetaCase>& i) {
                             return std::to_string(i.param.ranks) + "ranks_" +
                                    std::to_string(i.param.bytes >> 20) + "MiB";
                         });

TEST_F(FabricTest, BytesPerRankMatchTheory)
{
    const uint32_t n = 8;
    const uint64_t s = 8 << 20; // divisible by 8

    struct Case
    {
        const char* alg;
        CollectiveSpec::Op op;
        double factor; // bytes sent per rank / S
    };

    for (Case k :
         {Case{"ns3::RingCollective", CollectiveSpec::ALLREDUCE, 2.0 * (n - 1) / n},
          Case{"ns3::RingCollective", CollectiveSpec::REDUCESCATTER, double(n - 1) / n},
          Case{"ns3::RingCollective", CollectiveSpec::ALLGATHER, double(n - 1) / n},
          Case{"ns3::RingCollective", CollectiveSpec::ALLTOALL, double(n - 1) / n},
          Case{"ns3::HalvingDoublingCollective", CollectiveSpec::ALLREDUCE, 2.0 * (n - 1) / n},
          Case{"ns3::HalvingDoublingCollective", CollectiveSpec::REDUCESCATTER, double(n - 1) / n}})
    {
        ObjectFactory f;
        f.SetTypeId(k.alg);
        CollectiveSpec spec;
        spec.op = k.op;
        spec.bytes = s;
        spec.ranks = n;
        spec.chunks = 4;
        CollectiveSchedule sched = f.Create<CollectiveAlgorithm>()->Build(spec);
        for (uint64_t b : sched.BytesSentPerRank(n))
        {
            EXPECT_EQ(b, uint64_t(k.factor * s + 0.5))
                << k.alg << " " << CollectiveSpec::OpName(k.op);
        }
    }
    // Double binary tree: each half crosses every tree edge twice (up and down), so all ranks
    // together send 2 trees x 2 (N - 1) edges x S/2 = 2 (N - 1) S.
    ObjectFactory f;
    f.SetTypeId("ns3::DoubleBinaryTreeCollective");
    CollectiveSpec spec;
    spec.bytes = s;
    spec.ranks = n;
    CollectiveSchedule sched = f.Create<CollectiveAlgorithm>()->Build(spec);
    uint64_t total = 0;
    for (uint64_t b : sched.BytesSentPerRank(n))
    {
        total += b;
    }
    EXPECT_EQ(total, 2 * (n - 1) * s);
    // Hierarchical, 2 servers x 4 GPUs: each NIC sends 2 (M-1)/M S/G over the network.
    f.SetTypeId("ns3::HierarchicalCollective");
    spec.gpusPerServer = 4;
    // (Its rail rings run lazily: count them written out.)
    sched = f.Create<CollectiveAlgorithm>()->Build(spec).Materialized();
    std::vector<uint64_t> network(n, 0);
    for (const auto& t : sched.transfers)
    {
        if (t.src / 4 != t.dst / 4)
        {
            network[t.src] += t.bytes;
        }
    }
    for (uint64_t b : network)
    {
        EXPECT_EQ(b, s / 4);
    }
}

TEST_F(FabricTest, ExecutedBytesMatchTheSchedule)
{
    Ptr<FabricTopology> topo = BuildStar(6);
    Cluster c = MakeJob(topo, "ns3::RingCollective", "allreduce", 6 << 20, 1, Time(0), false);
    c.job->Start();
    Simulator::Run();
    for (uint64_t b : c.job->GetBytesSentPerRank())
    {
        EXPECT_EQ(b, 2ULL * 5 * (1 << 20));
    }
    // The NICs carried exactly that payload.
    for (uint32_t r = 0; r < 6; ++r)
    {
        Ptr<RdmaQueuePair> qp = c.rdma->GetQueuePair(r, (r + 1) % 6);
        ASSERT_TRUE(qp);
        EXPECT_EQ(qp->GetStats().bytesCompleted, 2ULL * 5 * (1 << 20));
    }
}

TEST_F(FabricTest, EveryAlgorithmCompletesOnARailFabric)
{
    for (const char* alg : {"ns3::RingCollective",
                            "ns3::DoubleBinaryTreeCollective",
                            "ns3::HalvingDoublingCollective",
                            "ns3::HierarchicalCollective"})
    {
        Ptr<RailOptimizedFatTreeHelper> rail = CreateObject<RailOptimizedFatTreeHelper>();
        rail->SetAttribute("Servers", UintegerValue(2));
        rail->SetAttribute("GpusPerServer", UintegerValue(4));
        rail->SetAttribute("LeafRadix", UintegerValue(8));
        Cluster c = MakeJob(rail->Build(), alg, "allreduce", 4 << 20, 2, MicroSeconds(10), true);
        c.job->Start();
        Simulator::Run();
        EXPECT_TRUE(c.job->IsFinished()) << alg;
        EXPECT_EQ(c.job->GetSteps().size(), 2u) << alg;
        Simulator::Destroy();
    }
    for (const char* op : {"reducescatter", "allgather", "alltoall"})
    {
        Ptr<FabricTopology> topo = BuildStar(4);
        Cluster c = MakeJob(topo, "ns3::RingCollective", op, 4 << 20, 1, Time(0), false);
        c.job->Start();
        Simulator::Run();
        EXPECT_TRUE(c.job->IsFinished()) << op;
        Simulator::Destroy();
    }
}

TEST_F(FabricTest, HierarchicalBeatsFlatRingForLargeMessages)
{
    Config::SetDefault("ns3::RingCollective::RailLocal", BooleanValue(false));
    auto run = [](const char* alg) {
        Ptr<RailOptimizedFatTreeHelper> rail = CreateObject<RailOptimizedFatTreeHelper>();
        rail->SetAttribute("Servers", UintegerValue(4));
        rail->SetAttribute("GpusPerServer", UintegerValue(8));
        Cluster c = MakeJob(rail->Build(), alg, "allreduce", 64 << 20, 1, Time(0), true);
        c.job->Start();
        Simulator::Run();
        const double t = c.job->GetSteps()[0].CollectiveTime().GetSeconds();
        Simulator::Destroy();
        return t;
    };
    const double flat = run("ns3::RingCollective");
    const double hier = run("ns3::HierarchicalCollective");
    // Model: the flat ring's 2 (N-1)/N S crosses a 400G NIC hop (N = 32); hierarchical sends
    // only 2 (M-1)/M S/G per NIC (M = 4 servers, G = 8) plus two NVLink phases of (G-1)/G S at
    // 369 GB/s.
    const double nic = 400e9 / 8 * 4096 / 4182;
    const double nv = 450e9 * 0.82;
    const double s = 64 << 20;
    const double flatModel = 2.0 * 31 / 32 * s / nic;
    const double hierModel = 2.0 * 7 / 8 * s / nv + 2.0 * 3 / 4 * s / 8 / nic;
    EXPECT_LT(hier, flat);
    EXPECT_LT(hier * (flatModel / hierModel) / 2, flat) << "at least half the predicted gain";
    // The flat ring cannot beat its NIC bound. Its 4 cross-server hops all leave the rail-7 leaf
    // and enter the rail-0 leaf, so ECMP collisions and DCQCN make it slower still (measured
    // ~3.7x the collision-free bound): the reason rail-aware algorithms exist.
    EXPECT_GE(flat, 0.95 * flatModel) << flat * 1e3 << " ms";
    EXPECT_NEAR(hier / hierModel, 1.0, 0.15) << hier * 1e3 << " ms";
}

TEST_F(FabricTest, StragglerLengthensEveryStepAndIsNamed)
{
    auto run = [](Time extra) {
        Ptr<FabricTopology> topo = BuildStar(8);
        Cluster c =
            MakeJob(topo, "ns3::RingCollective", "allreduce", 8 << 20, 3, MilliSeconds(5), false);
        Ptr<GpuTrainingApp> app =
            DynamicCast<GpuTrainingApp>(topo->GetHostNode(3)->GetApplication(0));
        app->SetAttribute("ExtraDelay", TimeValue(extra));
        c.job->Start();
        Simulator::Run();
        std::vector<TrainingStepRecord> steps = c.job->GetSteps();
        Simulator::Destroy();
        return steps;
    };
    auto base = run(Time(0));
    auto slow = run(MilliSeconds(10));
    ASSERT_EQ(base.size(), 3u);
    ASSERT_EQ(slow.size(), 3u);
    for (uint32_t k = 0; k < 3; ++k)
    {
        const double d = (slow[k].StepTime() - base[k].StepTime()).GetSeconds();
        EXPECT_NEAR(d, 10e-3, 0.02e-3) << "step " << k;
        EXPECT_EQ(slow[k].cause, "straggler");
        EXPECT_EQ(slow[k].waitedOn, 3u);
        EXPECT_EQ(base[k].cause, "network");
        // Every rank's step got longer: the barrier is common.
        for (uint32_t r = 0; r < 8; ++r)
        {
            EXPECT_GE(slow[k].collectiveEnd[r] - slow[k].start, MilliSeconds(15));
        }
    }
}

TEST_F(FabricTest, LossLengthensTheStepAndNamesTheWaitingRank)
{
    auto run = [](double loss) {
        Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
        star->SetAttribute("Servers", UintegerValue(8));
        star->SetAttribute("GpusPerServer", UintegerValue(1));
        star->GetLinkHelper().SetFlowControlAttribute("EnabledPriorities", UintegerValue(0));
        Ptr<FabricTopology> topo = star->Build();
        topo->GetHostDevice(5)->SetAttribute("ReceiveErrorRate", DoubleValue(loss));
        topo->AssignStreams(3);
        RdmaHelper rdma;
        rdma.SetNicAttribute("RetransmitTimeout", TimeValue(MicroSeconds(200)));
        Cluster c = MakeJob(topo,
                            "ns3::RingCollective",
                            "allreduce",
                            16 << 20,
                            2,
                            MicroSeconds(100),
                            false,
                            rdma);
        c.job->Start();
        Simulator::Run();
        EXPECT_TRUE(c.job->IsFinished());
        std::vector<TrainingStepRecord> steps = c.job->GetSteps();
        Simulator::Destroy();
        return steps;
    };
    auto clean = run(0);
    auto lossy = run(2e-3);
    ASSERT_EQ(lossy.size(), 2u);
    uint64_t retx = 0;
    for (uint32_t k = 0; k < 2; ++k)
    {
        EXPECT_GT(lossy[k].StepTime(), clean[k].StepTime());
        EXPECT_EQ(clean[k].cause, "network");
        retx += lossy[k].retransmissions;
        if (lossy[k].retransmissions > 0)
        {
            EXPECT_TRUE(lossy[k].cause == "retransmission" || lossy[k].cause == "timeout");
        }
    }
    EXPECT_GT(retx, 0u);
}

TEST_F(FabricTest, SameSeedSamePerStepResults)
{
    auto run = [](uint32_t seed) {
        RngSeedManager::SetSeed(seed);
        Ptr<FabricTopology> topo = BuildStar(6);
        topo->AssignStreams(0);
        Cluster c =
            MakeJob(topo, "ns3::RingCollective", "allreduce", 4 << 20, 3, MilliSeconds(1), false);
        for (uint32_t r = 0; r < 6; ++r)
        {
            Ptr<GpuTrainingApp> app =
                DynamicCast<GpuTrainingApp>(topo->GetHostNode(r)->GetApplication(0));
            app->SetAttribute("Jitter",
                              StringValue("ns3::NormalRandomVariable[Mean=0|Variance=0.0004]"));
            app->AssignStreams(100 + r);
        }
        c.job->Start();
        Simulator::Run();
        std::vector<int64_t> v;
        for (auto& s : c.job->GetSteps())
        {
            v.push_back(s.barrier.GetTimeStep());
            v.push_back(s.lastRank);
            for (auto t : s.computeEnd)
            {
                v.push_back(t.GetTimeStep());
            }
        }
        Simulator::Destroy();
        return v;
    };
    auto a = run(7);
    auto b = run(7);
    EXPECT_EQ(a, b);
    // The seed drives the compute jitter: another seed gives other compute ends and barriers.
    EXPECT_NE(run(8), a);
}

TEST_F(FabricTest, LatencyHistogramQuantilesWithinOnePercent)
{
    LatencyHistogram h;
    for (int64_t i = 1; i <= 100000; ++i)
    {
        h.Add(i);
    }
    EXPECT_EQ(h.GetCount(), 100000u);
    EXPECT_EQ(h.GetMax(), 100000);
    EXPECT_EQ(h.GetMin(), 1);
    EXPECT_NEAR(h.Quantile(0.5) / 50000.0, 1.0, 0.01);
    EXPECT_NEAR(h.Quantile(0.99) / 99000.0, 1.0, 0.01);
    EXPECT_DOUBLE_EQ(h.Quantile(1.0), 100000.0);
}

TEST_F(FabricTest, GradientBucketsOverlapTheBackwardPass)
{
    auto run = [](uint32_t buckets) {
        Ptr<FabricTopology> topo = BuildStar(8);
        Cluster c = MakeJob(topo,
                            "ns3::RingCollective",
                            "allreduce",
                            64 << 20,
                            1,
                            MicroSeconds(2000),
                            false);
        c.job->SetAttribute("Buckets", UintegerValue(buckets));
        c.job->Setup(topo->GetHosts(), 1, c.rdma, nullptr); // rebuild with the buckets
        c.job->Start();
        Simulator::Run();
        TrainingStepRecord r = c.job->GetSteps().at(0);
        uint64_t sent = c.job->GetBytesSentPerRank()[0];
        Simulator::Destroy();
        return std::make_pair(r, sent);
    };
    auto [one, sent1] = run(1);
    auto [four, sent4] = run(4);
    // Same bytes on the wire; the step shrinks because 3 of 4 buckets travel during compute.
    EXPECT_EQ(sent1, sent4);
    EXPECT_EQ(sent1, 2ULL * 7 * (8 << 20));
    const double allreduce = (one.StepTime() - MicroSeconds(2000)).GetSeconds();
    EXPECT_LT(four.StepTime(), one.StepTime());
    // With 4 buckets only the last quarter of the collective (at least) remains after compute.
    EXPECT_GE(four.StepTime().GetSeconds(), 2e-3 + allreduce / 4 * 0.9);
    EXPECT_LT(four.StepTime().GetSeconds(), 2e-3 + allreduce * 0.75);
}

namespace
{

/// A transport that delivers every message a fixed time after it is sent and records when.
class FixedDelayTransport : public CollectiveTransport
{
  public:
    std::string GetName() const override
    {
        return "fixed-delay";
    }

    void Send(uint32_t src,
              uint32_t dst,
              uint64_t,
              CollectiveTransportListener* listener,
              uint64_t token,
              uint32_t) override
    {
        sent.emplace_back(static_cast<uint32_t>(token), Simulator::Now());
        EXPECT_NE(src, dst);
        Simulator::Schedule(delay, &CollectiveTransportListener::MessageArrived, listener, token);
    }

    Time delay{MicroSeconds(1)};
    std::vector<std::pair<uint32_t, Time>> sent; //!< (transfer, send time) in send order
};

} // namespace

// A schedule with nothing to send (a one-rank collective) completes when every rank has
// joined, not when it starts: a one-GPU collective workload's step was 0 ms after 1 ms of
// compute. Through the runner: one GPU, 1 ms of compute, the step is 1 ms and the collective 0.
TEST_F(FabricTest, AnEmptyScheduleCompletesWhenEveryRankIsReady)
{
    auto s = std::make_shared<CollectiveSchedule>();
    Ptr<FixedDelayTransport> net = CreateObject<FixedDelayTransport>();
    Ptr<CollectiveExecutor> exec = CreateObject<CollectiveExecutor>();
    exec->SetNetworkTransport(net);
    Time doneAt = Seconds(-1);
    exec->Start(s, 2, Callback<void>([&doneAt]() { doneAt = Simulator::Now(); }));
    Simulator::Schedule(MicroSeconds(3), &CollectiveExecutor::MarkReady, exec, 0U);
    Simulator::Schedule(MicroSeconds(5), &CollectiveExecutor::MarkReady, exec, 1U);
    Simulator::Run();
    EXPECT_EQ(doneAt, MicroSeconds(5));
    EXPECT_TRUE(net->sent.empty());
    Simulator::Destroy();

    const auto dir = ScratchDir("aif-one-gpu");
    const Result r = Runner("--set topology.servers=1 --set topology.gpus_per_server=1"
                            " --set workload.steps=2 --set workload.compute_ms=1 --out " +
                            (dir / "out").string());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err; // no "gnuplot failed" either
    std::ifstream f(dir / "out" / "summary.json");
    const nlohmann::json sum = nlohmann::json::parse(f);
    EXPECT_EQ(sum["step_ms"]["mean"].get<double>(), 1.0);
    EXPECT_EQ(sum["collective_ms"]["mean"].get<double>(), 0.0);
    std::filesystem::remove_all(dir);
}

TEST_F(FabricTest, ExecutorSendsATransferWhenItsSourceIsReadyAndEveryDependencyArrived)
{
    // Fan-in (t2 waits for t0 and t1), fan-out (t0 releases t2 and t3), a chain (t4 after t2),
    // and a source that becomes ready late (rank 2 at 5 us).
    auto s = std::make_shared<CollectiveSchedule>();
    const uint32_t t0 = s->Add(0, 1, 1000, nullptr, 0);
    const uint32_t t1 = s->Add(2, 1, 1000, nullptr, 0);
    const uint32_t in[2] = {t0, t1};
    const uint32_t t2 = s->Add(1, 3, 1000, in, 2);
    const uint32_t t3 = s->Add(1, 0, 1000, &t0, 1);
    const uint32_t t4 = s->Add(3, 2, 1000, &t2, 1);
    Ptr<FixedDelayTransport> net = CreateObject<FixedDelayTransport>();
    Ptr<CollectiveExecutor> exec = CreateObject<CollectiveExecutor>();
    exec->SetNetworkTransport(net);
    bool done = false;
    for (int round = 0; round < 2; ++round) // the second Start reuses the inverted schedule
    {
        net->sent.clear();
        done = false;
        const Time t = Simulator::Now();
        exec->Start(s, 4, Callback<void>([&done]() { done = true; }));
        for (uint32_t r : {0U, 1U, 3U})
        {
            exec->MarkReady(r);
        }
        Simulator::Schedule(MicroSeconds(5), &CollectiveExecutor::MarkReady, exec, 2U);
        Simulator::Run();
        ASSERT_TRUE(done);
        ASSERT_TRUE(exec->IsDone());
        const std::vector<std::pair<uint32_t, Time>> expect = {{t0, t},
                                                               {t3, t + MicroSeconds(1)},
                                                               {t1, t + MicroSeconds(5)},
                                                               {t2, t + MicroSeconds(6)},
                                                               {t4, t + MicroSeconds(7)}};
        EXPECT_EQ(net->sent, expect);
        EXPECT_EQ(exec->GetRankEnd(2), t + MicroSeconds(8));
        EXPECT_EQ(exec->GetLastSender(1), 2U);
        EXPECT_EQ(exec->GetBytesSent(1), 2000U);
    }
}

namespace
{

/// Records when a transfer arrived.
struct ArrivalClock : public CollectiveTransportListener
{
    Time at{Seconds(-1)};

    void MessageArrived(uint64_t) override
    {
        at = Simulator::Now();
    }
};

} // namespace

// Transfer times of 512 MiB and more: DataRate::CalculateBytesTxTime takes 32 bits and
// multiplies them by 8 in 32 bits, so these used to wrap around (a 1 GiB NVLink transfer arrived
// after its latency alone). Every size must cost latency + bytes / rate.
TEST_F(FabricTest, LargeTransfersTakeBytesOverRateAtEverySize)
{
    const uint64_t mib = 1 << 20;
    for (uint64_t bytes : {mib, 511 * mib, 1024 * mib, 6144 * mib})
    {
        Ptr<NvlinkTransport> nv = CreateObject<NvlinkTransport>();
        nv->SetRanks(2);
        ArrivalClock clock;
        nv->Send(0, 1, bytes, &clock, 0);
        Simulator::Run();
        const double rate = nv->GetEffectiveRate().GetBitRate() / 8.0;
        EXPECT_NEAR(clock.at.GetSeconds(), nv->GetLatency().GetSeconds() + bytes / rate, 1e-9)
            << bytes << " B over NVLink";
        Simulator::Destroy();
    }
    // The same size again after the rate changed (NvlinkTransport caches per size and rate).
    {
        Ptr<NvlinkTransport> nv = CreateObject<NvlinkTransport>();
        nv->SetRanks(2);
        ArrivalClock first;
        ArrivalClock second;
        const uint64_t bytes = 64 << 20;
        nv->Send(0, 1, bytes, &first, 0);
        Simulator::Run();
        nv->SetAttribute("Efficiency", DoubleValue(0.41)); // half the rate
        const Time t0 = Simulator::Now();
        nv->Send(0, 1, bytes, &second, 1);
        Simulator::Run();
        const double serialization = (first.at - nv->GetLatency()).GetSeconds();
        EXPECT_NEAR((second.at - t0 - nv->GetLatency()).GetSeconds(), 2 * serialization, 2e-9);
        Simulator::Destroy();
    }
    // Host-staged RDMA (no GPUDirect): two PCIe latencies and the copy.
    Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
    nic->SetAttribute("GpuDirect", BooleanValue(false));
    TimeValue pcieLatency;
    DataRateValue pcie;
    nic->GetAttribute("PcieLatency", pcieLatency);
    nic->GetAttribute("PcieBandwidth", pcie);
    const uint64_t big = uint64_t(1) << 30;
    const double copy = big * 8.0 / pcie.Get().GetBitRate();
    EXPECT_NEAR(nic->GetResponderDelay(big).GetSeconds(),
                2 * pcieLatency.Get().GetSeconds() + copy,
                1e-9);
    // Kernel TCP: a 1 GiB send call copies 1 GiB.
    Ptr<HostStackCostModel> host = CreateObject<HostStackCostModel>();
    DataRateValue copyBw;
    TimeValue syscall;
    host->GetAttribute("CopyBandwidth", copyBw);
    host->GetAttribute("SyscallCost", syscall);
    EXPECT_NEAR(host->RecvCallCost(big).GetSeconds(),
                syscall.Get().GetSeconds() + big * 8.0 / copyBw.Get().GetBitRate(),
                1e-9);
}

// SPDX-License-Identifier: GPL-2.0-only
// Parallel training steps (TransformerWorkload + ParallelTrainingJob): the model's parameter
// counts against the published ones, the pipeline bubble on an ideal network, bytes per phase
// against theory, MoE imbalance, and where each rank's time goes.
#include "test-util.h"

#include <cmath>
#include <memory>

using namespace ns3;

namespace
{

/// A job over `n` GPUs of `g` per server on an ideal network (or `network` when given).
struct JobRun
{
    NodeContainer nodes;
    Ptr<ParallelTrainingJob> job;

    JobRun(std::shared_ptr<const WorkloadGraph> graph,
           uint32_t g,
           uint32_t steps = 1,
           Ptr<CollectiveTransport> network = nullptr)
    {
        nodes.Create(graph->ranks);
        job = CreateObject<ParallelTrainingJob>();
        job->SetAttribute("Steps", UintegerValue(steps));
        job->SetAttribute("PeakTflops", DoubleValue(1000));
        job->SetAttribute("ComputeEfficiency", DoubleValue(1.0));
        job->SetAttribute("Algorithm", StringValue("ring"));
        job->SetAttribute("Protocol", StringValue("simple"));
        job->SetAttribute("Channels", UintegerValue(1));
        job->SetGraph(graph);
        std::vector<uint32_t> ranks(graph->ranks);
        for (uint32_t r = 0; r < graph->ranks; ++r)
        {
            ranks[r] = r;
        }
        Ptr<CollectiveTransport> ideal = CreateObject<IdealTransport>();
        job->Setup(nodes, ranks, g, network ? network : ideal, ideal);
        Simulator::ScheduleNow(&ParallelTrainingJob::Start, job);
        Simulator::Run();
    }
};

struct PublishedParams
{
    const char* name;
    double total; //!< billions
    double active;
};

class ModelPresetTest : public FabricTest, public ::testing::WithParamInterface<PublishedParams>
{
};

} // namespace

// Each preset's parameter count against its paper's (within 1.5%: biases, rotary tables and
// rounding in the published figures).
TEST_P(ModelPresetTest, ParameterCountsMatchThePublishedOnes)
{
    const PublishedParams& p = GetParam();
    TransformerModel m;
    ASSERT_TRUE(TransformerModel::Preset(p.name, m));
    EXPECT_EQ(m.Check(), "");
    EXPECT_NEAR(m.TotalParams() / 1e9, p.total, 0.015 * p.total) << p.name;
    EXPECT_NEAR(m.ActiveParams() / 1e9, p.active, 0.015 * p.active) << p.name;
    // Training FLOPs per token are about 6 x active parameters (+ attention, + head).
    EXPECT_GT(m.TrainingFlopsPerToken(), 6.0 * (m.ActiveParams() - m.EmbeddingParams()));
}

INSTANTIATE_TEST_SUITE_P(Presets,
                         ModelPresetTest,
                         ::testing::Values(PublishedParams{"gpt3-175b", 175.0, 175.0},
                                           PublishedParams{"llama3-8b", 8.03, 8.03},
                                           PublishedParams{"llama3-70b", 70.6, 70.6},
                                           PublishedParams{"llama3-405b", 405.9, 405.9},
                                           PublishedParams{"mixtral-8x7b", 46.7, 12.9},
                                           PublishedParams{"deepseek-v3", 671.0, 37.0}));

// 1F1B, GPipe and interleaved on an ideal network: the step is the analytic compute plus the
// bubble, (m + p - 1)(t_f + t_b) (interleaved: (m·v + p - 1)(t_f + t_b)/v), plus the last
// stage-0 optimizer step, to the nanosecond per kernel.
TEST_F(FabricTest, PipelineStepIsComputePlusTheAnalyticBubble)
{
    struct Case
    {
        ParallelismConfig::Schedule schedule;
        uint32_t pp;
        uint32_t m;
        uint32_t v;
    };

    for (const Case& c : {Case{ParallelismConfig::ONE_F_ONE_B, 4, 8, 1},
                          Case{ParallelismConfig::ONE_F_ONE_B, 4, 2, 1},
                          Case{ParallelismConfig::GPIPE, 4, 8, 1},
                          Case{ParallelismConfig::INTERLEAVED, 4, 8, 2}})
    {
        const TransformerModel model = SmallModel(16);
        ParallelismConfig p;
        p.pp = c.pp;
        p.microbatches = c.m;
        p.schedule = c.schedule;
        p.virtualStages = c.v;
        ASSERT_EQ(TransformerWorkload::Check(model, p), "");
        auto g = std::make_shared<const WorkloadGraph>(TransformerWorkload::Build(model, p));
        ASSERT_EQ(g->Check(), "");
        JobRun run(g, 8);
        ASSERT_TRUE(run.job->IsFinished());
        // t_f + t_b of a whole stage (all its chunks) for one micro-batch, as the kernels ran
        // (each rounded to the nanosecond), and against the FLOPs.
        const double tfb = (run.job->GetKernelTime(0, 0, WorkloadOp::FORWARD) +
                            run.job->GetKernelTime(0, 0, WorkloadOp::BACKWARD))
                               .GetSeconds() /
                           c.m;
        EXPECT_NEAR(tfb, g->ComputeFlops(0) / c.m / 1e15, 1e-9 * g->ops[0].size() / c.m);
        const double optimizer = run.job->GetKernelTime(0, 0, WorkloadOp::OPTIMIZER).GetSeconds();
        const double expected = (c.m * c.v + c.pp - 1) * tfb / c.v + optimizer;
        const double step = run.job->GetSteps()[0].StepTime().GetSeconds();
        EXPECT_NEAR(step, expected, 1e-12)
            << ParallelismConfig::ScheduleName(c.schedule) << " m " << c.m;
        // The bubble fraction of the compute part: (p-1)/(v m + p - 1).
        EXPECT_NEAR((step - optimizer - c.m * tfb) / (step - optimizer),
                    TransformerWorkload::BubbleFraction(p),
                    1e-9);
        // Every rank's time sums to the step; stage s waits for its first activation.
        for (uint32_t r = 0; r < g->ranks; ++r)
        {
            const RankPhaseTimes& t = run.job->GetPhaseTimes(0, r);
            const Time sum = t.compute + t.tpExposed + t.ppBubble + t.dpExposed + t.epExposed +
                             t.fsdpExposed + t.barrier;
            EXPECT_EQ(sum, run.job->GetSteps()[0].StepTime()) << "rank " << r;
            EXPECT_NEAR((t.ppBubble + t.barrier).GetSeconds(),
                        (c.pp - 1) * tfb / c.v + optimizer -
                            run.job->GetKernelTime(0, r, WorkloadOp::OPTIMIZER).GetSeconds(),
                        1e-12)
                << "rank " << r;
        }
        Simulator::Destroy();
    }
}

// Bytes each rank hands to the transports in each phase equal what the operations define
// (ring: all-reduce 2(n-1)/n S, reduce-scatter and all-gather (n-1)/n S, all-to-all
// (n-1)/n S, a send its bytes) and the textbook figures.
TEST_F(FabricTest, BytesPerRankPerPhaseEqualTheory)
{
    struct Case
    {
        const char* what;
        uint32_t tp, pp, dp, ep, zero;
    };

    for (const Case& c : {Case{"tp2 pp2 dp2", 2, 2, 2, 1, 0},
                          Case{"zero1", 2, 1, 4, 1, 1},
                          Case{"fsdp", 1, 1, 4, 1, 3},
                          Case{"moe ep2", 1, 2, 4, 2, 0}})
    {
        TransformerModel model = SmallModel(4);
        model.vocab = 1000;
        if (c.ep > 1)
        {
            model.experts = 4;
            model.topK = 2;
            model.gated = true;
        }
        ParallelismConfig p;
        p.tp = c.tp;
        p.pp = c.pp;
        p.dp = c.dp;
        p.ep = c.ep;
        p.zero = c.zero;
        p.microbatches = 4;
        p.bucketBytes = 4 << 20;
        ASSERT_EQ(TransformerWorkload::Check(model, p), "") << c.what;
        auto g = std::make_shared<const WorkloadGraph>(TransformerWorkload::Build(model, p));
        ASSERT_EQ(g->Check(), "") << c.what;
        JobRun run(g, 4);
        ASSERT_TRUE(run.job->IsFinished()) << c.what;
        const uint64_t act = 1024ULL * 1024 * 2; // b s h bytes
        for (uint32_t r = 0; r < g->ranks; ++r)
        {
            for (auto phase :
                 {WorkloadOp::TP, WorkloadOp::PP, WorkloadOp::DP, WorkloadOp::EP, WorkloadOp::FSDP})
            {
                // Ring and pairwise schedules split buffers in whole bytes: within 64 B per op.
                EXPECT_NEAR(double(run.job->GetBytesSent(0, r, phase)),
                            g->TheoreticalBytesSent(r, phase),
                            64.0 * g->ops[r].size())
                    << c.what << " rank " << r << " " << WorkloadGraph::PhaseName(phase);
            }
            const auto at = TransformerWorkload::CoordOf(p, r);
            const uint32_t layers = model.layers / c.pp;
            if (c.tp > 1)
            {
                // 4 all-reduces of the activation per layer and micro-batch (2 fwd, 2 bwd).
                EXPECT_NEAR(g->TheoreticalBytesSent(r, WorkloadOp::TP),
                            4.0 * layers * p.microbatches * 2 * (c.tp - 1) / c.tp * act,
                            1.0);
            }
            if (c.pp > 1)
            {
                // One activation forward and one gradient back per micro-batch and boundary.
                const uint32_t boundaries = (at.pp > 0) + (at.pp + 1 < c.pp);
                EXPECT_EQ(g->TheoreticalBytesSent(r, WorkloadOp::PP),
                          double(boundaries) * p.microbatches * act);
            }
            if (c.zero == 0 && c.ep == 1)
            {
                // Every gradient all-reduced once: 2(dp-1)/dp x this rank's parameters.
                uint64_t params = 0;
                for (uint32_t l = at.pp * layers; l < (at.pp + 1) * layers; ++l)
                {
                    params += model.LayerParams(l) / c.tp;
                }
                params += (at.pp == 0 ? 1 : 0) * model.vocab * model.hidden / c.tp;
                params += (at.pp + 1 == c.pp ? 1 : 0) * model.vocab * model.hidden / c.tp;
                EXPECT_NEAR(g->TheoreticalBytesSent(r, WorkloadOp::DP),
                            2.0 * (c.dp - 1) / c.dp * params * 2,
                            1.0)
                    << c.what;
            }
            if (c.zero == 1)
            {
                // Reduce-scatter of the gradients, all-gather of the parameters: the same bytes.
                uint64_t params = model.vocab * model.hidden * 2 / c.tp;
                for (uint32_t l = 0; l < model.layers; ++l)
                {
                    params += model.LayerParams(l) / c.tp;
                }
                EXPECT_NEAR(g->TheoreticalBytesSent(r, WorkloadOp::DP),
                            2.0 * (c.dp - 1) / c.dp * params * 2,
                            1.0);
            }
            if (c.zero == 3)
            {
                // Per layer and micro-batch: all-gather for forward and backward, reduce-scatter.
                double bytes = 0;
                for (uint32_t l = 0; l < model.layers; ++l)
                {
                    bytes += 3.0 * p.microbatches * (c.dp - 1) / c.dp * model.LayerParams(l) * 2;
                }
                EXPECT_NEAR(g->TheoreticalBytesSent(r, WorkloadOp::FSDP), bytes, 1.0);
            }
            if (c.ep > 1)
            {
                // Dispatch and combine, forward and backward, per MoE layer and micro-batch:
                // (ep-1)/ep of b·s·k·h each.
                EXPECT_NEAR(g->TheoreticalBytesSent(r, WorkloadOp::EP),
                            4.0 * layers * p.microbatches * (c.ep - 1) / c.ep * act * model.topK,
                            1.0);
            }
        }
        // Every FLOP of the model is some rank's kernel.
        double flops = 0;
        for (uint32_t r = 0; r < g->ranks; ++r)
        {
            flops += g->ComputeFlops(r);
        }
        EXPECT_NEAR(flops / g->modelFlops, 1.0, 1e-9) << c.what;
        Simulator::Destroy();
    }
}

// MoE with token imbalance: the hottest expert's rank computes longest, finishes its work
// last and the barrier names it.
TEST_F(FabricTest, MoeImbalanceNamesTheHottestExpertRank)
{
    TransformerModel model = SmallModel(4);
    model.experts = 8;
    model.topK = 2;
    model.gated = true;
    ParallelismConfig p;
    p.dp = 8;
    p.ep = 8;
    p.microbatches = 2;
    p.moeSkew = 3.0;
    p.moeHotRank = 5;
    ASSERT_EQ(TransformerWorkload::Check(model, p), "");
    auto g = std::make_shared<const WorkloadGraph>(TransformerWorkload::Build(model, p));

    // The end of every expert kernel, per rank, in order.
    struct Ends
    {
        const WorkloadGraph* g;
        std::vector<std::vector<Time>> byRank;

        void Done(uint32_t rank, uint32_t op, Time, Time end)
        {
            const WorkloadOp& o = g->ops[rank][op];
            if (o.kind == WorkloadOp::COMPUTE && o.phase == WorkloadOp::EP)
            {
                byRank[rank].push_back(end);
            }
        }
    } ends{g.get(), std::vector<std::vector<Time>>(8)};

    NodeContainer nodes;
    nodes.Create(8);
    Ptr<ParallelTrainingJob> job = CreateObject<ParallelTrainingJob>();
    job->SetAttribute("Steps", UintegerValue(2));
    job->SetGraph(g);
    Ptr<CollectiveTransport> ideal = CreateObject<IdealTransport>();
    job->Setup(nodes, {0, 1, 2, 3, 4, 5, 6, 7}, 8, ideal, ideal);
    job->TraceConnectWithoutContext("OpDone", MakeCallback(&Ends::Done, &ends));
    Simulator::ScheduleNow(&ParallelTrainingJob::Start, job);
    Simulator::Run();
    ASSERT_TRUE(job->IsFinished());
    for (const auto& rec : job->GetSteps())
    {
        EXPECT_EQ(rec.waitedOn, 5u);
        EXPECT_EQ(rec.cause, "expert-imbalance");
    }
    // Every expert kernel of the hot rank ends after everyone else's of the same layer.
    ASSERT_FALSE(ends.byRank[5].empty());
    for (uint32_t k = 0; k < ends.byRank[5].size(); ++k)
    {
        for (uint32_t r = 0; r < 8; ++r)
        {
            if (r != 5)
            {
                ASSERT_EQ(ends.byRank[r].size(), ends.byRank[5].size());
                EXPECT_LT(ends.byRank[r][k], ends.byRank[5][k]) << "kernel " << k;
            }
        }
    }
    for (uint32_t r = 0; r < 8; ++r)
    {
        if (r != 5)
        {
            EXPECT_LT(job->GetKernelTime(0, r, WorkloadOp::EP),
                      job->GetKernelTime(0, 5, WorkloadOp::EP));
            // The others wait for it in the all-to-all.
            EXPECT_GT(job->GetPhaseTimes(0, r).epExposed, job->GetPhaseTimes(0, 5).epExposed);
        }
    }
    // Uniform routing: no imbalance to blame.
    Simulator::Destroy();
    p.moeSkew = 1.0;
    auto u = std::make_shared<const WorkloadGraph>(TransformerWorkload::Build(model, p));
    JobRun even(u, 8);
    EXPECT_EQ(even.job->GetSteps()[0].cause, "network");
}

// Bad parallelism is refused with one line naming the field.
TEST(ParallelismCheck, NamesTheField)
{
    TransformerModel m;
    ASSERT_TRUE(TransformerModel::Preset("llama3-8b", m));
    ParallelismConfig p;
    p.tp = 3;
    EXPECT_NE(TransformerWorkload::Check(m, p).find("tp must divide"), std::string::npos);
    p = ParallelismConfig();
    p.ep = 2;
    EXPECT_NE(TransformerWorkload::Check(m, p).find("ep > 1 needs a MoE"), std::string::npos);
    p = ParallelismConfig();
    p.zero = 3;
    p.pp = 2;
    EXPECT_NE(TransformerWorkload::Check(m, p).find("zero 3"), std::string::npos);
    p = ParallelismConfig();
    p.schedule = ParallelismConfig::INTERLEAVED;
    p.pp = 4;
    p.microbatches = 6;
    EXPECT_NE(TransformerWorkload::Check(m, p).find("interleaved"), std::string::npos);
    p = ParallelismConfig();
    p.order = "tp-pp";
    EXPECT_NE(TransformerWorkload::Check(m, p).find("order"), std::string::npos);
}

// Megatron's rank order: TP on consecutive GPUs, then DP, then PP.
TEST(ParallelismLayout, MegatronOrder)
{
    ParallelismConfig p;
    p.tp = 8;
    p.dp = 4;
    p.pp = 2;
    const auto c = TransformerWorkload::CoordOf(p, 8 * 4 + 8 + 3);
    EXPECT_EQ(c.tp, 3u);
    EXPECT_EQ(c.dp, 1u);
    EXPECT_EQ(c.pp, 1u);
    EXPECT_EQ(TransformerWorkload::RankOf(p, c), 8u * 4 + 8 + 3);
    p.order = "tp-pp-dp";
    const auto d = TransformerWorkload::CoordOf(p, 8 * 2 + 8 + 3);
    EXPECT_EQ(d.pp, 1u);
    EXPECT_EQ(d.dp, 1u);
}

namespace
{

/// Step time of each of `jobs` (GPU lists) running data-parallel training of a small,
/// communication-bound model at once on one RoCEv2 fat-tree (4 hosts per leaf, 400G hosts,
/// 100G fabric links: traffic between leaves shares the spines).
std::vector<double>
StepsOf(const std::vector<std::vector<uint32_t>>& jobs)
{
    Ptr<FabricTopology> topo = SharedSpineFatTree(16);
    Ptr<RdmaCollectiveTransport> net = CreateObject<RdmaCollectiveTransport>();
    net->SetRanks(topo->GetHosts());
    TransformerModel model = SmallModel(4);
    model.seqLen = 128;
    ParallelismConfig p;
    p.dp = 4;
    auto g = std::make_shared<const WorkloadGraph>(TransformerWorkload::Build(model, p));
    std::vector<Ptr<ParallelTrainingJob>> running;
    for (const auto& gpus : jobs)
    {
        NodeContainer nodes;
        for (uint32_t h : gpus)
        {
            nodes.Add(topo->GetHostNode(h));
        }
        Ptr<ParallelTrainingJob> job = CreateObject<ParallelTrainingJob>();
        job->SetAttribute("Steps", UintegerValue(2));
        job->SetAttribute("Algorithm", StringValue("ring"));
        job->SetAttribute("Protocol", StringValue("simple"));
        job->SetGraph(g);
        job->Setup(nodes, gpus, 1, net, nullptr);
        Simulator::ScheduleNow(&ParallelTrainingJob::Start, job);
        running.push_back(job);
    }
    Simulator::Run();
    std::vector<double> steps;
    for (const auto& job : running)
    {
        EXPECT_TRUE(job->IsFinished());
        steps.push_back(job->GetSteps().back().StepTime().GetSeconds());
    }
    Simulator::Destroy();
    return steps;
}

} // namespace

// Two jobs on one fabric: spread over the same leaves, their rings share the spine links and
// each is slower than alone; placed one per leaf (isolated), each runs as fast as alone.
TEST_F(FabricTest, TwoJobsSlowEachOtherOnlyWhenTheyShareLinks)
{
    const std::vector<uint32_t> evens{0, 2, 4, 6};
    const std::vector<uint32_t> odds{1, 3, 5, 7};
    const std::vector<uint32_t> leaf0{0, 1, 2, 3};
    const std::vector<uint32_t> leaf1{4, 5, 6, 7};
    const double aloneEven = StepsOf({evens})[0];
    const double aloneOdd = StepsOf({odds})[0];
    const std::vector<double> spread = StepsOf({evens, odds});
    EXPECT_GT(spread[0], 1.10 * aloneEven);
    EXPECT_GT(spread[1], 1.10 * aloneOdd);
    const double alone0 = StepsOf({leaf0})[0];
    const double alone1 = StepsOf({leaf1})[0];
    const std::vector<double> isolated = StepsOf({leaf0, leaf1});
    EXPECT_NEAR(isolated[0], alone0, 0.02 * alone0);
    EXPECT_NEAR(isolated[1], alone1, 0.02 * alone1);
    std::cout << "spread: alone " << aloneEven * 1e3 << " / " << aloneOdd * 1e3 << " ms, together "
              << spread[0] * 1e3 << " / " << spread[1] * 1e3 << " ms; isolated: alone "
              << alone0 * 1e3 << " / " << alone1 * 1e3 << " ms, together " << isolated[0] * 1e3
              << " / " << isolated[1] * 1e3 << " ms\n";
}

// TrainingStepAccounting on its own, told a step by hand (times in us): 3 ranks run a forward
// kernel (rank 0: 0-10, rank 1: 0-25, rank 2: 0-5), a TP all-reduce that ends at 30 (rank 1
// joined last), then a backward kernel (ranks 0 and 1: 30-40, rank 2: 30-35). Each rank's
// compute-stream gap goes to the TP phase (rank 0: 20, rank 2: 25); the critical path from
// rank 0's last kernel runs back through the all-reduce to rank 1's forward kernel (25 us on the
// path against rank 0's 10), so rank 1 is waited on, and its kernels (35 us) exceed the median
// rank's (rank 0: 20 us) by more than 5% of the 40 us step: "straggler". Rank 2 waits 5 us at
// the barrier, plus 1 us charged to no operation; MFU = 1.2e6 FLOPs / (3 x 1e12 x 40 us).
TEST(TrainingStepAccountingTest, ChargesPhasesAndBlamesTheCriticalPath)
{
    auto g = std::make_shared<WorkloadGraph>(3);
    const uint32_t group = g->Group({0, 1, 2});
    for (uint32_t r = 0; r < 3; ++r)
    {
        WorkloadOp fwd;
        fwd.phase = WorkloadOp::FORWARD;
        WorkloadOp tp;
        tp.kind = WorkloadOp::COLLECTIVE;
        tp.phase = WorkloadOp::TP;
        tp.group = group;
        WorkloadOp bwd;
        bwd.phase = WorkloadOp::BACKWARD;
        g->Add(r, fwd);
        g->Add(r, tp, {0});
        g->Add(r, bwd, {1});
    }
    g->modelFlops = 1.2e6;
    const int64_t us = MicroSeconds(1).GetTimeStep();
    const std::vector<int64_t> fwdEnd{10, 25, 5};
    const std::vector<int64_t> bwdEnd{40, 40, 35};
    std::vector<std::vector<TrainingOpState>> state(3, std::vector<TrainingOpState>(3));
    for (uint32_t r = 0; r < 3; ++r)
    {
        state[r][0].start = 0;
        state[r][0].end = fwdEnd[r] * us;
        state[r][1].start = fwdEnd[r] * us;
        state[r][1].end = 30 * us;
        state[r][1].byRank = 1; // the all-reduce's last member to join
        state[r][1].byOp = 1;
        state[r][2].start = 30 * us;
        state[r][2].end = bwdEnd[r] * us;
        state[r][2].byRank = r;
        state[r][2].byOp = 1;
    }
    state[1][1].byRank = 1; // rank 1 joined when its forward kernel ended
    state[1][1].byOp = 0;

    TrainingStepAccounting a;
    a.Setup(g, nullptr);
    a.BeginStep(0);
    TrainingStepRecord rec;
    RankPhaseTimes p0;
    RankPhaseTimes p2;
    Simulator::Schedule(MicroSeconds(40), [&] {
        for (uint32_t r = 0; r < 3; ++r)
        {
            a.AddKernelTime(r, WorkloadOp::FORWARD, fwdEnd[r] * us);
            a.AddKernelTime(r, WorkloadOp::BACKWARD, (bwdEnd[r] - 30) * us);
            a.Charge(r, MicroSeconds(30 - fwdEnd[r]), r, 1);
            a.AddBytes(r, WorkloadOp::TP, 1000 + r);
            a.SetComputeEnd(r, MicroSeconds(bwdEnd[r]));
        }
        a.Charge(2, MicroSeconds(1), UINT32_MAX, 0);
        const std::vector<Time> rankEnd{MicroSeconds(40), MicroSeconds(40), MicroSeconds(35)};
        rec = a.EndStep(rankEnd, state);
    });
    Simulator::Run();
    Simulator::Destroy();
    EXPECT_EQ(rec.StepTime(), MicroSeconds(40));
    EXPECT_EQ(rec.lastComputeEnd, MicroSeconds(40));
    EXPECT_EQ(rec.lastRank, 0u);
    EXPECT_EQ(rec.waitedOn, 1u);
    EXPECT_EQ(rec.cause, "straggler");
    EXPECT_EQ(rec.lossProbes, 0u);
    ASSERT_EQ(a.GetSteps().size(), 1u);
    EXPECT_EQ(a.GetPhaseTimes(0, 0).tpExposed, MicroSeconds(20));
    EXPECT_EQ(a.GetPhaseTimes(0, 1).tpExposed, MicroSeconds(5));
    EXPECT_EQ(a.GetPhaseTimes(0, 2).tpExposed, MicroSeconds(25));
    EXPECT_EQ(a.GetPhaseTimes(0, 0).compute, MicroSeconds(20));
    EXPECT_EQ(a.GetPhaseTimes(0, 1).compute, MicroSeconds(35));
    EXPECT_EQ(a.GetPhaseTimes(0, 0).barrier, Time(0));
    EXPECT_EQ(a.GetPhaseTimes(0, 2).barrier, MicroSeconds(6));
    EXPECT_EQ(a.GetBytesSent(0, 2, WorkloadOp::TP), 1002u);
    EXPECT_EQ(a.GetKernelTime(0, 1, WorkloadOp::FORWARD), MicroSeconds(25));
    EXPECT_NEAR(a.GetMfu(1e12), 1.2e6 / (3 * 1e12 * 40e-6), 1e-12);
}

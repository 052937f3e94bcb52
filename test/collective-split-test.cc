// SPDX-License-Identifier: GPL-2.0-only
//
// A collective whose RDMA transport is split across MPI ranks (issue 45), here in one process:
// each message announced to the receiving rank a message delay after it is posted, the
// executor's completion learnt from every rank's report a message delay after the last arrival,
// the training job's next step begun at the barrier all the same; a training graph's
// completions (ParallelTrainingJob) learnt by everyone a message delay after they happen.
// test/mpi/runner-ranks-test.sh runs the same on 2 and 4 ranks against this one-process run.
#include "test-util.h"

#include <vector>

using namespace ns3;

namespace
{

struct SplitRun
{
    std::vector<TrainingStepRecord> steps;
    std::vector<Time> stepSeen;      //!< when StepDone fired, per step
    std::vector<Time> networkOneWay; //!< MessageLatency of every network message
    Time messageDelay;
};

/// Two steps of 50 us compute and a ring AllReduce of 1 MiB on 2 servers x 4 GPUs at 100 Gb/s
/// (one leaf per rail: no path to choose), in the partition order; the RDMA transport split
/// (SetPartitioned) with `delay` (0: the mailbox's message delay for these cables), or not.
/// 2 servers x 4 GPUs at 100 Gb/s (one leaf per rail: no path to choose) with RDMA NICs and their
/// transport (`tcp`: the Linux TCP model with host costs and NCCL's socket transport), under the
/// partition order (the caller holds the simulator core); the transport split (SetPartitioned)
/// with `delay` (0: the mailbox's message delay for these cables), or not.
struct SplitFabric
{
    Ptr<FabricTopology> topo;
    Ptr<CollectiveTransport> net;
    Ptr<NvlinkTransport> nvlink;
    Time messageDelay;

    SplitFabric(bool split, Time delay, bool tcp = false)
    {
        FabricPartitionScheduler::Select();
        Ptr<RailOptimizedFatTreeHelper> rail = CreateObject<RailOptimizedFatTreeHelper>();
        rail->SetAttribute("Servers", UintegerValue(2));
        rail->SetAttribute("GpusPerServer", UintegerValue(4));
        rail->SetAttribute("LinkRate", DataRateValue(DataRate("100Gbps")));
        topo = rail->Build();
        if (tcp)
        {
            LinuxTcpHelper h;
            h.SetHostCosts(true);
            h.Install(topo);
            Ptr<LinuxTcpCollectiveTransport> t = CreateObject<LinuxTcpCollectiveTransport>();
            t->SetRanks(topo->GetHosts());
            net = t;
        }
        else
        {
            RdmaHelper rdma;
            rdma.Install(topo);
            Ptr<RdmaCollectiveTransport> r = CreateObject<RdmaCollectiveTransport>();
            r->SetRanks(topo->GetHosts());
            net = r;
        }
        std::vector<Time> cables;
        for (const FabricLinkInfo& l : topo->GetLinks())
        {
            cables.push_back(DynamicCast<FabricChannel>(l.devA->GetChannel())->GetDelay());
        }
        messageDelay = delay.IsZero() ? FabricRankMailbox::GetMessageDelay(cables) : delay;
        if (split)
        {
            net->SetPartitioned(messageDelay);
        }
        nvlink = CreateObject<NvlinkTransport>();
        nvlink->SetRanks(topo->GetNHosts());
    }
};

/// Two steps of 50 us compute and a ring AllReduce of 1 MiB on SplitFabric(split, delay, tcp).
SplitRun
RunRing(bool split, Time delay = Time(0), bool tcp = false)
{
    SimulatorImplGuard core("ns3::FabricSimulatorImpl");
    const SplitFabric f(split, delay, tcp);
    const Ptr<FabricTopology> topo = f.topo;
    const Ptr<CollectiveTransport> net = f.net;
    const Ptr<NvlinkTransport> nvlink = f.nvlink;
    SplitRun r;
    r.messageDelay = f.messageDelay;
    net->TraceConnectWithoutContext(
        "MessageLatency",
        MakeCallback(+[](std::vector<Time>* v, uint32_t, uint32_t, uint64_t, Time oneWay) {
            v->push_back(oneWay);
        }).Bind(&r.networkOneWay));
    for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
    {
        Ptr<GpuTrainingApp> app = CreateObject<GpuTrainingApp>();
        app->SetAttribute("ComputeTime", TimeValue(MicroSeconds(50)));
        topo->GetHostNode(h)->AddApplication(app);
    }
    Ptr<TrainingJob> job = CreateObject<TrainingJob>();
    job->SetAttribute("Steps", UintegerValue(2));
    job->SetAttribute("Bytes", UintegerValue(1 << 20));
    job->SetAttribute("Algorithm", TypeIdValue(RingCollective::GetTypeId()));
    job->Setup(topo->GetHosts(), 4, net, nvlink);
    job->TraceConnectWithoutContext(
        "StepDone",
        MakeCallback(+[](std::vector<Time>* v, const TrainingStepRecord&) {
            v->push_back(Simulator::Now());
        }).Bind(&r.stepSeen));
    Simulator::ScheduleNow(&TrainingJob::Start, job);
    Simulator::Run();
    r.steps = job->GetSteps();
    Simulator::Destroy();
    GlobalValue::Bind("SchedulerType", StringValue("ns3::MapScheduler"));
    return r;
}

/// What a training graph run did: every operation's end, per rank; its step; bytes sent.
struct GraphRun
{
    std::vector<std::vector<Time>> ends;
    TrainingStepRecord step;
    std::vector<uint64_t> bytes; //!< per rank: bytes handed to the transports (every phase)
    Time messageDelay;
};

/// On SplitFabric, one step of a graph with a collective over NVLink, one over the
/// fabric and a message between servers, each after a kernel: every rank computes 10 us, then
/// AllReduces 256 KiB with its server (NVLink) and 1 MiB with everyone; GPU 0 sends 256 KiB to
/// GPU 4, which computes 10 us more once it has it. The RDMA transport split or not.
GraphRun
RunGraph(bool split)
{
    SimulatorImplGuard core("ns3::FabricSimulatorImpl");
    const SplitFabric f(split, Time(0));
    GraphRun r;
    r.messageDelay = f.messageDelay;

    auto g = std::make_shared<WorkloadGraph>(8);
    const uint32_t all = g->Group({0, 1, 2, 3, 4, 5, 6, 7});
    const uint32_t server[2] = {g->Group({0, 1, 2, 3}), g->Group({4, 5, 6, 7})};
    for (uint32_t k = 0; k < 8; ++k)
    {
        WorkloadOp kernel;
        kernel.durationNs = 10000;
        const uint32_t c = g->Add(k, kernel);
        WorkloadOp ar;
        ar.kind = WorkloadOp::COLLECTIVE;
        ar.phase = WorkloadOp::TP;
        ar.group = server[k / 4];
        ar.bytes = 256 * 1024;
        g->Add(k, ar, {c});
        ar.phase = WorkloadOp::DP;
        ar.group = all;
        ar.bytes = 1 << 20;
        g->Add(k, ar, {c});
        if (k == 0 || k == 4)
        {
            WorkloadOp m;
            m.kind = k == 0 ? WorkloadOp::SEND : WorkloadOp::RECV;
            m.phase = WorkloadOp::PP;
            m.peer = k == 0 ? 4 : 0;
            m.bytes = 256 * 1024;
            const uint32_t x = g->Add(k, m, {c});
            if (k == 4)
            {
                g->Add(k, kernel, {x});
            }
        }
    }
    r.ends.resize(8);
    for (uint32_t k = 0; k < 8; ++k)
    {
        r.ends[k].assign(g->ops[k].size(), Time(-1));
    }
    Ptr<ParallelTrainingJob> job = CreateObject<ParallelTrainingJob>();
    job->SetAttribute("Steps", UintegerValue(1));
    job->SetGraph(g);
    std::vector<uint32_t> gpus{0, 1, 2, 3, 4, 5, 6, 7};
    job->Setup(f.topo->GetHosts(), gpus, 4, f.net, f.nvlink);
    job->TraceConnectWithoutContext("OpDone",
                                    MakeCallback(+[](std::vector<std::vector<Time>>* e,
                                                     uint32_t rank,
                                                     uint32_t op,
                                                     Time,
                                                     Time end) {
                                        (*e)[rank][op] = end;
                                    }).Bind(&r.ends));
    Simulator::ScheduleNow(&ParallelTrainingJob::Start, job);
    Simulator::Run();
    EXPECT_TRUE(job->IsFinished());
    if (!job->GetSteps().empty())
    {
        r.step = job->GetSteps()[0];
    }
    for (uint32_t k = 0; k < 8; ++k)
    {
        uint64_t b = 0;
        for (uint32_t ph = 0; ph < WorkloadOp::PHASES; ++ph)
        {
            b += job->GetBytesSent(0, k, WorkloadOp::Phase(ph));
        }
        r.bytes.push_back(b);
    }
    Simulator::Destroy();
    GlobalValue::Bind("SchedulerType", StringValue("ns3::MapScheduler"));
    return r;
}

} // namespace

// Split, every completion reaches the operations waiting for it a message delay D late (as on N
// MPI ranks, where only the receiver's rank sees it): each collective and the message end
// exactly D later than whole, and the kernel that waited for the message too; the kernels that
// waited for nothing do not move, nor do the bytes each GPU sent.
TEST_F(FabricTest, ASplitTrainingGraphLearnsEachCompletionAMessageDelayLate)
{
    const GraphRun whole = RunGraph(false);
    const GraphRun split = RunGraph(true);
    const Time d = split.messageDelay;
    ASSERT_GT(d, NanoSeconds(1));
    for (uint32_t k = 0; k < 8; ++k)
    {
        ASSERT_EQ(split.ends[k].size(), whole.ends[k].size());
        EXPECT_EQ(split.ends[k][0], whole.ends[k][0]) << "GPU " << k << ": the first kernel";
        EXPECT_GT(whole.ends[k][1], whole.ends[k][0]) << "GPU " << k;
        for (uint32_t i = 1; i < whole.ends[k].size(); ++i)
        {
            EXPECT_EQ(split.ends[k][i], whole.ends[k][i] + d) << "GPU " << k << " op " << i;
        }
    }
    ASSERT_EQ(whole.ends[4].size(), 5u);
    EXPECT_EQ(whole.ends[4][4] - whole.ends[4][3], MicroSeconds(10)) << "the kernel after the RECV";
    EXPECT_EQ(split.step.barrier, whole.step.barrier + d);
    EXPECT_EQ(split.step.cause, whole.step.cause);
    EXPECT_EQ(split.bytes, whole.bytes);
    EXPECT_EQ(whole.bytes[0], whole.bytes[1] + 256 * 1024) << "GPU 0's message";
}

// Split with the mailbox's delay D: the same steps to the nanosecond as the whole transport;
// each barrier is learnt D after it, and the next step still begins at the barrier.
TEST_F(FabricTest, ASplitCollectiveKeepsItsStepsAndLearnsEachBarrierAMessageDelayLate)
{
    const SplitRun whole = RunRing(false);
    const SplitRun split = RunRing(true);
    ASSERT_EQ(whole.steps.size(), 2u);
    ASSERT_EQ(split.steps.size(), 2u);
    ASSERT_EQ(split.stepSeen.size(), 2u);
    EXPECT_GT(split.messageDelay, NanoSeconds(1));
    for (uint32_t k = 0; k < 2; ++k)
    {
        const TrainingStepRecord& a = whole.steps[k];
        const TrainingStepRecord& b = split.steps[k];
        EXPECT_EQ(b.start, a.start) << "step " << k;
        EXPECT_EQ(b.barrier, a.barrier) << "step " << k;
        EXPECT_EQ(b.lastRank, a.lastRank) << "step " << k;
        EXPECT_EQ(b.collectiveEnd, a.collectiveEnd) << "step " << k;
        EXPECT_EQ(b.computeEnd, a.computeEnd) << "step " << k;
        EXPECT_EQ(whole.stepSeen[k], a.barrier) << "whole: seen at the last arrival";
        EXPECT_EQ(split.stepSeen[k], b.barrier + split.messageDelay)
            << "split: seen a message delay after it";
    }
    EXPECT_EQ(split.steps[1].start, split.steps[0].barrier) << "the next step began at the barrier";
    EXPECT_EQ(split.networkOneWay, whole.networkOneWay);
    EXPECT_FALSE(split.networkOneWay.empty());
}

// A message whose last byte lands before its announcement arrives with the announcement: with a
// 200 us delay, every network message takes at least 200 us; whole, none does.
TEST_F(FabricTest, ASplitMessageArrivesNoEarlierThanItsAnnouncement)
{
    const Time d = MicroSeconds(200);
    const SplitRun whole = RunRing(false);
    const SplitRun slow = RunRing(true, d);
    ASSERT_FALSE(slow.networkOneWay.empty());
    ASSERT_EQ(slow.networkOneWay.size(), whole.networkOneWay.size());
    for (size_t i = 0; i < whole.networkOneWay.size(); ++i)
    {
        EXPECT_LT(whole.networkOneWay[i], d) << i;
        EXPECT_GE(slow.networkOneWay[i], d) << i;
    }
    ASSERT_EQ(slow.steps.size(), 2u);
    EXPECT_GT(slow.steps[0].CollectiveTime(), whole.steps[0].CollectiveTime());
}

// Kernel TCP split as RDMA is (each message's receive side queued at its receiver's rank from the
// sender's announcement): the same steps and message latencies to the nanosecond as whole; with
// a 200 us delay, every message waits for its announcement in its socket.
TEST_F(FabricTest, ASplitTcpCollectiveKeepsItsStepsAndItsMessagesWaitForTheirAnnouncement)
{
    const SplitRun whole = RunRing(false, Time(0), true);
    const SplitRun split = RunRing(true, Time(0), true);
    ASSERT_EQ(whole.steps.size(), 2u);
    ASSERT_EQ(split.steps.size(), 2u);
    ASSERT_EQ(split.stepSeen.size(), 2u);
    for (uint32_t k = 0; k < 2; ++k)
    {
        EXPECT_EQ(split.steps[k].barrier, whole.steps[k].barrier) << "step " << k;
        EXPECT_EQ(split.steps[k].collectiveEnd, whole.steps[k].collectiveEnd) << "step " << k;
        EXPECT_EQ(split.stepSeen[k], split.steps[k].barrier + split.messageDelay);
    }
    EXPECT_EQ(split.networkOneWay, whole.networkOneWay);
    ASSERT_FALSE(whole.networkOneWay.empty());

    const Time d = MicroSeconds(200);
    const SplitRun slow = RunRing(true, d, true);
    ASSERT_EQ(slow.networkOneWay.size(), whole.networkOneWay.size());
    for (size_t i = 0; i < whole.networkOneWay.size(); ++i)
    {
        EXPECT_LT(whole.networkOneWay[i], d) << i;
        EXPECT_GE(slow.networkOneWay[i], d) << i;
    }
    ASSERT_EQ(slow.steps.size(), 2u);
}

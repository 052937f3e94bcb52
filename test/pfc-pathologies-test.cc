// SPDX-License-Identifier: GPL-2.0-only
// PFC pathologies: a NIC whose pause generator is stuck (a pause storm) stalls the flows that
// share a paused port with the traffic to it; the PFC watchdog detects the storm, drops the
// stormed queue so the victims resume, and restores it once the storm ends. Rerouting that breaks
// the up-down order creates cyclic buffer dependencies: the deadlock detector finds the cycle of
// paused queues, and the watchdog breaks it.
#include "test-util.h"

#include "ns3/fabric-channel.h"
#include "ns3/fabric-fault-injector.h"
#include "ns3/fabric-partition-scheduler.h"
#include "ns3/fabric-poll-chain.h"
#include "ns3/fabric-rank-mailbox.h"
#include "ns3/pfc-deadlock-detector.h"
#include "ns3/pfc-flow-control.h"
#include "ns3/pfc-watchdog.h"

#include <map>
#include <optional>
#include <set>

using namespace ns3;

namespace
{

/// When each write completed, by name.
struct Finish
{
    std::map<std::string, double> ms;
    std::map<std::string, RdmaCompletion::Status> status;

    void Done(std::string name, const RdmaCompletion& c)
    {
        ms[name] = Simulator::Now().GetSeconds() * 1e3;
        status[name] = c.status;
    }
};

void
FinishDone(Finish* f, std::string name, const RdmaCompletion& c)
{
    f->Done(name, c);
}

void
Write(Ptr<FabricTopology> topo,
      uint32_t from,
      uint32_t to,
      uint64_t bytes,
      Finish& f,
      std::string n)
{
    auto qp = RdmaHelper::Connect(topo->GetHostNode(from), topo->GetHostNode(to));
    qp.first->SetCompletionCallback(MakeBoundCallback(&FinishDone, &f, n));
    qp.first->PostWrite(bytes);
}

/// The event order of a run: ns-3's; the partition order (FabricPartitionScheduler) with the
/// watchdog and detector polling as before; or the partition order with them split as across
/// MPI ranks (SetPartitioned: polls kept by messages, on this process's one rank).
enum class Order
{
    NS3,
    PARTITION,
    SPLIT,
};

/// Selects the partition order for the simulator about to be created (not NS3).
void
SelectOrder(Order order, std::optional<SimulatorImplGuard>& core)
{
    if (order != Order::NS3)
    {
        core.emplace("ns3::FabricSimulatorImpl");
        FabricPartitionScheduler::Select();
    }
}

/// The message delay between ranks on `topo`'s cables.
Time
MessageDelay(Ptr<FabricTopology> topo)
{
    std::vector<Time> cables;
    for (const FabricLinkInfo& l : topo->GetLinks())
    {
        cables.push_back(DynamicCast<FabricChannel>(l.devA->GetChannel())->GetDelay());
    }
    return FabricRankMailbox::GetMessageDelay(cables);
}

struct StormRun
{
    Finish f;
    uint64_t storms{0};
    uint64_t restorations{0};
    uint64_t dropped{0};
    double host1PausedMs{0};
    std::vector<double> detectedAt;
    std::vector<double> restoredAt;
};

/// A watchdog ten times faster than SONiC's: detection 20 ms, restoration 20 ms, polls 10 ms.
Ptr<PfcWatchdog>
FastWatchdog()
{
    Ptr<PfcWatchdog> wd = CreateObject<PfcWatchdog>();
    wd->SetAttribute("DetectionTime", TimeValue(MilliSeconds(20)));
    wd->SetAttribute("RestorationTime", TimeValue(MilliSeconds(20)));
    wd->SetAttribute("PollInterval", TimeValue(MilliSeconds(10)));
    return wd;
}

void
Record(std::vector<double>* v, Ptr<FabricNetDevice>, uint8_t)
{
    v->push_back(Simulator::Now().GetSeconds() * 1e3);
}

/**
 * Four hosts on one switch. gpu0's NIC storms on priority 3 from 1 ms to `stormEndMs`; from
 * 2 ms gpu1 writes 4 MiB to gpu0 (it fills the switch's queue to gpu0, so the switch pauses
 * gpu1) and 4 MiB to gpu2 (the victim: same sender, different destination); gpu3 writes 4 MiB
 * to gpu2 (a bystander sharing no paused port).
 */
StormRun
Storm(bool watchdog, double stormEndMs, double stopMs, Order order = Order::NS3)
{
    std::optional<SimulatorImplGuard> core;
    SelectOrder(order, core);
    Ptr<FabricTopology> topo = BuildStar(4);
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    rdma.Install(topo);
    Ptr<FabricFaultInjector> inj = CreateObject<FabricFaultInjector>();
    inj->SetTopology(topo);
    FabricFaultEvent e;
    e.at = MilliSeconds(1);
    e.action = FabricFaultEvent::PAUSE_STORM;
    e.links = {uint32_t(topo->FindLink(topo->GetLinkName(topo->GetVertexLinks(0).front())))};
    e.stormEnd = 0;
    e.priority = 3;
    e.until = stormEndMs > 0 ? NanoSeconds(int64_t(stormEndMs * 1e6)) : Time(0);
    inj->AddEvent(e);
    StormRun r;
    Ptr<PfcWatchdog> wd;
    if (watchdog)
    {
        wd = FastWatchdog();
        wd->Install(topo->GetSwitch(0));
        if (order == Order::SPLIT)
        {
            wd->SetPartitioned(MessageDelay(topo));
        }
        wd->TraceConnectWithoutContext("StormDetected", MakeBoundCallback(&Record, &r.detectedAt));
        wd->TraceConnectWithoutContext("StormRestored", MakeBoundCallback(&Record, &r.restoredAt));
    }
    Simulator::Schedule(MilliSeconds(2), [&]() {
        Write(topo, 1, 0, 4 << 20, r.f, "to-stormer");
        Write(topo, 1, 2, 4 << 20, r.f, "victim");
        Write(topo, 3, 2, 4 << 20, r.f, "bystander");
    });
    Simulator::Stop(NanoSeconds(int64_t(stopMs * 1e6)));
    Simulator::Run();
    if (wd)
    {
        r.storms = wd->GetStormsDetected();
        r.restorations = wd->GetRestorations();
        r.dropped = wd->GetDroppedFrames();
    }
    auto fc = DynamicCast<PfcFlowControl>(topo->GetHostDevice(1)->GetFlowControl());
    r.host1PausedMs = fc->GetPausedTime(3).GetSeconds() * 1e3;
    Simulator::Destroy();
    return r;
}

} // namespace

TEST_F(FabricTest, PauseStormStallsItsVictimsWithoutTheWatchdog)
{
    // The storm never ends: the victim shares gpu1's paused NIC with the traffic to the
    // stormer and stalls; the bystander finishes; the simulation ends at its stop time.
    const StormRun r = Storm(false, 0, 300);
    EXPECT_EQ(r.f.ms.count("victim"), 0u) << "the victim must stall behind the storm";
    EXPECT_EQ(r.f.ms.count("to-stormer"), 0u);
    ASSERT_EQ(r.f.ms.count("bystander"), 1u);
    EXPECT_LT(r.f.ms.at("bystander"), 3.0) << "4 MiB at 400G from 2 ms: ~0.1 ms";
    EXPECT_GT(r.host1PausedMs, 250.0) << "gpu1 is held paused from the first ms to the end";
}

TEST_F(FabricTest, PfcWatchdogDropsTheStormedQueueAndRestoresItAfterTheStorm)
{
    // Detection 20 ms, restoration 20 ms, polls every 10 ms; the storm lasts 1..100 ms.
    const StormRun r = Storm(true, 100, 400);
    ASSERT_EQ(r.detectedAt.size(), 1u);
    ASSERT_EQ(r.restoredAt.size(), 1u);
    EXPECT_EQ(r.storms, 1u);
    EXPECT_EQ(r.restorations, 1u);
    EXPECT_GT(r.dropped, 0u) << "the drop action discards the queue to the stormer";
    // The switch's port to gpu0 is paused from ~1 ms: detected at the first poll 20 ms later.
    EXPECT_GE(r.detectedAt[0], 21.0);
    EXPECT_LE(r.detectedAt[0], 21.0 + 10.0 + 0.01);
    // The victim resumes at detection and finishes 4 MiB in well under a millisecond.
    ASSERT_EQ(r.f.ms.count("victim"), 1u);
    EXPECT_EQ(r.f.status.at("victim"), RdmaCompletion::SUCCESS);
    EXPECT_GE(r.f.ms.at("victim"), r.detectedAt[0]);
    EXPECT_LE(r.f.ms.at("victim"), r.detectedAt[0] + 1.0);
    // Restored once no PAUSE came for 20 ms after the storm ended at 100 ms (poll granularity).
    EXPECT_GE(r.restoredAt[0], 100.0 + 20.0 - 0.1);
    EXPECT_LE(r.restoredAt[0], 100.0 + 20.0 + 10.0 + 0.1);
    // The write to the stormer lost frames to the drop action and completes by retransmission
    // (go-back-N after its 67 ms timeout) once the queue is restored.
    ASSERT_EQ(r.f.ms.count("to-stormer"), 1u);
    EXPECT_EQ(r.f.status.at("to-stormer"), RdmaCompletion::SUCCESS);
    EXPECT_GT(r.f.ms.at("to-stormer"), r.restoredAt[0]);
    EXPECT_LT(r.host1PausedMs, 25.0) << "gpu1 is released at detection";
}

TEST_F(FabricTest, StormEndingBeforeDetectionIsNotAStorm)
{
    // A 10 ms storm is shorter than the 20 ms detection time: nothing is dropped, and every
    // write completes once it ends.
    const StormRun r = Storm(true, 11, 200);
    EXPECT_EQ(r.storms, 0u);
    EXPECT_EQ(r.dropped, 0u);
    ASSERT_EQ(r.f.ms.count("victim"), 1u);
    EXPECT_GE(r.f.ms.at("victim"), 11.0);
    EXPECT_LT(r.f.ms.at("victim"), 13.0);
    EXPECT_EQ(r.f.ms.count("to-stormer"), 1u);
}

namespace
{

struct DeadlockRun
{
    std::vector<std::vector<PfcDeadlockHop>> cycles;
    uint32_t completed{0};
    uint32_t failed{0};
    uint32_t posted{0};
    double endMs{0};
    Time end;
    uint64_t storms{0};
    std::vector<double> stormAt;   //!< the watchdog's detections, ms
    std::vector<std::string> hops; //!< each cycle's hops: "node/port/priority/paused for"
    Ptr<FabricTopology> topo;
};

/**
 * Four leaves of four hosts under four spines (radix 8, non-blocking), half of the leaf-spine
 * links down so that what is left is a ring: leaf0-spine0-leaf1-spine1-leaf2-spine2-leaf3-
 * spine3-leaf0. Without valley-free routing, opposite leaves (0-2, 1-3) reach each other two
 * ways round the ring, bouncing down and up through the leaf between: the textbook cyclic
 * buffer dependency. Every host writes `bytes` to every other host at once, without congestion
 * control.
 */
DeadlockRun
Bounce(bool valleyFree, bool watchdog, uint64_t bytes, Order order = Order::NS3)
{
    std::optional<SimulatorImplGuard> core;
    SelectOrder(order, core);
    Ptr<FatTreeHelper> h = CreateObject<FatTreeHelper>();
    h->SetAttribute("Servers", UintegerValue(16));
    h->SetAttribute("GpusPerServer", UintegerValue(1));
    h->SetAttribute("LeafRadix", UintegerValue(8));
    Ptr<FabricTopology> topo = h->Build();
    topo->SetAttribute("ValleyFree", BooleanValue(valleyFree));
    for (uint32_t l = 0; l < 4; ++l)
    {
        for (uint32_t sp = 0; sp < 4; ++sp)
        {
            if (sp != l && sp != (l + 3) % 4)
            {
                const std::string name = "leaf" + std::to_string(l) + "-spine" + std::to_string(sp);
                topo->SetLinkUp(uint32_t(topo->FindLink(name)), false);
            }
        }
    }
    topo->PopulateRoutes();
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    rdma.Install(topo);
    if (order != Order::NS3)
    {
        topo->AssignStreams(1); // the same ECMP hashes in both runs of a comparison
    }
    DeadlockRun r;
    Ptr<PfcDeadlockDetector> det = CreateObject<PfcDeadlockDetector>();
    det->SetAttribute("StopSimulation", BooleanValue(!watchdog));
    Ptr<PfcWatchdog> wd;
    if (watchdog)
    {
        wd = FastWatchdog();
    }
    for (uint32_t j = 0; j < topo->GetNSwitches(); ++j)
    {
        det->AddSwitch(topo->GetSwitch(j));
        if (wd)
        {
            wd->Install(topo->GetSwitch(j));
        }
    }
    if (order == Order::SPLIT)
    {
        det->SetPartitioned(MessageDelay(topo));
        if (wd)
        {
            wd->SetPartitioned(MessageDelay(topo));
        }
    }
    if (wd)
    {
        wd->TraceConnectWithoutContext("StormDetected", MakeBoundCallback(&Record, &r.stormAt));
    }
    Completions done;
    std::vector<Ptr<RdmaQueuePair>> qps;
    for (uint32_t a = 0; a < 16; ++a)
    {
        for (uint32_t b = 0; b < 16; ++b)
        {
            if (a == b)
            {
                continue;
            }
            auto qp = RdmaHelper::Connect(topo->GetHostNode(a), topo->GetHostNode(b));
            qp.first->SetCompletionCallback(done.Cb());
            qp.first->PostWrite(bytes);
            qps.push_back(qp.first);
            ++r.posted;
        }
    }
    Simulator::Stop(Seconds(2));
    Simulator::Run();
    r.end = Simulator::Now();
    r.endMs = r.end.GetSeconds() * 1e3;
    r.cycles = det->GetDeadlocks();
    for (const auto& cycle : r.cycles)
    {
        for (const PfcDeadlockHop& h : cycle)
        {
            r.hops.push_back(std::to_string(h.device->GetNode()->GetId()) + "/" +
                             std::to_string(h.port) + "/" + std::to_string(h.prio) + "/" +
                             std::to_string(h.pausedFor.GetTimeStep()));
        }
    }
    for (const auto& c : done.v)
    {
        (c.status == RdmaCompletion::SUCCESS ? r.completed : r.failed)++;
    }
    r.storms = wd ? wd->GetStormsDetected() : 0;
    r.topo = topo;
    return r;
}

} // namespace

TEST_F(FabricTest, DownUpDetourDeadlocksAndTheDetectorReportsTheCycle)
{
    const DeadlockRun r = Bounce(false, false, 4 << 20);
    ASSERT_GE(r.cycles.size(), 1u) << "the bounce paths must close a cycle of paused queues";
    EXPECT_LT(r.endMs, 2000.0) << "the detector stopped the simulation, no silent hang";
    EXPECT_LT(r.completed, r.posted);
    const auto& cycle = r.cycles.front();
    EXPECT_EQ(cycle.size(), 8u) << "every leaf-spine queue of one direction round the ring";
    std::set<uint64_t> switches;
    for (const PfcDeadlockHop& hop : cycle)
    {
        EXPECT_EQ(hop.prio, 3);
        EXPECT_GE(hop.pausedFor, MilliSeconds(10)) << "every queue held past the threshold";
        EXPECT_GT(hop.device->GetQueueFrames(hop.prio), 0u);
        switches.insert(reinterpret_cast<uintptr_t>(PeekPointer(hop.sw)));
    }
    EXPECT_GE(switches.size(), 2u);
    Simulator::Destroy();
}

TEST_F(FabricTest, ValleyFreeRoutesDoNotDeadlock)
{
    // Valley-free, opposite leaves cannot reach each other (no up-down path is left): those
    // writes fail after their retries, every other one completes, and no cycle forms.
    const DeadlockRun r = Bounce(true, false, 4 << 20);
    EXPECT_TRUE(r.cycles.empty());
    EXPECT_EQ(r.completed + r.failed, r.posted);
    EXPECT_EQ(r.failed, 64u) << "leaf0 <-> leaf2 and leaf1 <-> leaf3: 4 x 4 hosts each way";
    Simulator::Destroy();
}

TEST_F(FabricTest, PfcWatchdogBreaksTheDeadlock)
{
    const DeadlockRun r = Bounce(false, true, 4 << 20);
    EXPECT_GE(r.cycles.size(), 1u) << "detected and reported, the run goes on";
    EXPECT_GE(r.storms, 1u) << "the watchdog takes the deadlocked queues for storms";
    EXPECT_EQ(r.completed, r.posted) << "every write completes after the drops";
    Simulator::Destroy();
}

TEST_F(FabricTest, SplitWatchdogPollsWhenOneProcessWould)
{
    // Across ranks the watchdog's polls are kept by messages (FabricPollChain): the same
    // detections, restorations and completions to the nanosecond as polling in one place.
    const StormRun one = Storm(true, 100, 400, Order::PARTITION);
    const StormRun split = Storm(true, 100, 400, Order::SPLIT);
    ASSERT_EQ(one.detectedAt.size(), 1u);
    ASSERT_EQ(one.restoredAt.size(), 1u);
    EXPECT_EQ(split.detectedAt, one.detectedAt);
    EXPECT_EQ(split.restoredAt, one.restoredAt);
    EXPECT_EQ(split.f.ms, one.f.ms);
    EXPECT_EQ(split.dropped, one.dropped);
    EXPECT_EQ(split.host1PausedMs, one.host1PausedMs);
}

TEST_F(FabricTest, SplitDeadlockSearchFindsTheSameCycleAMessageDelayLater)
{
    // Split, each rank tells the others what its switches hold and every rank searches the
    // union one message delay after the poll: the same cycle, paused as long (as of the poll),
    // and the run stops exactly that delay later than polling in one place.
    const DeadlockRun one = Bounce(false, false, 4 << 20, Order::PARTITION);
    const Time delay = MessageDelay(one.topo);
    Simulator::Destroy();
    const DeadlockRun split = Bounce(false, false, 4 << 20, Order::SPLIT);
    ASSERT_GE(one.cycles.size(), 1u);
    EXPECT_EQ(split.cycles.size(), one.cycles.size());
    EXPECT_EQ(split.hops, one.hops);
    EXPECT_EQ(split.end, one.end + delay);
    Simulator::Destroy();
    // With the watchdog breaking it, the whole run is the same: detections and completions.
    const DeadlockRun wdOne = Bounce(false, true, 4 << 20, Order::PARTITION);
    Simulator::Destroy();
    const DeadlockRun wdSplit = Bounce(false, true, 4 << 20, Order::SPLIT);
    ASSERT_GE(wdOne.stormAt.size(), 1u);
    EXPECT_EQ(wdSplit.stormAt, wdOne.stormAt);
    EXPECT_EQ(wdSplit.completed, wdOne.completed);
    EXPECT_EQ(wdSplit.failed, wdOne.failed);
    EXPECT_EQ(wdSplit.storms, wdOne.storms);
    EXPECT_EQ(wdSplit.cycles.size(), wdOne.cycles.size());
    Simulator::Destroy();
}

TEST_F(FabricTest, PollChainPollsWhenOneProcessWould)
{
    // The one-process rule: a PAUSE while no poll is pending starts one an interval later; a
    // poll that wants another schedules it an interval later. Interval 10 us, message delay
    // 1 us; PAUSEs at 5 us (starts a chain), 7 us (a poll is pending: nothing), 25.5 us (right
    // after the poll at 25 us that ends the chain, before every rank knows it ended) and 36.2
    // us (likewise after 35.5 us), 50 us; only the first poll wants another.
    std::optional<SimulatorImplGuard> core;
    SelectOrder(Order::SPLIT, core);
    std::vector<int64_t> polls;
    FabricPollChain chain(MicroSeconds(10), MicroSeconds(1), [&polls]() {
        polls.push_back(Simulator::Now().GetNanoSeconds());
        return polls.size() == 1;
    });
    for (const int64_t ns : {5000, 7000, 25500, 36200, 50000})
    {
        Simulator::Schedule(NanoSeconds(ns), [&chain]() { chain.Wake(); });
    }
    Simulator::Run();
    EXPECT_EQ(polls, (std::vector<int64_t>{15000, 25000, 35500, 46200, 60000}));
    Simulator::Destroy();
}

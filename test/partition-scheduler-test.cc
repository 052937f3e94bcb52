// SPDX-License-Identifier: GPL-2.0-only
//
// FabricPartitionScheduler (issue 45): events of equal time stamps run in the order (scheduling
// node, that node's scheduling order), whatever order the nodes' events were scheduled in, with
// ns-3's simulator core and with the fabric's.

#include "test-util.h"

#include <string>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

/// FabricPartitionScheduler::Select() for the simulators created while it lives (after a
/// SimulatorImplGuard, which puts the core type back).
struct PartitionOrderGuard
{
    PartitionOrderGuard()
    {
        FabricPartitionScheduler::Select();
    }

    ~PartitionOrderGuard()
    {
        GlobalValue::Bind("SchedulerType", StringValue("ns3::MapScheduler"));
    }

    PartitionOrderGuard(const PartitionOrderGuard&) = delete;
    PartitionOrderGuard& operator=(const PartitionOrderGuard&) = delete;
};

using Log = std::vector<std::string>;

void
Note(Log* log, std::string what)
{
    log->push_back(what + "@" + std::to_string(Simulator::Now().GetNanoSeconds()) + "/ctx" +
                   std::to_string(Simulator::GetContext()));
}

/// The same events, scheduled in the same calls, under `scheduler`.
Log
RunScenario()
{
    Log log;
    // Set-up (no node's event runs): each event is keyed by its own context.
    Simulator::ScheduleWithContext(5, NanoSeconds(10), &Note, &log, std::string("a"));
    Simulator::ScheduleWithContext(2, NanoSeconds(10), &Note, &log, std::string("b"));
    Simulator::ScheduleWithContext(5, NanoSeconds(10), &Note, &log, std::string("c"));
    Simulator::ScheduleWithContext(3, NanoSeconds(20), &Note, &log, std::string("d"));
    // Node 7 at 0 ns schedules two events at 20 ns, for nodes 9 and 1: keyed by node 7, after
    // node 3's event, in node 7's order.
    Simulator::ScheduleWithContext(7, NanoSeconds(0), [&log]() {
        Note(&log, "e");
        Simulator::ScheduleWithContext(9, NanoSeconds(20), &Note, &log, std::string("f"));
        Simulator::ScheduleWithContext(1, NanoSeconds(20), &Note, &log, std::string("g"));
    });
    // Node 1 at 0 ns schedules one at 20 ns for itself: it runs before node 3's and node 7's.
    Simulator::ScheduleWithContext(1, NanoSeconds(0), [&log]() {
        Note(&log, "h");
        Simulator::Schedule(NanoSeconds(20), &Note, &log, std::string("i"));
    });
    // An event removed before it runs does not run, and does not hold the others back.
    EventId removed = Simulator::Schedule(NanoSeconds(15), &Note, &log, std::string("removed"));
    Simulator::Schedule(NanoSeconds(5), [removed]() mutable { Simulator::Remove(removed); });
    Simulator::Run();
    return log;
}

class PartitionSchedulerTest : public FabricTest, public ::testing::WithParamInterface<const char*>
{
};

TEST_P(PartitionSchedulerTest, EqualTimesRunBySchedulingNodeThenItsOrder)
{
    SimulatorImplGuard core(GetParam());
    PartitionOrderGuard order;
    const Log log = RunScenario();
    EXPECT_TRUE(FabricPartitionScheduler::IsActive());
    const Log expected = {"h@0/ctx1",
                          "e@0/ctx7",
                          "b@10/ctx2",
                          "a@10/ctx5",
                          "c@10/ctx5",
                          "i@20/ctx1",
                          "d@20/ctx3",
                          "f@20/ctx9",
                          "g@20/ctx1"};
    EXPECT_EQ(log, expected);
}

// ns-3's default order, for contrast: equal times run in the order they were scheduled.
TEST_P(PartitionSchedulerTest, NsThreesOwnOrderDiffers)
{
    SimulatorImplGuard core(GetParam());
    const Log log = RunScenario();
    EXPECT_FALSE(FabricPartitionScheduler::IsActive());
    const Log expected = {"e@0/ctx7",
                          "h@0/ctx1",
                          "a@10/ctx5",
                          "b@10/ctx2",
                          "c@10/ctx5",
                          "d@20/ctx3",
                          "f@20/ctx9",
                          "g@20/ctx1",
                          "i@20/ctx1"};
    EXPECT_EQ(log, expected);
}

// A frame from another rank carries its key: SetNextKey gives the next event that key.
TEST_P(PartitionSchedulerTest, AKeyFromAnotherRankPlacesTheEvent)
{
    SimulatorImplGuard core(GetParam());
    PartitionOrderGuard order;
    Log log;
    Simulator::ScheduleWithContext(4, NanoSeconds(10), &Note, &log, std::string("local"));
    Simulator::ScheduleWithContext(4, NanoSeconds(9), [&log]() {
        // As FabricChannel::ReceiveFromRank does: node 2's frame, arriving in the next step.
        FabricPartitionScheduler::SetNextKey(FabricEventOrderKey{2, 1});
        Simulator::ScheduleWithContext(4, NanoSeconds(1), &Note, &log, std::string("remote"));
        // The key is used once: this one is node 4's own.
        Simulator::Schedule(NanoSeconds(1), &Note, &log, std::string("after"));
    });
    Simulator::Run();
    const Log expected = {"remote@10/ctx4", "local@10/ctx4", "after@10/ctx4"};
    EXPECT_EQ(log, expected);
}

// ns-3's cores take an event of the current time as run when its uid is at most the running
// event's, true only in their own order. Here node 1's event at 20 ns, scheduled after node 9's
// timer (a larger uid), runs first: the timer is still pending, and cancelling it works.
TEST_P(PartitionSchedulerTest, AnEventOfTheCurrentTimeIsPendingUntilItRunsWhateverItsUid)
{
    SimulatorImplGuard core(GetParam());
    PartitionOrderGuard order;
    Log log;
    EventId timer;
    EventId first;
    Simulator::ScheduleWithContext(9, NanoSeconds(0), [&]() {
        timer = Simulator::Schedule(NanoSeconds(20), &Note, &log, std::string("timer"));
    });
    Simulator::ScheduleWithContext(1, NanoSeconds(0), [&]() {
        first = Simulator::Schedule(NanoSeconds(20), [&]() {
            Note(&log, "first");
            EXPECT_TRUE(timer.IsRunning()) << "node 9's timer has not run";
            EXPECT_TRUE(first.IsExpired()) << "the running event counts as run";
            EXPECT_EQ(Simulator::GetDelayLeft(timer), Time(0));
            timer.Cancel();
            EXPECT_TRUE(timer.IsExpired());
        });
    });
    Simulator::ScheduleWithContext(12, NanoSeconds(20), [&]() {
        Note(&log, "last");
        EXPECT_TRUE(first.IsExpired()) << "node 1's event ran";
    });
    Simulator::Run();
    const Log expected = {"first@20/ctx1", "last@20/ctx12"};
    EXPECT_EQ(log, expected);
}

// A message of FabricRankMailbox::Broadcast on one rank: its handler runs the delay later,
// outside any node, with the payload, placed among the events of its time stamp by the key of
// the node that sent it (node 7: after node 3's event and before node 9's). What another rank
// schedules with the key the message carries (test/mpi/flow-cut-test.cc).
TEST_P(PartitionSchedulerTest, ABroadcastRunsWithItsSendersKey)
{
    SimulatorImplGuard core(GetParam());
    PartitionOrderGuard order;
    Log log;
    const uint32_t h = FabricRankMailbox::AddHandler([&log](const uint8_t* data, uint32_t size) {
        Note(&log, "message " + std::string(reinterpret_cast<const char*>(data), size));
    });
    Simulator::ScheduleWithContext(9, NanoSeconds(10), &Note, &log, std::string("node 9"));
    Simulator::ScheduleWithContext(3, NanoSeconds(10), &Note, &log, std::string("node 3"));
    Simulator::ScheduleWithContext(7, NanoSeconds(4), [h]() {
        FabricRankMailbox::Broadcast(h, "from 7", 6, NanoSeconds(6));
    });
    Simulator::Run();
    const std::string none = std::to_string(Simulator::NO_CONTEXT);
    const Log expected = {"node 3@10/ctx3", "message from 7@10/ctx" + none, "node 9@10/ctx9"};
    EXPECT_EQ(log, expected);
    EXPECT_EQ(FabricRankMailbox::GetControlMessagesSent(), 0u) << "one rank: nothing leaves";
    // Handlers are forgotten with the simulation.
    Simulator::Destroy();
    EXPECT_EQ(FabricRankMailbox::AddHandler([](const uint8_t*, uint32_t) {}), 0u);
    // The delay that holds on any partition: the longest cable, plus a step.
    EXPECT_EQ(FabricRankMailbox::GetMessageDelay({NanoSeconds(250), NanoSeconds(10)}),
              NanoSeconds(250) + TimeStep(1));
}

// Under a core that would misjudge it, the scheduler refuses to run, with one line.
TEST(PartitionSchedulerDeathTest, AnotherCoreIsRefused)
{
    EXPECT_DEATH(
        {
            GlobalValue::Bind("SimulatorImplementationType",
                              StringValue("ns3::DefaultSimulatorImpl"));
            GlobalValue::Bind("SchedulerType", StringValue("ns3::FabricPartitionScheduler"));
            Simulator::Now();
        },
        "ns3::DefaultSimulatorImpl would ignore cancelling an event");
}

INSTANTIATE_TEST_SUITE_P(SimulatorCores,
                         PartitionSchedulerTest,
                         ::testing::Values("ns3::DefaultSimulatorImpl",
                                           "ns3::FabricSimulatorImpl"));

} // namespace

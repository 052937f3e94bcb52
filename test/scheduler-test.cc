// SPDX-License-Identifier: GPL-2.0-only
// TimingWheelScheduler: the same event order as ns-3's PriorityQueueScheduler, event for event,
// on random workloads and on a whole fabric simulation; FabricSimulatorImpl: the same EventId API
// and the same simulation as ns-3's DefaultSimulatorImpl.
#include "test-util.h"

#include "ns3/priority-queue-scheduler.h"

#include <random>

using namespace ns3;

namespace
{

/// Drives two schedulers with the same operations and checks that they agree on every one.
class SchedulerPair
{
  public:
    explicit SchedulerPair(uint32_t slots)
    {
        m_wheel = CreateObject<TimingWheelScheduler>();
        m_wheel->SetSlots(slots);
        m_reference = CreateObject<PriorityQueueScheduler>();
    }

    void Insert(uint64_t ts)
    {
        Insert(ts, m_uid++);
    }

    void Insert(uint64_t ts, uint32_t uid)
    {
        Scheduler::Event ev;
        ev.impl = nullptr;
        ev.key.m_ts = ts;
        ev.key.m_uid = uid;
        ev.key.m_context = uid % 7;
        m_wheel->Insert(ev);
        m_reference->Insert(ev);
        m_pending.push_back(ev);
    }

    /// Remove the next event from both; \return false if they disagree.
    bool RemoveNext()
    {
        const Scheduler::Event peek = m_wheel->PeekNext();
        const Scheduler::Event a = m_wheel->RemoveNext();
        const Scheduler::Event b = m_reference->RemoveNext();
        Forget(a);
        m_now = a.key.m_ts;
        ++m_removed;
        return peek.key.m_uid == a.key.m_uid && a.key.m_uid == b.key.m_uid &&
               a.key.m_ts == b.key.m_ts && a.key.m_context == b.key.m_context;
    }

    /// Remove pending event number `i` (any of them) from both.
    void Remove(size_t i)
    {
        const Scheduler::Event ev = m_pending[i];
        m_wheel->Remove(ev);
        m_reference->Remove(ev);
        Forget(ev);
    }

    bool IsEmpty() const
    {
        const bool e = m_wheel->IsEmpty();
        return e == m_reference->IsEmpty() ? e : (ADD_FAILURE() << "IsEmpty disagrees", e);
    }

    size_t Pending() const
    {
        return m_pending.size();
    }

    uint64_t Now() const
    {
        return m_now;
    }

    uint64_t Removed() const
    {
        return m_removed;
    }

    Ptr<TimingWheelScheduler> Wheel() const
    {
        return m_wheel;
    }

  private:
    void Forget(const Scheduler::Event& ev)
    {
        for (size_t k = 0; k < m_pending.size(); ++k)
        {
            if (m_pending[k].key.m_uid == ev.key.m_uid)
            {
                m_pending[k] = m_pending.back();
                m_pending.pop_back();
                return;
            }
        }
        ADD_FAILURE() << "removed an event that was not pending: uid " << ev.key.m_uid;
    }

    Ptr<TimingWheelScheduler> m_wheel;
    Ptr<PriorityQueueScheduler> m_reference;
    std::vector<Scheduler::Event> m_pending;
    uint32_t m_uid{0};
    uint64_t m_now{0};
    uint64_t m_removed{0};
};

} // namespace

TEST(TimingWheelSchedulerTest, SameOrderAsPriorityQueueOnRandomWorkloads)
{
    for (uint32_t slots : {64U, 4096U})
    {
        SchedulerPair p(slots);
        std::mt19937_64 rng(slots);
        // Delays as a fabric produces them: the same time step, serialization-like, beyond the
        // wheel's horizon by a little, and timers far away.
        auto delay = [&rng, slots]() -> uint64_t {
            switch (rng() % 8)
            {
            case 0:
                return 0;
            case 1:
            case 2:
            case 3:
                return rng() % 100;
            case 4:
            case 5:
                return rng() % (2 * slots);
            case 6:
                return slots - 1 + rng() % 3; // the horizon's edge
            default:
                return 1000000 + rng() % 50000000;
            }
        };
        for (int i = 0; i < 200; ++i)
        {
            p.Insert(delay());
        }
        uint64_t mismatches = 0;
        for (int op = 0; op < 300000; ++op)
        {
            const uint64_t r = rng() % 100;
            if (r < 48 || p.Pending() == 0)
            {
                p.Insert(p.Now() + delay());
            }
            else if (r < 98)
            {
                mismatches += p.RemoveNext() ? 0 : 1;
            }
            else
            {
                p.Remove(rng() % p.Pending());
            }
        }
        while (!p.IsEmpty())
        {
            mismatches += p.RemoveNext() ? 0 : 1;
        }
        EXPECT_EQ(mismatches, 0u) << "slots " << slots;
        EXPECT_GT(p.Removed(), 100000u);
        EXPECT_EQ(p.Pending(), 0u);
        EXPECT_EQ(p.Wheel()->GetNearEvents(), 0u);
        EXPECT_EQ(p.Wheel()->GetFarEvents(), 0u);
    }
}

TEST(TimingWheelSchedulerTest, EqualTimeStampsLeaveInUidOrderWhateverTheInsertionOrder)
{
    // ns-3 inserts events in uid order; a scheduler swap re-inserts them sorted. Either way the
    // order out is by time stamp, then uid.
    SchedulerPair p(64);
    p.Insert(10, 5);
    p.Insert(10, 3);
    p.Insert(10, 9);
    p.Insert(10, 1);
    p.Insert(70, 4); // beyond the horizon: the heap
    p.Insert(70, 2);
    p.Insert(12, 0);
    for (int i = 0; i < 7; ++i)
    {
        EXPECT_TRUE(p.RemoveNext()) << i;
    }
    EXPECT_TRUE(p.IsEmpty());
}

TEST(TimingWheelSchedulerTest, NearAndFarEventsTakeTheirPaths)
{
    Ptr<TimingWheelScheduler> s = CreateObject<TimingWheelScheduler>();
    EXPECT_EQ(s->GetSlots(), 4096u); // the attribute's default
    Scheduler::Event ev;
    ev.impl = nullptr;
    ev.key.m_context = 0;
    ev.key.m_uid = 1;
    ev.key.m_ts = 4095; // last slot of the wheel seen from time 0
    s->Insert(ev);
    ev.key.m_uid = 2;
    ev.key.m_ts = 4096; // first time stamp past it
    s->Insert(ev);
    EXPECT_EQ(s->GetNearEvents(), 1u);
    EXPECT_EQ(s->GetFarEvents(), 1u);
    EXPECT_EQ(s->RemoveNext().key.m_uid, 1u);
    EXPECT_EQ(s->RemoveNext().key.m_uid, 2u);
    EXPECT_TRUE(s->IsEmpty());
}

namespace
{

/// What a run of a small training job produces, to compare two schedulers.
struct JobTrace
{
    uint64_t events{0};
    uint64_t retransmissions{0};
    std::vector<int64_t> steps;

    bool operator==(const JobTrace& o) const
    {
        return events == o.events && retransmissions == o.retransmissions && steps == o.steps;
    }
};

JobTrace
RunJob(const ObjectFactory& scheduler)
{
    RngSeedManager::SetSeed(3);
    RngSeedManager::SetRun(1);
    Simulator::SetScheduler(scheduler);
    Ptr<RailOptimizedFatTreeHelper> rail = CreateObject<RailOptimizedFatTreeHelper>();
    rail->SetAttribute("Servers", UintegerValue(4));
    rail->SetAttribute("GpusPerServer", UintegerValue(4));
    rail->SetAttribute("LeafRadix", UintegerValue(8));
    Ptr<FabricTopology> topo = rail->Build();
    topo->AssignStreams(0);
    // Corruption where rank 4 receives from rank 3 over the network: retransmissions and their
    // timers (far events).
    topo->GetHostDevice(4)->SetAttribute("ReceiveErrorRate", DoubleValue(0.002));
    Cluster c =
        MakeJob(topo, "ns3::RingCollective", "allreduce", 4 << 20, 3, MicroSeconds(300), true);
    for (uint32_t r = 0; r < topo->GetNHosts(); ++r)
    {
        Ptr<GpuTrainingApp> app =
            DynamicCast<GpuTrainingApp>(topo->GetHostNode(r)->GetApplication(0));
        app->SetAttribute("Jitter",
                          StringValue("ns3::NormalRandomVariable[Mean=0|Variance=0.0001]"));
        app->AssignStreams(100 + r);
    }
    const uint64_t ev0 = Simulator::GetEventCount();
    c.job->Start();
    Simulator::Run();
    JobTrace t;
    t.events = Simulator::GetEventCount() - ev0;
    t.retransmissions = c.rdma->GetRetransmissions();
    for (const auto& s : c.job->GetSteps())
    {
        t.steps.push_back(s.barrier.GetTimeStep());
        t.steps.push_back(s.lastRank);
        for (auto e : s.computeEnd)
        {
            t.steps.push_back(e.GetTimeStep());
        }
    }
    EXPECT_TRUE(c.job->IsFinished());
    Simulator::Destroy();
    return t;
}

} // namespace

TEST_F(FabricTest, TimingWheelSchedulerGivesTheSameSimulationAsPriorityQueue)
{
    ObjectFactory reference;
    reference.SetTypeId(PriorityQueueScheduler::GetTypeId());
    const JobTrace a = RunJob(reference);
    ASSERT_EQ(a.steps.size(), 3u * (2 + 16));
    EXPECT_GT(a.retransmissions, 0u) << "the lossy NIC should cause retransmissions";
    for (uint32_t slots : {64U, 4096U})
    {
        ObjectFactory wheel;
        wheel.SetTypeId(TimingWheelScheduler::GetTypeId());
        wheel.Set("Slots", UintegerValue(slots));
        const JobTrace b = RunJob(wheel);
        EXPECT_TRUE(a == b) << "slots " << slots << ": events " << a.events << " vs " << b.events
                            << ", retransmissions " << a.retransmissions << " vs "
                            << b.retransmissions;
    }
}

namespace
{

/// A handler that checks, while it runs, that its timer agrees with ns-3 on being expired.
struct TimerProbe
{
    FabricTimer timer;
    bool agreedInside{false};
    int runs{0};

    void Fire()
    {
        timer.Expire();
        ++runs;
        agreedInside = !timer.IsPending() && timer.GetEventId().IsExpired();
    }
};

} // namespace

TEST_F(FabricTest, FabricTimerIsPendingExactlyWhenTheEventIsNotExpired)
{
    TimerProbe p;
    EXPECT_FALSE(p.timer.IsPending());
    EXPECT_TRUE(p.timer.GetEventId().IsExpired()); // never scheduled
    p.timer.Set(Simulator::Schedule(NanoSeconds(10), &TimerProbe::Fire, &p));
    EXPECT_TRUE(p.timer.IsPending());
    EXPECT_FALSE(p.timer.GetEventId().IsExpired());
    // Another event at the same time stamp, scheduled later (so it runs after): the timer's
    // event has run by then.
    bool agreedAfter = false;
    Simulator::Schedule(NanoSeconds(10), [&p, &agreedAfter]() {
        agreedAfter = !p.timer.IsPending() && p.timer.GetEventId().IsExpired();
    });
    Simulator::Run();
    EXPECT_EQ(p.runs, 1);
    EXPECT_TRUE(p.agreedInside);
    EXPECT_TRUE(agreedAfter);

    p.timer.Set(Simulator::Schedule(NanoSeconds(10), &TimerProbe::Fire, &p));
    p.timer.Cancel();
    EXPECT_FALSE(p.timer.IsPending());
    EXPECT_TRUE(p.timer.GetEventId().IsExpired());
    p.timer.Set(Simulator::Schedule(NanoSeconds(10), &TimerProbe::Fire, &p));
    p.timer.Remove();
    EXPECT_FALSE(p.timer.IsPending());
    EXPECT_TRUE(p.timer.GetEventId().IsExpired());
    Simulator::Run();
    EXPECT_EQ(p.runs, 1) << "cancelled and removed events do not run";
}

namespace
{

/// Exercises the simulator's EventId API and logs what it sees, to compare implementations.
std::vector<int64_t>
RunEventApi()
{
    std::vector<int64_t> log;
    auto note = [&log](int64_t tag) {
        log.push_back(tag);
        log.push_back(Simulator::Now().GetTimeStep());
        log.push_back(Simulator::GetContext());
    };
    EventId a = Simulator::Schedule(NanoSeconds(10), [&note]() { note(1); });
    EventId b = Simulator::Schedule(NanoSeconds(10), [&note]() { note(2); });
    EventId c = Simulator::Schedule(NanoSeconds(20), [&note]() { note(3); });
    Simulator::ScheduleWithContext(7, NanoSeconds(5), [&]() {
        note(4);
        Simulator::Schedule(NanoSeconds(5),
                            [&note]() { note(5); }); // context 7, at 10 after a and b
        Simulator::ScheduleNow([&note]() { note(6); });
        log.push_back(Simulator::GetDelayLeft(c).GetTimeStep());
        log.push_back(a.IsExpired());
    });
    Simulator::Cancel(b);
    Simulator::Remove(c);
    EventId d = Simulator::ScheduleDestroy([&note]() { note(8); });
    Simulator::ScheduleDestroy([&note]() { note(9); });
    Simulator::Remove(d);
    log.push_back(b.IsExpired());
    log.push_back(c.IsExpired());
    log.push_back(d.IsExpired());
    Simulator::Schedule(NanoSeconds(30), [&note]() { note(10); });
    Simulator::Stop(NanoSeconds(25));
    Simulator::Run();
    log.push_back(Simulator::Now().GetTimeStep());
    log.push_back(Simulator::IsFinished());
    log.push_back(static_cast<int64_t>(Simulator::GetEventCount()));
    Simulator::Run(); // the event at 30 ns
    log.push_back(a.IsExpired());
    log.push_back(static_cast<int64_t>(Simulator::GetEventCount()));
    Simulator::Destroy(); // runs the destroy event that was not removed
    return log;
}

} // namespace

TEST_F(FabricTest, FabricSimulatorImplKeepsTheEventApiOfTheDefault)
{
    const std::vector<int64_t> reference = RunEventApi();
    ASSERT_GE(reference.size(), 6u);
    EXPECT_EQ(reference[0], 1); // b cancelled,
    EXPECT_EQ(reference[1], 1); // c removed and
    EXPECT_EQ(reference[2], 1); // d removed are expired before the run;
    EXPECT_EQ(reference[3], 4); // the first event is the one in context 7 at 5 ns
    EXPECT_EQ(reference[4], 5);
    EXPECT_EQ(reference[5], 7);
    SimulatorImplGuard guard("ns3::FabricSimulatorImpl");
    EXPECT_EQ(RunEventApi(), reference);
}

TEST_F(FabricTest, FabricSimulatorImplGivesTheSameSimulationAsTheDefault)
{
    ObjectFactory wheel;
    wheel.SetTypeId(TimingWheelScheduler::GetTypeId());
    ObjectFactory heap;
    heap.SetTypeId(PriorityQueueScheduler::GetTypeId());
    const JobTrace a = RunJob(wheel);
    EXPECT_GT(a.retransmissions, 0u) << "the lossy NIC should cause retransmissions";
    SimulatorImplGuard guard("ns3::FabricSimulatorImpl");
    for (const ObjectFactory& f : {wheel, heap})
    {
        const JobTrace b = RunJob(f);
        EXPECT_TRUE(a == b) << "events " << a.events << " vs " << b.events << ", retransmissions "
                            << a.retransmissions << " vs " << b.retransmissions;
    }
}

TEST_F(FabricTest, FabricSimulatorImplSkipsCancelledEventsOnTheWheel)
{
    // FabricSimulatorImpl's event loop tests EventImpl's cancel flag itself (not through
    // EventImpl::Invoke) when the scheduler is the timing wheel: an event cancelled through its
    // EventId and one cancelled on its EventImpl (as a cable does when it is disposed) must not
    // run, the others run in time order.
    SimulatorImplGuard guard("ns3::FabricSimulatorImpl");
    ObjectFactory wheel;
    wheel.SetTypeId(TimingWheelScheduler::GetTypeId());
    Simulator::SetScheduler(wheel);
    std::vector<int> ran;
    Simulator::Schedule(NanoSeconds(3), [&ran]() { ran.push_back(3); });
    EventId byId = Simulator::Schedule(NanoSeconds(1), [&ran]() { ran.push_back(1); });
    EventId byImpl = Simulator::Schedule(NanoSeconds(2), [&ran]() { ran.push_back(2); });
    Simulator::Schedule(NanoSeconds(4), [&ran]() { ran.push_back(4); });
    byId.Cancel();
    byImpl.PeekEventImpl()->Cancel();
    Simulator::Run();
    EXPECT_EQ(ran, (std::vector<int>{3, 4}));
    EXPECT_EQ(Simulator::Now(), NanoSeconds(4));
    Simulator::Destroy();
}

// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_SIMULATOR_IMPL_H
#define FABRIC_SIMULATOR_IMPL_H

#include "ns3/event-impl.h"
#include "ns3/ptr.h"
#include "ns3/scheduler.h"
#include "ns3/simulator-impl.h"
#include "ns3/simulator.h"
#include "ns3/timing-wheel-scheduler.h"

#include <cstdint>
#include <list>
#include <utility>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A single-threaded ns-3 simulator core for packet-level fabrics: the same event order as
 * ns3::DefaultSimulatorImpl (events are keyed by time stamp, context and a uid allocated in the
 * same sequence, from the same calls), with less work per event. Select it before the simulator
 * is first used:
 *
 *   GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::FabricSimulatorImpl"));
 *
 * DefaultSimulatorImpl spends about 400 instructions per event in Debian's build (logging
 * compiled in): two EventId constructions (one returned by Schedule, one for PreEventHook), each
 * with a log check, and the calls around them. This one builds an EventId only where ns-3's API
 * returns one, and ScheduleFast() schedules the data path's persistent events (a cable lane's
 * delivery, a port's end of transmission: never cancelled, so nobody needs their EventId)
 * without any. What it leaves out: scheduling from another thread (ScheduleWithContext from a
 * thread other than the one that runs the simulation aborts; ns-3's MPI and realtime
 * implementations are separate classes anyway) and PreEventHook (nothing in ns-3.37 overrides
 * it).
 */
class FabricSimulatorImpl : public SimulatorImpl
{
  public:
    static TypeId GetTypeId();
    FabricSimulatorImpl();
    ~FabricSimulatorImpl() override;

    /**
     * Schedule `event` (held by the caller, which keeps it for the next time) `delaySteps` from
     * now in the current context, exactly as Simulator::Schedule(TimeStep(delaySteps), event)
     * would, but without making an EventId; Simulator::Schedule when another implementation
     * runs the simulation.
     */
    static void ScheduleFast(int64_t delaySteps, const Ptr<EventImpl>& event)
    {
        if (s_running != nullptr)
        {
            event->Ref(); // the scheduler's reference, as Simulator::Schedule takes it
            s_running->Insert(s_running->m_currentTs + static_cast<uint64_t>(delaySteps),
                              s_running->m_currentContext,
                              PeekPointer(event));
        }
        else
        {
            Simulator::Schedule(TimeStep(delaySteps), event);
        }
    }

    /**
     * ScheduleFast in the given context (a node's id: the event runs as that node's, as
     * Simulator::ScheduleWithContext would schedule it). A cable delivers a frame in the
     * receiving node's context this way, so that its arrival is the receiver's event; with
     * another implementation (ns-3's distributed simulators) it is Simulator::ScheduleWithContext.
     * The context is not part of the event order: the order is the same as ScheduleFast's.
     */
    static void ScheduleFastWithContext(uint32_t context,
                                        int64_t delaySteps,
                                        const Ptr<EventImpl>& event)
    {
        event->Ref(); // the scheduler's reference
        if (s_running != nullptr)
        {
            s_running->Insert(s_running->m_currentTs + static_cast<uint64_t>(delaySteps),
                              context,
                              PeekPointer(event));
        }
        else
        {
            Simulator::ScheduleWithContext(context, TimeStep(delaySteps), PeekPointer(event));
        }
    }

    void Destroy() override;
    bool IsFinished() const override;
    void Stop() override;
    /// ns-3.37 returns nothing here, later versions the EventId of the stop event.
    using StopResult = decltype(std::declval<SimulatorImpl&>().Stop(std::declval<const Time&>()));
    StopResult Stop(const Time& delay) override;
    EventId Schedule(const Time& delay, EventImpl* event) override;
    void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override;
    EventId ScheduleNow(EventImpl* event) override;
    EventId ScheduleDestroy(EventImpl* event) override;
    void Remove(const EventId& id) override;
    void Cancel(const EventId& id) override;
    bool IsExpired(const EventId& id) const override;
    void Run() override;
    Time Now() const override;
    Time GetDelayLeft(const EventId& id) const override;
    Time GetMaximumSimulationTime() const override;
    void SetScheduler(ObjectFactory schedulerFactory) override;
    uint32_t GetSystemId() const override;
    uint32_t GetContext() const override;
    uint64_t GetEventCount() const override;

  private:
    void DoDispose() override;

    /// Run one event removed from the scheduler.
    void Execute(const Scheduler::Event& next);

    /// Queue `event` (the scheduler's reference already taken) at `ts` with the next uid.
    void Insert(uint64_t ts, uint32_t context, EventImpl* event)
    {
        Scheduler::Event ev;
        ev.impl = event;
        ev.key.m_ts = ts;
        ev.key.m_context = context;
        ev.key.m_uid = m_uid++;
        ++m_unscheduledEvents;
        if (m_wheel != nullptr)
        {
            m_wheel->TimingWheelScheduler::Insert(ev); // inlined, no virtual call
        }
        else
        {
            m_events->Insert(ev);
        }
    }

    static inline FabricSimulatorImpl* s_running = nullptr; //!< the instance, while it exists

    Ptr<Scheduler> m_events;
    TimingWheelScheduler* m_wheel{nullptr}; //!< m_events if it is a TimingWheelScheduler
    uint64_t m_currentTs{0};
    uint32_t m_currentContext{Simulator::NO_CONTEXT};
    uint32_t m_uid{EventId::VALID}; //!< uids 0..3 are reserved, as in DefaultSimulatorImpl
    uint32_t m_currentUid{EventId::INVALID};
    int64_t m_unscheduledEvents{0};
    uint64_t m_eventCount{0};
    bool m_stop{false};
    std::list<EventId> m_destroyEvents;
};

} // namespace ns3

#endif // FABRIC_SIMULATOR_IMPL_H

// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-simulator-impl.h"

#include "fabric-partition-scheduler.h"
#include "timing-wheel-scheduler.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <thread>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricSimulatorImpl");
NS_OBJECT_ENSURE_REGISTERED(FabricSimulatorImpl);

namespace
{

/// The thread that runs the simulation (set by the constructor and by Run).
thread_local bool t_simulationThread = false;

/**
 * EventImpl::Invoke (ns-3.37) is out of line in libns3-core and starts with NS_LOG_FUNCTION
 * (about 32 instructions per event in Debian's build, logging compiled in) before it tests
 * m_cancel and calls Notify. Run does the same two steps inline: Notify is protected, and a
 * class derived from EventImpl may form a pointer to it; m_cancel is private, and an explicit
 * instantiation may name it (access checks do not apply to the arguments of an explicit
 * instantiation, [temp.spec]), which is how CancelledFlag() gets the member pointer.
 */
struct EventNotify : EventImpl
{
    static constexpr void (EventImpl::*kNotify)() = &EventNotify::Notify;
};

constexpr bool EventImpl::*CancelledFlag();

template <bool EventImpl::*Member>
struct CancelledFlagOf
{
    friend constexpr bool EventImpl::*CancelledFlag()
    {
        return Member;
    }
};

template struct CancelledFlagOf<&EventImpl::m_cancel>;

/// What EventImpl::Invoke does, without its log check.
inline void
Fire(EventImpl* event)
{
    if (!(event->*CancelledFlag()))
    {
        (event->*EventNotify::kNotify)();
    }
}

} // namespace

TypeId
FabricSimulatorImpl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricSimulatorImpl")
                            .SetParent<SimulatorImpl>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricSimulatorImpl>();
    return tid;
}

FabricSimulatorImpl::FabricSimulatorImpl()
{
    t_simulationThread = true;
    s_running = this;
}

FabricSimulatorImpl::~FabricSimulatorImpl()
{
    if (s_running == this)
    {
        s_running = nullptr;
    }
}

void
FabricSimulatorImpl::DoDispose()
{
    // The events still pending hold a reference each (as DefaultSimulatorImpl releases them).
    while (m_events && !m_events->IsEmpty())
    {
        m_events->RemoveNext().impl->Unref();
    }
    m_events = nullptr;
    m_wheel = nullptr;
    SimulatorImpl::DoDispose();
}

void
FabricSimulatorImpl::Destroy()
{
    while (!m_destroyEvents.empty())
    {
        Ptr<EventImpl> ev = m_destroyEvents.front().PeekEventImpl();
        m_destroyEvents.pop_front();
        if (!ev->IsCancelled())
        {
            ev->Invoke();
        }
    }
}

void
FabricSimulatorImpl::SetScheduler(ObjectFactory schedulerFactory)
{
    Ptr<Scheduler> scheduler = schedulerFactory.Create<Scheduler>();
    if (m_events)
    {
        while (!m_events->IsEmpty())
        {
            scheduler->Insert(m_events->RemoveNext());
        }
    }
    m_events = scheduler;
    m_wheel = dynamic_cast<TimingWheelScheduler*>(PeekPointer(scheduler));
}

uint32_t
FabricSimulatorImpl::GetSystemId() const
{
    return 0;
}

bool
FabricSimulatorImpl::IsFinished() const
{
    return m_events->IsEmpty() || m_stop;
}

inline void
FabricSimulatorImpl::Execute(const Scheduler::Event& next)
{
    --m_unscheduledEvents;
    ++m_eventCount;
    m_currentTs = next.key.m_ts;
    m_currentContext = next.key.m_context;
    m_currentUid = next.key.m_uid;
    Fire(next.impl);
    next.impl->Unref();
}

void
FabricSimulatorImpl::Run()
{
    t_simulationThread = true;
    m_stop = false;
    if (m_wheel != nullptr)
    {
        // The default scheduler, called without virtual calls (m_wheel is read again after
        // each event: an event may replace the scheduler).
        for (TimingWheelScheduler* w; (w = m_wheel) != nullptr && !w->IsEmptyInline() && !m_stop;)
        {
            Execute(w->TimingWheelScheduler::RemoveNext());
        }
    }
    while (!m_events->IsEmpty() && !m_stop)
    {
        Execute(m_events->RemoveNext());
    }
    NS_ASSERT(!m_events->IsEmpty() || m_unscheduledEvents == 0);
}

void
FabricSimulatorImpl::Stop()
{
    m_stop = true;
}

FabricSimulatorImpl::StopResult
FabricSimulatorImpl::Stop(const Time& delay)
{
    return static_cast<StopResult>(Simulator::Schedule(delay, &Simulator::Stop));
}

EventId
FabricSimulatorImpl::Schedule(const Time& delay, EventImpl* event)
{
    NS_ASSERT_MSG(delay.IsPositive(), "FabricSimulatorImpl::Schedule: negative delay");
    const uint64_t ts = m_currentTs + static_cast<uint64_t>(delay.GetTimeStep());
    const uint32_t uid = m_uid;
    Insert(ts, m_currentContext, event);
    return EventId(Ptr<EventImpl>(event), ts, m_currentContext, uid);
}

void
FabricSimulatorImpl::ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
{
    NS_ABORT_MSG_IF(!t_simulationThread,
                    "FabricSimulatorImpl: ScheduleWithContext from another thread (use "
                    "ns3::DefaultSimulatorImpl for multi-threaded simulations)");
    Insert(m_currentTs + static_cast<uint64_t>(delay.GetTimeStep()), context, event);
}

EventId
FabricSimulatorImpl::ScheduleNow(EventImpl* event)
{
    const uint32_t uid = m_uid;
    Insert(m_currentTs, m_currentContext, event);
    return EventId(Ptr<EventImpl>(event), m_currentTs, m_currentContext, uid);
}

EventId
FabricSimulatorImpl::ScheduleDestroy(EventImpl* event)
{
    EventId id(Ptr<EventImpl>(event, false), m_currentTs, 0xffffffff, EventId::DESTROY);
    m_destroyEvents.push_back(id);
    ++m_uid; // DefaultSimulatorImpl spends a uid on destroy events too
    return id;
}

Time
FabricSimulatorImpl::Now() const
{
    return TimeStep(m_currentTs);
}

Time
FabricSimulatorImpl::GetDelayLeft(const EventId& id) const
{
    return IsExpired(id) ? TimeStep(0) : TimeStep(id.GetTs() - m_currentTs);
}

void
FabricSimulatorImpl::Remove(const EventId& id)
{
    if (id.GetUid() == EventId::DESTROY)
    {
        for (auto i = m_destroyEvents.begin(); i != m_destroyEvents.end(); ++i)
        {
            if (*i == id)
            {
                m_destroyEvents.erase(i);
                break;
            }
        }
        return;
    }
    if (IsExpired(id))
    {
        return;
    }
    Scheduler::Event event;
    event.impl = id.PeekEventImpl();
    event.key.m_ts = id.GetTs();
    event.key.m_context = id.GetContext();
    event.key.m_uid = id.GetUid();
    m_events->Remove(event);
    event.impl->Cancel();
    event.impl->Unref(); // the scheduler's reference
    --m_unscheduledEvents;
}

void
FabricSimulatorImpl::Cancel(const EventId& id)
{
    if (!IsExpired(id))
    {
        id.PeekEventImpl()->Cancel();
    }
}

bool
FabricSimulatorImpl::IsExpired(const EventId& id) const
{
    if (id.GetUid() == EventId::DESTROY)
    {
        if (id.PeekEventImpl() == nullptr || id.PeekEventImpl()->IsCancelled())
        {
            return true;
        }
        for (const EventId& e : m_destroyEvents)
        {
            if (e == id)
            {
                return false;
            }
        }
        return true;
    }
    if (__builtin_expect(m_wheel == nullptr && FabricPartitionScheduler::IsActive(), false))
    {
        // Another order than uids': ask the scheduler which events of this time it handed out.
        return FabricPartitionScheduler::IsExpired(id);
    }
    return id.PeekEventImpl() == nullptr || id.GetTs() < m_currentTs ||
           (id.GetTs() == m_currentTs && id.GetUid() <= m_currentUid) ||
           id.PeekEventImpl()->IsCancelled();
}

Time
FabricSimulatorImpl::GetMaximumSimulationTime() const
{
    return TimeStep(0x7fffffffffffffffLL);
}

uint32_t
FabricSimulatorImpl::GetContext() const
{
    return m_currentContext;
}

uint64_t
FabricSimulatorImpl::GetEventCount() const
{
    return m_eventCount;
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-partition-scheduler.h"

#include "ns3/abort.h"
#include "ns3/config.h"
#include "ns3/event-impl.h"
#include "ns3/global-value.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricPartitionScheduler);
NS_OBJECT_ENSURE_REGISTERED(FabricOrderedSimulatorImpl);

TypeId
FabricPartitionScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricPartitionScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricPartitionScheduler>();
    return tid;
}

FabricPartitionScheduler::FabricPartitionScheduler()
{
    StringValue core;
    GlobalValue::GetValueByName("SimulatorImplementationType", core);
    NS_ABORT_MSG_IF(core.Get() != "ns3::FabricSimulatorImpl" &&
                        core.Get() != "ns3::FabricOrderedSimulatorImpl",
                    "FabricPartitionScheduler: the simulator core "
                        << core.Get()
                        << " would ignore cancelling an event it orders differently; use "
                           "ns3::FabricSimulatorImpl or FabricPartitionScheduler::Select()");
    s_instance = this;
}

FabricPartitionScheduler::~FabricPartitionScheduler()
{
    if (s_instance == this)
    {
        s_instance = nullptr;
    }
}

FabricEventOrderKey
FabricPartitionScheduler::NewKey(uint32_t target)
{
    const uint32_t running = Simulator::GetContext();
    return FabricEventOrderKey{running == Simulator::NO_CONTEXT ? target : running, ++m_seq};
}

FabricEventOrderKey
FabricPartitionScheduler::TakeKey(uint32_t target)
{
    NS_ABORT_MSG_IF(s_instance == nullptr, "FabricPartitionScheduler::TakeKey: not in use");
    return s_instance->NewKey(target);
}

void
FabricPartitionScheduler::SetNextKey(const FabricEventOrderKey& key)
{
    NS_ABORT_MSG_IF(s_instance == nullptr, "FabricPartitionScheduler::SetNextKey: not in use");
    s_instance->m_hasNextKey = true;
    s_instance->m_nextKey = key;
}

bool
FabricPartitionScheduler::HasRun(uint64_t ts, uint32_t uid)
{
    NS_ABORT_MSG_IF(s_instance == nullptr, "FabricPartitionScheduler::HasRun: not in use");
    const FabricPartitionScheduler& s = *s_instance;
    if (ts != s.m_runTs)
    {
        return ts < s.m_runTs;
    }
    return std::find(s.m_ran.begin(), s.m_ran.end(), uid) != s.m_ran.end();
}

void
FabricPartitionScheduler::Select()
{
    StringValue core;
    GlobalValue::GetValueByName("SimulatorImplementationType", core);
    if (core.Get() != "ns3::FabricSimulatorImpl" && core.Get() != "ns3::FabricOrderedSimulatorImpl")
    {
        Config::SetDefault("ns3::FabricOrderedSimulatorImpl::Core", core);
        GlobalValue::Bind("SimulatorImplementationType",
                          StringValue("ns3::FabricOrderedSimulatorImpl"));
    }
    GlobalValue::Bind("SchedulerType", StringValue("ns3::FabricPartitionScheduler"));
}

void
FabricPartitionScheduler::Insert(const Event& ev)
{
    FabricEventOrderKey key;
    if (m_hasNextKey)
    {
        key = m_nextKey;
        m_hasNextKey = false;
    }
    else
    {
        key = NewKey(ev.key.m_context);
    }
    m_heap.push_back(Entry{ev.key.m_ts, key.context, key.seq, ev});
    std::push_heap(m_heap.begin(), m_heap.end(), &RunsLater);
}

void
FabricPartitionScheduler::Purge() const
{
    while (!m_removed.empty() && !m_heap.empty())
    {
        const Event& top = m_heap.front().ev;
        auto it = m_removed.find({top.key.m_uid, top.key.m_ts});
        if (it == m_removed.end())
        {
            return;
        }
        m_removed.erase(it);
        std::pop_heap(m_heap.begin(), m_heap.end(), &RunsLater);
        m_heap.pop_back();
    }
}

bool
FabricPartitionScheduler::IsEmpty() const
{
    Purge();
    return m_heap.empty();
}

Scheduler::Event
FabricPartitionScheduler::PeekNext() const
{
    Purge();
    NS_ASSERT(!m_heap.empty());
    return m_heap.front().ev;
}

Scheduler::Event
FabricPartitionScheduler::RemoveNext()
{
    Purge();
    NS_ASSERT(!m_heap.empty());
    std::pop_heap(m_heap.begin(), m_heap.end(), &RunsLater);
    const Event ev = m_heap.back().ev;
    m_heap.pop_back();
    if (ev.key.m_ts != m_runTs)
    {
        m_runTs = ev.key.m_ts;
        m_ran.clear();
    }
    m_ran.push_back(ev.key.m_uid);
    return ev;
}

void
FabricPartitionScheduler::Remove(const Event& ev)
{
    // The simulator cancels and releases the event; its entry stays in the heap, unread, until
    // it reaches the top.
    m_removed.insert({ev.key.m_uid, ev.key.m_ts});
}

// ---------------------------------------------------------------- FabricOrderedSimulatorImpl

TypeId
FabricOrderedSimulatorImpl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricOrderedSimulatorImpl")
            .SetParent<SimulatorImpl>()
            .SetGroupName("AiFabric")
            .AddConstructor<FabricOrderedSimulatorImpl>()
            .AddAttribute("Core",
                          "The simulator core it runs (ns3::DefaultSimulatorImpl, "
                          "ns3::DistributedSimulatorImpl, ns3::NullMessageSimulatorImpl).",
                          StringValue("ns3::DefaultSimulatorImpl"),
                          MakeStringAccessor(&FabricOrderedSimulatorImpl::m_coreType),
                          MakeStringChecker());
    return tid;
}

FabricOrderedSimulatorImpl::FabricOrderedSimulatorImpl() = default;

FabricOrderedSimulatorImpl::~FabricOrderedSimulatorImpl() = default;

SimulatorImpl&
FabricOrderedSimulatorImpl::Core() const
{
    if (!m_core)
    {
        NS_ABORT_MSG_IF(m_coreType == "ns3::FabricOrderedSimulatorImpl",
                        "FabricOrderedSimulatorImpl: Core cannot be itself");
        ObjectFactory f;
        f.SetTypeId(m_coreType);
        m_core = f.Create<SimulatorImpl>();
    }
    return *m_core;
}

void
FabricOrderedSimulatorImpl::DoDispose()
{
    if (m_core)
    {
        m_core->Dispose();
        m_core = nullptr;
    }
    SimulatorImpl::DoDispose();
}

void
FabricOrderedSimulatorImpl::Destroy()
{
    Core().Destroy();
}

bool
FabricOrderedSimulatorImpl::IsFinished() const
{
    return Core().IsFinished();
}

void
FabricOrderedSimulatorImpl::Stop()
{
    Core().Stop();
}

FabricOrderedSimulatorImpl::StopResult
FabricOrderedSimulatorImpl::Stop(const Time& delay)
{
    return Core().Stop(delay);
}

EventId
FabricOrderedSimulatorImpl::Schedule(const Time& delay, EventImpl* event)
{
    return Core().Schedule(delay, event);
}

void
FabricOrderedSimulatorImpl::ScheduleWithContext(uint32_t context,
                                                const Time& delay,
                                                EventImpl* event)
{
    Core().ScheduleWithContext(context, delay, event);
}

EventId
FabricOrderedSimulatorImpl::ScheduleNow(EventImpl* event)
{
    return Core().ScheduleNow(event);
}

EventId
FabricOrderedSimulatorImpl::ScheduleDestroy(EventImpl* event)
{
    return Core().ScheduleDestroy(event);
}

void
FabricOrderedSimulatorImpl::Remove(const EventId& id)
{
    if (id.GetUid() == EventId::DESTROY)
    {
        Core().Remove(id);
    }
    else if (!IsExpired(id))
    {
        id.PeekEventImpl()->Cancel(); // the core's Remove would misjudge it; it runs as nothing
    }
}

void
FabricOrderedSimulatorImpl::Cancel(const EventId& id)
{
    if (!IsExpired(id))
    {
        id.PeekEventImpl()->Cancel();
    }
}

bool
FabricOrderedSimulatorImpl::IsExpired(const EventId& id) const
{
    if (id.GetUid() == EventId::DESTROY)
    {
        return Core().IsExpired(id);
    }
    return id.PeekEventImpl() == nullptr || id.PeekEventImpl()->IsCancelled() ||
           FabricPartitionScheduler::HasRun(id.GetTs(), id.GetUid());
}

void
FabricOrderedSimulatorImpl::Run()
{
    Core().Run();
}

Time
FabricOrderedSimulatorImpl::Now() const
{
    return Core().Now();
}

Time
FabricOrderedSimulatorImpl::GetDelayLeft(const EventId& id) const
{
    return IsExpired(id) ? TimeStep(0) : TimeStep(id.GetTs()) - Now();
}

Time
FabricOrderedSimulatorImpl::GetMaximumSimulationTime() const
{
    return Core().GetMaximumSimulationTime();
}

void
FabricOrderedSimulatorImpl::SetScheduler(ObjectFactory schedulerFactory)
{
    Core().SetScheduler(schedulerFactory);
}

uint32_t
FabricOrderedSimulatorImpl::GetSystemId() const
{
    return Core().GetSystemId();
}

uint32_t
FabricOrderedSimulatorImpl::GetContext() const
{
    return Core().GetContext();
}

uint64_t
FabricOrderedSimulatorImpl::GetEventCount() const
{
    return Core().GetEventCount();
}

} // namespace ns3

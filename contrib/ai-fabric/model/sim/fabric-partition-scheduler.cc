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

bool
FabricPartitionScheduler::IsExpired(const EventId& id)
{
    return id.PeekEventImpl() == nullptr || id.PeekEventImpl()->IsCancelled() ||
           HasRun(id.GetTs(), id.GetUid());
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

uint64_t
FabricPartitionScheduler::Pack(const FabricEventOrderKey& k)
{
    // No context takes the largest 24-bit value, after every node.
    const uint64_t node = k.context == Simulator::NO_CONTEXT ? 0xffffff : k.context;
    NS_ABORT_MSG_IF((k.context != Simulator::NO_CONTEXT && k.context >= 0xffffff) ||
                        k.seq >= (uint64_t(1) << 40),
                    "FabricPartitionScheduler: node id "
                        << k.context << " or sequence number " << k.seq
                        << " beyond the order key's 24 and 40 bits");
    return (node << 40) | k.seq;
}

void
FabricPartitionScheduler::Insert(const Event& ev)
{
    FabricEventOrderKey k;
    if (m_hasNextKey)
    {
        k = m_nextKey;
        m_hasNextKey = false;
    }
    else
    {
        k = NewKey(ev.key.m_context);
    }
    const uint64_t key = Pack(k);
    const uint64_t ts = ev.key.m_ts;
    ++m_count;
    if (ts < m_now || ts - m_now >= kSlots)
    {
        m_far.push_back(Far{ts, key, ev});
        std::push_heap(m_far.begin(), m_far.end(), &FarRunsLater);
        return;
    }
    if (m_slot.empty())
    {
        m_slot.resize(kSlots);
    }
    const uint32_t slot = static_cast<uint32_t>(ts & (kSlots - 1));
    Slot& sl = m_slot[slot];
    if (sl.head == sl.v.size())
    {
        sl.v.clear();
        sl.head = 0;
        m_bits[slot >> 6] |= uint64_t(1) << (slot & 63);
        m_summary |= uint64_t(1) << (slot >> 6);
        sl.v.push_back(Near{key, ev});
        return;
    }
    if (sl.v.back().key < key)
    {
        sl.v.push_back(Near{key, ev}); // the usual case: a larger key than any there
        return;
    }
    auto pos =
        std::lower_bound(sl.v.begin() + sl.head, sl.v.end(), key, [](const Near& n, uint64_t x) {
            return n.key < x;
        });
    sl.v.insert(pos, Near{key, ev});
}

FabricPartitionScheduler::Next
FabricPartitionScheduler::FindNext() const
{
    Next n;
    if (m_summary != 0)
    {
        // The first non-empty slot at or after m_now's, circularly.
        const uint32_t from = static_cast<uint32_t>(m_now & (kSlots - 1));
        uint32_t w = from >> 6;
        uint64_t bits = m_bits[w] & (~uint64_t(0) << (from & 63));
        if (bits == 0)
        {
            const uint64_t above = w + 1 < 64 ? m_summary & (~uint64_t(0) << (w + 1)) : 0;
            w = static_cast<uint32_t>(__builtin_ctzll(above != 0 ? above : m_summary));
            bits = m_bits[w];
            if (w == (from >> 6))
            {
                // Wrapped around to the first word: only its slots before `from` are left.
                bits &= ~(~uint64_t(0) << (from & 63));
            }
        }
        const uint32_t slot = (w << 6) | static_cast<uint32_t>(__builtin_ctzll(bits));
        n.slot = slot;
        n.ts = m_now + ((slot - from) & (kSlots - 1));
    }
    if (!m_far.empty())
    {
        const Far& f = m_far.front();
        if (n.slot == kNone || f.ts < n.ts ||
            (f.ts == n.ts && f.key < m_slot[n.slot].v[m_slot[n.slot].head].key))
        {
            n.slot = kNone;
            n.ts = f.ts;
        }
    }
    return n;
}

Scheduler::Event
FabricPartitionScheduler::Take(const Next& n)
{
    Event ev;
    if (n.slot != kNone)
    {
        Slot& sl = m_slot[n.slot];
        ev = sl.v[sl.head].ev;
        if (++sl.head == sl.v.size())
        {
            sl.head = 0;
            if (sl.v.capacity() > 256)
            {
                std::vector<Near>().swap(sl.v); // a burst's slot gives its memory back
            }
            else
            {
                sl.v.clear();
            }
            const uint32_t w = n.slot >> 6;
            m_bits[w] &= ~(uint64_t(1) << (n.slot & 63));
            if (m_bits[w] == 0)
            {
                m_summary &= ~(uint64_t(1) << w);
            }
        }
    }
    else
    {
        std::pop_heap(m_far.begin(), m_far.end(), &FarRunsLater);
        ev = m_far.back().ev;
        m_far.pop_back();
    }
    --m_count;
    m_now = n.ts;
    return ev;
}

void
FabricPartitionScheduler::Purge()
{
    while (!m_removed.empty() && m_count > 0)
    {
        const Next n = FindNext();
        const Event& top =
            n.slot != kNone ? m_slot[n.slot].v[m_slot[n.slot].head].ev : m_far.front().ev;
        auto it = m_removed.find({top.key.m_uid, top.key.m_ts});
        if (it == m_removed.end())
        {
            return;
        }
        m_removed.erase(it);
        Take(n);
    }
}

bool
FabricPartitionScheduler::IsEmpty() const
{
    const_cast<FabricPartitionScheduler*>(this)->Purge();
    return m_count == 0;
}

Scheduler::Event
FabricPartitionScheduler::PeekNext() const
{
    const_cast<FabricPartitionScheduler*>(this)->Purge();
    NS_ASSERT(m_count > 0);
    const Next n = FindNext();
    return n.slot != kNone ? m_slot[n.slot].v[m_slot[n.slot].head].ev : m_far.front().ev;
}

Scheduler::Event
FabricPartitionScheduler::RemoveNext()
{
    Purge();
    NS_ASSERT(m_count > 0);
    const Event ev = Take(FindNext());
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
    // The simulator cancels and releases the event; its entry stays, unread, until it would
    // come first.
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
    return FabricPartitionScheduler::IsExpired(id);
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

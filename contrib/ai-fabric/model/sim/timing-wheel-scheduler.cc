// SPDX-License-Identifier: GPL-2.0-only
#include "timing-wheel-scheduler.h"

#include "fabric-clock.h"

#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <functional>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TimingWheelScheduler");
NS_OBJECT_ENSURE_REGISTERED(TimingWheelScheduler);

namespace
{
constexpr uint32_t MIN_SLOTS = 64;
constexpr uint32_t MAX_SLOTS = 64 * 64 * 64; // two bitmap levels of 64-bit words

inline uint32_t
LowestBit(uint64_t v)
{
    return static_cast<uint32_t>(__builtin_ctzll(v));
}
} // namespace

TypeId
TimingWheelScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TimingWheelScheduler")
            .SetParent<Scheduler>()
            .SetGroupName("AiFabric")
            .AddConstructor<TimingWheelScheduler>()
            .AddAttribute("Slots",
                          "Wheel slots, one time step each (a power of two in [64, 262144]): "
                          "events less than this many time steps ahead of the last event "
                          "removed take the O(1) path, the others a binary heap. 4096 covers "
                          "4.1 us at ns-3's default nanosecond resolution (serialization, cable "
                          "and switch latencies).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&TimingWheelScheduler::SetSlots,
                                               &TimingWheelScheduler::GetSlots),
                          MakeUintegerChecker<uint32_t>(MIN_SLOTS, MAX_SLOTS));
    return tid;
}

TimingWheelScheduler::TimingWheelScheduler()
{
    SetSlots(4096);
}

TimingWheelScheduler::~TimingWheelScheduler()
{
    if (FabricClock::s_now == &m_now)
    {
        FabricClock::s_now = nullptr;
    }
}

void
TimingWheelScheduler::SetSlots(uint32_t slots)
{
    NS_ABORT_MSG_IF(slots < MIN_SLOTS || slots > MAX_SLOTS || (slots & (slots - 1)) != 0,
                    "TimingWheelScheduler: Slots must be a power of two in [64, 262144] (got "
                        << slots << ")");
    NS_ABORT_MSG_IF(m_nearCount != 0 || !m_far.empty(),
                    "TimingWheelScheduler: Slots can only be set while no event is pending");
    m_slots = slots;
    m_mask = slots - 1;
    m_slot.assign(slots, Slot());
    m_bits.assign(slots / 64, 0);
    m_summary.assign((slots / 64 + 63) / 64, 0);
    m_nodes.clear();
    m_freeNode = NONE;
}

uint32_t
TimingWheelScheduler::GetSlots() const
{
    return m_slots;
}

uint32_t
TimingWheelScheduler::GetNearEvents() const
{
    return m_nearCount;
}

uint32_t
TimingWheelScheduler::GetFarEvents() const
{
    return static_cast<uint32_t>(m_far.size());
}

uint32_t
TimingWheelScheduler::FindSlot(uint32_t from) const
{
    // The wheel holds time stamps [m_now, m_now + m_slots): in time order its slots run from
    // `from` (= m_now's slot) to the end, then from 0 to `from`.
    const uint32_t w = from >> 6;
    const uint64_t here = m_bits[w] & (~uint64_t(0) << (from & 63));
    if (here != 0)
    {
        return (w << 6) | LowestBit(here);
    }
    const uint32_t words = m_slots >> 6;
    for (uint32_t pass = 0; pass < 2; ++pass)
    {
        // pass 0: words after w; pass 1: words 0 .. w (word w only below `from`)
        uint32_t cw = pass == 0 ? w + 1 : 0;
        const uint32_t end = pass == 0 ? words : w + 1;
        while (cw < end)
        {
            const uint64_t s = m_summary[cw >> 6] & (~uint64_t(0) << (cw & 63));
            if (s == 0)
            {
                cw = ((cw >> 6) + 1) << 6;
                continue;
            }
            const uint32_t word = ((cw >> 6) << 6) | LowestBit(s);
            if (word >= end)
            {
                break;
            }
            return (word << 6) | LowestBit(m_bits[word]);
        }
    }
    return NONE;
}

uint32_t
TimingWheelScheduler::GrowNodes(const Scheduler::Event& ev)
{
    m_nodes.push_back(Node{ev, NONE});
    return static_cast<uint32_t>(m_nodes.size() - 1);
}

void
TimingWheelScheduler::InsertFar(const Scheduler::Event& ev)
{
    // Far ahead (or, never in a running simulation, behind the last event removed): the heap
    // orders it against everything else.
    m_far.push_back(ev);
    std::push_heap(m_far.begin(), m_far.end(), std::greater<Scheduler::Event>());
}

void
TimingWheelScheduler::InsertSorted(Slot& s, uint32_t i)
{
    const uint32_t uid = m_nodes[i].ev.key.m_uid;
    // An event with a smaller uid than the slot's last: keep the slot sorted by uid.
    uint32_t* link = &s.head;
    while (*link != NONE && m_nodes[*link].ev.key.m_uid < uid)
    {
        link = &m_nodes[*link].next;
    }
    m_nodes[i].next = *link;
    *link = i;
}

void
TimingWheelScheduler::PopFar()
{
    std::pop_heap(m_far.begin(), m_far.end(), std::greater<Scheduler::Event>());
    m_far.pop_back();
}

bool
TimingWheelScheduler::IsEmpty() const
{
    return m_nearCount == 0 && m_far.empty();
}

Scheduler::Event
TimingWheelScheduler::PeekNext() const
{
    NS_ASSERT_MSG(!IsEmpty(), "TimingWheelScheduler: PeekNext on an empty scheduler");
    const uint32_t slot = NextSlot();
    if (slot != NONE && NearFirst(slot))
    {
        return m_nodes[m_slot[slot].head].ev;
    }
    return m_far.front();
}

void
TimingWheelScheduler::Remove(const Scheduler::Event& ev)
{
    const uint64_t ts = ev.key.m_ts;
    if (ts >= m_now && ts - m_now < m_slots)
    {
        const uint32_t slot = static_cast<uint32_t>(ts & m_mask);
        Slot& s = m_slot[slot];
        uint32_t prev = NONE;
        for (uint32_t i = s.head; i != NONE; prev = i, i = m_nodes[i].next)
        {
            if (m_nodes[i].ev.key.m_uid != ev.key.m_uid)
            {
                continue;
            }
            const uint32_t next = m_nodes[i].next;
            (prev == NONE ? s.head : m_nodes[prev].next) = next;
            if (s.tail == i)
            {
                s.tail = prev;
            }
            if (s.head == NONE)
            {
                UnmarkSlot(slot);
            }
            m_nodes[i].next = m_freeNode;
            m_freeNode = i;
            --m_nearCount;
            return;
        }
    }
    // Not in the wheel: it was inserted far ahead.
    for (size_t k = 0; k < m_far.size(); ++k)
    {
        if (m_far[k].key.m_uid == ev.key.m_uid)
        {
            m_far[k] = m_far.back();
            m_far.pop_back();
            std::make_heap(m_far.begin(), m_far.end(), std::greater<Scheduler::Event>());
            return;
        }
    }
    NS_FATAL_ERROR("TimingWheelScheduler: Remove of an event that is not pending (uid "
                   << ev.key.m_uid << ")");
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#ifndef TIMING_WHEEL_SCHEDULER_H
#define TIMING_WHEEL_SCHEDULER_H

#include "ns3/assert.h"
#include "ns3/fabric-clock.h"
#include "ns3/scheduler.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * An event scheduler for packet-level fabric simulations: a timing wheel of one slot per time
 * step for the near future, and a binary heap for everything further away.
 *
 * A packet-level fabric schedules almost every event a few nanoseconds to a few microseconds
 * ahead (a serialization end, a cable delivery after the switch latency), and a few long timers
 * (congestion-control timers, retransmission timeouts, compute phases). With `Slots` slots of
 * one time step each, an event less than `Slots` steps after the last event removed goes to its
 * slot, in O(1); a two-level bitmap finds the next non-empty slot in a few instructions; the
 * rest wait in a heap that stays small (the timers). Events in one slot have the same time
 * stamp and are kept in insertion order, which is uid order, so the order of events is exactly
 * that of every other ns-3 scheduler: by time stamp, then uid. Results do not depend on the
 * scheduler; only the CPU time does.
 *
 * What it costs: O(1) insert and remove for near events, O(log F) for the F far ones; memory of
 * 8 bytes per slot plus 32 bytes per pending near event. With a time resolution finer than the
 * default nanosecond, the wheel covers less simulated time and more events take the heap path
 * (still correct; set `Slots` higher).
 *
 * Not done: Remove() of a pending event walks its slot or the heap (linear; ns-3 removes events
 * only through Simulator::Remove, which the fabric models do not use on the data path).
 */
class TimingWheelScheduler : public Scheduler
{
  public:
    static TypeId GetTypeId();
    TimingWheelScheduler();
    ~TimingWheelScheduler() override;

    void Insert(const Scheduler::Event& ev) override;
    bool IsEmpty() const override;

    /// IsEmpty without the virtual call (FabricSimulatorImpl's event loop).
    bool IsEmptyInline() const
    {
        return m_nearCount == 0 && m_far.empty();
    }

    Scheduler::Event PeekNext() const override;
    Scheduler::Event RemoveNext() override;
    void Remove(const Scheduler::Event& ev) override;

    /// Set the number of wheel slots (a power of two in [64, 262144]); only while empty.
    void SetSlots(uint32_t slots);
    uint32_t GetSlots() const;
    /// Pending events in the wheel and in the far heap (for tests and benchmarks).
    uint32_t GetNearEvents() const;
    uint32_t GetFarEvents() const;

  private:
    static constexpr uint32_t NONE = UINT32_MAX;

    /// A pending near event, linked into its slot's FIFO (or into the free list).
    struct Node
    {
        Scheduler::Event ev;
        uint32_t next{NONE};
    };

    struct Slot
    {
        uint32_t head{NONE};
        uint32_t tail{NONE};
    };

    /// \return the first non-empty slot at or after slot `from`, circularly (NONE: wheel empty)
    uint32_t FindSlot(uint32_t from) const;
    /// \return the slot holding the earliest near event (NONE: wheel empty)
    uint32_t NextSlot() const;
    /// true if the near candidate in `slot` comes before the far heap's top
    bool NearFirst(uint32_t slot) const;
    void MarkSlot(uint32_t slot);
    void UnmarkSlot(uint32_t slot);
    uint32_t AllocNode(const Scheduler::Event& ev);
    uint32_t GrowNodes(const Scheduler::Event& ev); //!< AllocNode's path when no node is free
    void PopFar();
    void InsertFar(const Scheduler::Event& ev);
    /// Link node `i` into slot `s` in uid order (its uid is below the slot's last one).
    void InsertSorted(Slot& s, uint32_t i);

    uint32_t m_slots{0};
    uint64_t m_mask{0};
    /// time stamp of the last event removed: the wheel holds [m_now, m_now + m_slots)
    uint64_t m_now{0};
    uint32_t m_nearCount{0};
    std::vector<Slot> m_slot;
    std::vector<uint64_t> m_bits;    //!< one bit per slot: non-empty
    std::vector<uint64_t> m_summary; //!< one bit per word of m_bits: non-zero
    std::vector<Node> m_nodes;
    uint32_t m_freeNode{NONE};
    std::vector<Scheduler::Event> m_far; //!< min-heap by (time stamp, uid)
};

inline void
TimingWheelScheduler::UnmarkSlot(uint32_t slot)
{
    const uint32_t w = slot >> 6;
    m_bits[w] &= ~(uint64_t(1) << (slot & 63));
    if (m_bits[w] == 0)
    {
        m_summary[w >> 6] &= ~(uint64_t(1) << (w & 63));
    }
}

inline uint32_t
TimingWheelScheduler::NextSlot() const
{
    if (m_nearCount == 0)
    {
        return NONE;
    }
    // Usually the next event is in the bitmap word of the current slot: no call for it.
    const uint32_t from = static_cast<uint32_t>(m_now & m_mask);
    const uint64_t here = m_bits[from >> 6] & (~uint64_t(0) << (from & 63));
    return here != 0 ? ((from >> 6) << 6) | static_cast<uint32_t>(__builtin_ctzll(here))
                     : FindSlot(from);
}

inline bool
TimingWheelScheduler::NearFirst(uint32_t slot) const
{
    return m_far.empty() || m_nodes[m_slot[slot].head].ev.key < m_far.front().key;
}

inline void
TimingWheelScheduler::MarkSlot(uint32_t slot)
{
    const uint32_t w = slot >> 6;
    m_bits[w] |= uint64_t(1) << (slot & 63);
    m_summary[w >> 6] |= uint64_t(1) << (w & 63);
}

inline uint32_t
TimingWheelScheduler::AllocNode(const Scheduler::Event& ev)
{
    const uint32_t i = m_freeNode;
    if (i == NONE)
    {
        return GrowNodes(ev);
    }
    m_freeNode = m_nodes[i].next;
    m_nodes[i].ev = ev;
    m_nodes[i].next = NONE;
    return i;
}

// In the header: ScheduleFast and FabricSimulatorImpl call it without the virtual call.
inline void
TimingWheelScheduler::Insert(const Scheduler::Event& ev)
{
    const uint64_t ts = ev.key.m_ts;
    if (ts < m_now || ts - m_now >= m_slots)
    {
        InsertFar(ev);
        return;
    }
    const uint32_t slot = static_cast<uint32_t>(ts & m_mask);
    const uint32_t i = AllocNode(ev);
    Slot& s = m_slot[slot];
    ++m_nearCount;
    if (s.tail == NONE)
    {
        s.head = i;
        s.tail = i;
        MarkSlot(slot);
        return;
    }
    if (m_nodes[s.tail].ev.key.m_uid < ev.key.m_uid)
    {
        m_nodes[s.tail].next = i; // the usual case: uids grow with insertion
        s.tail = i;
        return;
    }
    InsertSorted(s, i);
}

// In the header: FabricSimulatorImpl's event loop calls it without the virtual call, inlined.
inline Scheduler::Event
TimingWheelScheduler::RemoveNext()
{
    NS_ASSERT_MSG(!IsEmpty(), "TimingWheelScheduler: RemoveNext on an empty scheduler");
    const uint32_t slot = NextSlot();
    Scheduler::Event ev;
    if (slot != NONE && NearFirst(slot))
    {
        Slot& s = m_slot[slot];
        const uint32_t i = s.head;
        ev = m_nodes[i].ev;
        s.head = m_nodes[i].next;
        if (s.head == NONE)
        {
            s.tail = NONE;
            UnmarkSlot(slot);
        }
        m_nodes[i].next = m_freeNode;
        m_freeNode = i;
        --m_nearCount;
    }
    else
    {
        ev = m_far.front();
        PopFar();
    }
    m_now = ev.key.m_ts;
    FabricClock::s_now = &m_now;
    return ev;
}

} // namespace ns3

#endif // TIMING_WHEEL_SCHEDULER_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_TIMER_H
#define FABRIC_TIMER_H

#include "ns3/event-id.h"
#include "ns3/simulator.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * An EventId that remembers whether its event is still pending.
 *
 * Per-packet code asks "is this timer armed?" once or more per packet (retransmission, ACK
 * coalescing and rate-increase timers). EventId::IsExpired answers through four out-of-line
 * calls into the simulator (about 200 instructions, 7% of a 128-GPU AllReduce); this keeps one
 * bit instead. The bit is exact as long as the event's handler calls Expire() first: then
 * IsPending() is !IsExpired() at every point of the simulation, including inside the handler.
 */
class FabricTimer
{
  public:
    /// Hold a just-scheduled event: `timer.Set(Simulator::Schedule(...))`.
    void Set(const EventId& id)
    {
        m_id = id;
        m_pending = true;
    }

    /// true between Set and the event running (its handler calls Expire), Cancel or Remove
    bool IsPending() const
    {
        return m_pending;
    }

    /// Called first by the event's handler.
    void Expire()
    {
        m_pending = false;
    }

    void Cancel()
    {
        if (m_pending)
        {
            m_id.Cancel();
            m_pending = false;
        }
    }

    /// Take the event out of the scheduler (Simulator::Remove).
    void Remove()
    {
        if (m_pending)
        {
            Simulator::Remove(m_id);
            m_pending = false;
        }
    }

    const EventId& GetEventId() const
    {
        return m_id;
    }

  private:
    EventId m_id;
    bool m_pending{false};
};

} // namespace ns3

#endif // FABRIC_TIMER_H

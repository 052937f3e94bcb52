// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_EGRESS_SCHEDULER_H
#define FABRIC_EGRESS_SCHEDULER_H

#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Chooses which of the eight priority queues of a FabricNetDevice transmits next.
 *
 * The device passes a bitmask of the eligible queues (non-empty and not blocked by link-level
 * flow control) and the wire size of each queue's head frame; the scheduler returns one of them.
 * Subclasses: StrictPriorityEgressScheduler, DwrrEgressScheduler.
 */
class FabricEgressScheduler : public Object
{
  public:
    static TypeId GetTypeId();
    ~FabricEgressScheduler() override;

    /**
     * \param eligible bit p set if queue p may send now (never 0)
     * \param headBytes wire bytes of the head frame of each queue
     * \return the chosen priority (a set bit of `eligible`)
     */
    virtual uint8_t Select(uint8_t eligible, const uint32_t* headBytes) = 0;

    /// The device sent `wireBytes` from queue `prio` (after Select chose it).
    virtual void NotifySent(uint8_t prio, uint32_t wireBytes);

    /**
     * \return false if NotifySent does nothing here, so that the device leaves the call out of
     * the per-frame path. Asked once, when the scheduler is installed. The base returns true.
     */
    virtual bool CountsSent() const;

    /// \return the highest set bit of a non-zero mask (priority 7 is the highest)
    static uint8_t HighestBit(uint8_t mask)
    {
        return static_cast<uint8_t>(31 - __builtin_clz(static_cast<uint32_t>(mask)));
    }
};

} // namespace ns3

#endif // FABRIC_EGRESS_SCHEDULER_H

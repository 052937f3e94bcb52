// SPDX-License-Identifier: GPL-2.0-only
#ifndef STRICT_PRIORITY_EGRESS_SCHEDULER_H
#define STRICT_PRIORITY_EGRESS_SCHEDULER_H

#include "fabric-egress-scheduler.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Strict priority: the highest eligible priority (7 highest, as in 802.1Q) always goes first.
 * Lower classes can starve; that is the point of strict priority.
 */
class StrictPriorityEgressScheduler : public FabricEgressScheduler
{
  public:
    static TypeId GetTypeId();
    uint8_t Select(uint8_t eligible, const uint32_t* headBytes) override;
    bool CountsSent() const override; // false: strict priority keeps no state
};

} // namespace ns3

#endif // STRICT_PRIORITY_EGRESS_SCHEDULER_H

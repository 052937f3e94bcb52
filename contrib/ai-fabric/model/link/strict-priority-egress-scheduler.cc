// SPDX-License-Identifier: GPL-2.0-only
#include "strict-priority-egress-scheduler.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(StrictPriorityEgressScheduler);

TypeId
StrictPriorityEgressScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::StrictPriorityEgressScheduler")
                            .SetParent<FabricEgressScheduler>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<StrictPriorityEgressScheduler>();
    return tid;
}

uint8_t
StrictPriorityEgressScheduler::Select(uint8_t eligible, const uint32_t*)
{
    return HighestBit(eligible);
}

bool
StrictPriorityEgressScheduler::CountsSent() const
{
    return false;
}

} // namespace ns3

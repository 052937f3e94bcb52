// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-egress-scheduler.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricEgressScheduler);

TypeId
FabricEgressScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricEgressScheduler").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

FabricEgressScheduler::~FabricEgressScheduler() = default;

void
FabricEgressScheduler::NotifySent(uint8_t, uint32_t)
{
}

bool
FabricEgressScheduler::CountsSent() const
{
    return true;
}

} // namespace ns3

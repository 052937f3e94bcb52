// SPDX-License-Identifier: GPL-2.0-only
#include "collective-transport.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CollectiveTransport);

TypeId
CollectiveTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveTransport").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

CollectiveTransport::~CollectiveTransport() = default;

uint64_t
CollectiveTransport::GetRetransmissions() const
{
    return 0;
}

uint64_t
CollectiveTransport::GetTimeouts() const
{
    return 0;
}

uint64_t
CollectiveTransport::GetLossProbes() const
{
    return 0;
}

int32_t
CollectiveTransport::GetLastLossProbeReceiver() const
{
    return -1;
}

int32_t
CollectiveTransport::GetLastTimeoutReceiver() const
{
    return -1;
}

bool
CollectiveTransport::ModelsHostSoftware() const
{
    return false;
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "collective-transport.h"

#include "ns3/abort.h"
#include "ns3/fabric-rank-mailbox.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>
#include <cstring>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CollectiveTransport);

TypeId
CollectiveTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveTransport")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddTraceSource("ConnectionFailed",
                            "A connection between two ranks failed: its messages never arrive "
                            "(src rank, dst rank; once per connection).",
                            MakeTraceSourceAccessor(&CollectiveTransport::m_connectionFailed),
                            "ns3::CollectiveTransport::ConnectionFailedTracedCallback")
            .AddTraceSource("MessageLatency",
                            "A message fully arrived: src rank, dst rank, bytes, and its one-way "
                            "latency from being handed to the transport to its last byte in "
                            "the destination GPU's memory (host path included).",
                            MakeTraceSourceAccessor(&CollectiveTransport::m_messageLatency),
                            "ns3::CollectiveTransport::MessageLatencyTracedCallback");
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

int32_t
CollectiveTransport::GetLastTimeoutReceiver() const
{
    return -1;
}

Time
CollectiveTransport::GetLastTimeoutTime() const
{
    return TimeStep(-1);
}

bool
CollectiveTransport::ModelsHostSoftware() const
{
    return false;
}

void
CollectiveTransport::SetPartitioned(Time)
{
    NS_ABORT_MSG("CollectiveTransport: " << GetName() << " does not run split across ranks");
}

bool
CollectiveTransport::CanPartition() const
{
    return false;
}

bool
CollectiveTransport::IsLocal(uint32_t) const
{
    return true;
}

uint32_t
CollectiveTransport::GetNodeId(uint32_t) const
{
    return Simulator::NO_CONTEXT;
}

void
CollectiveTransport::Prepare(uint32_t, uint32_t, uint32_t)
{
}

uint32_t
CollectiveTransport::AddListener(CollectiveTransportListener* listener)
{
    m_listeners.push_back(listener);
    return static_cast<uint32_t>(m_listeners.size() - 1);
}

CollectiveTransportListener*
CollectiveTransport::GetListener(uint32_t index) const
{
    NS_ABORT_MSG_IF(index >= m_listeners.size(), "CollectiveTransport: no listener " << index);
    return m_listeners[index];
}

uint32_t
CollectiveTransport::GetListenerIndex(CollectiveTransportListener* listener) const
{
    const auto it = std::find(m_listeners.begin(), m_listeners.end(), listener);
    NS_ABORT_MSG_IF(it == m_listeners.end(),
                    "CollectiveTransport: a partitioned transport's listener must be added "
                    "(AddListener) on every rank alike");
    return static_cast<uint32_t>(it - m_listeners.begin());
}

uint32_t
CollectiveTransport::SetPartitionedBase(Time messageDelay,
                                        std::function<void(const uint8_t*, uint32_t)> announced)
{
    m_partitioned = true;
    m_messageDelay = messageDelay;
    m_mpiRank = FabricRankMailbox::GetRank();
    const uint32_t handler = FabricRankMailbox::AddHandler(std::move(announced));
    m_failedHandler = FabricRankMailbox::AddHandler([this](const uint8_t* data, uint32_t size) {
        NS_ABORT_MSG_IF(size != 8, "CollectiveTransport: bad failure message");
        uint32_t pair[2];
        std::memcpy(pair, data, sizeof(pair));
        m_connectionFailed(pair[0], pair[1]);
    });
    return handler;
}

void
CollectiveTransport::NotifyConnectionFailed(uint32_t src, uint32_t dst)
{
    if (m_partitioned)
    {
        const uint32_t pair[2] = {src, dst};
        FabricRankMailbox::Broadcast(m_failedHandler, pair, sizeof(pair), m_messageDelay);
        return;
    }
    m_connectionFailed(src, dst);
}

void
CollectiveTransport::NotifyMessageLatency(uint32_t src, uint32_t dst, uint64_t bytes, Time posted)
{
    m_messageLatency(src, dst, bytes, Simulator::Now() - posted);
}

} // namespace ns3

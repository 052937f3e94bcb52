// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-queue-pair.h"

#include "rdma-congestion-ops.h"
#include "rdma-loss-recovery.h"
#include "rdma-nic.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaQueuePair");
NS_OBJECT_ENSURE_REGISTERED(RdmaQueuePair);

const char*
RdmaCompletion::StatusName(Status s)
{
    switch (s)
    {
    case SUCCESS:
        return "success";
    case RETRY_EXCEEDED:
        return "retry-exceeded";
    case FLUSHED:
        return "flushed";
    }
    return "unknown";
}

TypeId
RdmaQueuePair::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaQueuePair")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddTraceSource("Rate",
                            "Sending rate set by congestion control (bit/s).",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_rateBps),
                            "ns3::TracedValueCallback::Uint64")
            .AddTraceSource("Window",
                            "Window set by congestion control (payload bytes; 0: none).",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_window),
                            "ns3::TracedValueCallback::Uint64")
            .AddTraceSource("Completion",
                            "A posted request completed (requester side).",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_completionTrace),
                            "ns3::RdmaQueuePair::CompletionTracedCallback")
            .AddTraceSource("Receive",
                            "A message arrived in full (responder side).",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_receiveTrace),
                            "ns3::RdmaQueuePair::CompletionTracedCallback");
    return tid;
}

RdmaQueuePair::RdmaQueuePair() = default;
RdmaQueuePair::~RdmaQueuePair() = default;

void
RdmaQueuePair::DoDispose()
{
    m_rto.Cancel();
    m_ackTimer.Cancel();
    if (m_cc)
    {
        m_cc->Stop();
    }
    m_cc = nullptr;
    m_recovery = nullptr;
    m_nic = nullptr;
    m_completionCb = Callback<void, const RdmaCompletion&>();
    m_receiveCb = Callback<void, const RdmaCompletion&>();
    Object::DoDispose();
}

uint64_t
RdmaQueuePair::PostWrite(uint64_t bytes)
{
    return Post(WRITE, bytes);
}

uint64_t
RdmaQueuePair::PostSend(uint64_t bytes)
{
    return Post(SEND, bytes);
}

uint64_t
RdmaQueuePair::Post(Verb verb, uint64_t bytes)
{
    NS_ABORT_MSG_IF(bytes == 0, "RdmaQueuePair: a request must carry at least one byte");
    NS_ABORT_MSG_IF(!m_nic, "RdmaQueuePair: not connected (use RdmaHelper::Connect)");
    Message m;
    m.wrId = m_nextWrId++;
    m.bytes = bytes;
    m.verb = verb;
    m.posted = Simulator::Now();
    const uint64_t mtu = m_nic->GetPathMtu();
    const uint64_t packets = (bytes + mtu - 1) / mtu;
    m.firstPsn = m_psnEnd;
    m.streamOffset = m_bytesPosted;
    m_bytesPosted += bytes;
    m.lastPsn = m_psnEnd + static_cast<uint32_t>(packets) - 1;
    m_psnEnd = m.lastPsn + 1;
    m.readyStep = (Simulator::Now() + m_nic->GetRequesterDelay(bytes)).GetTimeStep();
    m_sendQueue.push_back(m);
    if (m_error)
    {
        m_nic->FlushQueuePair(this);
    }
    else
    {
        m_nic->Activate(this);
    }
    return m.wrId;
}

void
RdmaQueuePair::SetCompletionCallback(Callback<void, const RdmaCompletion&> cb)
{
    m_completionCb = cb;
}

void
RdmaQueuePair::SetReceiveCallback(Callback<void, const RdmaCompletion&> cb)
{
    m_receiveCb = cb;
}

void
RdmaQueuePair::SetWeight(uint32_t weight)
{
    NS_ABORT_MSG_IF(weight < 1, "RdmaQueuePair: weight must be >= 1");
    m_weight = weight;
}

uint32_t
RdmaQueuePair::GetQpn() const
{
    return m_qpn;
}

uint32_t
RdmaQueuePair::GetPeerQpn() const
{
    return m_peerQpn;
}

Ipv4Address
RdmaQueuePair::GetLocalAddress() const
{
    return m_local;
}

Ipv4Address
RdmaQueuePair::GetRemoteAddress() const
{
    return m_remote;
}

uint8_t
RdmaQueuePair::GetPriority() const
{
    return m_priority;
}

uint16_t
RdmaQueuePair::GetUdpSourcePort() const
{
    return m_udpSport;
}

Ptr<RdmaNic>
RdmaQueuePair::GetNic() const
{
    return m_nic;
}

uint32_t
RdmaQueuePair::GetPort() const
{
    return m_port;
}

uint32_t
RdmaQueuePair::GetHomePort() const
{
    return m_homePort;
}

bool
RdmaQueuePair::IsError() const
{
    return m_error;
}

DataRate
RdmaQueuePair::GetRate() const
{
    return DataRate(m_rateBps.Get());
}

void
RdmaQueuePair::SetRate(DataRate rate)
{
    uint64_t bps = std::min(rate.GetBitRate(), m_lineRate.GetBitRate());
    if (bps == 0)
    {
        bps = 1;
    }
    if (bps != m_rateBps.Get())
    {
        m_rateBps = bps;
    }
}

DataRate
RdmaQueuePair::GetLineRate() const
{
    return m_lineRate;
}

void
RdmaQueuePair::SetWindow(uint64_t bytes)
{
    if (bytes != m_window.Get())
    {
        const bool opened = m_window.Get() != 0 && (bytes == 0 || bytes > m_window.Get());
        m_window = bytes;
        if (opened && m_nic && !m_error)
        {
            m_nic->Activate(this);
        }
    }
}

uint64_t
RdmaQueuePair::GetWindow() const
{
    return m_window.Get();
}

void
RdmaQueuePair::RetimePacing(DataRate oldRate)
{
    const int64_t now = Simulator::Now().GetTimeStep();
    const uint64_t rate = m_rateBps.Get();
    const uint64_t old = oldRate.GetBitRate();
    if (m_nextTxStep <= now || old == 0 || rate == old)
    {
        return;
    }
    const double left = double(m_nextTxStep - now) * double(old) / double(rate);
    m_nextTxStep = now + static_cast<int64_t>(left);
    m_nextTxFs = 0;
    if (rate > old && m_nic && !m_error)
    {
        m_nic->Activate(this); // its port may be asleep until the old, later time
    }
}

void
RdmaQueuePair::RestartPacing()
{
    const int64_t now = Simulator::Now().GetTimeStep();
    if (m_nextTxStep > now)
    {
        m_nextTxStep = now;
        m_nextTxFs = 0;
        if (m_nic && !m_error)
        {
            m_nic->Activate(this);
        }
    }
}

uint64_t
RdmaQueuePair::StreamOffset(uint32_t psn) const
{
    if (psn >= m_psnEnd || m_sendQueue.empty())
    {
        return m_bytesPosted;
    }
    // Messages are contiguous in PSN; most lookups hit one of the two ends of the queue.
    const Message* m = &m_sendQueue.back();
    if (psn < m->firstPsn)
    {
        m = &m_sendQueue.front();
        if (psn > m->lastPsn)
        {
            auto it = std::upper_bound(m_sendQueue.begin(),
                                       m_sendQueue.end(),
                                       psn,
                                       [](uint32_t v, const Message& x) { return v < x.firstPsn; });
            m = &*(it - 1);
        }
        else if (psn < m->firstPsn)
        {
            return m->streamOffset;
        }
    }
    return m->streamOffset + uint64_t(psn - m->firstPsn) * m_nic->GetPathMtu();
}

uint64_t
RdmaQueuePair::GetBytesInFlight() const
{
    return m_sndNxt > m_sndUna ? StreamOffset(m_sndNxt) - StreamOffset(m_sndUna) : 0;
}

Time
RdmaQueuePair::GetBaseRtt() const
{
    return m_baseRtt;
}

void
RdmaQueuePair::SetBaseRtt(Time rtt)
{
    m_baseRtt = rtt;
}

Ptr<RdmaCongestionOps>
RdmaQueuePair::GetCongestionOps() const
{
    return m_cc;
}

Ptr<RdmaLossRecovery>
RdmaQueuePair::GetLossRecovery() const
{
    return m_recovery;
}

uint32_t
RdmaQueuePair::GetSndUna() const
{
    return m_sndUna;
}

uint32_t
RdmaQueuePair::GetSndNxt() const
{
    return m_sndNxt;
}

void
RdmaQueuePair::SetSndNxt(uint32_t psn)
{
    m_sndNxt = psn;
}

uint32_t
RdmaQueuePair::GetSndMax() const
{
    return m_sndMax;
}

uint32_t
RdmaQueuePair::GetPsnEnd() const
{
    return m_psnEnd;
}

const RdmaQueuePair::Stats&
RdmaQueuePair::GetStats() const
{
    return m_stats;
}

} // namespace ns3

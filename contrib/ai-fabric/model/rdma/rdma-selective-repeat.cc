// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-selective-repeat.h"

#include "rdma-loss-recovery-registry.h"
#include "rdma-queue-pair.h"

#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaSelectiveRepeat);

TypeId
RdmaSelectiveRepeat::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaSelectiveRepeat")
            .SetParent<RdmaLossRecovery>()
            .SetGroupName("AiFabric")
            .AddConstructor<RdmaSelectiveRepeat>()
            .AddAttribute("ReorderThreshold",
                          "Packets: a hole is resent only once a packet this many PSNs after "
                          "it has arrived (0: at the first selective ACK beyond it, as IRN).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaSelectiveRepeat::m_reorderThreshold),
                          MakeUintegerChecker<uint32_t>(0, 1u << 20));
    return tid;
}

std::string
RdmaSelectiveRepeat::GetName() const
{
    return "selective-repeat";
}

void
RdmaSelectiveRepeat::DropStale(const RdmaQueuePair& qp) const
{
    while (!m_retx.empty() &&
           (m_retx.front() < qp.GetSndUna() || m_sacked.count(m_retx.front()) != 0))
    {
        m_retx.pop_front();
    }
}

bool
RdmaSelectiveRepeat::HasPending(const RdmaQueuePair& qp) const
{
    // A queued hole that was SACKed (or acknowledged) meanwhile is not pending: without this,
    // HasPending said true with nothing left to resend and NextPsn took a PSN past the last
    // posted message (under heavy loss).
    DropStale(qp);
    return !m_retx.empty() || qp.GetSndNxt() < qp.GetPsnEnd();
}

bool
RdmaSelectiveRepeat::HasQueuedRetransmission() const
{
    return !m_retx.empty();
}

uint32_t
RdmaSelectiveRepeat::NextPsn(RdmaQueuePair& qp, bool& retransmission)
{
    DropStale(qp);
    if (!m_retx.empty())
    {
        const uint32_t psn = m_retx.front();
        m_retx.pop_front();
        retransmission = true;
        return psn;
    }
    return TakeNew(qp, retransmission);
}

void
RdmaSelectiveRepeat::Prune(uint32_t cumulative)
{
    m_sacked.erase(m_sacked.begin(), m_sacked.lower_bound(cumulative));
    while (!m_retx.empty() && m_retx.front() < cumulative)
    {
        m_retx.pop_front();
    }
    m_queuedUpTo = std::max(m_queuedUpTo, cumulative);
}

void
RdmaSelectiveRepeat::OnAck(RdmaQueuePair&, uint32_t cumulative)
{
    Prune(cumulative);
}

void
RdmaSelectiveRepeat::OnNack(RdmaQueuePair& qp, uint32_t epsn, uint32_t sackPsn)
{
    Prune(epsn);
    if (sackPsn > epsn)
    {
        m_sacked.insert(sackPsn);
    }
    const uint32_t high = m_sacked.empty() ? epsn + 1 : *m_sacked.rbegin();
    // Holes a packet ReorderThreshold PSNs later has overtaken are lost; the rest may be late.
    const uint32_t lost = high - std::min(high, m_reorderThreshold);
    for (uint32_t psn = std::max(epsn, m_queuedUpTo); psn < lost && psn < qp.GetSndMax(); ++psn)
    {
        if (m_sacked.count(psn) == 0)
        {
            m_retx.push_back(psn);
        }
    }
    m_queuedUpTo = std::max(m_queuedUpTo, lost);
}

void
RdmaSelectiveRepeat::OnTimeout(RdmaQueuePair& qp)
{
    m_retx.clear();
    for (uint32_t psn = qp.GetSndUna(); psn < qp.GetSndMax(); ++psn)
    {
        if (m_sacked.count(psn) == 0)
        {
            m_retx.push_back(psn);
        }
    }
    m_queuedUpTo = qp.GetSndMax();
}

bool
RdmaSelectiveRepeat::KeepsOutOfOrder() const
{
    return true;
}

namespace
{

const bool g_selectiveRepeatRegistered = RdmaLossRecoveryRegistry::Add([] {
    RdmaLossRecoveryInfo e;
    e.name = "selective-repeat";
    e.typeId = "ns3::RdmaSelectiveRepeat";
    e.help = "IRN's, the receiver keeps out-of-order packets and only the holes are resent";
    e.keepsOutOfOrder = true;
    return e;
}());

} // namespace

} // namespace ns3

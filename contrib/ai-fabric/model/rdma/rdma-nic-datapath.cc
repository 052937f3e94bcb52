// SPDX-License-Identifier: GPL-2.0-only
// RdmaNic's data path: the send path (queue-pair arbitration, segmentation, pacing), the
// receive path (data, ACK/NAK, CNP) and the per-queue-pair timers (ACK coalescing, RTO). One
// translation unit (about 680 lines) so that the per-packet calls between them stay inlinable;
// the NIC's setup, ports, attributes and queue-pair creation are in rdma-nic.cc.
#include "rdma-congestion-ops.h"
#include "rdma-dcqcn.h"
#include "rdma-go-back-n.h"
#include "rdma-loss-recovery.h"
#include "rdma-nic.h"
#include "rdma-no-cc.h"
#include "rdma-wire-sizes.h"
#include "roce-aeth-header.h"
#include "roce-bth-header.h"
#include "roce-reth-header.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/fabric-clock.h"
#include "ns3/fabric-tx-time.h"
#include "ns3/ib-credit-flow-control.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

using namespace rdmawire;

namespace
{

/// Femtoseconds per simulator time step (the pacing clock's unit).
int64_t
FsPerStep()
{
    static const int64_t v = 1000000000000000LL / Seconds(1).GetTimeStep();
    return v;
}

} // namespace

void
RdmaNic::Activate(RdmaQueuePair* qp)
{
    Port& port = *m_ports[qp->m_port];
    if (!qp->m_active && !qp->m_error)
    {
        qp->m_active = true;
        port.active.push_back(qp);
    }
    port.dev->WakeSource(qp->m_priority);
}

void
RdmaNic::ScheduleWake(Port& port, int64_t step)
{
    if (port.wakeEvent.IsPending() && port.wakeStep <= step)
    {
        return;
    }
    port.wakeEvent.Cancel();
    port.wakeStep = step;
    port.wakeEvent.Set(Simulator::Schedule(TimeStep(step - FabricClock::NowStep()),
                                           &RdmaNic::Wake,
                                           this,
                                           port.index));
}

void
RdmaNic::Wake(uint32_t index)
{
    Port& port = *m_ports[index];
    port.wakeEvent.Expire();
    for (uint8_t p = 0; p < 8; ++p)
    {
        if ((port.prioMask >> p) & 1U)
        {
            port.dev->WakeSource(p);
        }
    }
}

const RdmaQueuePair::Message*
RdmaNic::FindMessage(const RdmaQueuePair* qp, uint32_t psn) const
{
    const auto& q = qp->m_sendQueue;
    if (q.empty())
    {
        return nullptr;
    }
    // Most packets belong to the oldest outstanding message or to the newest one.
    for (const RdmaQueuePair::Message* m : {&q.front(), &q.back()})
    {
        if (psn >= m->firstPsn && psn <= m->lastPsn)
        {
            return m;
        }
    }
    auto it =
        std::upper_bound(q.begin(), q.end(), psn, [](uint32_t v, const RdmaQueuePair::Message& m) {
            return v < m.firstPsn;
        });
    if (it == q.begin())
    {
        return nullptr;
    }
    --it;
    return psn <= it->lastPsn ? &*it : nullptr;
}

bool
RdmaNic::PullFrame(Port& port, uint8_t prio, FabricFrame& out)
{
    const int64_t now = FabricClock::NowStep();
    int64_t earliest = INT64_MAX;
    bool sawInactive = false;
    std::vector<RdmaQueuePair*>& active = port.active;
    const size_t n = active.size();
    for (size_t i = 0; i < n; ++i)
    {
        size_t idx = port.rr + i;
        idx = idx >= n ? idx - n : idx;
        RdmaQueuePair* qp = active[idx];
        if (qp->m_priority != prio)
        {
            continue;
        }
        if (qp->m_error || !qp->m_recovery->HasPending(*qp))
        {
            qp->m_active = false;
            sawInactive = true;
            continue;
        }
        if (qp->m_nextTxStep > now)
        {
            earliest = std::min(earliest, qp->m_nextTxStep);
            continue;
        }
        if (qp->m_window.Get() != 0 && qp->GetBytesInFlight() >= qp->m_window.Get())
        {
            continue; // window full: the ACK that opens it activates the queue pair again
        }
        const RdmaQueuePair::Message* m = nullptr;
        if (!qp->m_recovery->HasQueuedRetransmission())
        {
            m = FindMessage(qp, qp->m_sndNxt);
            if (m && m->readyStep > now)
            {
                earliest = std::min(earliest, m->readyStep);
                continue;
            }
        }
        bool retx = false;
        const uint32_t psn = qp->m_recovery->NextPsn(*qp, retx);
        qp->m_sndMax = std::max(qp->m_sndMax, psn + 1);
        if (!m || psn < m->firstPsn || psn > m->lastPsn)
        {
            m = FindMessage(qp, psn);
        }
        NS_ABORT_MSG_IF(!m, "RdmaNic: PSN " << psn << " belongs to no posted message");
        const uint32_t npkts = m->lastPsn - m->firstPsn + 1;
        const uint64_t offset = uint64_t(psn - m->firstPsn) * m_pathMtu;
        const uint32_t payload =
            static_cast<uint32_t>(std::min<uint64_t>(m_pathMtu, m->bytes - offset));
        const bool write = m->verb == RdmaQueuePair::WRITE;
        uint8_t op;
        if (npkts == 1)
        {
            op = write ? RoceBthHeader::WRITE_ONLY : RoceBthHeader::SEND_ONLY;
        }
        else if (psn == m->firstPsn)
        {
            op = write ? RoceBthHeader::WRITE_FIRST : RoceBthHeader::SEND_FIRST;
        }
        else if (psn == m->lastPsn)
        {
            op = write ? RoceBthHeader::WRITE_LAST : RoceBthHeader::SEND_LAST;
        }
        else
        {
            op = write ? RoceBthHeader::WRITE_MIDDLE : RoceBthHeader::SEND_MIDDLE;
        }
        out = FabricFrame();
        FillHeaderFields(qp, out, op, qp->m_dscp, qp->m_priority);
        out.ecn = FabricFrame::ECN_ECT0;
        out.seq = psn;
        out.payloadBytes = payload;
        out.l3Bytes = NetworkHeaderBytes() + kBth + (RoceBthHeader::HasReth(op) ? kReth : 0) +
                      payload + kIcrc;
        out.aux[2] = psn == m->lastPsn ? kAckReqFlag : 0;
        out.aux[3] = RoceBthHeader::HasReth(op)
                         ? static_cast<uint32_t>(std::min<uint64_t>(m->bytes, UINT32_MAX))
                         : 0;
        if (qp->m_telemetry)
        {
            out.telemetry = FabricIntRef::Create();
            out.l3Bytes += FabricIntStack::kWireBytes;
        }

        const uint32_t wire = port.dev->WireBytes(out);
        ++qp->m_stats.dataPackets;
        ++m_counters.dataPacketsSent;
        if (retx)
        {
            ++qp->m_stats.retransmittedPackets;
            ++m_counters.retransmittedPackets;
        }
        // Pacing at the congestion-controlled rate, with femtosecond carry (no drift).
        const uint64_t rate = qp->m_rateBps.Get();
        if (rate < qp->m_lineRateBps)
        {
            if (qp->m_nextTxStep < now)
            {
                qp->m_nextTxStep = now;
                qp->m_nextTxFs = 0;
            }
            const __uint128_t fs = static_cast<__uint128_t>(wire) * 8 * 1000000000000000ULL / rate;
            qp->m_nextTxFs += static_cast<int64_t>(fs);
            const int64_t whole = qp->m_nextTxFs / FsPerStep();
            qp->m_nextTxStep += whole;
            qp->m_nextTxFs -= whole * FsPerStep();
        }
        else
        {
            qp->m_nextTxStep = now;
            qp->m_nextTxFs = 0;
        }
        qp->m_cc->PacketSent(qp, wire);
        ArmRto(qp, false);
        // Weighted round robin: stay on this queue pair for `weight` consecutive packets.
        if (++port.rrBurst >= qp->m_weight)
        {
            port.rrBurst = 0;
            port.rr = idx + 1 >= n ? 0 : idx + 1;
        }
        else
        {
            port.rr = idx;
        }
        return true;
    }
    if (sawInactive)
    {
        active.erase(std::remove_if(active.begin(),
                                    active.end(),
                                    [](RdmaQueuePair* q) { return !q->m_active; }),
                     active.end());
        port.rr = 0;
        port.rrBurst = 0;
    }
    if (earliest != INT64_MAX)
    {
        ScheduleWake(port, earliest);
    }
    return false;
}

void
RdmaNic::FillHeaderFields(RdmaQueuePair* qp,
                          FabricFrame& f,
                          uint8_t opcode,
                          uint8_t dscp,
                          uint8_t priority) const
{
    f.kind = FabricFrame::DATA;
    f.l4Format = FabricFrame::L4_ROCE;
    f.protocol = 17;
    f.src = qp->m_localBits;
    f.dst = qp->m_remoteBits;
    f.srcPort = qp->m_udpSport;
    f.dstPort = RoceBthHeader::UDP_PORT;
    f.dscp = dscp;
    f.priority = priority;
    f.ecn = FabricFrame::ECN_NOT_ECT;
    f.flowId = qp->m_flowId;
    f.txTimeStep = FabricClock::NowStep();
    f.aux[0] = opcode;
    f.aux[1] = qp->m_peerQpn;
    f.flowHash = qp->m_flowHash; // ComputeFlowHash() of the fields above, done once per QP
}

// ------------------------------------------------------------------ receive side

void
RdmaNic::Receive(FabricNetDevice* device, const FabricFrame& f)
{
    const uint32_t qpn = f.aux[1];
    RdmaQueuePair* qp = qpn - 1 < m_qps.size() ? PeekPointer(m_qps[qpn - 1]) : nullptr;
    if (!qp)
    {
        ++m_counters.unknownQp;
        return;
    }
    const uint8_t op = static_cast<uint8_t>(f.aux[0]);
    if (op == RoceBthHeader::CNP || op == RoceBthHeader::IB_CNP)
    {
        ++qp->m_stats.cnpsReceived;
        ++m_counters.cnpsReceived;
        if (!qp->m_error)
        {
            qp->m_cc->CnpReceived(qp);
        }
    }
    else if (op == RoceBthHeader::ACKNOWLEDGE)
    {
        HandleAck(qp, f);
    }
    else if (RoceBthHeader::IsData(op))
    {
        uint32_t port = 0;
        while (port + 1 < m_ports.size() && m_ports[port]->dev != device)
        {
            ++port;
        }
        HandleData(qp, f, port);
    }
}

void
RdmaNic::SetLatencyHistogram(Ptr<LatencyHistogram> h)
{
    m_latency = h;
}

void
RdmaNic::HandleData(RdmaQueuePair* qp, const FabricFrame& f, uint32_t port)
{
    const uint8_t op = static_cast<uint8_t>(f.aux[0]);
    qp->m_replyPort = port; // answer through the plane the data came through
    if (m_latency)
    {
        m_latency->Add(FabricClock::NowStep() - f.txTimeStep);
    }
    // What the next ACK or NAK echoes: this packet's send time and telemetry.
    qp->m_rxEchoStep = f.txTimeStep;
    if (f.telemetry)
    {
        f.telemetry.Seal();
        qp->m_rxTelemetry = f.telemetry;
    }
    if (f.ecn == FabricFrame::ECN_CE)
    {
        ++qp->m_stats.ecnMarkedReceived;
        const int64_t now = FabricClock::NowStep();
        const int64_t interval = (m_ib ? m_becnInterval : m_cnpInterval).GetTimeStep();
        if (now - qp->m_lastCnpStep >= interval)
        {
            qp->m_lastCnpStep = now;
            SendCnp(qp);
        }
    }
    const uint32_t psn = f.seq;
    if (psn == qp->m_epsn)
    {
        Consume(qp, f.payloadBytes, op);
        ++qp->m_epsn;
        bool filled = false;
        while (!qp->m_ooo.empty() && qp->m_ooo.begin()->first == qp->m_epsn)
        {
            Consume(qp, qp->m_ooo.begin()->second.payload, qp->m_ooo.begin()->second.opcode);
            qp->m_ooo.erase(qp->m_ooo.begin());
            ++qp->m_epsn;
            filled = true;
        }
        qp->m_nackSent = false;
        if ((f.aux[2] & kAckReqFlag) || filled || !qp->m_ooo.empty() || m_ackInterval.IsZero())
        {
            SendAckNow(qp);
        }
        else if (!qp->m_ackTimer.IsPending())
        {
            qp->m_ackTimer.Set(Simulator::Schedule(m_ackInterval, &RdmaNic::AckTimer, this, qp));
        }
    }
    else if (psn > qp->m_epsn)
    {
        ++m_counters.outOfOrderPackets;
        if (qp->m_recovery->KeepsOutOfOrder())
        {
            qp->m_ooo.emplace(psn, RdmaQueuePair::OooPacket{f.payloadBytes, op});
            SendAck(qp, true, qp->m_epsn, psn);
        }
        else if (!qp->m_nackSent)
        {
            qp->m_nackSent = true;
            SendAck(qp, true, qp->m_epsn, 0);
        }
    }
    else
    {
        SendAckNow(qp); // duplicate: our ACK may have been lost
    }
}

void
RdmaNic::Consume(RdmaQueuePair* qp, uint32_t payload, uint8_t opcode)
{
    if (RoceBthHeader::IsFirst(opcode))
    {
        qp->m_rxMsgBytes = 0;
        qp->m_rxMsgFirst = Simulator::Now();
    }
    qp->m_rxMsgBytes += payload;
    qp->m_stats.bytesReceived += payload;
    if (RoceBthHeader::IsLast(opcode))
    {
        ++qp->m_msn;
        ++qp->m_stats.messagesReceived;
        RdmaCompletion c;
        c.qpn = qp->m_qpn;
        c.wrId = qp->m_msn;
        c.bytes = qp->m_rxMsgBytes;
        c.posted = qp->m_rxMsgFirst;
        const Time delay = GetResponderDelay(qp->m_rxMsgBytes);
        c.completed = Simulator::Now() + delay;
        Simulator::Schedule(delay, &RdmaNic::DeliverReceive, this, Ptr<RdmaQueuePair>(qp), c);
    }
}

void
RdmaNic::DeliverReceive(Ptr<RdmaQueuePair> qp, RdmaCompletion c)
{
    qp->m_receiveTrace(c);
    if (!qp->m_receiveCb.IsNull())
    {
        qp->m_receiveCb(c);
    }
}

void
RdmaNic::AckTimer(RdmaQueuePair* qp)
{
    qp->m_ackTimer.Expire();
    SendAckNow(qp);
}

void
RdmaNic::SendAckNow(RdmaQueuePair* qp)
{
    qp->m_ackTimer.Cancel();
    SendAck(qp, false, qp->m_epsn - 1, 0);
}

void
RdmaNic::SendAck(RdmaQueuePair* qp, bool nak, uint32_t psn, uint32_t sack)
{
    FabricFrame f;
    FillHeaderFields(qp, f, RoceBthHeader::ACKNOWLEDGE, qp->m_dscp, qp->m_priority);
    f.seq = psn;
    f.aux[2] = nak ? RoceAethHeader::SYNDROME_NAK_PSN : RoceAethHeader::SYNDROME_ACK;
    f.aux[3] = sack;
    f.l3Bytes = NetworkHeaderBytes() + kBth + kAeth + kIcrc;
    f.echoTimeStep = qp->m_rxEchoStep;
    if (qp->m_rxTelemetry)
    {
        f.telemetry = qp->m_rxTelemetry;
        f.l3Bytes += FabricIntStack::kWireBytes;
    }
    if (nak)
    {
        ++qp->m_stats.nacksSent;
        ++m_counters.nacksSent;
    }
    else
    {
        ++qp->m_stats.acksSent;
        ++m_counters.acksSent;
    }
    m_ports[qp->m_replyPort]->dev->Enqueue(std::move(f));
}

void
RdmaNic::SendCnp(RdmaQueuePair* qp)
{
    FabricFrame f;
    FillHeaderFields(qp,
                     f,
                     m_ib ? RoceBthHeader::IB_CNP : RoceBthHeader::CNP,
                     m_cnpDscp,
                     m_cnpPriority);
    f.seq = 0;
    f.l3Bytes = NetworkHeaderBytes() + kBth + kCnpPad + kIcrc;
    ++qp->m_stats.cnpsSent;
    ++m_counters.cnpsSent;
    m_ports[qp->m_replyPort]->dev->Enqueue(std::move(f));
}

void
RdmaNic::HandleAck(RdmaQueuePair* qp, const FabricFrame& f)
{
    if (qp->m_error)
    {
        return;
    }
    const bool nak = (f.aux[2] & 0xe0) == 0x60;
    if (nak)
    {
        ++qp->m_stats.nacksReceived;
        const uint32_t epsn = f.seq;
        const bool stale = epsn < qp->m_sndUna;
        AdvanceUna(qp, epsn, f, true);
        if (stale || qp->m_error)
        {
            return;
        }
        qp->m_recovery->OnNack(*qp, epsn, f.aux[3]);
        Activate(qp);
        return;
    }
    const uint32_t cumulative = f.seq + 1;
    if (AdvanceUna(qp, cumulative, f, false))
    {
        qp->m_recovery->OnAck(*qp, cumulative);
        if (qp->m_recovery->HasPending(*qp))
        {
            Activate(qp);
        }
    }
}

bool
RdmaNic::AdvanceUna(RdmaQueuePair* qp, uint32_t cumulative, const FabricFrame& f, bool nak)
{
    const bool moved = cumulative > qp->m_sndUna && cumulative <= qp->m_sndMax;
    RdmaAck ack;
    ack.nak = nak;
    if (moved)
    {
        const uint64_t before = qp->StreamOffset(qp->m_sndUna);
        ack.newlyAcked = cumulative - qp->m_sndUna;
        qp->m_sndUna = cumulative;
        qp->m_retries = 0;
        ack.newlyAckedBytes = qp->StreamOffset(cumulative) - before;
    }
    ack.ackedPsn = nak ? cumulative : qp->m_sndUna;
    ack.bytesInFlight = qp->GetBytesInFlight();
    ack.rtt = TimeStep(FabricClock::NowStep() - f.echoTimeStep);
    ack.hops = static_cast<uint8_t>(kInitialTtl - f.ttl);
    ack.telemetry = f.telemetry.Get();
    qp->m_cc->AckReceived(qp, ack);
    if (!moved)
    {
        return false;
    }
    while (!qp->m_sendQueue.empty() && qp->m_sendQueue.front().lastPsn < cumulative)
    {
        const RdmaQueuePair::Message m = qp->m_sendQueue.front();
        qp->m_sendQueue.pop_front();
        Complete(qp, m.wrId, m.bytes, m.posted, RdmaCompletion::SUCCESS);
    }
    ArmRto(qp, true);
    return true;
}

void
RdmaNic::Complete(RdmaQueuePair* qp,
                  uint64_t wrId,
                  uint64_t bytes,
                  Time posted,
                  RdmaCompletion::Status st)
{
    RdmaCompletion c;
    c.qpn = qp->m_qpn;
    c.wrId = wrId;
    c.bytes = bytes;
    c.status = st;
    c.posted = posted;
    c.completed = Simulator::Now();
    if (st == RdmaCompletion::SUCCESS)
    {
        qp->m_stats.bytesCompleted += bytes;
        ++qp->m_stats.messagesCompleted;
    }
    qp->m_completionTrace(c);
    m_completionTrace(c);
    if (!qp->m_completionCb.IsNull())
    {
        qp->m_completionCb(c);
    }
}

// ------------------------------------------------------------------ timers and errors

void
RdmaNic::ArmRto(RdmaQueuePair* qp, bool restart)
{
    if (qp->m_sndUna >= qp->m_sndMax)
    {
        return; // nothing outstanding: a pending timer event will find nothing to do
    }
    if (qp->m_rto.IsPending() && !restart)
    {
        return;
    }
    Time t = m_rto;
    if (m_backoff)
    {
        t = t * double(uint64_t(1) << std::min<uint32_t>(qp->m_retries, 20));
    }
    // Lazy timer: moving the deadline never reschedules; the pending event re-arms itself.
    qp->m_rtoDeadline = FabricClock::NowStep() + t.GetTimeStep();
    if (!qp->m_rto.IsPending())
    {
        qp->m_rto.Set(Simulator::Schedule(t, &RdmaNic::OnRto, this, qp));
    }
}

void
RdmaNic::OnRto(RdmaQueuePair* qp)
{
    qp->m_rto.Expire();
    if (qp->m_error || qp->m_sndUna >= qp->m_sndMax)
    {
        return;
    }
    const int64_t now = FabricClock::NowStep();
    if (now < qp->m_rtoDeadline)
    {
        qp->m_rto.Set(
            Simulator::Schedule(TimeStep(qp->m_rtoDeadline - now), &RdmaNic::OnRto, this, qp));
        return;
    }
    if (qp->m_retries >= m_retryCount)
    {
        EnterError(qp);
        return;
    }
    ++qp->m_retries;
    ++qp->m_stats.timeouts;
    ++m_counters.timeouts;
    qp->m_cc->Timeout(qp);
    qp->m_recovery->OnTimeout(*qp);
    ArmRto(qp, true);
    if (m_migrateOnTimeout && GetNPorts() > 1)
    {
        // Automatic path migration: the next live port becomes the queue pair's own.
        const uint32_t to = NextLivePort(qp->m_port);
        if (to != qp->m_port)
        {
            qp->m_homePort = to;
            MoveQueuePair(qp, to); // activates it there
            return;
        }
    }
    Activate(qp);
}

void
RdmaNic::EnterError(RdmaQueuePair* qp)
{
    qp->m_error = true;
    qp->m_rto.Remove();
    qp->m_ackTimer.Remove();
    qp->m_cc->Stop();
    ++m_counters.qpErrors;
    m_qpErrorTrace(qp->m_qpn);
    FlushQueuePair(qp);
}

void
RdmaNic::FlushQueuePair(RdmaQueuePair* qp)
{
    while (!qp->m_sendQueue.empty())
    {
        const RdmaQueuePair::Message m = qp->m_sendQueue.front();
        qp->m_sendQueue.pop_front();
        Complete(qp,
                 m.wrId,
                 m.bytes,
                 m.posted,
                 m.firstPsn < qp->m_sndMax ? RdmaCompletion::RETRY_EXCEEDED
                                           : RdmaCompletion::FLUSHED);
    }
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
// UetNic's data path: the initiator's send path (PDC arbitration, segmentation, entropy, the
// window and the credit), the target's receive path (PDC set-up by the first packet, SACK
// state, message completion, ACK coalescing, NACKs), the initiator's ACK/NACK handling and the
// retransmission timer. One translation unit (about 830 lines) so that the per-packet calls
// between them stay inlinable; RCCC's credit messages are in uet-nic-credit.cc, the slow
// receiver's drain and back-pressure (off by default) in uet-nic.cc.
#include "uet-header-sizes.h"
#include "uet-nic.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

using namespace uetwire;

void
UetNic::Activate(UetPdc* pdc)
{
    if (pdc->m_failed)
    {
        return;
    }
    if (!pdc->m_active)
    {
        pdc->m_active = true;
        m_active.push_back(pdc);
    }
    if (m_dev)
    {
        m_dev->WakeSource(m_dataPriority);
    }
}

void
UetNic::ScheduleWake(int64_t step)
{
    if (m_wake.IsPending() && m_wakeStep <= step)
    {
        return;
    }
    m_wake.Cancel();
    m_wakeStep = step;
    m_wake.Set(
        Simulator::Schedule(TimeStep(step - Simulator::Now().GetTimeStep()), &UetNic::Wake, this));
}

void
UetNic::Wake()
{
    m_wake.Expire();
    m_dev->WakeSource(m_dataPriority);
}

bool
UetNic::PullFrame(FabricFrame& out)
{
    const int64_t now = Simulator::Now().GetTimeStep();
    int64_t earliest = INT64_MAX;
    bool sawInactive = false;
    const size_t n = m_active.size();
    for (size_t i = 0; i < n; ++i)
    {
        size_t idx = m_rr + i;
        idx = idx >= n ? idx - n : idx;
        UetPdc* pdc = m_active[idx];
        while (!pdc->m_retx.empty() && (pdc->m_retx.front() < pdc->m_una ||
                                        pdc->Pkt(pdc->m_retx.front()).state != UetPdc::LOST))
        {
            pdc->m_retx.pop_front(); // acknowledged meanwhile, or already resent
        }
        if (pdc->m_failed || (pdc->m_retx.empty() && pdc->m_sndNxt == pdc->m_psnEnd))
        {
            pdc->m_active = false;
            sawInactive = true;
            continue;
        }
        const UetCcState& s = pdc->m_state;
        if (s.inFlight > 0 && s.inFlight + m_mtu > s.cwnd)
        {
            continue; // window full: an ACK, NACK or timeout activates it again
        }
        if (s.useCredit && s.credit <= 0)
        {
            continue; // no credit: a CREDIT activates it again
        }
        if (pdc->m_retx.empty())
        {
            const UetPdc::TxMsg& m = pdc->m_msgs[pdc->m_sendMsg - pdc->m_msgBase];
            if (m.readyStep > now)
            {
                earliest = std::min(earliest, m.readyStep);
                continue;
            }
        }
        FillData(pdc, out, now);
        m_rr = idx + 1 >= n ? 0 : idx + 1;
        return true;
    }
    if (sawInactive)
    {
        m_active.erase(std::remove_if(m_active.begin(),
                                      m_active.end(),
                                      [](UetPdc* p) { return !p->m_active; }),
                       m_active.end());
        m_rr = 0;
    }
    if (earliest != INT64_MAX)
    {
        ScheduleWake(earliest);
    }
    return false;
}

bool
UetNic::FillData(UetPdc* pdc, FabricFrame& out, int64_t now)
{
    uint32_t psn;
    bool retx = false;
    if (!pdc->m_retx.empty())
    {
        psn = pdc->m_retx.front();
        pdc->m_retx.pop_front();
        retx = true;
        pdc->m_lostBytes -= pdc->Pkt(psn).payload;
        --pdc->m_lostPkts;
    }
    else
    {
        const UetPdc::TxMsg& m = pdc->m_msgs[pdc->m_sendMsg - pdc->m_msgBase];
        UetPdc::TxPkt p;
        p.msgId = pdc->m_sendMsg;
        p.msgPkts = m.pkts;
        const uint64_t offset = uint64_t(pdc->m_sendPkt) * m_mtu;
        p.payload = static_cast<uint32_t>(std::min<uint64_t>(m_mtu, m.bytes - offset));
        p.last = pdc->m_sendPkt + 1 == m.pkts;
        if (p.last)
        {
            ++pdc->m_sendMsg;
            pdc->m_sendPkt = 0;
        }
        else
        {
            ++pdc->m_sendPkt;
        }
        psn = pdc->m_sndNxt++;
        pdc->m_newBytes -= p.payload;
        pdc->m_pkts.push_back(p);
    }
    UetPdc::TxPkt& p = pdc->Pkt(psn);
    p.ev = pdc->m_lb->NextEv();
    p.sentStep = now;
    p.state = UetPdc::IN_FLIGHT;
    ++p.sends;
    pdc->m_state.inFlight += p.payload;
    if (p.ev != pdc->m_lastEv && pdc->m_stats.dataPackets > 0)
    {
        ++pdc->m_stats.evChanges;
        ++m_counters.evChanges;
    }
    pdc->m_lastEv = p.ev;
    ++pdc->m_stats.dataPackets;
    ++m_counters.dataPackets;
    if (retx)
    {
        ++pdc->m_stats.retransmissions;
        ++m_counters.retransmissions;
    }

    out = FabricFrame();
    out.kind = FabricFrame::DATA;
    out.l4Format = kL4Uet;
    out.protocol = 17;
    out.src = pdc->m_local.Get();
    out.dst = pdc->m_remote.Get();
    out.srcPort = p.ev; // the entropy value: what the switches' ECMP hashes
    out.dstPort = kUdpPort;
    out.priority = m_dataPriority;
    out.dscp = static_cast<uint8_t>(m_dataPriority * 8);
    out.ecn = FabricFrame::ECN_ECT0;
    out.flowId = pdc->m_flowId;
    out.txTimeStep = now;
    out.seq = psn;
    out.payloadBytes = p.payload;
    out.l3Bytes = kDataHeaders + p.payload;
    uint32_t flags = DATA;
    UetCcState& cs = pdc->m_state;
    if (cs.useCredit)
    {
        // RCCC: the packet costs its wire bytes of credit and carries the credit target in
        // the PDS CC state.
        out.l3Bytes += kPdsCcState;
        flags |= kCcState;
        cs.credit -= m_dev->WireBytes(out);
        pdc->m_creditTarget =
            std::max(pdc->m_creditTarget, pdc->m_cc->CreditTarget(cs, Demand(pdc)));
        out.echoTimeStep = static_cast<int64_t>(pdc->m_creditTarget / kCreditUnit);
    }
    if (pdc->m_dpdcid == 0xffff)
    {
        flags |= kSyn;
    }
    // Ask for an ACK at once where coalescing would leave the initiator waiting: a message's
    // last packet, a retransmission, and the packet that fills the window or ends what is
    // posted (nothing may follow it to reach AckBytes).
    if (p.last || retx || pdc->m_state.inFlight + m_mtu > pdc->m_state.cwnd ||
        (pdc->m_retx.empty() && pdc->m_sndNxt == pdc->m_psnEnd) || (cs.useCredit && cs.credit <= 0))
    {
        flags |= kAckReq;
    }
    if (retx)
    {
        flags |= kRetx;
    }
    if (m_ordered)
    {
        flags |= kRod;
    }
    out.aux[0] = flags;
    out.aux[1] = pdc->m_id | (uint32_t(pdc->m_dpdcid) << 16);
    out.aux[2] = static_cast<uint32_t>(p.msgId);
    out.aux[3] = p.msgPkts;
    out.ComputeFlowHash();
    ArmRto(pdc, now + m_rtoTime.GetTimeStep());
    return true;
}

// ------------------------------------------------------------------ target side

void
UetNic::Receive(FabricNetDevice* /* device */, const FabricFrame& f)
{
    const uint32_t type = f.aux[0] & kTypeMask;
    if (type == DATA)
    {
        HandleData(f);
        return;
    }
    if (type == CREDIT_REQUEST)
    {
        HandleCreditRequest(f);
        return;
    }
    const uint32_t id = f.aux[1] & 0xffff;
    if (id >= m_tx.size())
    {
        return;
    }
    UetPdc* pdc = PeekPointer(m_tx[id]);
    if (pdc->m_failed)
    {
        return;
    }
    if (pdc->m_dpdcid == 0xffff)
    {
        pdc->m_dpdcid = static_cast<uint16_t>(f.aux[1] >> 16); // the PDC is established
    }
    if (type == ACK)
    {
        HandleAck(pdc, f);
    }
    else if (type == NACK)
    {
        HandleNack(pdc, f);
    }
    else if (type == CREDIT)
    {
        HandleCredit(pdc, f);
    }
}

UetNic::RxPdc*
UetNic::FindRx(const FabricFrame& f)
{
    const uint16_t spdcid = static_cast<uint16_t>(f.aux[1]);
    const uint16_t dpdcid = static_cast<uint16_t>(f.aux[1] >> 16);
    if (!(f.aux[0] & kSyn) && dpdcid < m_rx.size() && m_rx[dpdcid].src == f.src &&
        m_rx[dpdcid].spdcid == spdcid)
    {
        return &m_rx[dpdcid];
    }
    const uint64_t key = (uint64_t(f.src) << 16) | spdcid;
    auto it = m_rxIndex.find(key);
    if (it != m_rxIndex.end())
    {
        return &m_rx[it->second];
    }
    return nullptr;
}

bool
UetNic::MarkSeen(RxPdc& rx, uint32_t psn)
{
    if (rx.seen.empty())
    {
        rx.seen.assign(256, 0);
    }
    while (psn - rx.rcvNxt >= rx.seen.size())
    {
        // grow the window: re-index the PSNs held
        std::vector<uint8_t> bigger(rx.seen.size() * 2, 0);
        const uint32_t oldMask = static_cast<uint32_t>(rx.seen.size() - 1);
        const uint32_t newMask = static_cast<uint32_t>(bigger.size() - 1);
        for (uint32_t q = rx.rcvNxt; q != rx.rcvNxt + rx.seen.size(); ++q)
        {
            bigger[q & newMask] = rx.seen[q & oldMask];
        }
        rx.seen.swap(bigger);
    }
    const uint32_t mask = static_cast<uint32_t>(rx.seen.size() - 1);
    rx.seen[psn & mask] = 1;
    bool advanced = false;
    while (rx.seen[rx.rcvNxt & mask])
    {
        rx.seen[rx.rcvNxt & mask] = 0;
        ++rx.rcvNxt;
        advanced = true;
    }
    return advanced;
}

void
UetNic::CountMessagePacket(RxPdc& rx, const FabricFrame& f)
{
    const uint64_t id = rx.msgBase + static_cast<uint32_t>(f.aux[2] - uint32_t(rx.msgBase));
    while (rx.msgs.size() <= id - rx.msgBase)
    {
        rx.msgs.emplace_back();
    }
    RxPdc::Msg& m = rx.msgs[id - rx.msgBase];
    if (!m.known)
    {
        m.known = true;
        m.left = f.aux[3];
        m.firstStep = Simulator::Now().GetTimeStep();
    }
    m.bytes += f.payloadBytes;
    --m.left;
    if (m_rxRate.GetBitRate() > 0)
    {
        m.drainStep = Drain(f.payloadBytes);
    }
    // Messages complete in posting order (what a collective library's receives see).
    while (!rx.msgs.empty() && rx.msgs.front().known && rx.msgs.front().left == 0)
    {
        UetMessage done;
        done.src = Ipv4Address(rx.src);
        done.flowId = rx.flowId;
        done.pdc = rx.spdcid;
        done.msgId = rx.msgBase;
        done.bytes = rx.msgs.front().bytes;
        done.first = TimeStep(rx.msgs.front().firstStep);
        // in memory when its last byte has drained (ReceiveRate), then DeliverLatency
        const Time wait =
            TimeStep(
                std::max<int64_t>(rx.msgs.front().drainStep - Simulator::Now().GetTimeStep(), 0)) +
            m_deliverLatency;
        done.completed = Simulator::Now() + wait;
        rx.msgs.pop_front();
        ++rx.msgBase;
        ++m_counters.messagesDelivered;
        Simulator::Schedule(wait, &UetNic::DeliverMessage, this, done);
    }
}

void
UetNic::DeliverMessage(UetMessage m)
{
    if (!m_receiveCb.IsNull())
    {
        m_receiveCb(m);
    }
}

UetNic::RxPdc*
UetNic::GetOrCreateRx(const FabricFrame& f, bool& created)
{
    RxPdc* rx = FindRx(f);
    created = false;
    if (!rx)
    {
        // The first packet of a PDC sets up its state (no handshake).
        NS_ABORT_MSG_IF(m_rx.size() >= 0xffff, "UetNic: at most 65535 target PDCs per NIC");
        RxPdc r;
        r.src = f.src;
        r.spdcid = static_cast<uint16_t>(f.aux[1]);
        r.id = static_cast<uint16_t>(m_rx.size());
        r.flowId = f.flowId;
        m_rxIndex.emplace((uint64_t(f.src) << 16) | r.spdcid, r.id);
        m_rx.push_back(std::move(r));
        rx = &m_rx.back();
        created = true;
    }
    return rx;
}

void
UetNic::HandleData(const FabricFrame& f)
{
    bool created = false;
    RxPdc* rx = GetOrCreateRx(f, created);
    if (f.aux[0] & kCcState)
    {
        // RCCC: the credit target survives trimming (it is in the PDS header)
        CreditTargetArrived(*rx, uint64_t(f.echoTimeStep) * kCreditUnit);
    }
    const uint32_t psn = f.seq;
    const bool dup =
        psn < rx->rcvNxt || (psn - rx->rcvNxt < rx->seen.size() &&
                             rx->seen[psn & static_cast<uint32_t>(rx->seen.size() - 1)]);
    if (f.aux[0] & (kTrimmed | kTrimmedLastHop))
    {
        ++m_counters.trimmedReceived;
        if (dup)
        {
            SendAck(*rx, f, false);
        }
        else
        {
            SendNack(*rx,
                     f,
                     (f.aux[0] & kTrimmedLastHop) ? NACK_TRIMMED_LAST_HOP : NACK_TRIMMED,
                     psn);
        }
        return;
    }
    if (dup)
    {
        ++m_counters.duplicates;
        SendAck(*rx, f, f.ecn == FabricFrame::ECN_CE);
        return;
    }
    if (m_ordered && psn != rx->rcvNxt)
    {
        // ROD: only the next PSN is accepted; one NACK per gap tells the initiator where to
        // go back to.
        if (!rx->rodNackSent)
        {
            rx->rodNackSent = true;
            SendNack(*rx, f, NACK_ROD_OOO, rx->rcvNxt);
        }
        return;
    }
    if (rx->unreported && rx->unrepHi >= rx->rcvNxt && rx->bytesSinceAck > 0 &&
        (psn >= std::max(rx->unrepLo, rx->rcvNxt) + 64 || psn + 64 <= rx->unrepHi))
    {
        // One ACK's SACK bitmap spans 64 PSNs: before this packet widens what the next ACK must
        // report beyond that (spraying reorders), acknowledge what arrived so far, as the ACK
        // timer would, so no packet that arrived is left unacknowledged holding the window.
        AckLastPacket(*rx);
    }
    if (MarkSeen(*rx, psn))
    {
        rx->rodNackSent = false;
    }
    if (psn >= rx->rcvNxt)
    {
        rx->unrepLo = rx->unreported ? std::min(rx->unrepLo, psn) : psn;
        rx->unrepHi = rx->unreported ? std::max(rx->unrepHi, psn) : psn;
        rx->unreported = true;
    }
    rx->highest = std::max(rx->highest, psn + 1);
    CountMessagePacket(*rx, f);
    rx->bytesSinceAck += f.payloadBytes;
    const bool ce = f.ecn == FabricFrame::ECN_CE;
    if (f.aux[0] & kAckReq)
    {
        rx->ackReqPsn = rx->ackReqPending ? std::max(rx->ackReqPsn, psn) : psn;
        rx->ackReqPending = true;
    }
    if (created || ce || rx->ackReqPending || rx->bytesSinceAck >= m_ackBytes)
    {
        SendAck(*rx, f, ce);
    }
    else if (!rx->ackTimer.IsPending() && m_ackDelay.IsStrictlyPositive())
    {
        rx->lastEv = f.srcPort;
        rx->lastEcho = f.txTimeStep;
        rx->lastPsn = psn;
        rx->ackTimer.Set(Simulator::Schedule(m_ackDelay, &UetNic::AckTimeout, this, rx->id));
    }
    else
    {
        rx->lastEv = f.srcPort;
        rx->lastEcho = f.txTimeStep;
        rx->lastPsn = psn;
    }
    if (rx->ackReqPending && rx->rcvNxt > rx->ackReqPsn)
    {
        rx->ackReqPending = false;
    }
}

void
UetNic::FillReply(RxPdc& rx, const FabricFrame& data, FabricFrame& out) const
{
    out.kind = FabricFrame::DATA;
    out.l4Format = kL4Uet;
    out.protocol = 17;
    out.src = data.dst;
    out.dst = data.src;
    out.srcPort = data.srcPort; // echo the EV
    out.dstPort = kUdpPort;
    out.priority = m_ackPriority;
    out.dscp = static_cast<uint8_t>(m_ackPriority * 8);
    out.ecn = FabricFrame::ECN_NOT_ECT;
    out.flowId = data.flowId;
    out.txTimeStep = Simulator::Now().GetTimeStep();
    out.echoTimeStep = data.txTimeStep;
    out.aux[1] = rx.spdcid | (uint32_t(rx.id) << 16);
}

void
UetNic::SendAck(RxPdc& rx, const FabricFrame& f, bool ecn)
{
    FabricFrame a;
    FillReply(rx, f, a);
    a.seq = rx.rcvNxt;
    // The SACK bitmap covers 64 PSNs from rcvNxt + 1 + offset: right after the cumulative PSN,
    // or ending at the highest PSN to report (the one that triggered the ACK, or one that
    // arrived out of order since the last ACK) when that is further out (the ACK_CC's SACK PSN
    // offset), so a window wider than 64 packets is still acknowledged around a hole. HandleData
    // keeps what arrived since the last ACK within 64 PSNs.
    const uint32_t top =
        rx.unreported && rx.unrepHi > f.seq && rx.unrepHi >= rx.rcvNxt ? rx.unrepHi : f.seq;
    rx.unreported = false;
    const uint32_t ahead = top - rx.rcvNxt;
    const uint32_t offset =
        top > rx.rcvNxt + 64 ? std::min<uint32_t>(ahead - 64, kMaxSackOffset) : 0;
    const uint32_t base = rx.rcvNxt + 1 + offset;
    uint64_t bitmap = 0;
    if (!rx.seen.empty())
    {
        const uint32_t mask = static_cast<uint32_t>(rx.seen.size() - 1);
        // nothing arrived at or beyond `base` in order delivery: no scan
        const uint32_t n = rx.highest > base ? std::min<uint32_t>(64, rx.highest - base) : 0;
        for (uint32_t i = 0; i < n; ++i)
        {
            const uint32_t q = base + i;
            if (q - rx.rcvNxt < rx.seen.size() && rx.seen[q & mask])
            {
                bitmap |= uint64_t(1) << i;
            }
        }
    }
    a.aux[0] = ACK | (ecn ? kEcnEcho : 0) | (offset << kSackShift);
    if (m_rxRate.GetBitRate() > 0)
    {
        const uint8_t p = ReceiverPressure();
        a.echoTimeStep |= int64_t(p) << kPressureShift;
        m_counters.pressuredAcks += p > 0 ? 1 : 0;
    }
    a.aux[2] = static_cast<uint32_t>(bitmap);
    a.aux[3] = static_cast<uint32_t>(bitmap >> 32);
    a.l3Bytes = kAck;
    a.ComputeFlowHash();
    rx.bytesSinceAck = 0;
    ++m_counters.acksSent;
    m_dev->Enqueue(std::move(a));
}

void
UetNic::AckTimeout(uint16_t id)
{
    RxPdc& rx = m_rx[id];
    rx.ackTimer.Expire();
    if (rx.bytesSinceAck == 0)
    {
        return;
    }
    AckLastPacket(rx);
}

void
UetNic::AckLastPacket(RxPdc& rx)
{
    // The ACK the last data packet held back by coalescing would have triggered.
    FabricFrame last;
    last.src = rx.src;
    last.dst = m_dev->GetIpv4Address().Get();
    last.srcPort = rx.lastEv;
    last.txTimeStep = rx.lastEcho;
    last.flowId = rx.flowId;
    last.seq = rx.lastPsn;
    SendAck(rx, last, false);
}

void
UetNic::SendNack(RxPdc& rx, const FabricFrame& f, uint8_t code, uint32_t psn)
{
    FabricFrame a;
    FillReply(rx, f, a);
    a.aux[0] = NACK | (uint32_t(code) << kCodeShift);
    a.seq = psn;
    a.l3Bytes = kNack;
    a.ComputeFlowHash();
    ++m_counters.nacksSent;
    m_dev->Enqueue(std::move(a));
}

// ------------------------------------------------------------------ initiator: feedback

void
UetNic::Acked(UetPdc* pdc, uint32_t psn)
{
    UetPdc::TxPkt& p = pdc->Pkt(psn);
    if (p.state == UetPdc::ACKED)
    {
        return;
    }
    if (p.state == UetPdc::IN_FLIGHT)
    {
        pdc->m_state.inFlight -= p.payload;
    }
    else
    {
        // acknowledged while queued for retransmission (it was late, not lost)
        pdc->m_lostBytes -= p.payload;
        --pdc->m_lostPkts;
    }
    p.state = UetPdc::ACKED;
    pdc->m_stats.bytesAcked += p.payload;
    UetPdc::TxMsg& m = pdc->m_msgs[p.msgId - pdc->m_msgBase];
    if (--m.unacked == 0)
    {
        ++pdc->m_stats.messages;
        if (!pdc->m_completionCb.IsNull())
        {
            // after this ACK is processed: the callback may post new messages
            Simulator::ScheduleNow(&UetNic::NotifyComplete,
                                   this,
                                   Ptr<UetPdc>(pdc),
                                   p.msgId,
                                   m.bytes);
        }
    }
}

void
UetNic::NotifyComplete(Ptr<UetPdc> pdc, uint64_t msgId, uint64_t bytes)
{
    if (!pdc->m_completionCb.IsNull())
    {
        pdc->m_completionCb(msgId, bytes);
    }
}

void
UetNic::MarkLost(UetPdc* pdc, uint32_t psn)
{
    UetPdc::TxPkt& p = pdc->Pkt(psn);
    pdc->m_state.inFlight -= p.payload;
    p.state = UetPdc::LOST;
    pdc->m_retx.push_back(psn);
    pdc->m_lostBytes += p.payload;
    ++pdc->m_lostPkts;
}

void
UetNic::AdvanceUna(UetPdc* pdc)
{
    while (!pdc->m_pkts.empty() && pdc->m_pkts.front().state == UetPdc::ACKED)
    {
        pdc->m_pkts.pop_front();
        ++pdc->m_una;
    }
    while (!pdc->m_msgs.empty() && pdc->m_msgs.front().unacked == 0 &&
           pdc->m_msgBase < pdc->m_sendMsg)
    {
        pdc->m_msgs.pop_front();
        ++pdc->m_msgBase;
    }
}

void
UetNic::HandleAck(UetPdc* pdc, const FabricFrame& f)
{
    const uint64_t before = pdc->m_stats.bytesAcked;
    const uint32_t cum = std::min(f.seq, pdc->m_sndNxt);
    for (uint32_t psn = pdc->m_una; psn < cum; ++psn)
    {
        Acked(pdc, psn);
    }
    uint64_t bitmap = f.aux[2] | (uint64_t(f.aux[3]) << 32);
    for (uint32_t psn = f.seq + 1 + (f.aux[0] >> kSackShift); bitmap != 0; ++psn, bitmap >>= 1)
    {
        if ((bitmap & 1) && psn >= pdc->m_una && psn < pdc->m_sndNxt)
        {
            Acked(pdc, psn);
        }
    }
    AdvanceUna(pdc);
    ++pdc->m_stats.acks;
    UetAckSample s;
    s.newlyAckedBytes = pdc->m_stats.bytesAcked - before;
    s.rtt = TimeStep(Simulator::Now().GetTimeStep() - (f.echoTimeStep & kEchoMask));
    s.ecn = f.aux[0] & kEcnEcho;
    s.receiverPressure = static_cast<uint8_t>(f.echoTimeStep >> kPressureShift);
    pdc->m_cc->AckReceived(pdc->m_state, s);
    pdc->m_lb->Feedback(f.srcPort, s.ecn ? UetPathFeedback::ECN : UetPathFeedback::GOOD);
    Activate(pdc);
    MaybeRequestCredit(pdc);
}

void
UetNic::HandleNack(UetPdc* pdc, const FabricFrame& f)
{
    const uint32_t code = (f.aux[0] >> kCodeShift) & 0x1f;
    const uint32_t psn = f.seq;
    const bool live =
        psn >= pdc->m_una && psn < pdc->m_sndNxt && pdc->Pkt(psn).state == UetPdc::IN_FLIGHT;
    if (code == NACK_ROD_OOO)
    {
        ++pdc->m_stats.rodNacks;
        ++m_counters.rodNacks;
        if (live)
        {
            // go back to the PSN the target expects
            for (uint32_t q = psn; q < pdc->m_sndNxt; ++q)
            {
                if (pdc->Pkt(q).state == UetPdc::IN_FLIGHT)
                {
                    MarkLost(pdc, q);
                }
            }
            Activate(pdc);
        }
        return;
    }
    ++pdc->m_stats.trimNacks;
    ++m_counters.trimNacks;
    m_trimNackTrace(pdc->m_id, psn);
    if (!live)
    {
        return;
    }
    const uint32_t bytes = pdc->Pkt(psn).payload;
    MarkLost(pdc, psn);
    const bool lastHop = code == NACK_TRIMMED_LAST_HOP;
    pdc->m_cc->NackReceived(pdc->m_state, bytes, lastHop);
    pdc->m_lb->Feedback(f.srcPort,
                        lastHop ? UetPathFeedback::NACK_LAST_HOP : UetPathFeedback::NACK);
    Activate(pdc);
    MaybeRequestCredit(pdc);
}

// ------------------------------------------------------------------ retransmission timer

void
UetNic::ArmRto(UetPdc* pdc, int64_t deadline)
{
    if (pdc->m_rto.IsPending())
    {
        return; // the pending expiry looks at every packet's own deadline
    }
    const int64_t now = Simulator::Now().GetTimeStep();
    pdc->m_rto.Set(Simulator::Schedule(TimeStep(std::max<int64_t>(deadline - now, 0)),
                                       &UetNic::OnRto,
                                       this,
                                       pdc));
}

void
UetNic::OnRto(UetPdc* pdc)
{
    pdc->m_rto.Expire();
    if (pdc->m_failed)
    {
        return;
    }
    const int64_t now = Simulator::Now().GetTimeStep();
    const int64_t rto = m_rtoTime.GetTimeStep();
    int64_t next = INT64_MAX;
    uint64_t lost = 0;
    for (uint32_t psn = pdc->m_una; psn < pdc->m_sndNxt; ++psn)
    {
        UetPdc::TxPkt& p = pdc->Pkt(psn);
        if (p.state != UetPdc::IN_FLIGHT)
        {
            continue;
        }
        if (p.sentStep + rto > now)
        {
            next = std::min(next, p.sentStep + rto);
            continue;
        }
        if (p.sends >= m_maxRetx)
        {
            Fail(pdc);
            return;
        }
        lost += p.payload;
        MarkLost(pdc, psn);
        m_timeoutTrace(pdc->m_id, psn);
        pdc->m_lb->Feedback(p.ev, UetPathFeedback::TIMEOUT);
    }
    if (lost > 0)
    {
        ++pdc->m_stats.timeouts;
        ++m_counters.timeouts;
        pdc->m_cc->Timeout(pdc->m_state, lost);
        Activate(pdc);
        MaybeRequestCredit(pdc);
    }
    if (next != INT64_MAX)
    {
        ArmRto(pdc, next);
    }
}

void
UetNic::Fail(UetPdc* pdc)
{
    pdc->m_failed = true;
    pdc->m_retx.clear();
    pdc->m_rto.Cancel();
    ++m_counters.failedPdcs;
    m_pdcFailedTrace(pdc->m_id);
}

} // namespace ns3

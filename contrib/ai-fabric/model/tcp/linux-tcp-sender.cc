// SPDX-License-Identifier: GPL-2.0-only
// LinuxTcpSender: transmission, ACK processing and the congestion-state machine. The loss
// machinery it calls (SACK tagging, RACK, the dup-threshold rule, the RTT estimator, TLP and
// the RTO) is in linux-tcp-sender-loss.cc. About 670 lines because transmission (NextFrame,
// per segment) and ACK processing (ReceiveAck, tcp_fastretrans_alert, PRR, per ACK) call each
// other on every packet and share the scoreboard's state. Function names in comments are
// Linux's (net/ipv4/tcp_input.c, tcp_output.c, tcp_timer.c, tcp_recovery.c).
#include "linux-tcp-sender.h"

#include "linux-tcp-stack.h"

#include "ns3/fabric-clock.h"
#include "ns3/fabric-frame.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

LinuxTcpSender::LinuxTcpSender(LinuxTcpStack* stack, uint32_t id, Ptr<LinuxTcpCongestionOps> cc)
    : m_stack(stack),
      m_id(id),
      m_ccOps(cc)
{
    const LinuxTcpConfig& c = stack->GetConfig();
    m_cc.cwnd = c.initCwnd;
    m_rto = c.rtoInitNs;
}

LinuxTcpSender::~LinuxTcpSender()
{
    m_event.Cancel();
}

void
LinuxTcpSender::SetPeer(uint32_t localAddr,
                        uint32_t remoteAddr,
                        uint16_t srcPort,
                        uint16_t dstPort,
                        uint32_t peerEndpoint,
                        uint32_t mss,
                        uint32_t peerWindow)
{
    m_local = localAddr;
    m_remote = remoteAddr;
    m_srcPort = srcPort;
    m_dstPort = dstPort;
    m_peerEndpoint = peerEndpoint;
    m_cc.mss = mss;
    m_sndWnd = peerWindow;
    FabricFrame f;
    f.src = localAddr;
    f.dst = remoteAddr;
    f.srcPort = srcPort;
    f.dstPort = dstPort;
    f.protocol = 6;
    f.ComputeFlowHash();
    m_flowHash = f.flowHash;
    m_cc.nowNs = FabricClock::NowStep();
    m_ccOps->Init(m_cc);
}

void
LinuxTcpSender::Write(uint64_t bytes)
{
    m_written += bytes;
    if (CanSend())
    {
        m_stack->MakeReady(m_id);
    }
}

uint64_t
LinuxTcpSender::GetSendSpace() const
{
    const uint64_t used = m_written - m_sndUna;
    const uint64_t buf = m_stack->GetConfig().bufferBytes;
    return used >= buf ? 0 : buf - used;
}

uint64_t
LinuxTcpSender::GetUnacked() const
{
    return m_written - m_sndUna;
}

uint32_t
LinuxTcpSender::InFlight() const
{
    // tcp_packets_in_flight: packets_out - (sacked_out + lost_out) + retrans_out
    return static_cast<uint32_t>(m_rtx.size()) - (m_sackedOut + m_lostOut) + m_retransOut;
}

bool
LinuxTcpSender::CanSend() const
{
    if (m_tlpForce)
    {
        return true;
    }
    if (InFlight() >= m_cc.cwnd)
    {
        return false;
    }
    if (m_lostPending > 0)
    {
        return true;
    }
    return m_written > m_sndNxt && m_sndNxt < m_sndUna + m_sndWnd;
}

bool
LinuxTcpSender::NextLost(size_t& idx) const
{
    for (; idx < m_rtx.size(); ++idx)
    {
        if ((m_rtx[idx].flags & (LOST | RETRANS | SACKED)) == LOST)
        {
            return true;
        }
    }
    return false;
}

void
LinuxTcpSender::FillFrame(FabricFrame& f, const Seg& s, bool retransmission)
{
    const LinuxTcpConfig& c = m_stack->GetConfig();
    f.kind = FabricFrame::DATA;
    f.l4Format = FabricFrame::L4_TCP;
    f.protocol = 6;
    f.src = m_local;
    f.dst = m_remote;
    f.srcPort = m_srcPort;
    f.dstPort = m_dstPort;
    f.flowHash = m_flowHash;
    f.flowId = m_peerEndpoint;
    f.seq = static_cast<uint32_t>(s.start);
    f.aux[1] = static_cast<uint32_t>(s.start >> 32);
    uint32_t flags = TCP_ACK;
    if (m_cwrPending && !retransmission)
    {
        flags |= TCP_CWR;
        m_cwrPending = false;
    }
    f.aux[0] = flags;
    f.aux[2] = 0;
    f.aux[3] = 0;
    f.payloadBytes = s.len;
    f.l3Bytes = LINUX_TCP_HEADER_BYTES + s.len;
    f.priority = c.priority;
    f.dscp = c.dscp;
    // DCTCP (tcp_ca_needs_ecn) keeps ECT on retransmissions too (tcp_ecn_send).
    f.ecn = m_ccOps->NeedsEcn() ? FabricFrame::ECN_ECT0 : FabricFrame::ECN_NOT_ECT;
    f.ttl = 64;
    f.txTimeStep = FabricClock::NowStep();
    f.echoTimeStep = 0;
}

bool
LinuxTcpSender::NextFrame(FabricFrame& out, bool& burstDone)
{
    const int64_t now = FabricClock::NowStep();
    const LinuxTcpConfig& c = m_stack->GetConfig();
    burstDone = false;
    if (m_tlpForce)
    {
        // tcp_send_loss_probe: new data if the window allows, else the last segment again;
        // cwnd is not consulted (tcp_write_xmit push_one == 2).
        m_tlpForce = false;
        burstDone = true;
        if (m_tlpProbeIdx >= 0 && size_t(m_tlpProbeIdx) < m_rtx.size())
        {
            Seg& s = m_rtx[size_t(m_tlpProbeIdx)];
            m_lostPending -= Pending(s.flags);
            if (!(s.flags & RETRANS))
            {
                ++m_retransOut;
            }
            s.flags |= RETRANS | EVER_RETRANS;
            s.xmitNs = now;
            ++m_stats.retransmits;
            FillFrame(out, s, true);
            m_tlpRetrans = true;
            m_tlpHighSeq = m_sndNxt;
            OnSent(1, false);
            return true;
        }
        if (m_written > m_sndNxt)
        {
            const uint32_t len =
                static_cast<uint32_t>(std::min<uint64_t>(m_cc.mss, m_written - m_sndNxt));
            const bool wasEmpty = m_rtx.empty();
            m_rtx.push_back(Seg{m_sndNxt, len, 0, now});
            m_sndNxt += len;
            FillFrame(out, m_rtx.back(), false);
            m_tlpRetrans = false;
            m_tlpHighSeq = m_sndNxt;
            OnSent(1, true);
            if (wasEmpty)
            {
                RearmRto(now);
            }
            return true;
        }
        return false;
    }
    if (InFlight() >= m_cc.cwnd)
    {
        m_burstLeft = 0;
        return false;
    }
    if (m_burstLeft == 0)
    {
        // tcp_tso_autosize: about 1 ms at the pacing rate (sk_pacing_shift 10), at least
        // tcp_min_tso_segs (2), at most the GSO size.
        uint32_t segs = c.tsoMaxBytes / m_cc.mss;
        if (m_srtt8 > 0)
        {
            const double ratio = m_cc.InSlowStart() ? 2.0 : 1.2;
            const double rate = ratio * m_cc.cwnd * m_cc.mss / (double(m_srtt8 >> 3) * 1e-9);
            segs = std::min<uint32_t>(segs, uint32_t(rate / 1024.0 / m_cc.mss));
        }
        m_burstLeft = std::max(segs, 2U);
    }
    size_t idx = m_lostHint;
    if (m_lostPending > 0 && NextLost(idx))
    {
        // tcp_xmit_retransmit_queue
        m_lostHint = idx;
        Seg& s = m_rtx[idx];
        --m_lostPending;
        s.flags |= RETRANS | EVER_RETRANS;
        s.xmitNs = now;
        ++m_retransOut;
        ++m_stats.retransmits;
        FillFrame(out, s, true);
        OnSent(1, false);
        if (idx == 0)
        {
            SetTimer(Timer::RETRANS, now + m_rto);
        }
    }
    else
    {
        if (m_written <= m_sndNxt || m_sndNxt >= m_sndUna + m_sndWnd)
        {
            m_burstLeft = 0;
            return false;
        }
        if (m_rtx.empty() && c.slowStartAfterIdle && m_lastSendNs > 0 && now - m_lastSendNs > m_rto)
        {
            // tcp_cwnd_restart: halve per RTO idle, down to the initial window.
            const bool reducing =
                m_state == LinuxTcpCaState::CWR || m_state == LinuxTcpCaState::RECOVERY;
            if (!reducing)
            {
                m_cc.ssthresh = std::max(m_cc.ssthresh, (m_cc.cwnd >> 1) + (m_cc.cwnd >> 2));
            }
            const uint32_t restart = std::min(c.initCwnd, m_cc.cwnd);
            uint32_t cwnd = m_cc.cwnd;
            int64_t delta = now - m_lastSendNs;
            while ((delta -= m_rto) > 0 && cwnd > restart)
            {
                cwnd >>= 1;
            }
            m_cc.cwnd = std::max(cwnd, restart);
        }
        const uint64_t wndEnd = m_sndUna + m_sndWnd;
        const uint32_t len = static_cast<uint32_t>(
            std::min<uint64_t>({m_cc.mss, m_written - m_sndNxt, wndEnd - m_sndNxt}));
        const bool wasEmpty = m_rtx.empty();
        m_rtx.push_back(Seg{m_sndNxt, len, 0, now});
        m_sndNxt += len;
        FillFrame(out, m_rtx.back(), false);
        OnSent(1, true);
        // tcp_event_new_data_sent: the RTO starts with the first packet out, or replaces a TLP
        if (wasEmpty || m_timer == Timer::LOSS_PROBE)
        {
            RearmRto(now);
        }
        ScheduleLossProbe(false, now);
    }
    --m_burstLeft;
    if (m_burstLeft == 0 || !CanSend())
    {
        burstDone = true;
        m_burstLeft = CanSend() ? 0 : m_burstLeft;
    }
    return true;
}

void
LinuxTcpSender::OnSent(uint32_t n, bool)
{
    m_lastSendNs = FabricClock::NowStep();
    m_stats.segmentsSent += n;
    if (m_state == LinuxTcpCaState::CWR || m_state == LinuxTcpCaState::RECOVERY)
    {
        m_prrOut += n;
    }
    // tcp_cwnd_validate
    const bool limited = InFlight() >= m_cc.cwnd;
    const uint32_t packetsOut = static_cast<uint32_t>(m_rtx.size());
    if (m_sndUna >= m_cwndUsageSeq || limited || (!m_isCwndLimited && packetsOut > m_maxPacketsOut))
    {
        m_isCwndLimited = limited;
        m_maxPacketsOut = packetsOut;
        m_cwndUsageSeq = m_sndNxt;
    }
}

bool
LinuxTcpSender::IsCwndLimited() const
{
    // tcp_is_cwnd_limited
    if (m_cc.InSlowStart())
    {
        return m_cc.cwnd < 2 * m_maxPacketsOut;
    }
    return m_isCwndLimited;
}

void
LinuxTcpSender::ReceiveAck(const LinuxTcpRxSegment& a)
{
    const int64_t now = FabricClock::NowStep();
    m_cc.nowNs = now;
    uint64_t ack = a.seq;
    if (ack > m_sndNxt)
    {
        return; // acknowledges data never sent: dropped as Linux does (tcp_ack "uninteresting")
    }
    ack = std::max(ack, m_sndUna);
    m_sndWnd = a.window;
    const bool ece = (a.flags & TCP_ECE) != 0;
    const bool snduAdvanced = ack > m_sndUna;
    uint32_t newlyAcked = 0;
    uint32_t newlySacked = 0;
    int64_t firstAckt = -1;
    int64_t lastAckt = -1;
    int64_t firstSackt = -1;
    bool retransAcked = false;
    if (snduAdvanced)
    {
        CleanRtxQueue(ack, now, newlyAcked, firstAckt, lastAckt, retransAcked);
    }
    bool dsack = false;
    if (a.hasSack)
    {
        const uint64_t s = a.seq + uint64_t(int64_t(int32_t(a.sackStart)));
        const uint64_t e = a.seq + uint64_t(int64_t(int32_t(a.sackEnd)));
        if (a.dsack)
        {
            // A duplicate arrived: a retransmission (or the original) was unnecessary.
            dsack = true;
            ++m_stats.dsacksReceived;
            ++m_stats.spuriousRetransmits;
            m_reoWndSteps = std::min<uint32_t>(m_reoWndSteps + 1, 255);
        }
        else if (e > s)
        {
            SackTag(s, e, now, newlySacked, firstSackt);
        }
    }
    const uint32_t delivered = newlyAcked + newlySacked;
    m_cc.delivered += delivered;
    if (ece)
    {
        m_cc.deliveredCe += delivered;
    }
    // tcp_ack_update_rtt: the earliest newly (cum-)acked original transmission, else the
    // SACKed one, else the echoed timestamp.
    int64_t seqRtt = firstAckt >= 0 ? now - firstAckt : -1;
    int64_t caRtt = lastAckt >= 0 ? now - lastAckt : -1;
    if (seqRtt < 0 && firstSackt >= 0)
    {
        seqRtt = caRtt = now - firstSackt;
    }
    if (seqRtt < 0 && snduAdvanced && a.tsecr > 0)
    {
        seqRtt = caRtt = now - a.tsecr;
    }
    if (seqRtt >= 0)
    {
        if (m_minRtt == 0 || caRtt < m_minRtt)
        {
            m_minRtt = std::max<int64_t>(caRtt, 1);
        }
        UpdateRtt(seqRtt);
        SetRto();
        m_backoff = 0;
    }
    m_cc.srttNs = m_srtt8 >> 3;
    m_cc.sndUna = m_sndUna;
    m_cc.sndNxt = m_sndNxt;
    m_ccOps->PktsAcked(m_cc, newlyAcked, caRtt);
    m_ccOps->InAckEvent(m_cc, ece);
    if (m_tlpHighSeq != 0)
    {
        ProcessTlpAck(ack, snduAdvanced, dsack, newlySacked > 0);
    }
    bool setXmitTimer = snduAdvanced;
    const bool dubious = !snduAdvanced || ece || a.hasSack || m_state != LinuxTcpCaState::OPEN;
    uint32_t newlyLost = 0;
    if (dubious && !m_rtx.empty())
    {
        const Timer before = m_timer;
        FastRetransAlert(snduAdvanced, delivered, newlyLost, ece, dubious, now);
        if (m_timer == Timer::REO && before != Timer::REO)
        {
            setXmitTimer = false;
        }
    }
    else if (dubious && m_rtx.empty() && m_state != LinuxTcpCaState::OPEN && m_sndUna >= m_highSeq)
    {
        if (m_state == LinuxTcpCaState::RECOVERY || m_state == LinuxTcpCaState::CWR)
        {
            EndCwndReduction();
        }
        m_state = LinuxTcpCaState::OPEN;
    }
    if (setXmitTimer && !ScheduleLossProbe(true, now))
    {
        RearmRto(now);
    }
    // tcp_cong_control
    if (m_state == LinuxTcpCaState::CWR || m_state == LinuxTcpCaState::RECOVERY)
    {
        CwndReduction(delivered, newlyLost, snduAdvanced);
    }
    else if (newlyAcked > 0 && IsCwndLimited())
    {
        m_ccOps->CongAvoid(m_cc, delivered);
    }
    if (m_rtx.empty())
    {
        SetTimer(Timer::NONE, 0);
    }
    if (snduAdvanced)
    {
        m_stack->NotifySendSpace(m_id);
    }
    if (CanSend())
    {
        m_stack->MakeReady(m_id);
    }
}

void
LinuxTcpSender::FastRetransAlert(bool snduAdvanced,
                                 uint32_t newlyAckedSacked,
                                 uint32_t& newlyLost,
                                 bool ece,
                                 bool,
                                 int64_t now)
{
    // End of a Recovery, Loss or CWR episode once everything sent before it is acknowledged.
    if (m_state != LinuxTcpCaState::OPEN && m_state != LinuxTcpCaState::DISORDER &&
        m_sndUna >= m_highSeq)
    {
        if (m_state == LinuxTcpCaState::RECOVERY || m_state == LinuxTcpCaState::CWR)
        {
            EndCwndReduction();
        }
        m_state = m_sackedOut > 0 ? LinuxTcpCaState::DISORDER : LinuxTcpCaState::OPEN;
    }
    // tcp_identify_packet_loss
    if (m_stack->GetConfig().rack)
    {
        int64_t reoTimeout = 0;
        RackDetectLoss(now, reoTimeout, newlyLost);
        if (reoTimeout > 0)
        {
            const int64_t j = m_stack->GetConfig().jiffyNs;
            SetTimer(Timer::REO, now + Jiffies(reoTimeout) + 2 * j);
        }
    }
    else
    {
        DupThreshDetectLoss(newlyLost);
    }
    (void)snduAdvanced;
    (void)newlyAckedSacked;
    switch (m_state)
    {
    case LinuxTcpCaState::RECOVERY:
    case LinuxTcpCaState::LOSS:
        return;
    default:
        break;
    }
    if (m_lostOut > 0)
    {
        EnterRecovery();
        return;
    }
    // tcp_try_to_open
    if (ece && m_state != LinuxTcpCaState::CWR)
    {
        EnterCwr();
    }
    if (m_state != LinuxTcpCaState::CWR)
    {
        m_state = (m_sackedOut + m_lostOut + m_retransOut) > 0 ? LinuxTcpCaState::DISORDER
                                                               : LinuxTcpCaState::OPEN;
        m_highSeq = m_sndNxt;
    }
}

void
LinuxTcpSender::InitCwndReduction()
{
    // tcp_init_cwnd_reduction
    m_highSeq = m_sndNxt;
    m_tlpHighSeq = 0;
    m_cc.cwndCnt = 0;
    m_priorCwnd = m_cc.cwnd;
    m_prrDelivered = 0;
    m_prrOut = 0;
    m_cc.ssthresh = m_ccOps->SsThresh(m_cc);
    if (m_ccOps->NeedsEcn())
    {
        m_cwrPending = true; // tcp_ecn_queue_cwr
    }
}

void
LinuxTcpSender::EnterRecovery()
{
    // tcp_enter_recovery
    if (m_state != LinuxTcpCaState::CWR)
    {
        InitCwndReduction();
    }
    m_state = LinuxTcpCaState::RECOVERY;
    m_ccOps->OnEnterRecovery(m_cc);
    ++m_stats.fastRetransmits;
    m_stack->NotifyRecovery(m_id);
}

void
LinuxTcpSender::EnterCwr()
{
    // tcp_enter_cwr
    if (m_state == LinuxTcpCaState::OPEN || m_state == LinuxTcpCaState::DISORDER)
    {
        InitCwndReduction();
        m_state = LinuxTcpCaState::CWR;
        ++m_stats.ecnReductions;
    }
}

void
LinuxTcpSender::EndCwndReduction()
{
    // tcp_end_cwnd_reduction
    if (m_cc.ssthresh < 0x7fffffff)
    {
        m_cc.cwnd = m_cc.ssthresh;
    }
}

void
LinuxTcpSender::CwndReduction(uint32_t newlyAckedSacked, uint32_t newlyLost, bool snduAdvanced)
{
    // tcp_cwnd_reduction (PRR, RFC 6937)
    if (newlyAckedSacked == 0 || m_priorCwnd == 0)
    {
        return;
    }
    const int64_t inFlight = InFlight();
    const int64_t delta = int64_t(m_cc.ssthresh) - inFlight;
    m_prrDelivered += newlyAckedSacked;
    int64_t sndcnt;
    if (delta < 0)
    {
        const uint64_t dividend = uint64_t(m_cc.ssthresh) * m_prrDelivered + m_priorCwnd - 1;
        sndcnt = int64_t(dividend / m_priorCwnd) - int64_t(m_prrOut);
    }
    else
    {
        sndcnt = std::max<int64_t>(int64_t(m_prrDelivered) - m_prrOut, newlyAckedSacked);
        if (snduAdvanced && newlyLost == 0)
        {
            ++sndcnt;
        }
        sndcnt = std::min(delta, sndcnt);
    }
    sndcnt = std::max<int64_t>(sndcnt, m_prrOut ? 0 : 1);
    m_cc.cwnd = static_cast<uint32_t>(std::max<int64_t>(inFlight + sndcnt, 1));
}

void
LinuxTcpSender::ProcessTlpAck(uint64_t ack, bool snduAdvanced, bool dsack, bool sackedData)
{
    // tcp_process_tlp_ack
    if (ack < m_tlpHighSeq)
    {
        return;
    }
    if (!m_tlpRetrans || dsack)
    {
        m_tlpHighSeq = 0; // new data probed, or original and probe both arrived
    }
    else if (ack > m_tlpHighSeq)
    {
        // The probe repaired a loss: one cwnd reduction (CWR entered and ended at once).
        InitCwndReduction();
        m_state = LinuxTcpCaState::CWR;
        EndCwndReduction();
        m_state = (m_sackedOut + m_lostOut + m_retransOut) > 0 ? LinuxTcpCaState::DISORDER
                                                               : LinuxTcpCaState::OPEN;
        ++m_stats.tlpRecoveries;
    }
    else if (!snduAdvanced && !sackedData)
    {
        m_tlpHighSeq = 0;
    }
}

const LinuxTcpSenderStats&
LinuxTcpSender::GetStats() const
{
    return m_stats;
}

LinuxTcpCaState
LinuxTcpSender::GetCaState() const
{
    return m_state;
}

uint32_t
LinuxTcpSender::GetCwnd() const
{
    return m_cc.cwnd;
}

uint32_t
LinuxTcpSender::GetSsThresh() const
{
    return m_cc.ssthresh;
}

int64_t
LinuxTcpSender::GetSrttNs() const
{
    return m_srtt8 >> 3;
}

int64_t
LinuxTcpSender::GetRtoNs() const
{
    return m_rto;
}

uint32_t
LinuxTcpSender::GetPacketsInFlight() const
{
    return InFlight();
}

uint32_t
LinuxTcpSender::GetId() const
{
    return m_id;
}

Ptr<LinuxTcpCongestionOps>
LinuxTcpSender::GetCongestionOps() const
{
    return m_ccOps;
}

} // namespace ns3

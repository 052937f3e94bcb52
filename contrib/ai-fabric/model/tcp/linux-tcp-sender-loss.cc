// SPDX-License-Identifier: GPL-2.0-only
// LinuxTcpSender's loss machinery: the scoreboard (tcp_clean_rtx_queue, tcp_sacktag_write_queue,
// tcp_mark_skb_lost), RACK (tcp_rack_advance, tcp_rack_detect_loss, tcp_rack_reo_wnd,
// tcp_rack_reo_timeout), the dup-threshold rule used when RACK is off (RFC 6675 IsLost, as
// tcp_mark_head_lost), the RTT estimator (tcp_rtt_estimator, __tcp_set_rto), and the one
// retransmission timer with its three uses: RTO (tcp_retransmit_timer, tcp_enter_loss,
// tcp_rearm_rto), tail loss probe (tcp_schedule_loss_probe, tcp_send_loss_probe) and RACK's
// reordering timeout.
#include "linux-tcp-sender.h"
#include "linux-tcp-stack.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

size_t
LinuxTcpSender::FindSeg(uint64_t seq) const
{
    // Segments are contiguous in sequence: the first one ending after seq.
    auto it = std::upper_bound(m_rtx.begin(), m_rtx.end(), seq, [](uint64_t v, const Seg& s) {
        return v < s.start + s.len;
    });
    return static_cast<size_t>(it - m_rtx.begin());
}

void
LinuxTcpSender::CleanRtxQueue(uint64_t ack,
                              int64_t now,
                              uint32_t& newlyAcked,
                              int64_t& firstAckt,
                              int64_t& lastAckt,
                              bool& retransAcked)
{
    while (!m_rtx.empty())
    {
        Seg& s = m_rtx.front();
        if (s.start + s.len > ack)
        {
            if (s.start < ack)
            {
                // A partial acknowledgement (tcp_trim_head).
                s.len -= static_cast<uint32_t>(ack - s.start);
                s.start = ack;
            }
            break;
        }
        if (s.flags & SACKED)
        {
            --m_sackedOut;
        }
        else
        {
            ++newlyAcked;
            if (s.flags & LOST)
            {
                --m_lostOut;
            }
            if (s.flags & EVER_RETRANS)
            {
                retransAcked = true;
            }
            else
            {
                lastAckt = s.xmitNs;
                if (firstAckt < 0)
                {
                    firstAckt = s.xmitNs;
                }
                if (s.start + s.len < m_highSacked)
                {
                    m_reordSeen = true; // a hole filled by an original transmission
                }
            }
            RackAdvance(s, now);
        }
        if (s.flags & RETRANS)
        {
            --m_retransOut;
        }
        m_lostPending -= Pending(s.flags);
        m_rtx.pop_front();
        m_lostHint = m_lostHint > 0 ? m_lostHint - 1 : 0;
    }
    m_sndUna = ack;
}

void
LinuxTcpSender::SackTag(uint64_t start,
                        uint64_t end,
                        int64_t now,
                        uint32_t& newlySacked,
                        int64_t& firstSackt)
{
    for (size_t i = FindSeg(start); i < m_rtx.size(); ++i)
    {
        Seg& s = m_rtx[i];
        if (s.start >= end)
        {
            break;
        }
        if (s.start < start || s.start + s.len > end || (s.flags & SACKED))
        {
            continue;
        }
        ++newlySacked;
        if (s.flags & LOST)
        {
            --m_lostOut;
        }
        if (s.flags & RETRANS)
        {
            --m_retransOut;
        }
        if (!(s.flags & EVER_RETRANS))
        {
            if (s.start + s.len < m_highSacked)
            {
                m_reordSeen = true;
            }
            if (firstSackt < 0 || s.xmitNs < firstSackt)
            {
                firstSackt = s.xmitNs;
            }
        }
        m_lostPending -= Pending(s.flags);
        s.flags = static_cast<uint8_t>((s.flags | SACKED) & ~(LOST | RETRANS));
        ++m_sackedOut;
        RackAdvance(s, now);
    }
    m_highSacked = std::max(m_highSacked, end);
}

void
LinuxTcpSender::RackAdvance(const Seg& s, int64_t now)
{
    const int64_t rtt = now - s.xmitNs;
    if ((s.flags & EVER_RETRANS) && rtt < m_minRtt)
    {
        return; // the SACK is for the original: ambiguous, skipped
    }
    m_rackRtt = rtt;
    const uint64_t end = s.start + s.len;
    if (s.xmitNs > m_rackMstamp || (s.xmitNs == m_rackMstamp && end > m_rackEndSeq))
    {
        m_rackMstamp = s.xmitNs;
        m_rackEndSeq = end;
    }
}

uint32_t
LinuxTcpSender::RackReoWnd() const
{
    if (!m_reordSeen)
    {
        if (m_state == LinuxTcpCaState::RECOVERY || m_state == LinuxTcpCaState::LOSS)
        {
            return 0;
        }
        if (m_sackedOut >= m_stack->GetConfig().reordering)
        {
            return 0;
        }
    }
    const int64_t w = std::min<int64_t>((m_minRtt >> 2) * m_reoWndSteps, m_srtt8 >> 3);
    return static_cast<uint32_t>(std::max<int64_t>(w, 0));
}

void
LinuxTcpSender::RackDetectLoss(int64_t now, int64_t& reoTimeout, uint32_t& newlyLost)
{
    if (m_rackMstamp == 0)
    {
        return;
    }
    const int64_t reoWnd = RackReoWnd();
    for (auto& s : m_rtx)
    {
        if ((s.flags & SACKED) || ((s.flags & LOST) && !(s.flags & RETRANS)))
        {
            continue;
        }
        const uint64_t end = s.start + s.len;
        const bool sentBefore =
            m_rackMstamp > s.xmitNs || (m_rackMstamp == s.xmitNs && m_rackEndSeq > end);
        if (!sentBefore)
        {
            continue;
        }
        const int64_t remaining = m_rackRtt + reoWnd - (now - s.xmitNs);
        if (remaining <= 0)
        {
            MarkLost(s);
            ++m_stats.rackLosses;
            ++newlyLost;
        }
        else
        {
            reoTimeout = std::max(reoTimeout, remaining);
        }
    }
}

void
LinuxTcpSender::DupThreshDetectLoss(uint32_t& newlyLost)
{
    // RFC 6675 IsLost: a segment is lost once `reordering` SACKed segments are above it.
    const uint32_t thresh = m_stack->GetConfig().reordering;
    if (m_sackedOut < thresh)
    {
        return;
    }
    uint32_t above = 0;
    for (size_t i = m_rtx.size(); i-- > 0;)
    {
        Seg& s = m_rtx[i];
        if (s.flags & SACKED)
        {
            ++above;
        }
        else if (above >= thresh && !(s.flags & (LOST | RETRANS)))
        {
            MarkLost(s);
            ++newlyLost;
        }
    }
}

void
LinuxTcpSender::MarkLost(Seg& s)
{
    if (s.flags & SACKED)
    {
        return;
    }
    m_lostPending -= Pending(s.flags);
    if (s.flags & RETRANS)
    {
        // A lost retransmission: it may be sent again.
        s.flags &= static_cast<uint8_t>(~RETRANS);
        --m_retransOut;
        ++m_stats.lostRetransmits;
    }
    if (!(s.flags & LOST))
    {
        s.flags |= LOST;
        ++m_lostOut;
    }
    m_lostPending += Pending(s.flags);
    m_lostHint = std::min(m_lostHint, FindSeg(s.start));
}

void
LinuxTcpSender::UpdateRtt(int64_t m)
{
    // tcp_rtt_estimator, in ns; rttvar never below rto_min, so RTO = SRTT + max(..., rto_min).
    const int64_t rtoMin = m_stack->GetConfig().rtoMinNs;
    m = std::max<int64_t>(m, 1);
    if (m_srtt8 != 0)
    {
        m -= (m_srtt8 >> 3);
        m_srtt8 += m;
        if (m < 0)
        {
            m = -m;
            m -= (m_mdev4 >> 2);
            if (m > 0)
            {
                m >>= 3;
            }
        }
        else
        {
            m -= (m_mdev4 >> 2);
        }
        m_mdev4 += m;
        if (m_mdev4 > m_mdevMax)
        {
            m_mdevMax = m_mdev4;
            if (m_mdevMax > m_rttvar)
            {
                m_rttvar = m_mdevMax;
            }
        }
        if (m_sndUna > m_rttSeq)
        {
            if (m_mdevMax < m_rttvar)
            {
                m_rttvar -= (m_rttvar - m_mdevMax) >> 2;
            }
            m_rttSeq = m_sndNxt;
            m_mdevMax = rtoMin;
        }
    }
    else
    {
        m_srtt8 = m << 3;
        m_mdev4 = m << 1;
        m_rttvar = std::max(m_mdev4, rtoMin);
        m_mdevMax = m_rttvar;
        m_rttSeq = m_sndNxt;
    }
    m_srtt8 = std::max<int64_t>(m_srtt8, 1);
}

void
LinuxTcpSender::SetRto()
{
    const LinuxTcpConfig& c = m_stack->GetConfig();
    m_rto = std::min(Jiffies((m_srtt8 >> 3) + m_rttvar), c.rtoMaxNs);
}

int64_t
LinuxTcpSender::Jiffies(int64_t ns) const
{
    const int64_t j = m_stack->GetConfig().jiffyNs;
    return j > 1 ? (ns + j - 1) / j * j : ns;
}

bool
LinuxTcpSender::ScheduleLossProbe(bool advancingRto, int64_t now)
{
    const LinuxTcpConfig& c = m_stack->GetConfig();
    if (!c.tlp || m_rtx.empty() ||
        (m_state != LinuxTcpCaState::OPEN && m_state != LinuxTcpCaState::CWR))
    {
        return false;
    }
    int64_t timeout;
    if (m_srtt8 != 0)
    {
        // 2 x SRTT, plus rto_min (a delayed ACK) when one packet is out, else 2 ms.
        timeout = (m_srtt8 >> 2) + (m_rtx.size() == 1 ? c.rtoMinNs : c.tlpMinNs);
        timeout = Jiffies(timeout);
    }
    else
    {
        timeout = c.rtoInitNs;
    }
    const int64_t rtoDelta = advancingRto ? m_rto : m_rtx.front().xmitNs + m_rto - now;
    if (rtoDelta > 0)
    {
        timeout = std::min(timeout, Jiffies(rtoDelta));
    }
    SetTimer(Timer::LOSS_PROBE, now + timeout);
    return true;
}

void
LinuxTcpSender::RearmRto(int64_t now)
{
    if (m_rtx.empty())
    {
        SetTimer(Timer::NONE, 0);
        return;
    }
    int64_t rto = m_rto;
    if (m_timer == Timer::REO || m_timer == Timer::LOSS_PROBE)
    {
        // Offset the time elapsed since the head was sent.
        const int64_t delta = m_rtx.front().xmitNs + m_rto - now;
        rto = Jiffies(std::max<int64_t>(delta, 1));
    }
    SetTimer(Timer::RETRANS, now + rto);
}

void
LinuxTcpSender::SetTimer(Timer kind, int64_t expiry)
{
    // One lazily moved event: re-armed only when the expiry moves earlier; a late expiry is
    // found when the event runs (RTO re-arms on every ACK would otherwise reschedule per ACK).
    m_timer = kind;
    m_timerExpiry = expiry;
    if (kind == Timer::NONE)
    {
        return;
    }
    if (m_eventAt < 0 || expiry < m_eventAt)
    {
        m_event.Cancel();
        const int64_t now = Simulator::Now().GetTimeStep();
        m_event = Simulator::Schedule(TimeStep(std::max<int64_t>(expiry - now, 0)),
                                      &LinuxTcpSender::TimerFired,
                                      this);
        m_eventAt = expiry;
    }
}

void
LinuxTcpSender::TimerFired()
{
    m_eventAt = -1;
    if (m_timer == Timer::NONE)
    {
        return;
    }
    const int64_t now = Simulator::Now().GetTimeStep();
    if (now < m_timerExpiry)
    {
        SetTimer(m_timer, m_timerExpiry);
        return;
    }
    m_cc.nowNs = now;
    switch (m_timer)
    {
    case Timer::RETRANS:
        RetransmitTimeout(now);
        break;
    case Timer::LOSS_PROBE:
        SendLossProbe(now);
        break;
    case Timer::REO: {
        // tcp_rack_reo_timeout
        const uint32_t prior = InFlight();
        int64_t reo = 0;
        uint32_t lost = 0;
        RackDetectLoss(now, reo, lost);
        if (prior != InFlight())
        {
            if (m_state != LinuxTcpCaState::RECOVERY)
            {
                EnterRecovery();
                CwndReduction(1, lost, false);
            }
        }
        RearmRto(now);
        break;
    }
    default:
        break;
    }
    if (CanSend())
    {
        m_stack->MakeReady(m_id);
    }
}

void
LinuxTcpSender::RetransmitTimeout(int64_t now)
{
    if (m_rtx.empty())
    {
        SetTimer(Timer::NONE, 0);
        return;
    }
    const LinuxTcpConfig& c = m_stack->GetConfig();
    ++m_stats.timeouts;
    m_stack->NotifyTimeout(m_id);
    m_tlpHighSeq = 0;
    // tcp_enter_loss
    if (m_state == LinuxTcpCaState::OPEN || m_state == LinuxTcpCaState::DISORDER ||
        m_highSeq <= m_sndUna)
    {
        m_cc.ssthresh = m_ccOps->SsThresh(m_cc);
        m_ccOps->OnLoss(m_cc);
    }
    // tcp_timeout_mark_lost: everything not SACKed, except (RACK) recently sent segments.
    for (size_t i = 0; i < m_rtx.size(); ++i)
    {
        Seg& s = m_rtx[i];
        if (i > 0 && c.rack && m_rackRtt > 0 && m_rackRtt - (now - s.xmitNs) > 0)
        {
            continue;
        }
        MarkLost(s);
    }
    m_lostHint = 0;
    m_cc.cwnd = InFlight() + 1;
    m_cc.cwndCnt = 0;
    m_state = LinuxTcpCaState::LOSS;
    m_highSeq = m_sndNxt;
    ++m_backoff;
    m_rto = std::min(m_rto * 2, c.rtoMaxNs);
    SetTimer(Timer::RETRANS, now + m_rto);
}

void
LinuxTcpSender::SendLossProbe(int64_t now)
{
    // tcp_send_loss_probe: at most one probe outstanding.
    if (m_tlpHighSeq != 0 || m_rtx.empty())
    {
        RearmRto(now);
        return;
    }
    if (m_written > m_sndNxt && m_sndNxt < m_sndUna + m_sndWnd)
    {
        m_tlpProbeIdx = -1;
    }
    else
    {
        m_tlpProbeIdx = static_cast<int64_t>(m_rtx.size()) - 1;
    }
    m_tlpForce = true;
    ++m_stats.tlpProbes;
    m_stack->NotifyLossProbe(m_id);
    m_timer = Timer::NONE; // icsk_pending = 0: the RTO restarts from now
    RearmRto(now);
}

} // namespace ns3

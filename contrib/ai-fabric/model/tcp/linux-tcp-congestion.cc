// SPDX-License-Identifier: GPL-2.0-only
#include "linux-tcp-congestion.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(LinuxTcpCongestionOps);
NS_OBJECT_ENSURE_REGISTERED(LinuxTcpCubic);
NS_OBJECT_ENSURE_REGISTERED(LinuxTcpDctcp);

namespace
{
constexpr int64_t JIFFY_NS = 1000000; // HZ = 1000
} // namespace

// ------------------------------------------------------------------ Reno (the base class)

TypeId
LinuxTcpCongestionOps::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LinuxTcpCongestionOps")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<LinuxTcpCongestionOps>();
    return tid;
}

LinuxTcpCongestionOps::~LinuxTcpCongestionOps() = default;

std::string
LinuxTcpCongestionOps::GetName() const
{
    return "reno";
}

bool
LinuxTcpCongestionOps::NeedsEcn() const
{
    return false;
}

void
LinuxTcpCongestionOps::Init(LinuxTcpCcState&)
{
}

uint32_t
LinuxTcpCongestionOps::SsThresh(LinuxTcpCcState& s)
{
    return std::max(s.cwnd >> 1U, 2U);
}

uint32_t
LinuxTcpCongestionOps::SlowStart(LinuxTcpCcState& s, uint32_t acked)
{
    const uint32_t cwnd = std::min(s.cwnd + acked, s.ssthresh);
    acked -= cwnd - s.cwnd;
    s.cwnd = cwnd;
    return acked;
}

void
LinuxTcpCongestionOps::CongAvoidAi(LinuxTcpCcState& s, uint32_t w, uint32_t acked)
{
    if (s.cwndCnt >= w)
    {
        s.cwndCnt = 0;
        ++s.cwnd;
    }
    s.cwndCnt += acked;
    if (s.cwndCnt >= w)
    {
        const uint32_t delta = s.cwndCnt / w;
        s.cwndCnt -= delta * w;
        s.cwnd += delta;
    }
}

void
LinuxTcpCongestionOps::CongAvoid(LinuxTcpCcState& s, uint32_t acked)
{
    if (s.InSlowStart())
    {
        acked = SlowStart(s, acked);
        if (acked == 0)
        {
            return;
        }
    }
    CongAvoidAi(s, s.cwnd, acked);
}

void
LinuxTcpCongestionOps::PktsAcked(LinuxTcpCcState&, uint32_t, int64_t)
{
}

void
LinuxTcpCongestionOps::InAckEvent(LinuxTcpCcState&, bool)
{
}

void
LinuxTcpCongestionOps::OnLoss(LinuxTcpCcState&)
{
}

void
LinuxTcpCongestionOps::OnEnterRecovery(LinuxTcpCcState&)
{
}

// ------------------------------------------------------------------ CUBIC

TypeId
LinuxTcpCubic::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LinuxTcpCubic")
                            .SetParent<LinuxTcpCongestionOps>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<LinuxTcpCubic>()
                            .AddAttribute("HyStart",
                                          "HyStart slow-start exit (tcp_cubic.c hystart=1).",
                                          BooleanValue(true),
                                          MakeBooleanAccessor(&LinuxTcpCubic::m_hystart),
                                          MakeBooleanChecker())
                            .AddAttribute("Beta",
                                          "Multiplicative decrease (beta 717 / 1024).",
                                          DoubleValue(717.0 / 1024.0),
                                          MakeDoubleAccessor(&LinuxTcpCubic::m_beta),
                                          MakeDoubleChecker<double>(0.1, 0.95))
                            .AddAttribute("C",
                                          "Cubic scaling in segments / s^3 (bic_scale 41: "
                                          "41 x 10 / 1024).",
                                          DoubleValue(410.0 / 1024.0),
                                          MakeDoubleAccessor(&LinuxTcpCubic::m_c),
                                          MakeDoubleChecker<double>(0.001, 100));
    return tid;
}

std::string
LinuxTcpCubic::GetName() const
{
    return "cubic";
}

void
LinuxTcpCubic::Reset()
{
    m_cnt = 0;
    m_lastMaxCwnd = 0;
    m_lastCwnd = 0;
    m_lastTime = 0;
    m_originPoint = 0;
    m_k = 0;
    m_delayMin = 0;
    m_epochStart = 0;
    m_epoch = false;
    m_ackCnt = 0;
    m_tcpCwnd = 0;
    m_found = false;
}

void
LinuxTcpCubic::HystartReset(const LinuxTcpCcState& s)
{
    m_roundStart = s.nowNs;
    m_lastAck = s.nowNs;
    m_endSeq = s.sndNxt;
    m_currRtt = INT64_MAX;
    m_sampleCnt = 0;
}

void
LinuxTcpCubic::Init(LinuxTcpCcState& s)
{
    Reset();
    if (m_hystart)
    {
        HystartReset(s);
    }
}

uint32_t
LinuxTcpCubic::SsThresh(LinuxTcpCcState& s)
{
    m_epoch = false; // bictcp_recalc_ssthresh: epoch_start = 0
    if (s.cwnd < m_lastMaxCwnd)
    {
        // fast convergence
        m_lastMaxCwnd = static_cast<uint32_t>(double(s.cwnd) * (1.0 + m_beta) / 2.0);
    }
    else
    {
        m_lastMaxCwnd = s.cwnd;
    }
    return std::max(static_cast<uint32_t>(double(s.cwnd) * m_beta), 2U);
}

void
LinuxTcpCubic::OnLoss(LinuxTcpCcState& s)
{
    // bictcp_state(TCP_CA_Loss): the whole state is reset.
    Reset();
    HystartReset(s);
}

void
LinuxTcpCubic::Update(const LinuxTcpCcState& s, uint32_t acked)
{
    const uint32_t cwnd = s.cwnd;
    const int64_t jiffies = s.nowNs / JIFFY_NS;
    m_ackCnt += acked;
    if (m_lastCwnd == cwnd && jiffies - m_lastTime <= 1000 / 32)
    {
        return;
    }
    if (!(m_epoch && jiffies == m_lastTime))
    {
        m_lastCwnd = cwnd;
        m_lastTime = jiffies;
        if (!m_epoch)
        {
            m_epoch = true;
            m_epochStart = jiffies;
            m_ackCnt = acked;
            m_tcpCwnd = cwnd;
            if (m_lastMaxCwnd <= cwnd)
            {
                m_k = 0;
                m_originPoint = cwnd;
            }
            else
            {
                m_k = std::cbrt(double(m_lastMaxCwnd - cwnd) / m_c);
                m_originPoint = m_lastMaxCwnd;
            }
        }
        // The target one minimum RTT ahead, in jiffies (usecs_to_jiffies rounds up).
        const int64_t delayJ = (m_delayMin + JIFFY_NS - 1) / JIFFY_NS;
        const double t = double(jiffies - m_epochStart + delayJ) / 1000.0;
        const double offs = std::fabs(t - m_k);
        const double delta = std::floor(m_c * offs * offs * offs);
        const double target = t < m_k ? m_originPoint - delta : m_originPoint + delta;
        if (target > cwnd)
        {
            m_cnt = static_cast<uint32_t>(double(cwnd) / (target - cwnd));
        }
        else
        {
            m_cnt = 100 * cwnd;
        }
        if (m_lastMaxCwnd == 0 && m_cnt > 20)
        {
            m_cnt = 20;
        }
    }
    // TCP friendliness: beta_scale = 8 (1024 + beta) / 3 / (1024 - beta)
    const uint32_t betaScale = static_cast<uint32_t>(8.0 * (1.0 + m_beta) / 3.0 / (1.0 - m_beta));
    const uint32_t delta = (cwnd * betaScale) >> 3;
    while (delta > 0 && m_ackCnt > delta)
    {
        m_ackCnt -= delta;
        ++m_tcpCwnd;
    }
    if (m_tcpCwnd > cwnd)
    {
        const uint32_t maxCnt = cwnd / (m_tcpCwnd - cwnd);
        m_cnt = std::min(m_cnt, maxCnt);
    }
    m_cnt = std::max(m_cnt, 2U);
}

void
LinuxTcpCubic::CongAvoid(LinuxTcpCcState& s, uint32_t acked)
{
    if (s.InSlowStart())
    {
        acked = SlowStart(s, acked);
        if (acked == 0)
        {
            return;
        }
    }
    Update(s, acked);
    CongAvoidAi(s, m_cnt, acked);
}

void
LinuxTcpCubic::PktsAcked(LinuxTcpCcState& s, uint32_t, int64_t rttNs)
{
    if (rttNs < 0)
    {
        return;
    }
    // Discard delay samples right after a reduction (within HZ of the epoch's start).
    if (m_epoch && s.nowNs / JIFFY_NS - m_epochStart < 1000)
    {
        return;
    }
    const int64_t delay = std::max<int64_t>(rttNs, 1);
    if (m_delayMin == 0 || m_delayMin > delay)
    {
        m_delayMin = delay;
    }
    if (!m_hystart || m_found || !s.InSlowStart() || s.cwnd < 16)
    {
        return;
    }
    // hystart_update
    if (s.sndUna > m_endSeq)
    {
        HystartReset(s);
    }
    // ACK train: hystart_ack_delta_us 2 ms; the threshold is (delay_min + hystart_ack_delay)
    // / 2 without fq pacing; hystart_ack_delay = min(1 ms, 4 x GSO max size / pacing rate), the
    // pacing rate 2 x cwnd x mss / srtt in slow start (tcp_pacing_ss_ratio 200).
    if (s.nowNs - m_lastAck <= 2 * JIFFY_NS)
    {
        m_lastAck = s.nowNs;
        int64_t ackDelay = 0;
        if (s.srttNs > 0)
        {
            const double rateBps = 2.0 * s.cwnd * s.mss / (double(s.srttNs) * 1e-9);
            ackDelay = std::min<int64_t>(JIFFY_NS, int64_t(4.0 * 65536 / rateBps * 1e9));
        }
        const int64_t threshold = (m_delayMin + ackDelay) >> 1;
        if (s.nowNs - m_roundStart > threshold)
        {
            m_found = true;
            s.ssthresh = s.cwnd;
        }
    }
    // Delay increase: 8 samples, threshold clamp(delay_min / 8, 4 ms, 16 ms).
    m_currRtt = std::min(m_currRtt, delay);
    if (m_sampleCnt < 8)
    {
        ++m_sampleCnt;
    }
    else
    {
        const int64_t thresh = std::clamp<int64_t>(m_delayMin >> 3, 4 * JIFFY_NS, 16 * JIFFY_NS);
        if (m_currRtt > m_delayMin + thresh)
        {
            m_found = true;
            s.ssthresh = s.cwnd;
        }
    }
}

// ------------------------------------------------------------------ DCTCP

TypeId
LinuxTcpDctcp::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LinuxTcpDctcp")
                            .SetParent<LinuxTcpCongestionOps>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<LinuxTcpDctcp>()
                            .AddAttribute("ShiftG",
                                          "g = 1 / 2^ShiftG (dctcp_shift_g 4).",
                                          UintegerValue(4),
                                          MakeUintegerAccessor(&LinuxTcpDctcp::m_shiftG),
                                          MakeUintegerChecker<uint32_t>(0, 10))
                            .AddAttribute("AlphaOnInit",
                                          "Initial alpha x 1024 (dctcp_alpha_on_init 1024).",
                                          UintegerValue(1024),
                                          MakeUintegerAccessor(&LinuxTcpDctcp::m_alpha),
                                          MakeUintegerChecker<uint32_t>(0, 1024));
    return tid;
}

std::string
LinuxTcpDctcp::GetName() const
{
    return "dctcp";
}

bool
LinuxTcpDctcp::NeedsEcn() const
{
    return true;
}

void
LinuxTcpDctcp::Init(LinuxTcpCcState& s)
{
    m_nextSeq = s.sndNxt;
    m_oldDelivered = s.delivered;
    m_oldDeliveredCe = s.deliveredCe;
}

uint32_t
LinuxTcpDctcp::SsThresh(LinuxTcpCcState& s)
{
    return std::max(s.cwnd - ((s.cwnd * m_alpha) >> 11U), 2U);
}

void
LinuxTcpDctcp::InAckEvent(LinuxTcpCcState& s, bool)
{
    if (s.sndUna < m_nextSeq)
    {
        return;
    }
    const uint64_t delivered = s.delivered - m_oldDelivered;
    uint64_t deliveredCe = s.deliveredCe - m_oldDeliveredCe;
    uint32_t alpha = m_alpha;
    const uint32_t dec = alpha >> m_shiftG;
    alpha -= dec != 0 ? dec : alpha; // min_not_zero(alpha, alpha >> g)
    if (deliveredCe != 0)
    {
        deliveredCe <<= (10 - m_shiftG);
        deliveredCe /= std::max<uint64_t>(1, delivered);
        alpha = static_cast<uint32_t>(std::min<uint64_t>(alpha + deliveredCe, 1024));
    }
    m_alpha = alpha;
    Init(s);
}

void
LinuxTcpDctcp::OnLoss(LinuxTcpCcState& s)
{
    // dctcp_react_to_loss
    s.ssthresh = std::max(s.cwnd >> 1U, 2U);
}

void
LinuxTcpDctcp::OnEnterRecovery(LinuxTcpCcState& s)
{
    OnLoss(s); // dctcp_state(TCP_CA_Recovery): dctcp_react_to_loss
}

double
LinuxTcpDctcp::GetAlpha() const
{
    return m_alpha / 1024.0;
}

} // namespace ns3

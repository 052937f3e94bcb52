// SPDX-License-Identifier: GPL-2.0-only
#ifndef LINUX_TCP_CONGESTION_H
#define LINUX_TCP_CONGESTION_H

#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/// What a congestion-control module sees of its connection (Linux's tcp_sock fields).
struct LinuxTcpCcState
{
    uint32_t cwnd{10};             //!< snd_cwnd, segments (TCP_INIT_CWND)
    uint32_t cwndCnt{0};           //!< snd_cwnd_cnt: ACKed segments towards the next +1
    uint32_t ssthresh{0x7fffffff}; //!< snd_ssthresh (TCP_INFINITE_SSTHRESH)
    uint32_t mss{1448};            //!< bytes per segment
    int64_t srttNs{0};             //!< smoothed RTT (0: no sample yet)
    uint64_t delivered{0};         //!< segments delivered (tp->delivered)
    uint64_t deliveredCe{0};       //!< of which acknowledged with ECE (tp->delivered_ce)
    uint64_t sndUna{0};            //!< snd_una, bytes
    uint64_t sndNxt{0};            //!< snd_nxt, bytes
    int64_t nowNs{0};              //!< the time of the call

    bool InSlowStart() const
    {
        return cwnd < ssthresh;
    }
};

/**
 * \ingroup ai-fabric
 * A congestion-control module of the Linux TCP model, with the hooks of Linux's
 * struct tcp_congestion_ops (include/net/tcp.h) the model calls: ssthresh on a loss or ECN
 * reduction, cong_avoid on ACKs while the connection is cwnd-limited, pkts_acked with each RTT
 * sample, in_ack_event per ACK, and the CA_EVENT_LOSS event of a retransmission timeout. This
 * base class is Reno (tcp_reno_ssthresh, tcp_reno_cong_avoid in net/ipv4/tcp_cong.c).
 */
class LinuxTcpCongestionOps : public Object
{
  public:
    static TypeId GetTypeId();
    ~LinuxTcpCongestionOps() override;

    virtual std::string GetName() const;
    /// Whether data goes out ECN-capable (DCTCP: ECT(0), and the receiver echoes CE exactly).
    virtual bool NeedsEcn() const;
    virtual void Init(LinuxTcpCcState& s);
    /// The slow-start threshold after a loss or an ECN reduction (ca_ops->ssthresh).
    virtual uint32_t SsThresh(LinuxTcpCcState& s);
    /// Grow the window for `acked` newly delivered segments (ca_ops->cong_avoid).
    virtual void CongAvoid(LinuxTcpCcState& s, uint32_t acked);
    /// An RTT sample of `rttNs` for `acked` segments (ca_ops->pkts_acked).
    virtual void PktsAcked(LinuxTcpCcState& s, uint32_t acked, int64_t rttNs);
    /// Every ACK (ca_ops->in_ack_event); `ece`: the ACK echoed congestion.
    virtual void InAckEvent(LinuxTcpCcState& s, bool ece);
    /// A retransmission timeout (CA_EVENT_LOSS).
    virtual void OnLoss(LinuxTcpCcState& s);
    /// Entering fast recovery (ca_ops->set_state(TCP_CA_Recovery)).
    virtual void OnEnterRecovery(LinuxTcpCcState& s);

  protected:
    /// tcp_slow_start: grow to at most ssthresh; \return the ACKed segments left over
    static uint32_t SlowStart(LinuxTcpCcState& s, uint32_t acked);
    /// tcp_cong_avoid_ai: +1 segment per `w` ACKed segments
    static void CongAvoidAi(LinuxTcpCcState& s, uint32_t w, uint32_t acked);
};

/**
 * \ingroup ai-fabric
 * CUBIC as net/ipv4/tcp_cubic.c runs it (Linux's default): beta 717/1024, C = 41 x 10 / 1024
 * (bic_scale 41), fast convergence, TCP friendliness, the cubic target one minimum RTT ahead,
 * and HyStart (ACK-train and delay detection; low window 16, ACK delta 2 ms, 8 samples, delay
 * threshold clamp(min RTT / 8, 4 ms, 16 ms); the train threshold is half of the minimum RTT plus
 * hystart_ack_delay, as without the fq qdisc's pacing). Arithmetic in doubles, not Linux's
 * fixed point: the window moves by the same whole segments within rounding.
 */
class LinuxTcpCubic : public LinuxTcpCongestionOps
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    void Init(LinuxTcpCcState& s) override;
    uint32_t SsThresh(LinuxTcpCcState& s) override;
    void CongAvoid(LinuxTcpCcState& s, uint32_t acked) override;
    void PktsAcked(LinuxTcpCcState& s, uint32_t acked, int64_t rttNs) override;
    void OnLoss(LinuxTcpCcState& s) override;

  private:
    void Reset();
    void HystartReset(const LinuxTcpCcState& s);
    void Update(const LinuxTcpCcState& s, uint32_t acked);

    bool m_hystart{true};
    double m_beta{717.0 / 1024.0};
    double m_c{410.0 / 1024.0};
    // bictcp state
    uint32_t m_cnt{0};
    uint32_t m_lastMaxCwnd{0};
    uint32_t m_lastCwnd{0};
    int64_t m_lastTime{0};
    double m_originPoint{0};
    double m_k{0};
    int64_t m_delayMin{0}; //!< ns
    int64_t m_epochStart{0};
    bool m_epoch{false};
    uint32_t m_ackCnt{0};
    uint32_t m_tcpCwnd{0};
    // HyStart
    bool m_found{false};
    int64_t m_roundStart{0};
    int64_t m_lastAck{0};
    uint64_t m_endSeq{0};
    int64_t m_currRtt{0};
    uint32_t m_sampleCnt{0};
};

/**
 * \ingroup ai-fabric
 * DCTCP as net/ipv4/tcp_dctcp.c runs it: alpha starts at 1 (dctcp_alpha_on_init 1024), is
 * updated once per window of data from the fraction of delivered segments acknowledged with ECE
 * (g = 1/16, dctcp_shift_g 4), the window is cut to cwnd x (1 - alpha / 2) at most once per
 * window (the TCP core's CWR state), Reno growth otherwise; a loss halves like Reno's.
 */
class LinuxTcpDctcp : public LinuxTcpCongestionOps
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    bool NeedsEcn() const override;
    void Init(LinuxTcpCcState& s) override;
    uint32_t SsThresh(LinuxTcpCcState& s) override;
    void InAckEvent(LinuxTcpCcState& s, bool ece) override;
    void OnLoss(LinuxTcpCcState& s) override;
    void OnEnterRecovery(LinuxTcpCcState& s) override;
    /// alpha in [0, 1]
    double GetAlpha() const;

  private:
    uint32_t m_alpha{1024}; //!< DCTCP_MAX_ALPHA = 1024
    uint32_t m_shiftG{4};
    uint64_t m_nextSeq{0};
    uint64_t m_oldDelivered{0};
    uint64_t m_oldDeliveredCe{0};
};

} // namespace ns3

#endif // LINUX_TCP_CONGESTION_H

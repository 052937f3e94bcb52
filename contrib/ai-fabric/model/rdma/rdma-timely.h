// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_TIMELY_H
#define RDMA_TIMELY_H

#include "rdma-congestion-ops.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/traced-value.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the Datacenter",
 * SIGCOMM'15, Algorithm 1), one instance per queue pair: a rate from RTT samples, no window.
 *
 * At each update, with the RTT sample r of the ACK that triggered it:
 * new_diff = r − prev_rtt, prev_rtt = r, rtt_diff = (1 − α)·rtt_diff + α·new_diff,
 * g = rtt_diff / MinRtt; then
 * - r < TLow: rate += δ;
 * - r > THigh: rate ·= 1 − β·(1 − THigh / r);
 * - g ≤ 0: rate += N·δ, N = HaiMultiplier once the previous HaiThreshold updates were all
 *   increases (hyperactive increase), else 1;
 * - g > 0: rate ·= max(0, 1 − β·g);
 * the rate clamped to [MinRate, line rate]. The first update only records prev_rtt.
 *
 * α weights the newest difference, as both the paper's formula and the HPCC simulator's
 * UpdateRateTimely do (rttDiff = (1 − α)·old + α·new with α = 0.875).
 *
 * When it updates. The paper updates per completion event — one RTT sample per 16–64 KB
 * segment, about one round trip at the 10 Gb/s it was built for. The HPCC simulator acks every
 * packet but updates once per round trip: on the first ACK past the PSN that was next to send at
 * the previous update; samples in between are not used. Per ACK at 400 Gb/s the multiplicative
 * rules would apply dozens of times per round trip to a gradient that only changes a round trip
 * later. Default: once per round trip (SegmentBytes 0, the HPCC simulator); SegmentBytes > 0
 * updates once per that many newly acknowledged payload bytes (the paper's segments). Either
 * way updates come with ACKs: a queue pair at 100 Mb/s sends a 4 KB packet every 335 µs and
 * so recovers by δ per 335 µs, however short the path.
 *
 * NAKs and duplicate ACKs (nothing newly acknowledged) are ignored: TIMELY's sample is the
 * completion time of new data, and after a go-back-N rewind every duplicate would otherwise feed
 * the EWMA an extra sample of the same queue.
 *
 * Defaults (the HPCC simulator's TIMELY, equal to the paper's, facts.md §3): TLow 50 µs, THigh
 * 500 µs, MinRtt 20 µs, β 0.8, α 0.875, δ = 10 Mb/s × line rate / 10 Gb/s (its run.py;
 * HAI 5δ), MinRate 100 Mb/s (its attribute; run.py overrides it to 1 Gb/s). Those thresholds
 * were chosen for 10 Gb/s and tens of µs of RTT: below TLow the rate only grows, so on a
 * microsecond fabric TIMELY keeps a standing queue of about TLow.
 *
 * Left out: the paper's per-segment RTT correction for the segment's serialization time (our
 * samples are per packet and exact), and its use of hardware completion timestamps (ours are
 * simulated send and ACK times, including NIC latencies).
 */
class RdmaTimely : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId();
    RdmaTimely();
    ~RdmaTimely() override;

    std::string GetName() const override;
    void Init(Ptr<RdmaQueuePair> qp) override;
    void AckReceived(Ptr<RdmaQueuePair> qp, const RdmaAck& ack) override;

    /// \return the current rate in bit/s (unrounded)
    double GetRateBps() const;
    /// \return the EWMA of RTT differences rtt_diff (s)
    double GetRttDiff() const;
    /// \return the additive step δ in force (bit/s)
    double GetAddStepBps() const;
    /// \return consecutive increases so far (the HAI counter)
    uint32_t GetIncreaseStreak() const;

  private:
    /// One TIMELY update with RTT sample `rtt`.
    void Update(Ptr<RdmaQueuePair> qp, Time rtt);

    // configuration
    Time m_tLow;
    Time m_tHigh;
    Time m_minRtt;
    double m_beta{0.8};
    double m_alpha{0.875};
    DataRate m_addStepAttr{0};
    uint32_t m_haiThreshold{5};
    uint32_t m_haiMultiplier{5};
    DataRate m_minRate{DataRate("100Mbps")};
    uint64_t m_segmentBytes{0};

    // state
    double m_lineBps{0};
    double m_delta{0};
    TracedValue<double> m_rateBps{0};
    TracedValue<double> m_rttDiff{0};
    double m_prevRtt{0};
    bool m_havePrev{false};
    uint32_t m_incStreak{0};
    uint32_t m_lastUpdatePsn{0};
    uint64_t m_bytesSinceUpdate{0};
};

} // namespace ns3

#endif // RDMA_TIMELY_H

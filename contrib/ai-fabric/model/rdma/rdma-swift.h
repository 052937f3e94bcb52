// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_SWIFT_H
#define RDMA_SWIFT_H

#include "rdma-congestion-ops.h"

#include "ns3/nstime.h"
#include "ns3/traced-callback.h"
#include "ns3/traced-value.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Swift (Kumar et al., "Swift: Delay is Simple and Effective for Congestion Control in the
 * Datacenter", SIGCOMM'20, Algorithm 1 and §3.5), one instance per queue pair: a congestion
 * window cwnd (packets, fractional) held against a target delay.
 *
 * Target delay t = BaseTarget + hops × PerHopTarget + fs, with the flow-scaling term
 * fs = clamp(a/√cwnd + b, 0, FsRange), a = FsRange / (1/√FsMinCwnd − 1/√FsMaxCwnd),
 * b = −a/√FsMaxCwnd: a flow with a small window may queue more (up to FsRange at FsMinCwnd,
 * nothing from FsMaxCwnd on), which lets large incasts converge to fair shares. hops: the echoed
 * telemetry's hop count if the ACK carries telemetry, else the switches the ACK crossed
 * (RdmaAck::hops, from its TTL); the Hops attribute fixes it instead.
 *
 * On each ACK with RTT sample d (the delay): if d < t, additive increase cwnd += Ai/cwnd per
 * newly acknowledged packet when cwnd ≥ 1, cwnd += Ai per packet below one packet; otherwise,
 * at most once per round trip (d since the last decrease), multiplicative decrease
 * cwnd ·= max(1 − Beta·(d − t)/d, 1 − MaxMdf). A NAK is Swift's fast recovery (loss detected):
 * cwnd ·= 1 − MaxMdf at most once per round trip. A retransmission timeout: cwnd ·= 1 − MaxMdf
 * (at most once per round trip), or cwnd = MinCwnd once RetxResetThreshold timeouts came in a
 * row without an ACK in between. ACKs that acknowledge nothing new (duplicates after a rewind)
 * change nothing. cwnd is clamped to [MinCwnd, MaxCwnd].
 *
 * On the queue pair: window = cwnd × PathMtu payload bytes (the NIC sends while fewer bytes are
 * in flight, so a fractional window rounds up to whole packets). Below one packet the window
 * is one byte (one packet in flight, which the NIC always allows) and the window is enforced by
 * pacing: rate = cwnd × (wire bytes of a full packet) / d, i.e. one packet per d / cwnd; at and
 * above one packet the rate is the line rate (the window alone limits). When cwnd grows back to
 * a packet the pacing gap left by the slow rate is dropped (RdmaQueuePair::RestartPacing), as
 * the paper's pacer is cancelled in window mode.
 *
 * Delay. Our RTT sample (now minus the echoed send time) contains the fabric and the endpoint
 * delays: the NICs' fixed receive latencies and, if the responder coalesces ACKs, the wait for
 * the ACK. We run one combined target: BaseTarget includes the NICs' fixed latencies, and the
 * runner acknowledges every packet (AckInterval 0) so that no coalescing wait enters the
 * samples. The paper's separate endpoint window (ecwnd against a host-delay target) is left out:
 * GPUDirect RDMA here has no receive-side host queue that could build up.
 *
 * Defaults. The paper gives the algorithm and the form of a, b but, as far as we could check, no
 * production values; Ai 1 packet, Beta 0.8, MaxMdf 0.5, FsMinCwnd 0.1, FsMaxCwnd 100 packets and
 * RetxResetThreshold 5 are those of htsim's Swift (UEC/Broadcom csg-htsim, itself marked as
 * estimates). Our choice, for 100–400 Gb/s fabrics with this model's default latencies:
 * - MinCwnd 0.001 packets: one packet per 1,000 RTTs, room for incasts of thousands of flows;
 * - PerHopTarget 1.5 µs: what one switch adds to the unloaded RTT, 2 × (500 ns port to port +
 *   50 m of fabric cable at 5 ns/m);
 * - BaseTarget 2 µs: the unloaded RTT without switches (2 × 300 ns NIC receive latency, one
 *   packet's serialization: 0.7 µs at 400G, 0.95 µs at 100G) plus ~1 µs of queue, 12 packets
 *   at 400G (3 at 100G), so that a few flows keep a bottleneck busy through a decrease. A
 *   one-switch path (1.73 µs unloaded on 3 m cables) gets 3.5 µs + fs;
 * - FsRange 5 µs (htsim: 5 × its base target): a flow at FsMinCwnd may queue 5 µs more, 250 KB
 *   at 400G, well below the ~1.2 MB at which PFC held two senders' queue in our tests.
 * MaxCwnd 0 = the line-rate window at the current target (line rate × t / PathMtu), InitialCwnd
 * 0 = that window at BaseTarget + Hops × PerHopTarget (start at line rate, as RDMA NICs do).
 */
class RdmaSwift : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId();
    RdmaSwift();
    ~RdmaSwift() override;

    std::string GetName() const override;
    void Init(Ptr<RdmaQueuePair> qp) override;
    void AckReceived(Ptr<RdmaQueuePair> qp, const RdmaAck& ack) override;
    void Timeout(Ptr<RdmaQueuePair> qp) override;

    /// \return the congestion window (packets)
    double GetCwnd() const;
    /// \return the target delay of the last ACK (0 before the first)
    Time GetTargetDelay() const;
    /// \return the target delay for a window of `cwnd` packets on a path of `hops` switches
    Time ComputeTargetDelay(double cwnd, uint32_t hops) const;
    /// \return the last RTT sample (0 before the first)
    Time GetLastDelay() const;

    /**
     * Signature of the Delay trace: an ACK's RTT sample and the target delay it was held
     * against.
     */
    typedef void (*DelayTracedCallback)(Time delay, Time target);

  private:
    /// Clamp the new `cwnd`, note a decrease from `prevCwnd`, set the queue pair's window and rate.
    void Apply(Ptr<RdmaQueuePair> qp, double prevCwnd, double cwnd);
    /// Multiplicative decreases happen at most once per round trip.
    bool CanDecrease() const;
    /// MaxCwnd in force for target `t` (packets).
    double MaxCwnd(Time t) const;

    // configuration
    Time m_baseTarget;
    Time m_perHop;
    uint32_t m_hopsAttr{0};
    Time m_fsRange;
    double m_fsMinCwnd{0.1};
    double m_fsMaxCwnd{100};
    double m_ai{1.0};
    double m_beta{0.8};
    double m_maxMdf{0.5};
    double m_minCwnd{0.001};
    double m_maxCwndAttr{0};
    double m_initialCwnd{0};
    uint32_t m_retxResetThreshold{5};

    // state
    double m_lineBps{0};
    uint32_t m_mtu{4096};
    uint32_t m_pktWireBytes{0};
    double m_fsA{0};
    double m_fsB{0};
    TracedValue<double> m_cwnd{0};
    Time m_target;
    Time m_lastDelay;
    int64_t m_lastDecreaseStep{INT64_MIN / 2};
    uint32_t m_retransmitCount{0};
    bool m_paced{false};
    TracedCallback<Time, Time> m_delayTrace;
};

} // namespace ns3

#endif // RDMA_SWIFT_H

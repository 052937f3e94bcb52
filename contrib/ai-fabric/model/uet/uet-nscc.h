// SPDX-License-Identifier: GPL-2.0-only
#ifndef UET_NSCC_H
#define UET_NSCC_H

#include "uet-congestion-ops.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * NSCC, UEC 1.0's network-signal-based sender congestion control: a window driven by the
 * queueing delay d = RTT - base RTT against a target and by ECN echoes, per ACK:
 * - no ECN, d >= target: fair increase (pending += FairIncrease x acked bytes);
 * - no ECN, d < target: proportional increase (pending += alpha x acked x (target - d)), or
 *   fast increase (cwnd += FastIncreaseScale x a x acked at once) after a window's worth of ACKs
 *   with d below FastIncreaseDelay;
 * - ECN, d >= target: multiplicative decrease, cwnd x max(1 - Gamma (D - target) / D, 0.5) with
 *   D the delay average, at most once per base RTT;
 * - ECN, d < target: no change (the load balancer moves the path).
 * Pending increases are applied (cwnd += pending / cwnd, "fulfil") every AdjustMtus MTU of ACKed
 * bytes or once per network RTT; each network RTT also adds Eta x a bytes. Quick adapt: once per
 * base RTT + target, after a NACK (trim), a loss or d > QuickAdaptFactor x target, if fewer than
 * maxCwnd >> QuickAdaptGate bytes were delivered in that period, cwnd = bytes delivered (then the
 * bytes in flight at that moment are ignored for ECN reactions). A NACK otherwise takes its bytes
 * off the window, except a last-hop trim when receiver credit paces the last hop (s.useCredit,
 * NSCC + RCCC, UetRccc).
 *
 * Constants scale with the BDP: a = BDP / BDP_ref with BDP = line rate x network RTT and
 * BDP_ref = ReferenceRate x ReferenceRtt (100 Gb/s x 12 us); b = target / ReferenceRtt;
 * alpha = ProportionalGain x MSS x a x b / target; fair increase FairIncrease x MSS x a;
 * Eta x MSS x a; the target is TargetDelayTrimming (0.75) x network RTT with trimming,
 * TargetDelayLossy (1.0) without. The window starts at and is capped by MaxWindowBdps x BDP
 * (1.5), floored at one MSS. Values: UEC's reference simulator (ultraethernet/uet-htsim,
 * sim/uec.cpp initNsccParams) and the specification overview (arXiv 2508.08906).
 *
 * Departures: the delay average is a plain EWMA (weight DelayEwma); htsim replaces samples above
 * the target without ECN by a quarter of the base RTT. Receiver back-pressure (the ACK's
 * window penalty) is not modelled.
 */
class UetNscc : public UetCongestionOps
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    void Init(UetCcState& s) override;
    void AckReceived(UetCcState& s, const UetAckSample& ack) override;
    void NackReceived(UetCcState& s, uint32_t bytes, bool lastHop) override;
    void Timeout(UetCcState& s, uint64_t lostBytes) override;

    /// Derived constants (valid after Init), for tests and traces.
    Time GetTargetDelay() const;
    double GetScalingA() const;     //!< a = BDP / BDP_ref
    double GetAlpha() const;        //!< proportional gain, bytes per second of delay headroom
    double GetFairIncrease() const; //!< bytes (per acked byte, applied / cwnd)
    double GetEta() const;          //!< bytes added per network RTT
    double GetPendingIncrease() const;
    Time GetAverageDelay() const;

  private:
    bool QuickAdapt(UetCcState& s, bool loss, bool ecn, double delay);
    void UpdateAverage(double delay);
    void Fulfil(UetCcState& s);
    void Bound(UetCcState& s) const;

    // attributes
    DataRate m_refRate;
    Time m_refRtt;
    Time m_target;
    double m_targetTrimming{0.75};
    double m_targetLossy{1.0};
    double m_gamma{0.8};
    double m_fairMss{5};
    double m_etaMss{0.15};
    double m_propGain{4};
    double m_fastScale{0.25};
    Time m_fastDelay;
    double m_delayEwma{0.0125};
    uint32_t m_qaGate{3};
    double m_qaFactor{4};
    uint32_t m_adjustMtus{8};
    double m_maxBdps{1.5};

    // derived (Init)
    double m_a{1};
    double m_targetS{0};
    double m_alpha{0};
    double m_fi{0};
    double m_eta{0};
    double m_fastInc{0};
    double m_networkRttS{0};

    // per-PDC state
    double m_inc{0};
    uint64_t m_achieved{0};
    uint64_t m_received{0};
    uint64_t m_toIgnore{0};
    uint64_t m_ignored{0};
    int64_t m_qaEnd{0};
    int64_t m_lastDec{INT64_MIN / 2};
    int64_t m_lastAdjust{0};
    double m_avgDelay{0};
    uint64_t m_fiCount{0};
    bool m_increase{false};
    bool m_triggerQa{false};
};

} // namespace ns3

#endif // UET_NSCC_H

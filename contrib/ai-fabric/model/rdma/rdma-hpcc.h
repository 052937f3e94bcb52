// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_HPCC_H
#define RDMA_HPCC_H

#include "rdma-congestion-ops.h"

#include "ns3/data-rate.h"
#include "ns3/fabric-telemetry.h"
#include "ns3/nstime.h"
#include "ns3/traced-value.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM'19, Algorithm 1), one
 * instance per queue pair: a window and a rate from in-band telemetry.
 *
 * On every ACK carrying telemetry, for each hop i against the previous ACK's record of the same
 * hop: txRate = Δ txBytes / Δ t and u_i = min(qlen, qlen_prev) / (B_i · T) + txRate / B_i; the
 * most utilized hop gives u and τ = its Δ t; then U = (1 − τ/T) · U + (τ/T) · u with τ ≤ T.
 * The window: W = Wc / (U/η) + W_AI if U ≥ η or the queue pair already made MaxStage additive
 * increases in a row, else W = Wc + W_AI; the reference window Wc takes W (and the stage counts)
 * once per round trip — on the first ACK past the PSN that was next to send at the last
 * update — and every other ACK only sets W from Wc (the paper's fast reaction). The queue pair
 * gets window W and rate W / T, W clamped to [MinRate · T, line rate · T].
 *
 * T is the base RTT (BaseRtt; 0: the queue pair's, as its helper computed it from the path;
 * if that is 0 too, the smallest RTT sample seen). W_AI = RateAI · T. U starts at 1 and Wc at
 * line rate · T (the HPCC simulator). Defaults: η = 0.95, MaxStage 5 (the HPCC simulator's
 * attribute defaults), RateAI 10 Mb/s × line rate / 25 Gb/s (its run.py), MinRate 100 Mb/s.
 */
class RdmaHpcc : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId();
    RdmaHpcc();
    ~RdmaHpcc() override;

    std::string GetName() const override;
    void Init(Ptr<RdmaQueuePair> qp) override;
    bool WantsTelemetry() const override;
    void AckReceived(Ptr<RdmaQueuePair> qp, const RdmaAck& ack) override;

    /// \return the normalized inflight bytes U (1 at start)
    double GetUtilization() const;
    /// \return the reference window Wc (bytes)
    double GetReferenceWindow() const;
    /// \return the base RTT in use (0 until known)
    Time GetBaseRtt() const;

  private:
    /// U from this ACK's telemetry against the last one (false: nothing to compare yet).
    bool MeasureInflight(const FabricIntStack& st, double& u) const;
    void Apply(Ptr<RdmaQueuePair> qp, double w);
    /// W_AI = RateAI x T, recomputed when T changes.
    void UpdateAdditiveStep();

    // configuration
    double m_eta{0.95};
    uint32_t m_maxStage{5};
    DataRate m_rai{0};
    DataRate m_minRate{DataRate("100Mbps")};
    Time m_baseRttAttr;

    // state
    Time m_t;
    double m_lineBps{0};
    double m_wai{0};
    TracedValue<double> m_u{1.0};
    TracedValue<double> m_wc{0};
    uint32_t m_incStage{0};
    uint32_t m_lastUpdatePsn{0};
    bool m_haveLast{false};
    FabricIntStack m_last;
};

} // namespace ns3

#endif // RDMA_HPCC_H

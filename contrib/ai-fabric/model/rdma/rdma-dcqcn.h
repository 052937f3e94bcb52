// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_DCQCN_H
#define RDMA_DCQCN_H

#include "rdma-congestion-ops.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/fabric-timer.h"
#include "ns3/nstime.h"
#include "ns3/traced-value.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * DCQCN reaction point (Zhu et al., SIGCOMM'15), one instance per queue pair.
 *
 * On a CNP (at most once per RateReduceMonitorPeriod): target rate Rt = Rc, current rate
 * Rc = Rc·(1 − α/2) (never below MinRate, never cut by more than MaxRateDecrease), and the
 * increase stages restart. Every AlphaUpdatePeriod: α = (1 − g)·α + g if a CNP arrived during
 * the period, else α = (1 − g)·α. Rate increase: each RateIncreaseTimer expiry and each ByteCounter
 * bytes sent advance a stage counter (T, BC); then with F = FastRecoverySteps: fast recovery while
 * max(T, BC) < F (Rc = (Rt + Rc)/2), hyper increase when min(T, BC) > F (Rt += i·R_HAI), additive
 * increase otherwise (Rt += R_AI), each followed by Rc = (Rt + Rc)/2, all capped at line rate.
 *
 * Preset "paper" (SIGCOMM'15 / htsim): g = 1/256, α period 55 µs, increase timer 55 µs, byte
 * counter 10 MB, F = 5, R_AI 40 Mb/s, R_HAI 200 Mb/s at the paper's 40G (scaled with the line
 * rate), per-CNP decrease. Preset "nvidia" (ConnectX firmware defaults, mlxconfig / DOCA):
 * g ≈ 1/205 (DCE_TCP_G 1019), α period 1 µs, rate-decrease monitor 4 µs, increase timer
 * 300 µs, byte counter 32,767 B, F = 1, R_AI 5 Mb/s, R_HAI 50 Mb/s, min rate 1 Mb/s, at most 50%
 * cut per event, the target rate moved by a cut only after a timer increase. A parameter left
 * at 0 takes the preset's value.
 *
 * Timers run only while the queue pair has unacknowledged data and is below line rate or α has
 * not decayed, so uncongested and idle queue pairs cost no events; the rate state is kept
 * across idle periods and the timers resume with the next packet.
 */
class RdmaDcqcn : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId();
    RdmaDcqcn();
    ~RdmaDcqcn() override;

    std::string GetName() const override;
    void Init(Ptr<RdmaQueuePair> qp) override;
    void PacketSent(Ptr<RdmaQueuePair> qp, uint32_t wireBytes) override;
    void CnpReceived(Ptr<RdmaQueuePair> qp) override;
    void Stop() override;

    double GetAlpha() const;
    DataRate GetTargetRate() const;

    /// Params::byteCounter of a preset without byte-counter increases (no send reaches it).
    static constexpr uint64_t kNoByteCounter = UINT64_MAX;

    /// Effective parameters after applying the preset.
    struct Params
    {
        double g{0};
        Time alphaPeriod;
        Time reduceMonitor;
        Time increaseTimer;
        uint64_t byteCounter{0};
        uint32_t fastRecoverySteps{0};
        DataRate rai;
        DataRate rhai;
        DataRate minRate;
        double maxDecrease{1.0};
        double initialAlpha{1.0};
        /// On a cut, set the target rate to the current rate always (the DCQCN paper), or only
        /// if the increase timer moved the rate since the last cut (ConnectX's
        /// clamp_tgt_rate_after_time_inc, the HPCC simulator's CLAMP_TARGET_RATE 0: within one
        /// congestion episode the target remembers the rate before it).
        bool clampTargetAlways{true};
    };

    /**
     * \return the parameters in force (preset + explicit overrides) on a queue pair of
     * `lineRate` (the paper and production presets scale their increase steps with it; 0: as
     * at their reference rate, 40G and 25G)
     */
    Params GetParams(DataRate lineRate = DataRate(0)) const;

  private:
    /// The increase stage of a step: the smaller of the timer's and the byte counter's
    /// stages, or the timer's alone when there is no byte counter.
    uint32_t LowStage() const;
    void AlphaTimer();
    void IncreaseTimer();
    void Increase();
    void EnsureTimers();
    bool Idle() const;

    // configuration (0 = preset value)
    std::string m_preset{"paper"};
    double m_g{0};
    Time m_alphaPeriod;
    Time m_reduceMonitor;
    Time m_increaseTimer;
    uint64_t m_byteCounter{0};
    uint32_t m_fastRecoverySteps{0};
    DataRate m_rai{0};
    DataRate m_rhai{0};
    DataRate m_minRate{0};
    uint32_t m_clampTarget{0};
    double m_maxDecrease{0};
    double m_initialAlpha{0};

    Params m_p;
    Ptr<RdmaQueuePair> m_qp;
    TracedValue<double> m_alpha{1.0};
    TracedValue<uint64_t> m_targetBps{0};
    uint32_t m_timerStage{0};
    uint32_t m_byteStage{0};
    uint64_t m_bytesSinceStage{0};
    bool m_cnpSinceAlphaUpdate{false};
    int64_t m_lastDecreaseStep{INT64_MIN / 2};
    int64_t m_alphaStampStep{0};   //!< time of the last alpha update
    int64_t m_increaseDeadline{0}; //!< the increase timer fires at this step (lazy re-arm)
    FabricTimer m_alphaEvent;
    FabricTimer m_increaseEvent;
};

} // namespace ns3

#endif // RDMA_DCQCN_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef TRAINING_STEP_ACCOUNTING_H
#define TRAINING_STEP_ACCOUNTING_H

#include "loss-probe-counter.h"
#include "training-job.h"
#include "workload-graph.h"

#include "ns3/collective-transport.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace ns3
{

/// Where one rank's time went in one step (sums to the step time).
struct RankPhaseTimes
{
    Time compute;     //!< kernels running
    Time tpExposed;   //!< waiting for a tensor-parallel collective
    Time ppBubble;    //!< waiting for a pipeline activation or gradient
    Time dpExposed;   //!< waiting for gradient reduction or ZeRO's parameter gathers
    Time epExposed;   //!< waiting for an expert all-to-all
    Time fsdpExposed; //!< waiting for ZeRO-3 parameter gathers or gradient reduce-scatters
    Time barrier;     //!< done, waiting for the step's last rank
};

/// One operation of one rank in the running step (ParallelTrainingJob's per-operation state).
struct TrainingOpState
{
    uint32_t remaining{0};       //!< dependencies not yet done
    int64_t start{0};            //!< when it started (ticks)
    int64_t end{-1};             //!< when it finished (ticks), -1 while running
    uint32_t byRank{UINT32_MAX}; //!< the operation whose completion released it
    uint32_t byOp{UINT32_MAX};
};

/**
 * \ingroup ai-fabric
 * The accounting of a ParallelTrainingJob's steps, apart from running them: per step a
 * TrainingStepRecord, per rank its RankPhaseTimes (a compute-stream gap is charged to the phase
 * of the operation whose completion ended it), the bytes it handed to the transports and its
 * kernel time by phase; at the step's end the critical path and the blame (who everyone waited
 * on, and why), from the operations' states and the network transport's counters (tail loss
 * probes through its LossProbe trace source, when it has one).
 *
 * The job tells it what happened (BeginStep, Charge, AddBytes, AddKernelTime, SetComputeEnd,
 * EndStep); it schedules nothing, so accounting never changes what the simulation does.
 */
class TrainingStepAccounting
{
  public:
    TrainingStepAccounting() = default;
    TrainingStepAccounting(const TrainingStepAccounting&) = delete;
    TrainingStepAccounting& operator=(const TrainingStepAccounting&) = delete;

    /// The step's graph and the network transport whose counters the blame reads (may be null).
    void Setup(std::shared_ptr<const WorkloadGraph> graph, Ptr<CollectiveTransport> network);
    /// Let go of the graph and the transport (the job is disposed).
    void Dispose();

    /// Step k starts now: a new record, phases, bytes and kernel times at zero.
    void BeginStep(uint32_t k);
    /**
     * A gap of `gap` in rank r's compute stream, charged to the phase of operation `byOp` of
     * rank `byRank` (whose completion ended it): a collective's phase, the pipeline bubble for a
     * message, the barrier for anything else or for UINT32_MAX.
     */
    void Charge(uint32_t r, Time gap, uint32_t byRank, uint32_t byOp);

    /// Rank r handed `bytes` to the transports for an operation of `phase`.
    void AddBytes(uint32_t r, WorkloadOp::Phase phase, uint64_t bytes)
    {
        m_bytes.back()[r][phase] += bytes;
    }

    /// A kernel of rank r of `phase` ran for `ticks`.
    void AddKernelTime(uint32_t r, WorkloadOp::Phase phase, int64_t ticks)
    {
        m_kernel.back()[r][phase] += ticks;
    }

    /// Rank r's last kernel of the step ended at `t`.
    void SetComputeEnd(uint32_t r, Time t)
    {
        m_records.back().computeEnd[r] = t;
    }

    /**
     * The step ended now: rank r finished its last operation at rankEnd[r]; `state` is every
     * operation's state (its start, end and what released it) for the critical path.
     * \return the step's record, complete
     */
    const TrainingStepRecord& EndStep(const std::vector<Time>& rankEnd,
                                      const std::vector<std::vector<TrainingOpState>>& state);

    /**
     * Split across MPI ranks (ParallelTrainingJob::MergeSteps): `merge` makes each record's
     * network counters every MPI rank's, `sum` adds the bytes of every step, rank and phase
     * over the MPI ranks (each counted its own ranks'); then each ended step's cause is decided
     * again, unless its kernels decided it.
     */
    void Merge(const std::function<void(TrainingStepRecord&)>& merge,
               const std::function<void(std::vector<uint64_t>&)>& sum);

    const std::vector<TrainingStepRecord>& GetSteps() const;
    const RankPhaseTimes& GetPhaseTimes(uint32_t step, uint32_t rank) const;
    uint64_t GetBytesSent(uint32_t step, uint32_t rank, WorkloadOp::Phase phase) const;
    Time GetKernelTime(uint32_t step, uint32_t rank, WorkloadOp::Phase phase) const;
    /// Model FLOPs per step / (ranks × peakFlops × mean step time of the completed steps).
    double GetMfu(double peakFlops) const;

  private:
    /// What the network did in a step, from its counters: "timeout", "tail-loss-probe",
    /// "retransmission" or "network".
    static const char* NetworkCause(const TrainingStepRecord& rec);
    /// The critical path, who everyone waited on and why.
    void Blame(TrainingStepRecord& rec, const std::vector<std::vector<TrainingOpState>>& state);

    std::shared_ptr<const WorkloadGraph> m_graph;
    Ptr<CollectiveTransport> m_network;
    std::vector<TrainingStepRecord> m_records;
    std::vector<std::vector<RankPhaseTimes>> m_phases; //!< per step, rank
    /// per step, rank: bytes by phase, and kernel time by phase
    std::vector<std::vector<std::array<uint64_t, WorkloadOp::PHASES>>> m_bytes;
    std::vector<std::vector<std::array<int64_t, WorkloadOp::PHASES>>> m_kernel;
    LossProbeCounter m_lossProbes;
    uint64_t m_retx0{0};
    uint64_t m_timeouts0{0};
    uint64_t m_probes0{0};
};

} // namespace ns3

#endif // TRAINING_STEP_ACCOUNTING_H

// SPDX-License-Identifier: GPL-2.0-only
// timeline.csv: the first step of a parallel training job, operation by operation per rank.
#ifndef AI_FABRIC_RUN_TIMELINE_H
#define AI_FABRIC_RUN_TIMELINE_H

#include "ns3/parallel-training-job.h"
#include "ns3/transformer-workload.h"

#include <memory>
#include <string>
#include <vector>

namespace aifabric
{

/**
 * Records the first step's operations (the job's OpDone trace) of some ranks: every rank when
 * the step has at most kTimelineMaxOps operations, else the ranks of data-parallel replica 0
 * (dp index 0: every TP and PP rank of one model copy, which the other replicas mirror), or,
 * for a graph without a parallelism (a Chakra trace), the first ranks that fit the budget.
 */
class TimelineRecorder
{
  public:
    static constexpr uint64_t kTimelineMaxOps = 500000;

    /// Connect to `job` (its graph set) built from `p` (null: a graph of unknown layout).
    static std::shared_ptr<TimelineRecorder> Attach(ns3::Ptr<ns3::ParallelTrainingJob> job,
                                                    const ns3::ParallelismConfig* p);

    /// rank,op,kind,phase,start_us,end_us in completion order.
    std::string Csv() const;
    /// The ranks recorded: "all", "dp replica 0 (N ranks)" or "ranks 0-K".
    std::string Ranks() const;

  private:
    struct Entry
    {
        uint32_t rank;
        uint32_t op;
        int64_t start;
        int64_t end;
    };

    static void OpDone(TimelineRecorder* t, uint32_t rank, uint32_t op, ns3::Time s, ns3::Time e);
    static void StepDone(TimelineRecorder* t, const ns3::TrainingStepRecord& r);

    std::shared_ptr<const ns3::WorkloadGraph> m_graph;
    std::vector<bool> m_keep;
    uint32_t m_kept{0};
    bool m_replica{false}; //!< kept a data-parallel replica (else the first ranks)
    bool m_open{true};
    std::vector<Entry> m_entries;
};

} // namespace aifabric

#endif

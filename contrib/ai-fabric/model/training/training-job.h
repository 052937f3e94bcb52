// SPDX-License-Identifier: GPL-2.0-only
#ifndef TRAINING_JOB_H
#define TRAINING_JOB_H

#include "loss-probe-counter.h"

#include "ns3/collective-algorithm.h"
#include "ns3/collective-executor.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"
#include "ns3/type-id.h"

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

class GpuTrainingApp;
class CollectiveTransport;

/// What happened in one training step.
struct TrainingStepRecord
{
    uint32_t step{0};
    Time start;                      //!< all ranks start computing
    std::vector<Time> computeEnd;    //!< per rank
    std::vector<Time> collectiveEnd; //!< per rank: its collective is complete
    Time lastComputeEnd;             //!< the collective can only finish after this
    Time barrier;                    //!< step end: the last rank's collective end
    uint32_t lastRank{0};            //!< the rank whose collective ended last
    uint32_t slowestComputeRank{0};  //!< the rank that computed longest
    std::string cause;               //!< why the step ended when it did (see TrainingJob)
    uint32_t waitedOn{0};            //!< the rank everyone waited for
    uint64_t retransmissions{0};     //!< network retransmissions during the step
    uint64_t timeouts{0};            //!< retransmission timeouts during the step
    uint64_t lossProbes{0};          //!< tail loss probes during the step (kernel TCP)
    /// The first NIC (by rank) with a queue pair that timed out in the step, and the rank that
    /// queue pair sends to (the step's timeout victim); UINT32_MAX and -1 when none.
    uint32_t timeoutNic{UINT32_MAX};
    int32_t timeoutVictim{-1};
    /// When a victim the transport reported (kernel TCP's last timeout) timed out, in time
    /// steps; -1 otherwise. Split across MPI ranks, the latest over the ranks is the step's.
    int64_t timeoutAt{-1};

    Time StepTime() const
    {
        return barrier - start;
    }

    /// Communication after the last rank finished computing (what nccl-tests would time).
    Time CollectiveTime() const
    {
        return barrier - lastComputeEnd;
    }
};

/**
 * \ingroup ai-fabric
 * A synchronous data-parallel training job: Steps iterations of compute (each rank's
 * GpuTrainingApp) then one collective (Collective of Bytes per rank with Algorithm, over the
 * network transport and, inside servers, NVLink), then a barrier: step k+1 starts for every rank
 * when the last rank's collective of step k is complete.
 *
 * With Buckets = B > 1 the gradients are reduced in B buckets that overlap the backward pass
 * (as DDP/FSDP do): bucket b of rank r may start when r has done (b + 1)/B of its compute, each
 * bucket being its own collective of Bytes/B; the step ends when every bucket has finished.
 *
 * For each step it records per-rank compute and collective end times, the last rank, and why
 * the step ended when it did: "timeout" (a retransmission timeout fired during the step),
 * "tail-loss-probe" (kernel TCP sent a tail loss probe and no timeout fired),
 * "straggler" (the slowest rank's compute ended more than 5% of the step after the median's),
 * "retransmission" (packets were resent), or "network" (plain transfer time), with the rank
 * everyone waited on.
 *
 * A rank whose GpuTrainingApp reaches its StopTime ends the job at that instant: the step in
 * progress is not recorded, no further step starts, IsFinished() and WasStopped() are true.
 */
class TrainingJob : public Object
{
  public:
    static TypeId GetTypeId();
    TrainingJob();
    ~TrainingJob() override;

    /**
     * \param ranks the GPU nodes in rank order, each with a GpuTrainingApp
     * \param gpusPerServer consecutive ranks per server (for NVLink and hierarchical)
     * \param network the transport between servers
     * \param nvlink the transport inside servers (may be null: then all goes over the network)
     */
    void Setup(NodeContainer ranks,
               uint32_t gpusPerServer,
               Ptr<CollectiveTransport> network,
               Ptr<CollectiveTransport> nvlink);
    /**
     * The fabric's SHARP trees, for CollNet (call before Setup): the network transport's ranks
     * must then be the topology's endpoints, GPUs followed by the aggregation nodes
     * (FabricTopology::GetEndpoints).
     */
    void SetInNetworkTree(std::shared_ptr<const InNetworkTree> tree);
    /**
     * Run rank r as transport rank ranks[r] (a job on part of a cluster, beside other jobs);
     * call before Setup. The ranks of a server must be consecutive transport ranks. Empty (the
     * default): rank r is transport rank r.
     */
    void SetTransportRanks(std::vector<uint32_t> ranks);
    /// \return empty if the configuration is valid, else one line naming the problem
    std::string Check() const;
    /// Start the first step now.
    void Start();
    bool IsFinished() const;
    /// \return true if a rank's StopTime ended the job before its last step
    bool WasStopped() const;
    /// The rank whose StopTime ended the job (valid when WasStopped()).
    uint32_t GetStoppedRank() const;

    const std::vector<TrainingStepRecord>& GetSteps() const;
    /**
     * Split across MPI ranks (a partitioned network transport), each rank's records hold what
     * its own nodes saw: its GPUs' collective ends, its NICs' retransmissions, timeouts and
     * timed-out queue pairs; barriers, compute ends and step starts are every rank's already.
     * `merge` makes each record every rank's (the runner: maxima and sums over MPI ranks, the
     * timeout of the lowest NIC); then each step's cause is decided again.
     */
    void MergeSteps(const std::function<void(TrainingStepRecord&)>& merge);
    CollectiveSpec GetSpec() const;
    Ptr<CollectiveExecutor> GetExecutor() const;
    /// Bytes each rank sent in the last step's collective.
    std::vector<uint64_t> GetBytesSentPerRank() const;
    /// Mean nominal compute time and MFU inside compute over ranks.
    Time GetMeanComputeTime() const;
    double GetMfuInsideCompute() const;

    typedef void (*StepTracedCallback)(const TrainingStepRecord& r);

  protected:
    void DoDispose() override;

  private:
    /// Begin step `k`, which began `since` ago (split across ranks: its barrier is learnt a
    /// message delay late).
    void StartStep(uint32_t k, Time since);
    /// Why the step ended when it did (TrainingStepRecord::cause and waitedOn).
    void DecideCause(TrainingStepRecord& rec) const;
    void ComputeDone(uint32_t rank);
    void RankStopped(uint32_t rank);
    void CollectiveDone();
    void BucketDone();
    void BucketReady(uint32_t bucket, uint32_t rank);
    void CountNetwork(uint64_t& retx, uint64_t& timeouts) const;
    /// The rank receiving on a queue pair whose timeouts grew during this step, or -1.
    /// The rank the first timed-out queue pair (by NIC) sends to, or -1; its NIC in `nic`.
    int32_t TimedOutReceiver(uint32_t& nic) const;
    /// The job's rank of a transport rank (-1 if it is not one of the job's, or is -1).
    int32_t JobRank(int32_t transportRank) const;

    uint32_t m_steps{3};
    std::string m_collective{"allreduce"};
    TypeId m_algorithmTid;
    uint64_t m_bytes{64 * 1024 * 1024};
    uint32_t m_chunks{1};
    uint32_t m_channels{1};
    std::string m_protocol{"simple"};
    std::shared_ptr<const InNetworkTree> m_inNetwork;
    bool m_protocolLatency{true};

    NodeContainer m_ranks;
    std::vector<uint32_t> m_transportRanks; //!< empty: identity
    Ptr<CollectiveTransport> m_network;
    std::vector<Ptr<GpuTrainingApp>> m_apps;
    uint32_t m_gpusPerServer{1};
    Ptr<CollectiveExecutor> m_exec; //!< the first bucket's executor
    std::vector<Ptr<CollectiveExecutor>> m_execs;
    std::vector<std::shared_ptr<const CollectiveSchedule>> m_schedules;
    bool m_lazySchedules{true};
    uint32_t m_buckets{1};
    uint32_t m_bucketsDone{0};
    std::vector<TrainingStepRecord> m_records;
    std::vector<uint64_t> m_qpTimeouts0; //!< per NIC x queue pair, at step start (flattened)
    std::unordered_map<uint32_t, uint32_t> m_rankOfAddress;
    uint64_t m_retx0{0};
    uint64_t m_timeouts0{0};
    LossProbeCounter m_lossProbes;
    uint64_t m_probes0{0};
    bool m_finished{false};
    bool m_stepOpen{false}; //!< a step has started and its barrier is not reached
    bool m_stopped{false};
    bool m_split{false}; //!< the network transport is partitioned across MPI ranks
    uint32_t m_stoppedRank{0};
    TracedCallback<const TrainingStepRecord&> m_stepTrace;
};

} // namespace ns3

#endif // TRAINING_JOB_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef PARALLEL_TRAINING_JOB_H
#define PARALLEL_TRAINING_JOB_H

#include "training-job.h"
#include "training-step-accounting.h"
#include "workload-graph.h"

#include "ns3/collective-executor.h"
#include "ns3/collective-transport.h"
#include "ns3/collective-tuner.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class GpuTrainingApp;

/**
 * \ingroup ai-fabric
 * Runs a WorkloadGraph (a parallel training step: TransformerWorkload, or a Chakra trace) for
 * Steps steps on the collective layer. Each rank runs its operations as a GPU does:
 *  - compute kernels one at a time in program order (one compute stream), each lasting
 *    flops / (PeakTflops × ComputeEfficiency) — or its durationNs — times the rank's
 *    GpuTrainingApp compute scale (jitter, stragglers) when it has one;
 *  - a collective starts at a rank when its dependencies are done and the previous collective
 *    of the same operation on the same communicator is done (NCCL runs a communicator's
 *    operations in order), and runs once every member has started it: a CollectiveExecutor
 *    over the members (transport ranks through SetRankMap), with the tuner's algorithm and
 *    protocol for the communicator's shape and size (Algorithm "auto") or the named ones;
 *  - a SEND leaves when its dependencies are done (eager: NCCL's buffers hold it); its RECV
 *    completes when the message has arrived and the receive's dependencies are done.
 * A step ends when every rank has finished every operation (the optimizer's global gradient
 * norm makes it a barrier); the next starts then.
 *
 * Over a partitioned network transport (CollectiveTransport::SetPartitioned: split across MPI
 * ranks, or in their event order on one) every MPI rank runs every rank's operations alike, and
 * each GPU's sends leave from its node's MPI rank only. What one MPI rank alone sees reaches
 * every rank a message delay D later (FabricRankMailbox): a collective ends for its members D
 * after its last arrival (CollectiveExecutor), a message D after it arrived. So every MPI rank
 * launches the same operations at the same times, and one process and N give the same step;
 * against an unpartitioned run, each completion a dependent waits for comes D later. The bytes
 * each rank handed to the transports and the network's counters in the records are this MPI
 * rank's own: MergeSteps makes them every rank's.
 *
 * The job runs the step; its TrainingStepAccounting, told what happened, records per step a
 * TrainingStepRecord (computeEnd: a rank's last kernel end, collectiveEnd: its last
 * operation's end), RankPhaseTimes per rank (a compute-stream gap is charged to the phase of
 * the operation whose completion ended it), and the critical path:
 * walking back from the step's last completion through the dependency that finished last
 * (across ranks through a collective's last member to join, or a message's sender), the rank
 * with the most kernel time on that path is the one everyone waited on (waitedOn); the cause
 * is "expert-imbalance" when that rank's expert kernels exceed the median rank's by more than
 * 5% of the step, "straggler" when its kernels do, else what the network did (as TrainingJob:
 * "timeout", "tail-loss-probe", "retransmission", or "network").
 */
class ParallelTrainingJob : public Object
{
  public:
    static TypeId GetTypeId();
    ParallelTrainingJob();
    ~ParallelTrainingJob() override;

    /// The step to run (shared: a 1,024-rank step has millions of operations).
    void SetGraph(std::shared_ptr<const WorkloadGraph> g);
    std::shared_ptr<const WorkloadGraph> GetGraph() const;
    /// The tuner that picks each communicator's algorithm and protocol (Algorithm "auto").
    void SetTuner(Ptr<CollectiveTuner> t);
    /**
     * \param gpus the GPU nodes of the graph's ranks, in rank order (a GpuTrainingApp on one is
     *        used for its compute scale)
     * \param transportRanks per graph rank, its rank in the transports (the cluster's GPU index)
     * \param gpusPerServer consecutive transport ranks per server (NVLink)
     */
    void Setup(NodeContainer gpus,
               const std::vector<uint32_t>& transportRanks,
               uint32_t gpusPerServer,
               Ptr<CollectiveTransport> network,
               Ptr<CollectiveTransport> nvlink);
    /// \return empty if the graph and attributes can run, else one line naming the problem
    std::string Check() const;
    void Start();
    bool IsFinished() const;

    const std::vector<TrainingStepRecord>& GetSteps() const;
    /// Phase times of rank r in step k.
    const RankPhaseTimes& GetPhaseTimes(uint32_t step, uint32_t rank) const;
    /// Bytes rank r handed to the transports in step k, by phase (WorkloadOp::Phase).
    uint64_t GetBytesSent(uint32_t step, uint32_t rank, WorkloadOp::Phase phase) const;
    /// Kernel time of the step's rank r by its compute phase (FORWARD, BACKWARD, OPTIMIZER, EP).
    Time GetKernelTime(uint32_t step, uint32_t rank, WorkloadOp::Phase phase) const;
    /// Model FLOPs per step / (ranks × peak × mean step time of the completed steps).
    double GetMfu() const;
    /// Mean over ranks of the kernel time of a step (nominal, at ComputeEfficiency).
    Time GetMeanComputeTime() const;
    /// The algorithm and protocol each kind of collective ran ("tp allreduce 8x1: nvls/simple").
    std::vector<std::string> GetCollectiveChoices() const;

    /// What one kind of collective ran, as GetCollectiveChoices says it in words.
    struct CollectiveChoice
    {
        std::string algorithm; //!< "ring", "nvls", ... ("pairwise" for All-to-All)
        std::string protocol;  //!< "simple", "ll128" or "ll"
        uint32_t channels;
    };

    /// Every kind of collective of every rank, each once, in the order they were first built.
    std::vector<CollectiveChoice> GetCollectiveChoiceParts() const;
    /// Collectives run per step.
    uint64_t GetCollectivesPerStep() const;
    double GetPeakFlops() const;

    /**
     * Split across MPI ranks, make each record and byte count every rank's: `merge` turns a
     * record's network counters (retransmissions, timeouts, loss probes) into every MPI rank's,
     * `sum` adds a vector over the MPI ranks (the runner: RunRanks); then each step's cause is
     * decided again from the merged counters.
     */
    void MergeSteps(const std::function<void(TrainingStepRecord&)>& merge,
                    const std::function<void(std::vector<uint64_t>&)>& sum);

    /// (rank, operation index, start, end) of every finished operation.
    typedef void (*OpTracedCallback)(uint32_t rank, uint32_t op, Time start, Time end);

  protected:
    void DoDispose() override;

  private:
    struct Schedule
    {
        std::shared_ptr<const CollectiveSchedule> schedule;
        uint32_t localGpusPerServer{1};
        std::vector<Ptr<CollectiveExecutor>> idle;
        std::string key;   //!< what makes two schedules the same
        std::string label; //!< what ran, for people
        CollectiveChoice choice;
    };

    struct Instance
    {
        Ptr<CollectiveExecutor> exec;
        uint32_t joined{0};
        uint32_t lastRank{0}; //!< the member that joined last
        uint32_t lastOp{0};   //!< its operation
    };

    /// Per communicator: its transport ranks and the collectives running on it.
    struct Comm
    {
        std::vector<uint32_t> transport; //!< per member: its transport rank
        uint32_t localGpusPerServer{1};
        bool oneServer{false};     //!< every member on one server, consecutive transport ranks
        std::vector<uint32_t> ops; //!< [k × members + j]: member j's k-th collective
        uint32_t count{0};         //!< collectives per step
        std::deque<Instance> open; //!< instances base .. base + open.size() - 1
        uint32_t base{0};
        uint32_t channelBase{0};
    };

    struct P2p
    {
        uint32_t src;
        uint32_t sendOp;
        uint32_t dst;
        uint32_t recvOp;
    };

    /// Per rank and operation, what the running step needs (its accounting reads it too).
    using OpState = TrainingOpState;

    void Prepare();
    uint32_t ScheduleFor(uint32_t group, const WorkloadOp& o);
    void StartStep(uint32_t k);
    void Launch(uint32_t r, uint32_t i);
    void Complete(uint32_t r, uint32_t i, uint32_t byRank, uint32_t byOp);
    void ComputeDone(uint32_t r, uint32_t i);
    void Join(uint32_t r, uint32_t i);
    static void InstanceDone(ParallelTrainingJob* job, uint32_t group, uint32_t k);
    void FinishInstance(uint32_t group, uint32_t k);
    void RankDone(uint32_t r);
    void EndStep();

    class Listener : public CollectiveTransportListener
    {
      public:
        ParallelTrainingJob* job{nullptr};
        void MessageArrived(uint64_t token) override;
    };

    friend class Listener;
    void MessageArrived(uint64_t token);
    /// Message `token` arrived (split: on every MPI rank, a message delay after it did).
    void Delivered(uint64_t token);

    uint32_t m_steps{3};
    double m_peakTflops{989.4};
    double m_efficiency{0.55};
    std::string m_algorithm{"auto"};
    std::string m_protocol{"auto"};
    uint32_t m_channels{0};
    uint32_t m_chunks{1};
    bool m_protocolLatency{true};
    bool m_nvls{true};

    std::shared_ptr<const WorkloadGraph> m_graph;
    Ptr<CollectiveTuner> m_tuner;
    NodeContainer m_gpus;
    std::vector<uint32_t> m_transport;
    uint32_t m_gpusPerServer{1};
    Ptr<CollectiveTransport> m_network;
    Ptr<CollectiveTransport> m_nvlink;
    std::vector<Ptr<GpuTrainingApp>> m_apps;

    bool m_prepared{false};
    std::vector<Comm> m_comms;
    std::vector<Schedule> m_schedules;
    std::vector<std::vector<uint32_t>> m_opSchedule; //!< per rank, op: index into m_schedules
    std::vector<std::vector<uint32_t>> m_opAux;      //!< COLLECTIVE: instance; SEND/RECV: p2p
    std::vector<std::vector<uint32_t>> m_depOffset;  //!< per rank: CSR of dependents
    std::vector<std::vector<uint32_t>> m_dependents;
    std::vector<std::vector<uint32_t>> m_implicit; //!< per rank, op: operations it waits for
    std::vector<P2p> m_p2p;
    std::vector<uint8_t> m_arrived; //!< per p2p: the message is at its receiver
    std::vector<uint8_t> m_posted;  //!< per p2p: the receive's dependencies are done
    Listener m_listener;
    bool m_split{false};            //!< the network transport is partitioned
    uint32_t m_handler{UINT32_MAX}; //!< split: the mailbox handler of arrived messages

    uint32_t m_step{0};
    std::vector<std::vector<OpState>> m_state;
    std::vector<uint32_t> m_opsLeft;
    std::vector<Time> m_rankEnd;
    std::vector<int64_t> m_streamFree; //!< per rank: its last kernel's end
    uint32_t m_ranksLeft{0};
    bool m_finished{false};
    TrainingStepAccounting m_accounting;
    TracedCallback<const TrainingStepRecord&> m_stepTrace;
    TracedCallback<uint32_t, uint32_t, Time, Time> m_opTrace;
};

} // namespace ns3

#endif // PARALLEL_TRAINING_JOB_H

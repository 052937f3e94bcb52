// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_RUN_RANKS_H
#define AI_FABRIC_RUN_RANKS_H

#include "ns3/fabric-fault-injector.h"
#include "ns3/latency-histogram.h"
#include "ns3/parallel-training-job.h"
#include "ns3/training-job.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace aifabric
{

struct RunConfig;

/**
 * One run across MPI ranks (`ai-fabric run --ranks N`, issue 45): ns-3's distributed simulator
 * under FabricPartitionScheduler, the topology dealt by FabricTopologyHelper::SetPartition, and
 * each rank's share of the results merged so that every rank holds the sequential run's (sums
 * over the nodes each rank ran, histograms added bin by bin, rows of samples combined). Every
 * function here is the identity on one rank.
 */
class RunRanks
{
  public:
    /**
     * Start MPI (ns-3's MpiInterface) for `ranks` ranks with granted time windows, or null
     * messages. Throws ScenarioError when the build has no MPI or mpirun started another number
     * of processes.
     */
    static void Enable(int* argc, char*** argv, uint32_t ranks, bool nullMessage);
    /// Whether this build has ns-3's MPI module.
    static bool Available();
    /// "--ranks N: this build has no MPI (...)".
    static std::string NoMpi(uint32_t ranks);
    /// Stop MPI (at exit).
    static void Disable();
    /// Before each split simulation: ns-3's MPI interface ready for it (started again after a
    /// distributed simulation was destroyed, so that a scenario's runs can follow each other).
    static void Renew();
    /// Whether the next simulation is split (after Enable with ranks > 1, unless SetWhole).
    static bool Split();
    /// The next simulations run whole in every process (a run of the scenario that Refusal
    /// keeps off the ranks), or split again.
    static void SetWhole(bool whole);
    static uint32_t Rank();
    static uint32_t Size();
    /// "ns3::DistributedSimulatorImpl" or "ns3::NullMessageSimulatorImpl".
    static std::string SimulatorType();

    /// Why `c` cannot run across ranks yet ("" when it can).
    static std::string Refusal(const RunConfig& c);

    /// The sum over ranks (every rank gets it).
    static uint64_t Sum(uint64_t v);
    static int64_t Sum(int64_t v);
    static int64_t Max(int64_t v);
    static double MaxDouble(double v);
    /// Element-wise sums and maxima of equally long vectors over ranks.
    static void Sum(std::vector<uint64_t>& v);
    static void Max(std::vector<uint64_t>& v);
    /// Every rank's `text`, in rank order (every rank gets them).
    static std::vector<std::string> Gather(const std::string& text);
    /// Add every rank's histogram into `h`, on every rank.
    static void Merge(ns3::LatencyHistogram& h);
    /// The data every rank's ports lost to down links (FabricFaultInjector::SetKeepDropLog),
    /// replayed into `faults` on every rank.
    static void Merge(ns3::FabricFaultInjector& faults);
    /// Each step record of `job` made every rank's (TrainingJob::MergeSteps): the GPUs'
    /// collective ends, the maxima; retransmissions, timeouts and loss probes, the sums; the
    /// timeout victim, the lowest NIC's.
    static void Merge(ns3::TrainingJob& job);
    /// Each step record of `job` made every rank's (ParallelTrainingJob::MergeSteps):
    /// retransmissions, timeouts and loss probes, and the bytes each rank sent, the sums.
    static void Merge(ns3::ParallelTrainingJob& job);
    /**
     * Every unsigned integer of `obj` (nested objects included) summed over ranks, but the
     * maximum for the keys in `maxKeys`; other values are left as they are.
     */
    static void SumJson(nlohmann::json& obj, const std::vector<std::string>& maxKeys = {});
};

} // namespace aifabric

#endif

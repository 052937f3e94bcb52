// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SIMULATION_BUILDER_H
#define AI_FABRIC_SIMULATION_BUILDER_H

#include "run-timeline.h"
#include "scenario.h"

#include "ns3/collective-transport.h"
#include "ns3/fabric-fault-injector.h"
#include "ns3/fabric-topology.h"
#include "ns3/flow-workload.h"
#include "ns3/latency-histogram.h"
#include "ns3/nvlink-transport.h"
#include "ns3/parallel-training-job.h"
#include "ns3/pfc-deadlock-detector.h"
#include "ns3/pfc-watchdog.h"
#include "ns3/rdma-nic.h"
#include "ns3/training-job.h"

#include <algorithm>
#include <map>
#include <vector>

namespace aifabric
{

/// One job of a run's `jobs` as built: its step loop and the transport it runs on.
struct SimulatedJob
{
    size_t index{0};                             //!< into RunConfig::jobs
    ns3::Ptr<ns3::TrainingJob> job;              //!< workload.kind collective, else null
    ns3::Ptr<ns3::ParallelTrainingJob> parallel; //!< workload.kind training, else null
    ns3::Ptr<ns3::CollectiveTransport> network;
};

/// The objects of one run that the runner reads after (and samples during) the simulation.
struct Simulation
{
    ns3::Ptr<ns3::FabricTopology> topo;
    std::vector<ns3::Ptr<ns3::RdmaNic>>
        nics; //!< one per GPU, then per aggregation node; none on TCP
    ns3::Ptr<ns3::CollectiveTransport> network; //!< the run's fabric's (the first job's fabric)
    /// every fabric's transport by fabric name (one, or one per fabric that jobs run)
    std::map<std::string, ns3::Ptr<ns3::CollectiveTransport>> networks;
    ns3::Ptr<ns3::NvlinkTransport> nvlink;       //!< null with one GPU per server
    ns3::Ptr<ns3::TrainingJob> job;              //!< workload.kind collective, else null
    ns3::Ptr<ns3::ParallelTrainingJob> parallel; //!< workload.kind training, else null
    ns3::Ptr<ns3::FlowWorkload> flows;           //!< workload.flows or workload.background, or null
    ns3::Ptr<ns3::LatencyHistogram> flowQueue;   //!< with flows: the switch egress queue (bytes)
                                                 //!< each data frame found on arrival
    ns3::Ptr<ns3::LatencyHistogram> latency;     //!< one-way latency of data packets
    /// one-way latency of whole messages, GPU memory to GPU memory (host path included)
    ns3::Ptr<ns3::LatencyHistogram> messageLatency;
    ns3::Ptr<ns3::FabricFaultInjector> faults;   //!< faults.events / faults.random, or null
    ns3::Ptr<ns3::PfcWatchdog> watchdog;         //!< pfc_watchdog, or null
    ns3::Ptr<ns3::PfcDeadlockDetector> deadlock; //!< pfc_deadlock, or null
    std::shared_ptr<TimelineRecorder> timeline;  //!< workload.kind training (one job), or null
    std::vector<SimulatedJob> jobs; //!< with `jobs`: the included ones (the first is also
                                    //!< job / parallel)

    /// Each transport (one per fabric: each its own object).
    std::vector<ns3::Ptr<ns3::CollectiveTransport>> Transports() const
    {
        std::vector<ns3::Ptr<ns3::CollectiveTransport>> v;
        for (const auto& [name, n] : networks)
        {
            v.push_back(n);
        }
        return v;
    }
};

/**
 * The run's ns-3 defaults (scenario keys, then its attributes), seed and scheduler, and its
 * topology built (streams assigned, the NICs' drop rate set): the first part of BuildSimulation,
 * alone for `ai-fabric topology`. Throws ScenarioError on an invalid attribute value.
 */
ns3::Ptr<ns3::FabricTopology> BuildTopology(const RunConfig& c, bool split = false);
/// The delay of messages between MPI ranks on `topo` (FabricRankMailbox::GetMessageDelay of
/// every cable): what one rank learns reaches every rank this much later.
ns3::Time RankMessageDelay(const ns3::FabricTopology& topo);

/// Whether `c`'s topology can be dealt to `ranks` MPI ranks (before MPI starts).
/// \throws ScenarioError ("--ranks: ...") if not
void CheckRanks(const RunConfig& c, uint32_t ranks);

/**
 * Throw ScenarioError if a fault event names a link, switch or NIC the run's fabric does not
 * have (the fabric is built to look, then destroyed): before any run starts, so a typo costs
 * nothing.
 */
void CheckFaultTargets(const RunConfig& c);

/**
 * Set up one run from its configuration: ns-3 attribute defaults, seed and scheduler, then the
 * topology, the transport (RDMA NICs or kernel TCP with host costs), NVLink, the GPUs and the
 * training job, which stops the simulator after its last step; or, with workload.kind flows,
 * the flow workload, which stops it once every flow has completed (workload.background adds
 * one beside the job). With `jobs`, each job on its servers and transport, those of `include`
 * only when given (index per job); the simulator stops once they have all done their steps.
 * Throws ScenarioError on an invalid attribute value.
 */
Simulation BuildSimulation(const RunConfig& c, const std::vector<bool>* include = nullptr);

} // namespace aifabric

#endif

// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SCENARIO_H
#define AI_FABRIC_SCENARIO_H

#include "fabric-uec.h"
#include "scenario-edit.h"
#include "scenario-enums.h"

#include "ns3/collective-algorithm.h"
#include "ns3/collective-protocol.h"
#include "ns3/connection-matrix.h"
#include "ns3/flow-size-distribution.h"
#include "ns3/nstime.h"
#include "ns3/plugin-registry.h"
#include "ns3/transformer-workload.h"
#include "ns3/workload-graph.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{
class ObjectBase;
}

namespace aifabric
{

/// A scenario's time in milliseconds (a double) as an ns-3 Time, to the nanosecond.
inline ns3::Time
ScenarioMs(double ms)
{
    return ns3::NanoSeconds(int64_t(ms * 1e6));
}

/// Bad input: what() is one line naming the key and the allowed values. Exit status 2.
class ScenarioError : public std::runtime_error
{
  public:
    explicit ScenarioError(const std::string& msg)
        : std::runtime_error(msg)
    {
    }
};

/// Flow traffic (workload.flows, or workload.background beside a training job).
struct FlowsConfig
{
    std::string cdf;     //!< websearch, fb-hadoop, or a file of `bytes percent` lines
    double load{};       //!< fraction of each host's line rate
    double durationMs{}; //!< arrivals last this long (flows; background: the whole job)
    FlowsPattern pattern{};
    ns3::FlowSizeDistribution sizes; //!< `cdf`, read once when the scenario is resolved
    uint32_t incastFanin{};
    uint64_t incastBytes{};
    double incastPeriodUs{};
};

struct JobConfig;

// A run's configuration in the scenario's sections: `topology.link_gbps` is
// `topology.linkGbps`, `tcp.stack` is `fabric.tcp.stack`. Every field is filled by resolving a
// scenario (the defaults are the schema's, scenario-schema.cc).

/// topology.*
struct TopologyConfig
{
    std::string kind;          //!< a name in FabricTopologyRegistry
    ns3::PluginKeyValues keys; //!< its own keys (topology.<kind>.*)
    uint32_t servers{};
    uint32_t gpusPerServer{};
    double linkGbps{};
    double oversubscription{};
    uint32_t leafRadix{};
    uint32_t tiers{}; //!< rail-fat-tree: 0 = auto
    double spineOversubscription{};
    uint32_t planes{};
    double hostCableM{};
    double fabricCableM{};
    double hopLatencyUs{};    //!< 0: the cables' lengths decide
    double switchLatencyUs{}; //!< with hop_latency_us
};

/// rdma.*
struct RdmaConfig
{
    double retransmitTimeoutMs{};
    uint32_t pathMtu{};
    uint32_t reorderThreshold{}; //!< selective repeat
};

/// tcp.*
struct TcpConfig
{
    bool hostCosts{};
    TcpStack stack{};
    bool tlp{};
    bool rack{};
    uint32_t socketsPerPeer{};
    uint32_t threads{};
    uint32_t cores{};
};

/// infiniband.*
struct InfinibandConfig
{
    double rxBufferKib{};
    double fecnThresholdKib{};
    bool sharp{}; //!< SHARP aggregation nodes in the switches
};

/// The transport: fabric, pfc, congestion_control, loss_recovery and each fabric's own keys.
struct FabricConfig
{
    std::string name; //!< fabric: a name in FabricRegistry
    bool pfc{};
    //! resolved: a name in RdmaCongestionRegistry (fabric tcp, uec: what their stack runs)
    std::string congestionControl;
    ns3::PluginKeyValues congestionControlKeys; //!< its own keys (rdma.<name>.*)
    std::string lossRecovery; //!< a name in RdmaLossRecoveryRegistry (or the TCP stack's)
    RdmaConfig rdma;
    TcpConfig tcp;
    InfinibandConfig infiniband;
    UecConfig uec;
};

/// faults.random
struct RandomFaultsConfig
{
    double mtbfHours{};
    double repairMs{};
    bool hostLinks{};
};

/// faults.*
struct FaultsConfig
{
    double dropRate{};
    nlohmann::json events; //!< validated
    RandomFaultsConfig random;
};

/// pfc_watchdog.*
struct PfcWatchdogConfig
{
    bool enabled{};
    double detectionMs{};
    double restorationMs{};
    double pollMs{};
    PfcWatchdogAction action{};
};

/// pfc_deadlock.*
struct PfcDeadlockConfig
{
    bool enabled{};
    double thresholdMs{};
    double pollMs{};
    bool stop{};
};

/// routing.*
struct RoutingConfig
{
    double convergenceMs{};
    bool valleyFree{};
    std::string loadBalancing; //!< a name in LoadBalancingRegistry
    double flowletGapUs{};
    uint32_t qpsPerConnection{}; //!< resolved
};

/// gpu.*
struct GpuConfig
{
    GpuModel model{};
    double nvlinkGBytesPerS{}; //!< per GPU per direction (nvlink_gbytes_per_s or preset)
    bool nvls{};               //!< the NVSwitch reduces (nvls or the preset)
    double peakTflops{};       //!< peak_tflops or the preset's
    double computeEfficiency{};
};

/// workload.*
struct WorkloadConfig
{
    WorkloadKind kind{};
    uint32_t steps{};
    double computeMs{};
    ns3::CollectiveSpec::Op collective{}; //!< ns3::CollectiveSpec::OpName names it
    std::string algorithm;                //!< a name in CollectiveAlgorithmRegistry, resolved
    ns3::PluginKeyValues algorithmKeys;   //!< its own keys (workload.<algorithm>.*)
    bool algorithmAuto{};                 //!< algorithm was "auto" (the tuner chose it)
    uint64_t bytes{};
    uint32_t chunks{};
    uint32_t buckets{};
    uint32_t channels{};
    bool channelsAuto{};                      //!< channels was 0 (NCCL's count per algorithm)
    ns3::CollectiveProtocol::Kind protocol{}; //!< NCCL's; ns3::CollectiveProtocol::Name names it
    bool protocolAuto{};                      //!< protocol was "auto" (the tuner chose it)
    bool pxn{};
    FlowsConfig flows;                     //!< kind flows
    std::optional<FlowsConfig> background; //!< background, when set (kind collective)
    std::string matrixFile; //!< matrix (kind matrix), anchored to the scenario's folder
    std::shared_ptr<const ns3::ConnectionMatrix> matrix; //!< matrix, read once
    ns3::TransformerModel model;                         //!< kind training
    ns3::ParallelismConfig parallelism;
    std::string trace;                               //!< kind chakra
    std::shared_ptr<const ns3::WorkloadGraph> graph; //!< kind chakra: the trace, read once
};

/// cost.*
struct CostConfig
{
    double gpuHourUsd{};
};

/// limits.*
struct LimitsConfig
{
    double maxSimSeconds{};
    double maxMemoryGb{}; //!< 0: the machine's memory
};

/// simulation.*
struct SimulationConfig
{
    /// simulation.event_order: true for "partition" (FabricPartitionScheduler), false for "ns3"
    bool partitionOrder{false};
};

/// One fully resolved run of a scenario (defaults + file + --set + one compare entry).
struct RunConfig
{
    std::string name;
    uint32_t seed{};
    TopologyConfig topology;
    FabricConfig fabric;
    RoutingConfig routing;
    FaultsConfig faults;
    PfcWatchdogConfig pfcWatchdog;
    PfcDeadlockConfig pfcDeadlock;
    GpuConfig gpu;
    WorkloadConfig workload;
    CostConfig cost;
    LimitsConfig limits;
    SimulationConfig simulation;
    std::vector<std::pair<std::string, std::string>> attributes; //!< attributes
    nlohmann::json resolved;             //!< the run's full configuration as JSON
    std::vector<JobConfig> jobs;         //!< `jobs`: several jobs on this run's fabric (else empty)
    std::vector<std::string> jobFabrics; //!< the fabrics jobs run, once each, in registry order
    bool jobsBaselines{}; //!< jobs_baselines: also run each job alone (and without each)

    uint32_t Gpus() const
    {
        return topology.servers * topology.gpusPerServer;
    }

    /// Flow traffic without GPUs' steps: workload.kind flows or matrix.
    bool IsFlowWorkload() const
    {
        return workload.kind == WorkloadKind::FLOWS || workload.kind == WorkloadKind::MATRIX;
    }

    /// workload.kind training or chakra: a dependency graph run by ParallelTrainingJob.
    bool RunsGraph() const
    {
        return workload.kind == WorkloadKind::TRAINING || workload.kind == WorkloadKind::CHAKRA;
    }
};

/// One job of `jobs`: its own resolved run (its servers, transport and workload) and its place.
struct JobConfig
{
    std::string name;
    uint32_t servers{};
    JobPlacement placement{};
    double startMs{};
    RunConfig run; //!< the job as a run of its own (run.topology.servers = servers)
    std::vector<uint32_t> serverIds; //!< the cluster's servers it runs on, ascending
};

/// Validate a scenario and resolve it into its runs (one, or one per `compare` entry).
std::vector<RunConfig> ResolveScenario(const nlohmann::json& scenario);

/// Load a scenario file. Throws ScenarioError on a missing, unreadable or malformed file.
nlohmann::json LoadScenarioFile(const std::string& path);

/// Parse a scenario's JSON text as LoadScenarioFile does; `origin` names it in errors.
nlohmann::json ParseScenarioText(const std::string& text, const std::string& origin);

} // namespace aifabric

#endif

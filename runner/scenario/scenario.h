// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SCENARIO_H
#define AI_FABRIC_SCENARIO_H

#include "fabric-uec.h"
#include "scenario-edit.h"

#include "ns3/connection-matrix.h"
#include "ns3/flow-size-distribution.h"
#include "ns3/nstime.h"
#include "ns3/plugin-registry.h"
#include "ns3/transformer-workload.h"
#include "ns3/workload-graph.h"

#include <memory>
#include <nlohmann/json.hpp>
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
    std::string cdf{"websearch"}; //!< websearch, fb-hadoop, or a file of `bytes percent` lines
    double load{0.3};             //!< fraction of each host's line rate
    double durationMs{10};        //!< arrivals last this long (flows; background: the whole job)
    std::string pattern{"uniform"};
    ns3::FlowSizeDistribution sizes; //!< `cdf`, read once when the scenario is resolved
    uint32_t incastFanin{0};
    uint64_t incastBytes{500000};
    double incastPeriodUs{0};
};

struct JobConfig;

/// One fully resolved run of a scenario (defaults + file + --set + one compare entry).
struct RunConfig
{
    std::string name;
    uint32_t seed{1};
    std::string topologyKind; //!< a name in FabricTopologyRegistry (default: DefaultScenario)
    ns3::PluginKeyValues topologyKeys; //!< its own keys (topology.<kind>.*)
    uint32_t servers{16};
    uint32_t gpusPerServer{8};
    double linkGbps{400};
    double oversubscription{1};
    uint32_t leafRadix{64};
    uint32_t tiers{0};               //!< topology.tiers (rail-fat-tree; 0 = auto)
    double spineOversubscription{1}; //!< topology.spine_oversubscription
    uint32_t planes{1};              //!< topology.planes
    double hostCableM{3};
    double fabricCableM{50};
    std::string fabric; //!< a name in FabricRegistry (default: DefaultScenario)
    UecConfig uec;      //!< uec.* (fabric uec)
    bool pfc{true};
    //! resolved: a name in RdmaCongestionRegistry (fabric tcp, uec: what their stack runs)
    std::string congestionControl;
    ns3::PluginKeyValues congestionControlKeys; //!< its own keys (rdma.<name>.*)
    std::string lossRecovery; //!< a name in RdmaLossRecoveryRegistry (or the TCP stack's)
    double dropRate{0};
    nlohmann::json faultEvents = nlohmann::json::array(); //!< faults.events, validated
    double randomMtbfHours{0};                            //!< faults.random
    double randomRepairMs{1000};
    bool randomHostLinks{false};
    double convergenceMs{100};       //!< routing.convergence_ms
    bool valleyFree{true};           //!< routing.valley_free
    std::string loadBalancing;       //!< routing.load_balancing: a name in LoadBalancingRegistry
    double flowletGapUs{10};         //!< routing.flowlet_gap_us
    uint32_t qpsPerConnection{1};    //!< routing.qps_per_connection, resolved
    bool watchdog{false};            //!< pfc_watchdog.enabled
    double watchdogDetectionMs{200}; //!< pfc_watchdog.detection_ms
    double watchdogRestorationMs{200};
    double watchdogPollMs{100};
    std::string watchdogAction{"drop"};
    bool deadlockDetection{true}; //!< pfc_deadlock.enabled
    double deadlockThresholdMs{10};
    double deadlockPollMs{1};
    bool deadlockStop{true};
    uint32_t steps{3};
    double computeMs{82};
    std::string collective{"allreduce"};
    std::string algorithm;              //!< a name in CollectiveAlgorithmRegistry, resolved
    ns3::PluginKeyValues algorithmKeys; //!< its own keys (workload.<algorithm>.*)
    uint64_t bytes{64ULL << 20};
    uint32_t chunks{1};
    uint32_t buckets{1};
    uint32_t channels{1};
    double gpuHourUsd{12.29};
    double retransmitTimeoutMs{67.108864};
    uint32_t pathMtu{4096};
    uint32_t reorderThreshold{0}; //!< rdma.reorder_threshold (selective repeat)
    double maxSimSeconds{60};
    bool tcpHostCosts{true};
    std::string tcpStack{"linux"}; //!< linux (LinuxTcpStack) or ns3 (ns-3's TCP)
    bool tcpTlp{true};
    bool tcpRack{true};
    uint32_t tcpSocketsPerPeer{1};
    uint32_t tcpThreads{1};
    uint32_t tcpCores{4};
    double ibRxBufferKib{128};
    double ibFecnThresholdKib{16};
    bool sharp{false}; //!< infiniband.sharp: SHARP aggregation nodes in the switches
    std::string workloadKind{"collective"}; //!< collective, flows, matrix, training or chakra
    std::string matrixFile; //!< workload.matrix (kind matrix), anchored to the scenario's folder
    std::shared_ptr<const ns3::ConnectionMatrix> matrix; //!< workload.matrix, read once
    double hopLatencyUs{0};    //!< topology.hop_latency_us (0: the cables' lengths decide)
    double switchLatencyUs{0}; //!< topology.switch_latency_us (with hop_latency_us)

    /// Flow traffic without GPUs' steps: workload.kind flows or matrix.
    bool IsFlowWorkload() const
    {
        return workloadKind == "flows" || workloadKind == "matrix";
    }

    FlowsConfig flows;           //!< workload.flows (kind flows)
    bool background{false};      //!< workload.background is set (kind collective)
    FlowsConfig backgroundFlows; //!< workload.background
    std::vector<std::pair<std::string, std::string>> attributes;
    nlohmann::json resolved; //!< the run's full configuration as JSON

    double maxMemoryGb{0}; //!< limits.max_memory_gb (0: the machine's memory)
    std::string gpuModel{"h100-sxm"};
    double nvlinkGBytesPerS{450};   //!< per GPU per direction (gpu.nvlink_gbytes_per_s or preset)
    bool pxn{false};                //!< workload.pxn
    bool nvls{true};                //!< the NVSwitch reduces (gpu.nvls or the preset)
    bool algorithmAuto{false};      //!< workload.algorithm was "auto" (the tuner chose it)
    std::string protocol{"simple"}; //!< NCCL protocol: simple, ll128, ll
    bool protocolAuto{false};       //!< workload.protocol was "auto" (the tuner chose it)
    bool channelsAuto{false};       //!< workload.channels was 0 (NCCL's count per algorithm)
    double peakTflops{989.4};       //!< gpu.peak_tflops or the preset's
    double computeEfficiency{0.55}; //!< gpu.compute_efficiency
    ns3::TransformerModel model;    //!< workload.kind training
    ns3::ParallelismConfig parallelism;
    std::string trace;                               //!< workload.trace (kind chakra)
    std::shared_ptr<const ns3::WorkloadGraph> graph; //!< kind chakra: the trace, read once
    std::vector<JobConfig> jobs;         //!< `jobs`: several jobs on this run's fabric (else empty)
    std::vector<std::string> jobFabrics; //!< the fabrics jobs run, once each, in registry order
    bool jobsBaselines{true}; //!< jobs_baselines: also run each job alone (and without each)

    uint32_t Gpus() const
    {
        return servers * gpusPerServer;
    }

    /// workload.kind training or chakra: a dependency graph run by ParallelTrainingJob.
    bool RunsGraph() const
    {
        return workloadKind == "training" || workloadKind == "chakra";
    }
};

/// One job of `jobs`: its own resolved run (its servers, transport and workload) and its place.
struct JobConfig
{
    std::string name;
    uint32_t servers{0};
    std::string placement{"contiguous"}; //!< contiguous, spread, rail-aligned or random
    double startMs{0};
    RunConfig run;                   //!< the job as a run of its own (run.servers = servers)
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

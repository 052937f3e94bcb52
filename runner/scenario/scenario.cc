// SPDX-License-Identifier: GPL-2.0-only
#include "scenario.h"

#include "fabric-registry.h"
#include "file-util.h"
#include "json-input.h"
#include "memory-estimate.h"
#include "scenario-fabric-checks.h"
#include "scenario-flows.h"
#include "scenario-jobs.h"
#include "scenario-plugins.h"
#include "scenario-rdma.h"
#include "scenario-schema.h"
#include "scenario-times.h"
#include "scenario-training.h"
#include "scenario-tuning.h"
#include "scenario-validation.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

namespace aifabric
{

using nlohmann::json;

namespace
{

/**
 * The TCP algorithm an attribute selects, as the scenario's attributes or ns-3's default set it,
 * in the runner's spelling: "ns3::TcpCubic" -> "cubic", "ns3::TcpPrrRecovery" -> "prr".
 */
std::string
TopologyKey(const std::string& attribute)
{
    if (attribute == "Servers")
    {
        return "topology.servers";
    }
    if (attribute == "GpusPerServer")
    {
        return "topology.gpus_per_server";
    }
    if (attribute == "LinkRate" || attribute == "FabricLinkRate")
    {
        return "topology.link_gbps";
    }
    if (attribute == "Oversubscription")
    {
        return "topology.oversubscription";
    }
    if (attribute == "LeafRadix" || attribute == "K" || attribute == "Spines" ||
        attribute == "SpineRadix")
    {
        return "topology.leaf_radix";
    }
    if (attribute == "Tiers" || attribute == "Planes")
    {
        return attribute == "Tiers" ? "topology.tiers" : "topology.planes";
    }
    if (attribute == "SpineOversubscription")
    {
        return "topology.spine_oversubscription";
    }
    return "topology";
}

/**
 * When not even one server fits the leaf radix, the radix is what is wrong: throw naming
 * topology.leaf_radix and the smallest radix that holds the requested servers.
 */
void
BlameRadixWhenNoServerFits(ns3::Ptr<ns3::FabricTopologyHelper> h, const RunConfig& r)
{
    auto fits = [&](uint32_t servers, uint32_t radix) {
        h->SetAttribute("Servers", ns3::UintegerValue(servers));
        h->SetAttribute("LeafRadix", ns3::UintegerValue(radix));
        try
        {
            h->Validate();
            return true;
        }
        catch (const ns3::FabricConfigError&)
        {
            return false;
        }
    };
    const bool oneFits = fits(1, r.leafRadix);
    uint32_t minRadix = 0;
    for (uint32_t radix = r.leafRadix + 1; !oneFits && radix <= 4096 && !minRadix; ++radix)
    {
        minRadix = fits(r.servers, radix) ? radix : 0;
    }
    h->SetAttribute("Servers", ns3::UintegerValue(r.servers));
    h->SetAttribute("LeafRadix", ns3::UintegerValue(r.leafRadix));
    if (minRadix)
    {
        throw ScenarioError("topology.leaf_radix: must be >= " + std::to_string(minRadix) +
                            " and <= 4096 for " + std::to_string(r.servers) + " servers of " +
                            std::to_string(r.gpusPerServer) + " GPUs at oversubscription " +
                            ns3::DoubleValue(r.oversubscription).SerializeToString(nullptr) +
                            " (got " + std::to_string(r.leafRadix) + ")");
    }
}

RunConfig
ToRun(const json& j, size_t index)
{
    RunConfig r;
    r.resolved = j;
    r.name = j.value("name", std::string("run") + std::to_string(index));
    r.seed = j["seed"].get<uint32_t>();
    const json& t = j["topology"];
    r.topologyKind = t["kind"];
    ResolveTopology(j, r);
    r.servers = t["servers"];
    r.gpusPerServer = t["gpus_per_server"];
    r.linkGbps = t["link_gbps"];
    r.oversubscription = t["oversubscription"];
    r.leafRadix = t["leaf_radix"];
    r.tiers = t["tiers"];
    r.spineOversubscription = t["spine_oversubscription"];
    r.planes = t["planes"];
    r.hostCableM = t["host_cable_m"];
    r.fabricCableM = t["fabric_cable_m"];
    r.hopLatencyUs = t["hop_latency_us"];
    r.switchLatencyUs = t["switch_latency_us"];
    r.fabric = j["fabric"];
    r.pfc = j["pfc"];
    for (auto it = j["attributes"].begin(); it != j["attributes"].end(); ++it)
    {
        r.attributes.emplace_back(it.key(),
                                  it.value().is_string() ? it.value().get<std::string>()
                                                         : it.value().dump());
    }
    ResolveCongestionControl(j, r);
    ResolveRdma(j, r);
    // Every fabric's own keys (tcp.*, infiniband.*, uec.*), whatever the run's fabric.
    ResolveFabrics(j, r);
    r.dropRate = j["faults"]["drop_rate"];
    r.faultEvents = j["faults"]["events"];
    r.randomMtbfHours = j["faults"]["random"]["mtbf_hours"];
    r.randomRepairMs = j["faults"]["random"]["repair_ms"];
    r.randomHostLinks = j["faults"]["random"]["host_links"];
    r.convergenceMs = j["routing"]["convergence_ms"];
    r.valleyFree = j["routing"]["valley_free"];
    r.loadBalancing = j["routing"]["load_balancing"];
    r.flowletGapUs = j["routing"]["flowlet_gap_us"];
    r.qpsPerConnection = j["routing"]["qps_per_connection"];
    if (r.qpsPerConnection == 0)
    {
        r.qpsPerConnection = ns3::LoadBalancingRegistry::Find(r.loadBalancing)->qpsPerConnection;
    }
    r.watchdog = j["pfc_watchdog"]["enabled"];
    r.watchdogDetectionMs = j["pfc_watchdog"]["detection_ms"];
    r.watchdogRestorationMs = j["pfc_watchdog"]["restoration_ms"];
    r.watchdogPollMs = j["pfc_watchdog"]["poll_ms"];
    r.watchdogAction = j["pfc_watchdog"]["action"];
    r.deadlockDetection = j["pfc_deadlock"]["enabled"];
    r.deadlockThresholdMs = j["pfc_deadlock"]["threshold_ms"];
    r.deadlockPollMs = j["pfc_deadlock"]["poll_ms"];
    r.deadlockStop = j["pfc_deadlock"]["stop"];
    const json& w = j["workload"];
    r.workloadKind = w["kind"];
    if (r.workloadKind == "flows")
    {
        r.flows = ToFlows(w["flows"], "workload.flows");
    }
    if (r.workloadKind == "matrix")
    {
        r.matrixFile = w["matrix"];
        r.matrix = LoadMatrix(r.matrixFile);
    }
    if (w.contains("background"))
    {
        if (r.IsFlowWorkload())
        {
            throw ScenarioError("workload.background: flow traffic beside a training job needs "
                                "workload.kind collective (with kind " +
                                r.workloadKind + ", the workload is flow traffic already)");
        }
        json b = FlowsDefaults(false);
        MergeScenario(b, w["background"]);
        r.resolved["workload"]["background"] = b;
        r.background = true;
        r.backgroundFlows = ToFlows(b, "workload.background");
    }
    r.steps = w["steps"];
    r.computeMs = w["compute_ms"];
    r.collective = w["collective"];
    r.algorithm = w["algorithm"];
    r.bytes = w["bytes"].get<uint64_t>();
    r.chunks = w["chunks"];
    r.buckets = w["buckets"];
    r.channels = w["channels"];
    r.gpuHourUsd = j["cost"]["gpu_hour_usd"];
    r.maxSimSeconds = j["limits"]["max_sim_seconds"];
    r.maxMemoryGb = j["limits"]["max_memory_gb"];
    r.gpuModel = j["gpu"]["model"];
    // NVLink per direction: H100 SXM NVLink4 900 GB/s bidirectional (datasheet), A100 SXM
    // NVLink3 600, B200 NVLink5 1.8 TB/s.
    r.nvlinkGBytesPerS = j["gpu"]["nvlink_gbytes_per_s"];
    if (r.nvlinkGBytesPerS <= 0)
    {
        r.nvlinkGBytesPerS = r.gpuModel == "a100-sxm"                              ? 300
                             : r.gpuModel == "b200" || r.gpuModel == "gb200-nvl72" ? 900
                                                                                   : 450;
        r.resolved["gpu"]["nvlink_gbytes_per_s"] = r.nvlinkGBytesPerS;
    }
    // NVLS (NVLink SHARP) needs NVSwitch gen 3: H100 (Hopper) and later, not A100.
    const std::string nvls = j["gpu"]["nvls"];
    r.nvls = nvls == "auto" ? r.gpuModel != "a100-sxm" : nvls == "on";
    r.resolved["gpu"]["nvls"] = r.nvls ? "on" : "off";
    r.pxn = j["workload"]["pxn"];
    ResolveTraining(j, r);
    r.protocol = w["protocol"];
    CheckSharpTopology(r);
    if (r.algorithm != "auto")
    {
        // The named algorithm's own check, as registered beside its class (collnet needs
        // SHARP, nvls a server's NVLink SHARP, pat implements allgather and reducescatter).
        ResolveAlgorithmKeys(j, r);
        CheckAlgorithm(r);
    }
    // Every duration and rate ns-3 will hold (before the tuner computes with them).
    CheckTimesAndRates(r);
    if (r.algorithm == "auto" || r.protocol == "auto")
    {
        r.algorithmAuto = r.algorithm == "auto";
        r.protocolAuto = r.protocol == "auto";
        std::tie(r.algorithm, r.protocol) = TunedAlgorithmAndProtocol(r);
        r.resolved["workload"]["algorithm"] = r.algorithm;
        r.resolved["workload"]["protocol"] = r.protocol;
    }
    if (r.algorithmAuto)
    {
        ResolveAlgorithmKeys(j, r);
    }
    if (r.channels == 0)
    {
        r.channelsAuto = true;
        r.channels = AutoChannels(r.algorithm, r.gpusPerServer);
        r.resolved["workload"]["channels"] = r.channels;
    }
    // Cross-field checks, then the run's fabric's own.
    CheckFabricFields(r);
    if (const FabricInfo& f = FabricOf(r); f.finish)
    {
        f.finish(r);
    }
    if (r.gpuModel == "gb200-nvl72" && r.gpusPerServer != 72)
    {
        throw ScenarioError("gpu.model: gb200-nvl72 is 72 GPUs in one NVLink domain: "
                            "topology.gpus_per_server must be 72 (got " +
                            std::to_string(r.gpusPerServer) + ")");
    }
    if (uint64_t(r.servers) * r.gpusPerServer > 65536)
    {
        throw ScenarioError("topology.servers: servers x gpus_per_server must be <= 65536 (got " +
                            std::to_string(uint64_t(r.servers) * r.gpusPerServer) + ")");
    }
    // Topology parameters, through the helper's own validation (nothing is built).
    ns3::Ptr<ns3::FabricTopologyHelper> h = TopologyOf(r).create(TopologyParamsOf(r));
    if (const FabricInfo& f = FabricOf(r); f.configure)
    {
        f.configure(r, *h); // IB's link layer changes what the helper accepts
    }
    h->SetAttribute("Servers", ns3::UintegerValue(r.servers));
    h->SetAttribute("GpusPerServer", ns3::UintegerValue(r.gpusPerServer));
    h->SetAttribute("LinkRate", ns3::DataRateValue(ns3::DataRate(uint64_t(r.linkGbps * 1e9))));
    try
    {
        h->Validate();
    }
    catch (const ns3::FabricConfigError& e)
    {
        ns3::TypeId::AttributeInformation radix;
        if (e.GetParameter() == "Servers" &&
            h->GetInstanceTypeId().LookupAttributeByName("LeafRadix", &radix))
        {
            BlameRadixWhenNoServerFits(h, r);
        }
        throw ScenarioError(TopologyKey(e.GetParameter()) + ": " + e.what());
    }
    for (const auto& [on, f, key] :
         {std::make_tuple(r.IsFlowWorkload(), r.flows, "workload.flows"),
          std::make_tuple(r.background, r.backgroundFlows, "workload.background")})
    {
        if (on && f.incastFanin >= r.Gpus())
        {
            throw ScenarioError(std::string(key) +
                                ".incast.fanin: must be below the number of "
                                "hosts, " +
                                std::to_string(r.Gpus()) + " (got " +
                                std::to_string(f.incastFanin) + ")");
        }
        if (on && r.Gpus() < 2)
        {
            throw ScenarioError(std::string(key) + ": flows need at least two hosts "
                                                   "(topology.servers x gpus_per_server)");
        }
    }
    if (r.matrix && r.matrix->GetNodes() != r.Gpus())
    {
        throw ScenarioError("workload.matrix: the matrix has Nodes " +
                            std::to_string(r.matrix->GetNodes()) + " but the topology has " +
                            std::to_string(r.Gpus()) +
                            " hosts (topology.servers x gpus_per_server must match)");
    }
    CheckMemory(r);
    return r;
}

/// ToRun, and with `jobs` each job resolved and placed (the cluster itself is resolved with the
/// default workload: the scenario's workload is what every job's merges over).
RunConfig
ToRunWithJobs(const json& j, size_t index)
{
    if (!j.contains("jobs") || j["jobs"].empty())
    {
        return ToRun(j, index);
    }
    json cluster = j;
    cluster.erase("jobs");
    cluster.erase("jobs_baselines");
    cluster["workload"] = DefaultScenario()["workload"];
    RunConfig c = ToRun(cluster, index);
    c.resolved["workload"] = j["workload"]; // what the jobs' workloads merge over
    ResolveJobs(j, c, [](const json& jj) { return ToRun(jj, 0); });
    c.resolved["jobs"] = json::array();
    for (const auto& job : c.jobs)
    {
        json e = job.run.resolved["workload"];
        c.resolved["jobs"].push_back(json{{"name", job.name},
                                          {"servers", job.servers},
                                          {"placement", job.placement},
                                          {"start_ms", job.startMs},
                                          {"fabric", job.run.fabric},
                                          {"server_ids", job.serverIds},
                                          {"workload", e}});
    }
    c.resolved["jobs_baselines"] = c.jobsBaselines;
    return c;
}

} // namespace

std::vector<RunConfig>
ResolveScenario(const json& scenario)
{
    if (!scenario.is_object())
    {
        throw ScenarioError("scenario: must be a JSON object");
    }
    Validate(scenario, "", true);
    json base = DefaultScenario();
    json top = scenario;
    top.erase("compare");
    MergeScenario(base, top);
    std::vector<RunConfig> runs;
    if (!scenario.contains("compare") || scenario["compare"].empty())
    {
        runs.push_back(ToRunWithJobs(base, 0));
        return runs;
    }
    size_t i = 0;
    for (const auto& over : scenario["compare"])
    {
        json j = base;
        MergeScenario(j, over);
        if (!over.contains("name"))
        {
            j["name"] = base.value("name", std::string("run")) + "-" + std::to_string(i);
        }
        try
        {
            runs.push_back(ToRunWithJobs(j, i));
        }
        catch (const ScenarioError& e)
        {
            // Which of the runs a --set broke (the default scenario has five).
            throw ScenarioError(std::string(e.what()) + " [in compare[" + std::to_string(i) +
                                "] '" + EchoText(j["name"].get<std::string>()) + "']");
        }
        ++i;
    }
    for (size_t a = 0; a < runs.size(); ++a)
    {
        for (size_t b = a + 1; b < runs.size(); ++b)
        {
            if (runs[a].name == runs[b].name)
            {
                throw ScenarioError("compare[" + std::to_string(b) + "].name: '" +
                                    EchoText(runs[b].name) +
                                    "' is used twice; names must be unique");
            }
        }
    }
    return runs;
}

json
LoadScenarioFile(const std::string& path)
{
    std::string text;
    try
    {
        text = ReadInputFile(path);
    }
    catch (const std::runtime_error& e)
    {
        throw ScenarioError(
            "scenario file '" + EchoText(path) + "': " + e.what() +
            (std::filesystem::is_directory(path) ? "; give a scenario JSON file" : ""));
    }
    json j = ParseScenarioText(text, "scenario file '" + EchoText(path) + "'");
    // Files a scenario names (a Chakra trace, a connection matrix) are found beside it,
    // wherever the runner runs.
    AnchorScenarioPaths(j, std::filesystem::absolute(path).parent_path().string());
    return j;
}

json
ParseScenarioText(const std::string& text, const std::string& origin)
{
    return ParseJsonInput<json>(text, origin);
}

} // namespace aifabric

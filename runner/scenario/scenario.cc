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
    const bool oneFits = fits(1, r.topology.leafRadix);
    uint32_t minRadix = 0;
    for (uint32_t radix = r.topology.leafRadix + 1; !oneFits && radix <= 4096 && !minRadix; ++radix)
    {
        minRadix = fits(r.topology.servers, radix) ? radix : 0;
    }
    h->SetAttribute("Servers", ns3::UintegerValue(r.topology.servers));
    h->SetAttribute("LeafRadix", ns3::UintegerValue(r.topology.leafRadix));
    if (minRadix)
    {
        throw ScenarioError(
            "topology.leaf_radix: must be >= " + std::to_string(minRadix) + " and <= 4096 for " +
            std::to_string(r.topology.servers) + " servers of " +
            std::to_string(r.topology.gpusPerServer) + " GPUs at oversubscription " +
            ns3::DoubleValue(r.topology.oversubscription).SerializeToString(nullptr) + " (got " +
            std::to_string(r.topology.leafRadix) + ")");
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
    r.topology.kind = t["kind"];
    ResolveTopology(j, r);
    r.topology.servers = t["servers"];
    r.topology.gpusPerServer = t["gpus_per_server"];
    r.topology.linkGbps = t["link_gbps"];
    r.topology.oversubscription = t["oversubscription"];
    r.topology.leafRadix = t["leaf_radix"];
    r.topology.tiers = t["tiers"];
    r.topology.spineOversubscription = t["spine_oversubscription"];
    r.topology.planes = t["planes"];
    r.topology.hostCableM = t["host_cable_m"];
    r.topology.fabricCableM = t["fabric_cable_m"];
    r.topology.hopLatencyUs = t["hop_latency_us"];
    r.topology.switchLatencyUs = t["switch_latency_us"];
    r.fabric.name = j["fabric"];
    r.fabric.pfc = j["pfc"];
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
    r.faults.dropRate = j["faults"]["drop_rate"];
    r.faults.events = j["faults"]["events"];
    r.faults.random.mtbfHours = j["faults"]["random"]["mtbf_hours"];
    r.faults.random.repairMs = j["faults"]["random"]["repair_ms"];
    r.faults.random.hostLinks = j["faults"]["random"]["host_links"];
    r.routing.convergenceMs = j["routing"]["convergence_ms"];
    r.routing.valleyFree = j["routing"]["valley_free"];
    r.routing.loadBalancing = j["routing"]["load_balancing"];
    r.routing.flowletGapUs = j["routing"]["flowlet_gap_us"];
    r.routing.qpsPerConnection = j["routing"]["qps_per_connection"];
    if (r.routing.qpsPerConnection == 0)
    {
        r.routing.qpsPerConnection =
            ns3::LoadBalancingRegistry::Find(r.routing.loadBalancing)->qpsPerConnection;
    }
    r.pfcWatchdog.enabled = j["pfc_watchdog"]["enabled"];
    r.pfcWatchdog.detectionMs = j["pfc_watchdog"]["detection_ms"];
    r.pfcWatchdog.restorationMs = j["pfc_watchdog"]["restoration_ms"];
    r.pfcWatchdog.pollMs = j["pfc_watchdog"]["poll_ms"];
    r.pfcWatchdog.action = j["pfc_watchdog"]["action"];
    r.pfcDeadlock.enabled = j["pfc_deadlock"]["enabled"];
    r.pfcDeadlock.thresholdMs = j["pfc_deadlock"]["threshold_ms"];
    r.pfcDeadlock.pollMs = j["pfc_deadlock"]["poll_ms"];
    r.pfcDeadlock.stop = j["pfc_deadlock"]["stop"];
    const json& w = j["workload"];
    r.workload.kind = w["kind"];
    if (r.workload.kind == WorkloadKind::FLOWS)
    {
        r.workload.flows = ToFlows(w["flows"], "workload.flows");
    }
    if (r.workload.kind == WorkloadKind::MATRIX)
    {
        r.workload.matrixFile = w["matrix"];
        r.workload.matrix = LoadMatrix(r.workload.matrixFile);
    }
    if (w.contains("background"))
    {
        if (r.IsFlowWorkload())
        {
            throw ScenarioError(std::string("workload.background: flow traffic beside a "
                                            "training job needs workload.kind collective (with "
                                            "kind ") +
                                NameOf(r.workload.kind) +
                                ", the workload is flow traffic already)");
        }
        json b = FlowsDefaults(false);
        MergeScenario(b, w["background"]);
        r.resolved["workload"]["background"] = b;
        r.workload.background = ToFlows(b, "workload.background");
    }
    r.workload.steps = w["steps"];
    r.workload.computeMs = w["compute_ms"];
    ns3::CollectiveSpec::OpByName(w["collective"].get<std::string>(), r.workload.collective);
    r.workload.algorithm = w["algorithm"];
    r.workload.bytes = w["bytes"].get<uint64_t>();
    r.workload.chunks = w["chunks"];
    r.workload.buckets = w["buckets"];
    r.workload.channels = w["channels"];
    r.cost.gpuHourUsd = j["cost"]["gpu_hour_usd"];
    r.limits.maxSimSeconds = j["limits"]["max_sim_seconds"];
    r.limits.maxMemoryGb = j["limits"]["max_memory_gb"];
    r.simulation.partitionOrder = j["simulation"]["event_order"] == "partition";
    r.gpu.model = j["gpu"]["model"];
    // NVLink per direction: H100 SXM NVLink4 900 GB/s bidirectional (datasheet), A100 SXM
    // NVLink3 600, B200 NVLink5 1.8 TB/s.
    r.gpu.nvlinkGBytesPerS = j["gpu"]["nvlink_gbytes_per_s"];
    if (r.gpu.nvlinkGBytesPerS <= 0)
    {
        r.gpu.nvlinkGBytesPerS =
            r.gpu.model == GpuModel::A100_SXM                                       ? 300
            : r.gpu.model == GpuModel::B200 || r.gpu.model == GpuModel::GB200_NVL72 ? 900
                                                                                    : 450;
        r.resolved["gpu"]["nvlink_gbytes_per_s"] = r.gpu.nvlinkGBytesPerS;
    }
    // NVLS (NVLink SHARP) needs NVSwitch gen 3: H100 (Hopper) and later, not A100.
    const std::string nvls = j["gpu"]["nvls"];
    r.gpu.nvls = nvls == "auto" ? r.gpu.model != GpuModel::A100_SXM : nvls == "on";
    r.resolved["gpu"]["nvls"] = r.gpu.nvls ? "on" : "off";
    r.workload.pxn = j["workload"]["pxn"];
    ResolveTraining(j, r);
    // "auto" leaves the protocol to the tuner, below.
    const std::string protocol = w["protocol"];
    r.workload.protocolAuto = protocol == "auto";
    ns3::CollectiveProtocol::ByName(protocol, r.workload.protocol);
    CheckSharpTopology(r);
    if (r.workload.algorithm != "auto")
    {
        // The named algorithm's own check, as registered beside its class (collnet needs
        // SHARP, nvls a server's NVLink SHARP, pat implements allgather and reducescatter).
        ResolveAlgorithmKeys(j, r);
        CheckAlgorithm(r);
    }
    // Every duration and rate ns-3 will hold (before the tuner computes with them).
    CheckTimesAndRates(r);
    if (r.workload.algorithm == "auto" || r.workload.protocolAuto)
    {
        r.workload.algorithmAuto = r.workload.algorithm == "auto";
        std::tie(r.workload.algorithm, r.workload.protocol) = TunedAlgorithmAndProtocol(r);
        r.resolved["workload"]["algorithm"] = r.workload.algorithm;
        r.resolved["workload"]["protocol"] = ns3::CollectiveProtocol::Name(r.workload.protocol);
    }
    if (r.workload.algorithmAuto)
    {
        ResolveAlgorithmKeys(j, r);
    }
    if (r.workload.channels == 0)
    {
        r.workload.channelsAuto = true;
        r.workload.channels = AutoChannels(r.workload.algorithm, r.topology.gpusPerServer);
        r.resolved["workload"]["channels"] = r.workload.channels;
    }
    // Cross-field checks, then the run's fabric's own.
    CheckFabricFields(r);
    if (const FabricInfo& f = FabricOf(r); f.finish)
    {
        f.finish(r);
    }
    if (r.gpu.model == GpuModel::GB200_NVL72 && r.topology.gpusPerServer != 72)
    {
        throw ScenarioError("gpu.model: gb200-nvl72 is 72 GPUs in one NVLink domain: "
                            "topology.gpus_per_server must be 72 (got " +
                            std::to_string(r.topology.gpusPerServer) + ")");
    }
    if (uint64_t(r.topology.servers) * r.topology.gpusPerServer > 65536)
    {
        throw ScenarioError(
            "topology.servers: servers x gpus_per_server must be <= 65536 (got " +
            std::to_string(uint64_t(r.topology.servers) * r.topology.gpusPerServer) + ")");
    }
    // Topology parameters, through the helper's own validation (nothing is built).
    ns3::Ptr<ns3::FabricTopologyHelper> h = TopologyOf(r).create(TopologyParamsOf(r));
    if (const FabricInfo& f = FabricOf(r); f.configure)
    {
        f.configure(r, *h); // IB's link layer changes what the helper accepts
    }
    h->SetAttribute("Servers", ns3::UintegerValue(r.topology.servers));
    h->SetAttribute("GpusPerServer", ns3::UintegerValue(r.topology.gpusPerServer));
    h->SetAttribute("LinkRate",
                    ns3::DataRateValue(ns3::DataRate(uint64_t(r.topology.linkGbps * 1e9))));
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
    const FlowsConfig* flows = r.IsFlowWorkload() ? &r.workload.flows : nullptr;
    const FlowsConfig* background = r.workload.background ? &*r.workload.background : nullptr;
    for (const auto& [f, key] : {std::make_pair(flows, "workload.flows"),
                                 std::make_pair(background, "workload.background")})
    {
        if (f && f->incastFanin >= r.Gpus())
        {
            throw ScenarioError(std::string(key) +
                                ".incast.fanin: must be below the number of "
                                "hosts, " +
                                std::to_string(r.Gpus()) + " (got " +
                                std::to_string(f->incastFanin) + ")");
        }
        if (f && r.Gpus() < 2)
        {
            throw ScenarioError(std::string(key) + ": flows need at least two hosts "
                                                   "(topology.servers x gpus_per_server)");
        }
    }
    if (r.workload.matrix && r.workload.matrix->GetNodes() != r.Gpus())
    {
        throw ScenarioError("workload.matrix: the matrix has Nodes " +
                            std::to_string(r.workload.matrix->GetNodes()) +
                            " but the topology has " + std::to_string(r.Gpus()) +
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
                                          {"fabric", job.run.fabric.name},
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

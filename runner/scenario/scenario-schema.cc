// SPDX-License-Identifier: GPL-2.0-only
// The schema: one table of every scenario key with its type, range, help and default (what
// --help prints, what validation reads and what DefaultScenario() is made of). The workload.*
// keys are in scenario-schema-workload.cc, a fabric's in its runner/fabric/ file; the plug-ins'
// own keys and the values of the keys that select a plug-in come from their registries
// (scenario-plugins.cc).
#include "scenario-schema.h"

#include "fabric-registry.h"
#include "scenario-plugins.h"
#include "scenario-schema-workload.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

namespace aifabric
{

using nlohmann::json;

namespace
{

size_t
Distance(const std::string& a, const std::string& b)
{
    std::vector<size_t> prev(b.size() + 1);
    std::vector<size_t> cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
    {
        prev[j] = j;
    }
    for (size_t i = 1; i <= a.size(); ++i)
    {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
        {
            cur[j] = std::min(
                {prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::string
FormatNumber(double v)
{
    std::ostringstream os;
    if (std::floor(v) == v && std::fabs(v) < 1e18)
    {
        os << static_cast<long long>(v);
    }
    else
    {
        os << v;
    }
    return os.str();
}

} // namespace

KeySpec
IntKey(const char* path, Bound lo, Bound hi, const char* help)
{
    return {path, Kind::INT, lo.value, hi.value, lo.exclusive, hi.exclusive, {}, help};
}

KeySpec
NumKey(const char* path, Bound lo, Bound hi, const char* help)
{
    return {path, Kind::NUM, lo.value, hi.value, lo.exclusive, hi.exclusive, {}, help};
}

KeySpec
BoolKey(const char* path, const char* help)
{
    return {path, Kind::BOOL, 0, 0, false, false, {}, help};
}

KeySpec
TextKey(const char* path, double minBytes, double maxBytes, const char* help)
{
    return {path, Kind::STR, minBytes, maxBytes, false, false, {}, help};
}

KeySpec
ChoiceKey(const char* path, std::vector<std::string> values, const char* help)
{
    return {path, Kind::ENUM, 0, 0, false, false, std::move(values), help};
}

KeySpec
ObjectKey(const char* path, const char* help)
{
    return {path, Kind::OBJ, 0, 0, false, false, {}, help};
}

KeySpec
ListKey(const char* path, const char* help)
{
    return {path, Kind::ARR, 0, 0, false, false, {}, help};
}

const std::vector<KeySpec>&
Schema()
{
    static const std::vector<KeySpec> s = [] {
        std::vector<KeySpec> s = {
            TextKey("name", 0, 100, "label of the run, at most 100 bytes").Default("run"),
            IntKey("seed", AtLeast(1), AtMost(2147483647), "random seed").Default(1),
            ObjectKey("topology", "the fabric"),
            ChoiceKey("topology.kind", TopologyValues(), TopologyHelp()).Default("rail-fat-tree"),
            IntKey("topology.servers", AtLeast(1), AtMost(1048576), "servers").Default(16),
            IntKey("topology.gpus_per_server", AtLeast(1), AtMost(72), "GPUs (and NICs) per server")
                .Default(8),
            NumKey("topology.link_gbps", Above(0), AtMost(100000), "link rate, Gb/s").Default(400),
            NumKey("topology.oversubscription", AtLeast(1), AtMost(64), "leaf down:up ratio")
                .Default(1),
            IntKey("topology.leaf_radix", AtLeast(2), AtMost(4096), "ports per switch").Default(64),
            IntKey(
                "topology.tiers",
                AtLeast(0),
                AtMost(3),
                "rail-fat-tree: 0 auto, 2 or 3; fat-tree: 0 or 2 leaf-spine, 3 the k-ary fat-tree "
                "(smallest even k with k^3/4 >= hosts, as htsim's)")
                .Default(0),
            NumKey("topology.hop_latency_us",
                   AtLeast(0),
                   AtMost(1000),
                   "a fixed latency per link, us, as htsim's -hop_latency (0: the cables' lengths "
                   "decide); > 0 also makes switches store-and-forward with switch_latency_us")
                .Default(0),
            NumKey("topology.switch_latency_us",
                   AtLeast(0),
                   AtMost(1000),
                   "with hop_latency_us: switches' port-to-port latency, us (htsim's "
                   "-switch_latency)")
                .Default(0),
            NumKey("topology.spine_oversubscription", AtLeast(1), AtMost(64), "spine down:up")
                .Default(1),
            IntKey(
                "topology.planes",
                AtLeast(1),
                AtMost(8),
                "rail-fat-tree planes: each NIC gets a port of link_gbps / planes in every plane "
                "(HPN's "
                "dual plane: 2)")
                .Default(1),
            NumKey("topology.host_cable_m", AtLeast(0), AtMost(100000), "NIC-leaf cable, m")
                .Default(3),
            NumKey("topology.fabric_cable_m", AtLeast(0), AtMost(100000), "switch-switch cable, m")
                .Default(50),
            ChoiceKey("fabric", FabricRegistry::Names(), FabricHelp()).Default(DefaultFabric()),
            BoolKey("pfc", "PFC on the lossless priority (Ethernet fabrics)").Default(true),
            ChoiceKey("congestion_control", CongestionControlValues(), CongestionControlHelp())
                .Default("auto"),
            ChoiceKey("loss_recovery", ns3::RdmaLossRecoveryRegistry::Names(), LossRecoveryHelp())
                .Default(ns3::DefaultLossRecovery()),
            ObjectKey("faults", "fault injection"),
            ListKey(
                "faults.events",
                "a fault timeline: {at_ms, link | switch | nic (names as ai-fabric topology --list "
                "prints), action, gbps, rate, period_ms, until_ms}")
                .Default(json::array()),
            NumKey("faults.events.at_ms", AtLeast(0), AtMost(1e9), "when, ms from the start"),
            TextKey("faults.events.link", 1, 200, "a link: 'leaf0-spine1'"),
            TextKey("faults.events.switch", 1, 200, "a switch: all of its links ('spine3')"),
            TextKey("faults.events.nic", 1, 200, "a GPU's NIC link ('gpu5')"),
            ChoiceKey(
                "faults.events.action",
                {"down", "up", "degrade", "loss", "flap", "pause-storm"},
                "down / up at both ends (routes reconverge routing.convergence_ms later), run at "
                "gbps, "
                "drop received data frames with probability rate, flap (down, up, ... every "
                "period_ms / 2 until until_ms), or pause-storm (the nic, the switch's ports or the "
                "link's `from` end pause their peers' priority without end, until until_ms if "
                "given)"),
            NumKey("faults.events.gbps", Above(0), AtMost(100000), "degrade: the new rate"),
            NumKey("faults.events.rate", AtLeast(0), Below(1), "loss: drop probability"),
            ChoiceKey(
                "faults.events.frames",
                {"data", "all"},
                "loss: data frames (data, ACKs, CNPs; the default) or every frame, PFC pauses too"),
            NumKey("faults.events.period_ms", Above(0), AtMost(1e9), "flap: one down+up cycle"),
            NumKey("faults.events.until_ms",
                   AtLeast(0),
                   AtMost(1e9),
                   "flap: last change by; pause-storm: when it ends"),
            TextKey("faults.events.from",
                    1,
                    200,
                    "pause-storm on a link: the end that storms (default: the link name's first); "
                    "degrade "
                    "on a link: slow only what this end transmits (default: both directions)"),
            BoolKey("faults.events.scale_queue",
                    "degrade: a slowed switch port's queue limit and ECN thresholds scale with its "
                    "rate, "
                    "as htsim's failed links (default false: the same bytes)"),
            IntKey("faults.events.priority",
                   AtLeast(0),
                   AtMost(7),
                   "pause-storm: the paused priority (default 3, RoCE's lossless class)"),
            ObjectKey("faults.random", "random link failures"),
            NumKey("faults.random.mtbf_hours",
                   AtLeast(0),
                   AtMost(1e9),
                   "mean time between failures of each link, hours (0: none)")
                .Default(0.0),
            NumKey("faults.random.repair_ms", Above(0), AtMost(1e9), "time to repair, ms")
                .Default(1000.0),
            BoolKey("faults.random.host_links",
                    "also the GPUs' NIC links (default: switch-switch links only)")
                .Default(false),
            ObjectKey("pfc_watchdog", "PFC watchdog on every switch port"),
            BoolKey("pfc_watchdog.enabled", "run it (SONiC pfcwd)").Default(false),
            NumKey("pfc_watchdog.detection_ms",
                   Above(0),
                   AtMost(1e6),
                   "a queue paused this long while holding frames is a storm (SONiC: 200)")
                .Default(200.0),
            NumKey("pfc_watchdog.restoration_ms",
                   Above(0),
                   AtMost(1e6),
                   "restore a stormed queue after no PAUSE for this long (SONiC: 200)")
                .Default(200.0),
            NumKey("pfc_watchdog.poll_ms", Above(0), AtMost(1e6), "how often it checks")
                .Default(100.0),
            ChoiceKey(
                "pfc_watchdog.action",
                NamesOf<PfcWatchdogAction>(),
                "on a storm: ignore PAUSEs and drop the queue (SONiC's default), ignore them and "
                "send, "
                "or only count")
                .Default(PfcWatchdogAction::DROP),
            ObjectKey("pfc_deadlock", "PFC deadlock detection"),
            BoolKey("pfc_deadlock.enabled", "search for cycles of paused switch queues")
                .Default(true),
            NumKey("pfc_deadlock.threshold_ms",
                   Above(0),
                   AtMost(1e6),
                   "queues in a cycle must have been paused this long")
                .Default(10.0),
            NumKey("pfc_deadlock.poll_ms", Above(0), AtMost(1e6), "how often it searches")
                .Default(1.0),
            BoolKey("pfc_deadlock.stop",
                    "end the run at a deadlock (only without the watchdog, which breaks deadlocks)")
                .Default(true),
            ObjectKey("routing", "route computation and failures"),
            NumKey("routing.convergence_ms",
                   AtLeast(0),
                   AtMost(1e6),
                   "from a link going down or up to every switch's routes reflecting it, ms (RFC "
                   "7938: "
                   "sub-second)")
                .Default(100.0),
            BoolKey(
                "routing.valley_free",
                "routes only up then down, as eBGP in a Clos (false: any shortest path over live "
                "links)")
                .Default(true),
            ChoiceKey("routing.load_balancing",
                      ns3::LoadBalancingRegistry::Names(),
                      LoadBalancingHelp())
                .Default(ns3::DefaultLoadBalancing()),
            NumKey("routing.flowlet_gap_us",
                   AtLeast(0),
                   AtMost(1e6),
                   "flowlet: a flow idle this long may move to another port, us")
                .Default(10.0),
            IntKey("routing.qps_per_connection",
                   AtLeast(0),
                   AtMost(64),
                   "queue pairs per connection, messages round robin (0: 4 with qp-ecmp, else 1)")
                .Default(0),
            NumKey(
                "faults.drop_rate",
                AtLeast(0),
                Below(1),
                "probability a frame a host NIC receives is lost (data, ACKs, CNPs, TCP; not PFC)")
                .Default(0.0),
        };
        for (KeySpec& k : WorkloadSchemaKeys())
        {
            s.push_back(std::move(k));
        }
        const std::vector<KeySpec> rest = {
            ObjectKey("gpu", "the GPUs"),
            ChoiceKey("gpu.model",
                      NamesOf<GpuModel>(),
                      "GPU preset: NVLink 450 / 300 / 900 / 900 GB/s per direction (gb200-nvl72: "
                      "72 GPUs in "
                      "one "
                      "NVLink domain, topology.gpus_per_server 72)")
                .Default(GpuModel::H100_SXM),
            NumKey("gpu.nvlink_gbytes_per_s",
                   AtLeast(0),
                   AtMost(100000),
                   "NVLink per GPU per direction, GB/s (0: the model's)")
                .Default(0),
            NumKey("gpu.peak_tflops",
                   AtLeast(0),
                   AtMost(1e6),
                   "dense BF16 TFLOP/s (0: the preset's: 989.4 H100, 312 A100, 2250 B200, 2500 "
                   "GB200)")
                .Default(0),
            NumKey("gpu.compute_efficiency",
                   Above(0),
                   AtMost(1),
                   "fraction of the peak a training kernel reaches (workload.kind training; an "
                   "assumption)")
                .Default(0.55),
            NumKey("gpu.hbm_tbytes_per_s",
                   AtLeast(0),
                   AtMost(1e4),
                   "HBM bandwidth, the optimizer step's rate (0: the preset's: 3.35 H100, 2.04 "
                   "A100, 8 "
                   "B200/GB200)")
                .Default(0),
            ChoiceKey(
                "gpu.nvls",
                {"auto", "on", "off"},
                "NVLink SHARP in the NVSwitch (auto: the preset's; h100-sxm, b200 and gb200-nvl72 "
                "have "
                "it)")
                .Default("auto"),
            BoolKey("workload.pxn",
                    "ring: the exit GPU sends over NVLink to the rail's GPU first (NCCL's PXN)")
                .Default(false),
            ObjectKey("cost", "money"),
            NumKey("cost.gpu_hour_usd", AtLeast(0), AtMost(1e6), "$ per GPU-hour").Default(12.29),
            ObjectKey("rdma", "RDMA NIC"),
            NumKey("rdma.retransmit_timeout_ms", Above(0), AtMost(1e6), "QP timeout, ms")
                .Default(67.108864),
            IntKey(
                "rdma.reorder_threshold",
                AtLeast(0),
                AtMost(1048576),
                "selective-repeat: resend a hole once a packet this many PSNs later arrived (0: at "
                "once, "
                "IRN; spraying reorders)")
                .Default(0),
            ChoiceKey("rdma.path_mtu", {"256", "512", "1024", "2048", "4096"}, "path MTU")
                .Default(4096),
            ObjectKey("limits", "run limits"),
            NumKey("limits.max_sim_seconds", Above(0), AtMost(1e6), "simulated-time cap")
                .Default(60),
            NumKey("limits.max_memory_gb",
                   AtLeast(0),
                   AtMost(1e6),
                   "refuse runs estimated above this (0: the machine's memory)")
                .Default(0),
            ObjectKey("simulation", "the simulator core"),
            ChoiceKey("simulation.event_order",
                      {"ns3", "partition"},
                      "order of events at equal times: ns3 (the order they were scheduled, "
                      "ns-3's) or partition (by scheduling node, the same on any number of MPI "
                      "ranks: FabricPartitionScheduler)")
                .Default("ns3"),
            ObjectKey("attributes", "ns-3 attribute defaults").Default(json::object()),
            ListKey("compare", "overrides run side by side"),
            ListKey(
                "jobs",
                "several jobs on this fabric, each on whole servers (its workload merges over the "
                "scenario's; topology and switch keys are the fabric's)"),
            TextKey("jobs.name", 0, 100, "the job's label (default jobN)"),
            IntKey("jobs.servers", AtLeast(1), AtMost(1048576), "servers of the job"),
            ChoiceKey("jobs.placement",
                      NamesOf<JobPlacement>(),
                      "which servers: the lowest free block, evenly over the free ones, a free "
                      "block from a "
                      "leaf group's first server, or random (seed)"),
            NumKey("jobs.start_ms", AtLeast(0), AtMost(1e7), "when the job starts, ms"),
            ChoiceKey("jobs.fabric",
                      FabricRegistry::Names(),
                      "the job's transport (default: the scenario's fabric; rocev2 and tcp share "
                      "Ethernet; "
                      "uec jobs run on a uec fabric only)"),
            ObjectKey("jobs.workload", "workload keys of this job"),
            BoolKey("jobs_baselines",
                    "with jobs: also run each job alone (and, with 3+ jobs, all but each) for "
                    "slowdowns"),
        };
        s.insert(s.end(), rest.begin(), rest.end());
        // The fabrics' own keys (infiniband.*, tcp.*, uec.*) after rdma.*, before limits.
        const std::vector<KeySpec> fabrics = FabricSchemaKeys();
        auto limits = std::find_if(s.begin(), s.end(), [](const KeySpec& k) {
            return std::string(k.path) == "limits";
        });
        s.insert(limits, fabrics.begin(), fabrics.end());
        for (KeySpec& k : PluginSchemaKeys())
        {
            s.push_back(std::move(k));
        }
        return s;
    }();
    return s;
}

const KeySpec*
FindKey(const std::string& path)
{
    for (const auto& k : Schema())
    {
        if (path == k.path)
        {
            return &k;
        }
    }
    return nullptr;
}

std::string
Suggest(const std::string& path)
{
    const std::string parent =
        path.find('.') == std::string::npos ? "" : path.substr(0, path.rfind('.'));
    std::vector<std::string> siblings;
    std::string allowed;
    for (const auto& k : Schema())
    {
        std::string p = k.path;
        std::string kp = p.find('.') == std::string::npos ? "" : p.substr(0, p.rfind('.'));
        if (kp == parent)
        {
            siblings.push_back(p);
            allowed +=
                (allowed.empty() ? "" : ", ") + p.substr(parent.empty() ? 0 : parent.size() + 1);
        }
    }
    size_t bestD = SIZE_MAX;
    const std::string best = ClosestKey(path, siblings, bestD);
    std::string s = "unknown key";
    if (!best.empty() && bestD <= std::max<size_t>(2, path.size() / 3))
    {
        s += " (did you mean '" + best + "'?)";
    }
    return s + "; allowed: " + allowed;
}

std::string
Range(const KeySpec& k)
{
    std::string s = std::string(k.minExclusive ? "> " : ">= ") + FormatNumber(k.min);
    if (k.max < 1e15)
    {
        s += std::string(" and ") + (k.maxExclusive ? "< " : "<= ") + FormatNumber(k.max);
    }
    return s;
}

std::string
Join(const std::vector<std::string>& v)
{
    std::string s;
    for (const auto& x : v)
    {
        s += (s.empty() ? "" : ", ") + x;
    }
    return s;
}

std::string
ClosestKey(const std::string& key, const std::vector<std::string>& candidates, size_t& distance)
{
    std::string best;
    distance = SIZE_MAX;
    for (const auto& c : candidates)
    {
        const size_t d = Distance(key, c);
        if (d < distance)
        {
            distance = d;
            best = c;
        }
    }
    return best;
}

json
FlowsDefaults(bool withDuration)
{
    json j = {{"cdf", "websearch"},
              {"load", 0.3},
              {"pattern", FlowsPattern::UNIFORM},
              {"incast", {{"fanin", 0}, {"bytes", 500000}, {"period_us", 0}}}};
    if (withDuration)
    {
        j["duration_ms"] = 10;
    }
    return j;
}

json
DefaultScenario()
{
    // Each key's default is stated once, beside its type, range and help (Schema()).
    json d = json::object();
    for (const KeySpec& k : Schema())
    {
        if (!k.defaultValue.is_null())
        {
            std::string pointer = "/" + std::string(k.path);
            std::replace(pointer.begin(), pointer.end(), '.', '/');
            d[json::json_pointer(pointer)] = k.defaultValue;
        }
    }
    return d;
}

std::string
SchemaHelp()
{
    std::ostringstream os;
    const json d = DefaultScenario();
    os << "Scenario keys (JSON; every key optional; --set key.path=value overrides):\n";
    for (const auto& k : Schema())
    {
        if (k.kind == Kind::OBJ || k.kind == Kind::ARR)
        {
            os << "  " << k.path << (k.kind == Kind::ARR ? "  (list)" : "  (object)") << ": "
               << k.help << "\n";
            continue;
        }
        os << "  " << k.path << ": " << k.help;
        if (k.kind == Kind::ENUM)
        {
            os << "; one of " << Join(k.values);
        }
        else if (k.kind == Kind::INT || k.kind == Kind::NUM)
        {
            os << "; " << Range(k);
        }
        json v = d;
        std::istringstream is(k.path);
        std::string part;
        bool found = true;
        while (std::getline(is, part, '.'))
        {
            if (!v.contains(part))
            {
                found = false;
                break;
            }
            v = v[part];
        }
        std::string pluginDefault;
        if (found)
        {
            os << " (default " << v.dump() << ")";
        }
        else if (PluginKeyDefault(k.path, pluginDefault))
        {
            os << " (default " << pluginDefault << ")";
        }
        os << "\n";
    }
    os << "  attributes.\"ns3::Type::Attribute\": any ns-3 attribute default, e.g.\n"
          "      \"attributes\": {\"ns3::SwitchBufferManager::EcnKmin\": \"100000\"}\n"
          "  compare: a list of override objects run one after the other, e.g.\n"
          "      \"compare\": [{\"name\": \"lossless\"}, {\"name\": \"lossy\", \"faults\": "
          "{\"drop_rate\": 1e-4}}]\n";
    return os.str();
}

} // namespace aifabric

// SPDX-License-Identifier: GPL-2.0-only
// One file over 600 lines: the schema is one table of every scenario key (what --help prints and
// what validation reads), with the defaults beside it. The workload.* keys are in
// scenario-schema-workload.cc, uec.* in scenario-uec.cc, the plug-ins' own keys and the values
// of the keys that select a plug-in come from their registries (scenario-plugins.cc).
#include "scenario-schema.h"

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

const std::vector<KeySpec>&
Schema()
{
    static const std::vector<KeySpec> s = [] {
        std::vector<KeySpec> s = {
            {"name", Kind::STR, 0, 100, false, false, {}, "label of the run, at most 100 bytes"},
            {"seed", Kind::INT, 1, 2147483647, false, false, {}, "random seed"},
            {"topology", Kind::OBJ, 0, 0, false, false, {}, "the fabric"},
            {"topology.kind", Kind::ENUM, 0, 0, false, false, TopologyValues(), TopologyHelp()},
            {"topology.servers", Kind::INT, 1, 1048576, false, false, {}, "servers"},
            {"topology.gpus_per_server",
             Kind::INT,
             1,
             72,
             false,
             false,
             {},
             "GPUs (and NICs) per server"},
            {"topology.link_gbps", Kind::NUM, 0, 100000, true, false, {}, "link rate, Gb/s"},
            {"topology.oversubscription", Kind::NUM, 1, 64, false, false, {}, "leaf down:up ratio"},
            {"topology.leaf_radix", Kind::INT, 2, 4096, false, false, {}, "ports per switch"},
            {"topology.tiers",
             Kind::INT,
             0,
             3,
             false,
             false,
             {},
             "rail-fat-tree: 0 auto, 2 or 3; fat-tree: 0 or 2 leaf-spine, 3 the k-ary fat-tree "
             "(smallest even k with k^3/4 >= hosts, as htsim's)"},
            {"topology.hop_latency_us",
             Kind::NUM,
             0,
             1000,
             false,
             false,
             {},
             "a fixed latency per link, us, as htsim's -hop_latency (0: the cables' lengths "
             "decide); > 0 also makes switches store-and-forward with switch_latency_us"},
            {"topology.switch_latency_us",
             Kind::NUM,
             0,
             1000,
             false,
             false,
             {},
             "with hop_latency_us: switches' port-to-port latency, us (htsim's -switch_latency)"},
            {"topology.spine_oversubscription",
             Kind::NUM,
             1,
             64,
             false,
             false,
             {},
             "spine down:up"},
            {"topology.planes",
             Kind::INT,
             1,
             8,
             false,
             false,
             {},
             "rail-fat-tree planes: each NIC gets a port of link_gbps / planes in every plane "
             "(HPN's "
             "dual plane: 2)"},
            {"topology.host_cable_m", Kind::NUM, 0, 100000, false, false, {}, "NIC-leaf cable, m"},
            {"topology.fabric_cable_m",
             Kind::NUM,
             0,
             100000,
             false,
             false,
             {},
             "switch-switch cable, m"},
            {"fabric",
             Kind::ENUM,
             0,
             0,
             false,
             false,
             {"rocev2", "infiniband", "tcp", "uec"},
             "transport (uec: Ultra Ethernet, see uec.*)"},
            {"pfc",
             Kind::BOOL,
             0,
             0,
             false,
             false,
             {},
             "PFC on the lossless priority (Ethernet fabrics)"},
            {"congestion_control",
             Kind::ENUM,
             0,
             0,
             false,
             false,
             CongestionControlValues(),
             CongestionControlHelp()},
            {"loss_recovery",
             Kind::ENUM,
             0,
             0,
             false,
             false,
             {"go-back-n", "selective-repeat"},
             "RDMA loss recovery"},
            {"faults", Kind::OBJ, 0, 0, false, false, {}, "fault injection"},
            {"faults.events",
             Kind::ARR,
             0,
             0,
             false,
             false,
             {},
             "a fault timeline: {at_ms, link | switch | nic (names as ai-fabric topology --list "
             "prints), action, gbps, rate, period_ms, until_ms}"},
            {"faults.events.at_ms", Kind::NUM, 0, 1e9, false, false, {}, "when, ms from the start"},
            {"faults.events.link", Kind::STR, 1, 200, false, false, {}, "a link: 'leaf0-spine1'"},
            {"faults.events.switch",
             Kind::STR,
             1,
             200,
             false,
             false,
             {},
             "a switch: all of its links ('spine3')"},
            {"faults.events.nic", Kind::STR, 1, 200, false, false, {}, "a GPU's NIC link ('gpu5')"},
            {"faults.events.action",
             Kind::ENUM,
             0,
             0,
             false,
             false,
             {"down", "up", "degrade", "loss", "flap", "pause-storm"},
             "down / up at both ends (routes reconverge routing.convergence_ms later), run at "
             "gbps, "
             "drop received data frames with probability rate, flap (down, up, ... every "
             "period_ms / 2 until until_ms), or pause-storm (the nic, the switch's ports or the "
             "link's `from` end pause their peers' priority without end, until until_ms if given)"},
            {"faults.events.gbps", Kind::NUM, 0, 100000, true, false, {}, "degrade: the new rate"},
            {"faults.events.rate", Kind::NUM, 0, 1, false, true, {}, "loss: drop probability"},
            {"faults.events.frames",
             Kind::ENUM,
             0,
             0,
             false,
             false,
             {"data", "all"},
             "loss: data frames (data, ACKs, CNPs; the default) or every frame, PFC pauses too"},
            {"faults.events.period_ms",
             Kind::NUM,
             0,
             1e9,
             true,
             false,
             {},
             "flap: one down+up cycle"},
            {"faults.events.until_ms",
             Kind::NUM,
             0,
             1e9,
             false,
             false,
             {},
             "flap: last change by; pause-storm: when it ends"},
            {"faults.events.from",
             Kind::STR,
             1,
             200,
             false,
             false,
             {},
             "pause-storm on a link: the end that storms (default: the link name's first); degrade "
             "on a link: slow only what this end transmits (default: both directions)"},
            {"faults.events.scale_queue",
             Kind::BOOL,
             0,
             0,
             false,
             false,
             {},
             "degrade: a slowed switch port's queue limit and ECN thresholds scale with its rate, "
             "as htsim's failed links (default false: the same bytes)"},
            {"faults.events.priority",
             Kind::INT,
             0,
             7,
             false,
             false,
             {},
             "pause-storm: the paused priority (default 3, RoCE's lossless class)"},
            {"faults.random", Kind::OBJ, 0, 0, false, false, {}, "random link failures"},
            {"faults.random.mtbf_hours",
             Kind::NUM,
             0,
             1e9,
             false,
             false,
             {},
             "mean time between failures of each link, hours (0: none)"},
            {"faults.random.repair_ms", Kind::NUM, 0, 1e9, true, false, {}, "time to repair, ms"},
            {"faults.random.host_links",
             Kind::BOOL,
             0,
             0,
             false,
             false,
             {},
             "also the GPUs' NIC links (default: switch-switch links only)"},
            {"pfc_watchdog",
             Kind::OBJ,
             0,
             0,
             false,
             false,
             {},
             "PFC watchdog on every switch port"},
            {"pfc_watchdog.enabled", Kind::BOOL, 0, 0, false, false, {}, "run it (SONiC pfcwd)"},
            {"pfc_watchdog.detection_ms",
             Kind::NUM,
             0,
             1e6,
             true,
             false,
             {},
             "a queue paused this long while holding frames is a storm (SONiC: 200)"},
            {"pfc_watchdog.restoration_ms",
             Kind::NUM,
             0,
             1e6,
             true,
             false,
             {},
             "restore a stormed queue after no PAUSE for this long (SONiC: 200)"},
            {"pfc_watchdog.poll_ms", Kind::NUM, 0, 1e6, true, false, {}, "how often it checks"},
            {"pfc_watchdog.action",
             Kind::ENUM,
             0,
             0,
             false,
             false,
             {"drop", "forward", "alert"},
             "on a storm: ignore PAUSEs and drop the queue (SONiC's default), ignore them and "
             "send, "
             "or only count"},
            {"pfc_deadlock", Kind::OBJ, 0, 0, false, false, {}, "PFC deadlock detection"},
            {"pfc_deadlock.enabled",
             Kind::BOOL,
             0,
             0,
             false,
             false,
             {},
             "search for cycles of paused switch queues"},
            {"pfc_deadlock.threshold_ms",
             Kind::NUM,
             0,
             1e6,
             true,
             false,
             {},
             "queues in a cycle must have been paused this long"},
            {"pfc_deadlock.poll_ms", Kind::NUM, 0, 1e6, true, false, {}, "how often it searches"},
            {"pfc_deadlock.stop",
             Kind::BOOL,
             0,
             0,
             false,
             false,
             {},
             "end the run at a deadlock (only without the watchdog, which breaks deadlocks)"},
            {"routing", Kind::OBJ, 0, 0, false, false, {}, "route computation and failures"},
            {"routing.convergence_ms",
             Kind::NUM,
             0,
             1e6,
             false,
             false,
             {},
             "from a link going down or up to every switch's routes reflecting it, ms (RFC 7938: "
             "sub-second)"},
            {"routing.valley_free",
             Kind::BOOL,
             0,
             0,
             false,
             false,
             {},
             "routes only up then down, as eBGP in a Clos (false: any shortest path over live "
             "links)"},
            {"routing.load_balancing",
             Kind::ENUM,
             0,
             0,
             false,
             false,
             {"ecmp", "qp-ecmp", "flowlet", "adaptive", "spray"},
             "how switches spread flows over equal-cost ports: 5-tuple hash per flow (InfiniBand: "
             "the subnet manager's LFT), the same with routing.qps_per_connection queue pairs per "
             "connection, a random port per flowlet, the least-queued port per packet, or a random "
             "port per packet (the last two reorder: use loss_recovery selective-repeat)"},
            {"routing.flowlet_gap_us",
             Kind::NUM,
             0,
             1e6,
             false,
             false,
             {},
             "flowlet: a flow idle this long may move to another port, us"},
            {"routing.qps_per_connection",
             Kind::INT,
             0,
             64,
             false,
             false,
             {},
             "queue pairs per connection, messages round robin (0: 4 with qp-ecmp, else 1)"},
            {"faults.drop_rate",
             Kind::NUM,
             0,
             1,
             false,
             true,
             {},
             "probability a frame a host NIC receives is lost (data, ACKs, CNPs, TCP; not PFC)"},
        };
        for (KeySpec& k : WorkloadSchemaKeys())
        {
            s.push_back(std::move(k));
        }
        const std::vector<KeySpec> rest = {
            {"gpu", Kind::OBJ, 0, 0, false, false, {}, "the GPUs"},
            {"gpu.model",
             Kind::ENUM,
             0,
             0,
             false,
             false,
             {"h100-sxm", "a100-sxm", "b200", "gb200-nvl72"},
             "GPU preset: NVLink 450 / 300 / 900 / 900 GB/s per direction (gb200-nvl72: 72 GPUs in "
             "one "
             "NVLink domain, topology.gpus_per_server 72)"},
            {"gpu.nvlink_gbytes_per_s",
             Kind::NUM,
             0,
             100000,
             false,
             false,
             {},
             "NVLink per GPU per direction, GB/s (0: the model's)"},
            {"gpu.peak_tflops",
             Kind::NUM,
             0,
             1e6,
             false,
             false,
             {},
             "dense BF16 TFLOP/s (0: the preset's: 989.4 H100, 312 A100, 2250 B200, 2500 GB200)"},
            {"gpu.compute_efficiency",
             Kind::NUM,
             0,
             1,
             true,
             false,
             {},
             "fraction of the peak a training kernel reaches (workload.kind training; an "
             "assumption)"},
            {"gpu.hbm_tbytes_per_s",
             Kind::NUM,
             0,
             1e4,
             false,
             false,
             {},
             "HBM bandwidth, the optimizer step's rate (0: the preset's: 3.35 H100, 2.04 A100, 8 "
             "B200/GB200)"},
            {"gpu.nvls",
             Kind::ENUM,
             0,
             0,
             false,
             false,
             {"auto", "on", "off"},
             "NVLink SHARP in the NVSwitch (auto: the preset's; h100-sxm, b200 and gb200-nvl72 "
             "have "
             "it)"},
            {"workload.pxn",
             Kind::BOOL,
             0,
             0,
             false,
             false,
             {},
             "ring: the exit GPU sends over NVLink to the rail's GPU first (NCCL's PXN)"},
            {"cost", Kind::OBJ, 0, 0, false, false, {}, "money"},
            {"cost.gpu_hour_usd", Kind::NUM, 0, 1e6, false, false, {}, "$ per GPU-hour"},
            {"rdma", Kind::OBJ, 0, 0, false, false, {}, "RDMA NIC"},
            {"rdma.retransmit_timeout_ms", Kind::NUM, 0, 1e6, true, false, {}, "QP timeout, ms"},
            {"rdma.reorder_threshold",
             Kind::INT,
             0,
             1048576,
             false,
             false,
             {},
             "selective-repeat: resend a hole once a packet this many PSNs later arrived (0: at "
             "once, "
             "IRN; spraying reorders)"},
            {"rdma.path_mtu",
             Kind::ENUM,
             0,
             0,
             false,
             false,
             {"256", "512", "1024", "2048", "4096"},
             "path MTU"},
            {"infiniband", Kind::OBJ, 0, 0, false, false, {}, "InfiniBand fabric"},
            {"infiniband.rx_buffer_kib",
             Kind::NUM,
             1,
             65536,
             false,
             false,
             {},
             "receive buffer per port and VL (credits), KiB"},
            {"infiniband.fecn_threshold_kib",
             Kind::NUM,
             0,
             65536,
             false,
             false,
             {},
             "egress queue that marks FECN, KiB (0 = off)"},
            {"infiniband.sharp",
             Kind::BOOL,
             0,
             0,
             false,
             false,
             {},
             "SHARP: an aggregation node in every switch (rail-fat-tree or star), for collnet"},
            {"tcp", Kind::OBJ, 0, 0, false, false, {}, "kernel TCP hosts"},
            {"tcp.stack",
             Kind::ENUM,
             0,
             0,
             false,
             false,
             {"linux", "ns3"},
             "linux: the Linux TCP model on the fabric (RACK-TLP, GRO); ns3: ns-3's TCP over IPv4"},
            {"tcp.tlp",
             Kind::BOOL,
             0,
             0,
             false,
             false,
             {},
             "tail loss probes (Linux default; stack linux only)"},
            {"tcp.rack",
             Kind::BOOL,
             0,
             0,
             false,
             false,
             {},
             "RACK loss detection (Linux default; false: RFC 6675 dup-threshold; stack linux "
             "only)"},
            {"tcp.sockets_per_peer",
             Kind::INT,
             1,
             64,
             false,
             false,
             {},
             "NCCL sockets per connection (NCCL_NSOCKS_PERTHREAD x NCCL_SOCKET_NTHREADS)"},
            {"tcp.threads",
             Kind::INT,
             1,
             16,
             false,
             false,
             {},
             "NCCL helper threads per connection (NCCL_SOCKET_NTHREADS); divides sockets_per_peer"},
            {"tcp.host_costs",
             Kind::BOOL,
             0,
             0,
             false,
             false,
             {},
             "model copies, syscalls, interrupts, cores"},
            {"tcp.cores",
             Kind::INT,
             1,
             1024,
             false,
             false,
             {},
             "CPU cores per host for the network stack"},
            {"limits", Kind::OBJ, 0, 0, false, false, {}, "run limits"},
            {"limits.max_sim_seconds", Kind::NUM, 0, 1e6, true, false, {}, "simulated-time cap"},
            {"limits.max_memory_gb",
             Kind::NUM,
             0,
             1e6,
             false,
             false,
             {},
             "refuse runs estimated above this (0: the machine's memory)"},
            {"attributes", Kind::OBJ, 0, 0, false, false, {}, "ns-3 attribute defaults"},
            {"compare", Kind::ARR, 0, 0, false, false, {}, "overrides run side by side"},
            {"jobs",
             Kind::ARR,
             0,
             0,
             false,
             false,
             {},
             "several jobs on this fabric, each on whole servers (its workload merges over the "
             "scenario's; topology and switch keys are the fabric's)"},
            {"jobs.name", Kind::STR, 0, 100, false, false, {}, "the job's label (default jobN)"},
            {"jobs.servers", Kind::INT, 1, 1048576, false, false, {}, "servers of the job"},
            {"jobs.placement",
             Kind::ENUM,
             0,
             0,
             false,
             false,
             {"contiguous", "spread", "rail-aligned", "random"},
             "which servers: the lowest free block, evenly over the free ones, a free block from a "
             "leaf group's first server, or random (seed)"},
            {"jobs.start_ms", Kind::NUM, 0, 1e7, false, false, {}, "when the job starts, ms"},
            {"jobs.fabric",
             Kind::ENUM,
             0,
             0,
             false,
             false,
             {"rocev2", "infiniband", "tcp", "uec"},
             "the job's transport (default: the scenario's fabric; rocev2 and tcp share Ethernet; "
             "uec jobs run on a uec fabric only)"},
            {"jobs.workload", Kind::OBJ, 0, 0, false, false, {}, "workload keys of this job"},
            {"jobs_baselines",
             Kind::BOOL,
             0,
             0,
             false,
             false,
             {},
             "with jobs: also run each job alone (and, with 3+ jobs, all but each) for slowdowns"},
        };
        s.insert(s.end(), rest.begin(), rest.end());
        for (KeySpec& k : UecSchemaKeys())
        {
            s.push_back(std::move(k));
        }
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
              {"pattern", "uniform"},
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
    return json{
        {"name", "run"},
        {"seed", 1},
        {"topology",
         {{"kind", "rail-fat-tree"},
          {"servers", 16},
          {"gpus_per_server", 8},
          {"link_gbps", 400},
          {"oversubscription", 1},
          {"leaf_radix", 64},
          {"tiers", 0},
          {"spine_oversubscription", 1},
          {"planes", 1},
          {"host_cable_m", 3},
          {"hop_latency_us", 0},
          {"switch_latency_us", 0},
          {"fabric_cable_m", 50}}},
        {"fabric", "rocev2"},
        {"pfc", true},
        {"congestion_control", "auto"},
        {"loss_recovery", "go-back-n"},
        {"faults",
         {{"drop_rate", 0.0},
          {"events", json::array()},
          {"random", {{"mtbf_hours", 0.0}, {"repair_ms", 1000.0}, {"host_links", false}}}}},
        {"routing",
         {{"convergence_ms", 100.0},
          {"valley_free", true},
          {"load_balancing", "ecmp"},
          {"flowlet_gap_us", 10.0},
          {"qps_per_connection", 0}}},
        {"pfc_watchdog",
         {{"enabled", false},
          {"detection_ms", 200.0},
          {"restoration_ms", 200.0},
          {"poll_ms", 100.0},
          {"action", "drop"}}},
        {"pfc_deadlock",
         {{"enabled", true}, {"threshold_ms", 10.0}, {"poll_ms", 1.0}, {"stop", true}}},
        {"workload",
         {{"kind", "collective"},
          {"flows", FlowsDefaults(true)},
          {"steps", 3},
          {"compute_ms", 82},
          {"collective", "allreduce"},
          {"algorithm", "auto"},
          {"bytes", 64 << 20},
          {"chunks", 1},
          {"buckets", 1},
          {"channels", 0},
          {"protocol", "auto"},
          {"pxn", false},
          {"model", "llama3-8b"},
          {"trace", ""},
          {"matrix", ""},
          {"model_shape",
           {{"layers", 0},
            {"hidden", 0},
            {"ffn", 0},
            {"heads", 0},
            {"kv_heads", 0},
            {"seq_len", 0},
            {"vocab", 0},
            {"experts", 0},
            {"top_k", 0},
            {"dtype", "auto"}}},
          {"parallelism",
           {{"tp", 8},
            {"pp", 1},
            {"dp", 0},
            {"ep", 1},
            {"microbatches", 1},
            {"global_batch", 0},
            {"zero", 0},
            {"schedule", "1f1b"},
            {"virtual_stages", 2},
            {"bucket_mib", 25},
            {"sequence_parallel", false},
            {"order", "tp-dp-pp"},
            {"moe_skew", 1},
            {"moe_hot_rank", 0}}}}},
        {"gpu",
         {{"model", "h100-sxm"},
          {"nvlink_gbytes_per_s", 0},
          {"nvls", "auto"},
          {"peak_tflops", 0},
          {"compute_efficiency", 0.55},
          {"hbm_tbytes_per_s", 0}}},
        {"cost", {{"gpu_hour_usd", 12.29}}},
        {"rdma",
         {{"retransmit_timeout_ms", 67.108864}, {"path_mtu", 4096}, {"reorder_threshold", 0}}},
        {"infiniband", {{"rx_buffer_kib", 128}, {"fecn_threshold_kib", 16}, {"sharp", false}}},
        {"uec", UecDefaults()},
        {"tcp",
         {{"stack", "linux"},
          {"host_costs", true},
          {"cores", 4},
          {"tlp", true},
          {"rack", true},
          {"sockets_per_peer", 1},
          {"threads", 1}}},
        {"limits", {{"max_sim_seconds", 60}, {"max_memory_gb", 0}}},
        {"attributes", json::object()},
    };
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

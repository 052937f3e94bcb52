// SPDX-License-Identifier: GPL-2.0-only
#include "scenario.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace aifabric
{

using nlohmann::json;

namespace
{

enum class Kind
{
    INT,
    NUM,
    BOOL,
    STR,
    ENUM,
    OBJ,
    ARR,
};

struct KeySpec
{
    const char* path;
    Kind kind;
    double min;
    double max;
    bool minExclusive;
    bool maxExclusive;
    std::vector<std::string> values;
    const char* help;
};

const std::vector<KeySpec>&
Schema()
{
    static const std::vector<KeySpec> s = {
        {"name", Kind::STR, 0, 0, false, false, {}, "label of the run"},
        {"seed", Kind::INT, 1, 2147483647, false, false, {}, "random seed"},
        {"topology", Kind::OBJ, 0, 0, false, false, {}, "the fabric"},
        {"topology.kind",
         Kind::ENUM,
         0,
         0,
         false,
         false,
         {"rail-fat-tree", "fat-tree", "star"},
         "topology"},
        {"topology.servers", Kind::INT, 1, 1048576, false, false, {}, "servers"},
        {"topology.gpus_per_server",
         Kind::INT,
         1,
         64,
         false,
         false,
         {},
         "GPUs (and NICs) per server"},
        {"topology.link_gbps", Kind::NUM, 0, 100000, true, false, {}, "link rate, Gb/s"},
        {"topology.oversubscription", Kind::NUM, 1, 64, false, false, {}, "leaf down:up ratio"},
        {"topology.leaf_radix", Kind::INT, 2, 4096, false, false, {}, "ports per switch"},
        {"topology.host_cable_m", Kind::NUM, 0, 100000, false, false, {}, "NIC-leaf cable, m"},
        {"topology.fabric_cable_m",
         Kind::NUM,
         0,
         100000,
         false,
         false,
         {},
         "switch-switch cable, m"},
        {"fabric", Kind::ENUM, 0, 0, false, false, {"rocev2", "infiniband", "tcp"}, "transport"},
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
         {"auto", "dcqcn", "dcqcn-nvidia", "ib-cc", "none"},
         "RDMA CC (auto: dcqcn on rocev2, ib-cc on infiniband)"},
        {"loss_recovery",
         Kind::ENUM,
         0,
         0,
         false,
         false,
         {"go-back-n", "selective-repeat"},
         "RDMA loss recovery"},
        {"faults", Kind::OBJ, 0, 0, false, false, {}, "fault injection"},
        {"faults.drop_rate", Kind::NUM, 0, 1, false, true, {}, "probability a data packet is lost"},
        {"workload", Kind::OBJ, 0, 0, false, false, {}, "the training job"},
        {"workload.steps", Kind::INT, 1, 100000, false, false, {}, "training steps"},
        {"workload.compute_ms", Kind::NUM, 0, 1e7, false, false, {}, "compute per step, ms"},
        {"workload.collective",
         Kind::ENUM,
         0,
         0,
         false,
         false,
         {"allreduce", "reducescatter", "allgather", "alltoall"},
         "collective"},
        {"workload.algorithm",
         Kind::ENUM,
         0,
         0,
         false,
         false,
         {"ring", "tree", "halving-doubling", "hierarchical"},
         "algorithm"},
        {"workload.bytes", Kind::INT, 1, 1125899906842624.0, false, false, {}, "bytes per GPU"},
        {"workload.chunks", Kind::INT, 1, 1024, false, false, {}, "pipelining chunks"},
        {"workload.channels",
         Kind::INT,
         1,
         64,
         false,
         false,
         {},
         "parallel rings/trees on their own connections"},
        {"workload.buckets",
         Kind::INT,
         1,
         1024,
         false,
         false,
         {},
         "gradient buckets overlapped with backward"},
        {"cost", Kind::OBJ, 0, 0, false, false, {}, "money"},
        {"cost.gpu_hour_usd", Kind::NUM, 0, 1e6, false, false, {}, "$ per GPU-hour"},
        {"rdma", Kind::OBJ, 0, 0, false, false, {}, "RDMA NIC"},
        {"rdma.retransmit_timeout_ms", Kind::NUM, 0, 1e6, true, false, {}, "QP timeout, ms"},
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
        {"tcp", Kind::OBJ, 0, 0, false, false, {}, "kernel TCP hosts"},
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
        {"attributes", Kind::OBJ, 0, 0, false, false, {}, "ns-3 attribute defaults"},
        {"compare", Kind::ARR, 0, 0, false, false, {}, "overrides run side by side"},
    };
    return s;
}

const KeySpec*
Find(const std::string& path)
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

void
CheckValue(const std::string& path, const json& v, const KeySpec& k)
{
    auto fail = [&](const std::string& what) {
        throw ScenarioError(path + ": " + what + " (got " + v.dump() + ")");
    };
    switch (k.kind)
    {
    case Kind::INT: {
        if (!v.is_number())
        {
            fail("must be an integer " + Range(k));
        }
        const double d = v.get<double>();
        if (std::floor(d) != d || d < k.min || d > k.max)
        {
            fail("must be an integer " + Range(k));
        }
        break;
    }
    case Kind::NUM: {
        if (!v.is_number())
        {
            fail("must be a number " + Range(k));
        }
        const double d = v.get<double>();
        if (!std::isfinite(d) || (k.minExclusive ? d <= k.min : d < k.min) ||
            (k.maxExclusive ? d >= k.max : d > k.max))
        {
            fail("must be a number " + Range(k));
        }
        break;
    }
    case Kind::BOOL:
        if (!v.is_boolean())
        {
            fail("must be true or false");
        }
        break;
    case Kind::STR:
        if (!v.is_string())
        {
            fail("must be a string");
        }
        break;
    case Kind::ENUM: {
        std::string s = v.is_string()           ? v.get<std::string>()
                        : v.is_number_integer() ? v.dump()
                                                : "";
        if (std::find(k.values.begin(), k.values.end(), s) == k.values.end())
        {
            fail("must be one of " + Join(k.values));
        }
        break;
    }
    case Kind::OBJ:
        if (!v.is_object())
        {
            fail("must be an object");
        }
        break;
    case Kind::ARR:
        if (!v.is_array())
        {
            fail("must be a list of objects");
        }
        break;
    }
}

void
Validate(const json& j, const std::string& prefix, bool allowCompare)
{
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
        if (prefix == "attributes")
        {
            if (!it.value().is_string() && !it.value().is_number() && !it.value().is_boolean())
            {
                throw ScenarioError(path + ": must be a string, number or boolean value");
            }
            const std::string full = it.key();
            const size_t pos = full.rfind("::");
            ns3::TypeId tid;
            ns3::TypeId::AttributeInformation info;
            if (pos == std::string::npos || full.rfind("ns3::", 0) != 0 ||
                !ns3::TypeId::LookupByNameFailSafe(full.substr(0, pos), &tid) ||
                !tid.LookupAttributeByName(full.substr(pos + 2), &info))
            {
                throw ScenarioError(path +
                                    ": not an ns-3 attribute (expected \"ns3::Type::Attribute\")");
            }
            continue;
        }
        const KeySpec* k = Find(path);
        if (!k)
        {
            throw ScenarioError(path + ": " + Suggest(path));
        }
        if (path == "compare" && !allowCompare)
        {
            throw ScenarioError("compare: a compare entry cannot itself hold 'compare'");
        }
        CheckValue(path, it.value(), *k);
        if (k->kind == Kind::OBJ)
        {
            Validate(it.value(), path, allowCompare);
        }
        if (k->kind == Kind::ARR)
        {
            size_t i = 0;
            for (const auto& e : it.value())
            {
                if (!e.is_object())
                {
                    throw ScenarioError("compare[" + std::to_string(i) +
                                        "]: must be an object of overrides");
                }
                Validate(e, "", false);
                ++i;
            }
        }
    }
}

void
Merge(json& base, const json& over)
{
    for (auto it = over.begin(); it != over.end(); ++it)
    {
        if (it.value().is_object() && base.contains(it.key()) && base[it.key()].is_object())
        {
            Merge(base[it.key()], it.value());
        }
        else
        {
            base[it.key()] = it.value();
        }
    }
}

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
    if (attribute == "LeafRadix" || attribute == "K" || attribute == "Spines")
    {
        return "topology.leaf_radix";
    }
    return "topology";
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
    r.servers = t["servers"];
    r.gpusPerServer = t["gpus_per_server"];
    r.linkGbps = t["link_gbps"];
    r.oversubscription = t["oversubscription"];
    r.leafRadix = t["leaf_radix"];
    r.hostCableM = t["host_cable_m"];
    r.fabricCableM = t["fabric_cable_m"];
    r.fabric = j["fabric"];
    r.pfc = j["pfc"];
    r.congestionControl = j["congestion_control"];
    if (r.congestionControl == "auto")
    {
        r.congestionControl = r.fabric == "infiniband" ? "ib-cc" : "dcqcn";
        r.resolved["congestion_control"] = r.congestionControl;
    }
    r.lossRecovery = j["loss_recovery"];
    r.dropRate = j["faults"]["drop_rate"];
    const json& w = j["workload"];
    r.steps = w["steps"];
    r.computeMs = w["compute_ms"];
    r.collective = w["collective"];
    r.algorithm = w["algorithm"];
    r.bytes = w["bytes"].get<uint64_t>();
    r.chunks = w["chunks"];
    r.buckets = w["buckets"];
    r.channels = w["channels"];
    r.gpuHourUsd = j["cost"]["gpu_hour_usd"];
    r.retransmitTimeoutMs = j["rdma"]["retransmit_timeout_ms"];
    const json& mtu = j["rdma"]["path_mtu"];
    r.pathMtu = mtu.is_string() ? static_cast<uint32_t>(std::stoul(mtu.get<std::string>()))
                                : mtu.get<uint32_t>();
    r.maxSimSeconds = j["limits"]["max_sim_seconds"];
    r.tcpHostCosts = j["tcp"]["host_costs"];
    r.tcpCores = j["tcp"]["cores"];
    r.ibRxBufferKib = j["infiniband"]["rx_buffer_kib"];
    r.ibFecnThresholdKib = j["infiniband"]["fecn_threshold_kib"];
    for (auto it = j["attributes"].begin(); it != j["attributes"].end(); ++it)
    {
        r.attributes.emplace_back(it.key(),
                                  it.value().is_string() ? it.value().get<std::string>()
                                                         : it.value().dump());
    }
    // Cross-field checks.
    if (r.fabric == "infiniband" && !r.pfc)
    {
        throw ScenarioError(
            "pfc: InfiniBand is lossless by credit flow control; pfc must stay true "
            "with fabric infiniband (pfc: false applies to rocev2 and tcp)");
    }
    if (r.fabric != "infiniband" && r.congestionControl == "ib-cc")
    {
        throw ScenarioError("congestion_control: 'ib-cc' needs fabric infiniband (allowed on " +
                            r.fabric + ": auto, dcqcn, dcqcn-nvidia, none)");
    }
    if (r.fabric == "infiniband")
    {
        // A full IB packet (4096 + LRH/BTH/RETH/ICRC/VCRC = 4138 B) must fit the buffer.
        const double minKib = std::ceil((4096.0 + 8 + 12 + 16 + 4 + 2) / 64) * 64 / 1024;
        if (r.ibRxBufferKib < minKib)
        {
            std::ostringstream msg;
            msg << "infiniband.rx_buffer_kib: must hold one full packet: >= " << minKib
                << " KiB (got " << r.ibRxBufferKib << ")";
            throw ScenarioError(msg.str());
        }
    }
    if ((r.algorithm == "tree" || r.algorithm == "hierarchical") && r.collective != "allreduce")
    {
        throw ScenarioError("workload.algorithm: '" + r.algorithm +
                            "' implements allreduce only (use ring for " + r.collective + ")");
    }
    if (r.algorithm == "halving-doubling" && (r.Gpus() & (r.Gpus() - 1)) != 0)
    {
        throw ScenarioError(
            "workload.algorithm: halving-doubling needs a power-of-two number of GPUs (got " +
            std::to_string(r.Gpus()) + ")");
    }
    if (uint64_t(r.servers) * r.gpusPerServer > 65536)
    {
        throw ScenarioError("topology.servers: servers x gpus_per_server must be <= 65536 (got " +
                            std::to_string(uint64_t(r.servers) * r.gpusPerServer) + ")");
    }
    // Topology parameters, through the helper's own validation (nothing is built).
    ns3::Ptr<ns3::FabricTopologyHelper> h;
    if (r.topologyKind == "rail-fat-tree")
    {
        h = ns3::CreateObject<ns3::RailOptimizedFatTreeHelper>();
        h->SetAttribute("LeafRadix", ns3::UintegerValue(r.leafRadix));
        h->SetAttribute("Oversubscription", ns3::DoubleValue(r.oversubscription));
    }
    else if (r.topologyKind == "fat-tree")
    {
        h = ns3::CreateObject<ns3::FatTreeHelper>();
        h->SetAttribute("LeafRadix", ns3::UintegerValue(r.leafRadix));
        h->SetAttribute("Oversubscription", ns3::DoubleValue(r.oversubscription));
    }
    else
    {
        h = ns3::CreateObject<ns3::StarTopologyHelper>();
    }
    if (r.fabric == "infiniband")
    {
        h->SetAttribute("LinkLayer", ns3::EnumValue(ns3::FabricNetDevice::INFINIBAND));
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
        throw ScenarioError(TopologyKey(e.GetParameter()) + ": " + e.what());
    }
    return r;
}

} // namespace

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
          {"host_cable_m", 3},
          {"fabric_cable_m", 50}}},
        {"fabric", "rocev2"},
        {"pfc", true},
        {"congestion_control", "auto"},
        {"loss_recovery", "go-back-n"},
        {"faults", {{"drop_rate", 0.0}}},
        {"workload",
         {{"steps", 3},
          {"compute_ms", 82},
          {"collective", "allreduce"},
          {"algorithm", "hierarchical"},
          {"bytes", 64 << 20},
          {"chunks", 1},
          {"buckets", 1},
          {"channels", 1}}},
        {"cost", {{"gpu_hour_usd", 12.29}}},
        {"rdma", {{"retransmit_timeout_ms", 67.108864}, {"path_mtu", 4096}}},
        {"infiniband", {{"rx_buffer_kib", 128}, {"fecn_threshold_kib", 16}}},
        {"tcp", {{"host_costs", true}, {"cores", 4}}},
        {"limits", {{"max_sim_seconds", 60}}},
        {"attributes", json::object()},
    };
}

void
ApplySet(json& scenario, const std::string& assignment)
{
    const size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
    {
        throw ScenarioError("--set: expected key.path=value (got '" + assignment + "')");
    }
    const std::string key = assignment.substr(0, eq);
    const std::string text = assignment.substr(eq + 1);
    json value;
    try
    {
        value = json::parse(text);
    }
    catch (const json::exception&)
    {
        value = text;
    }
    json* node = &scenario;
    std::istringstream is(key);
    std::string part;
    std::vector<std::string> parts;
    while (std::getline(is, part, '.'))
    {
        parts.push_back(part);
    }
    // "attributes.ns3::X::Y" keeps the attribute name whole.
    if (!parts.empty() && parts[0] == "attributes" && key.size() > 11)
    {
        scenario["attributes"][key.substr(11)] = value;
        return;
    }
    for (size_t i = 0; i < parts.size(); ++i)
    {
        if (parts[i].empty())
        {
            throw ScenarioError("--set: empty component in key '" + key + "'");
        }
        if (i + 1 == parts.size())
        {
            (*node)[parts[i]] = value;
        }
        else
        {
            if (!node->contains(parts[i]) || !(*node)[parts[i]].is_object())
            {
                (*node)[parts[i]] = json::object();
            }
            node = &(*node)[parts[i]];
        }
    }
}

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
    Merge(base, top);
    std::vector<RunConfig> runs;
    if (!scenario.contains("compare") || scenario["compare"].empty())
    {
        runs.push_back(ToRun(base, 0));
        return runs;
    }
    size_t i = 0;
    for (const auto& over : scenario["compare"])
    {
        json j = base;
        Merge(j, over);
        if (!over.contains("name"))
        {
            j["name"] = base.value("name", std::string("run")) + "-" + std::to_string(i);
        }
        runs.push_back(ToRun(j, i));
        ++i;
    }
    for (size_t a = 0; a < runs.size(); ++a)
    {
        for (size_t b = a + 1; b < runs.size(); ++b)
        {
            if (runs[a].name == runs[b].name)
            {
                throw ScenarioError("compare[" + std::to_string(b) + "].name: '" + runs[b].name +
                                    "' is used twice; names must be unique");
            }
        }
    }
    return runs;
}

json
LoadScenarioFile(const std::string& path)
{
    std::ifstream f(path);
    if (!f)
    {
        throw ScenarioError("scenario file '" + path +
                            "': cannot be read (missing or no permission)");
    }
    std::ostringstream text;
    text << f.rdbuf();
    return ParseScenarioText(text.str(), "scenario file '" + path + "'");
}

json
ParseScenarioText(const std::string& text, const std::string& origin)
{
    try
    {
        return json::parse(text, nullptr, true, true);
    }
    catch (const json::parse_error& e)
    {
        throw ScenarioError(origin + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
    }
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
        if (found)
        {
            os << " (default " << v.dump() << ")";
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

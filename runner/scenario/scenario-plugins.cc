// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-plugins.h"

#include "scenario-schema.h"
#include "scenario.h"

#include "ns3/collective-algorithm.h"
#include "ns3/collective-protocol.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <sstream>

namespace aifabric
{

using nlohmann::json;

namespace
{

/// One family's plug-ins with keys: their object's section and each entry's keys.
struct PluginKeyOwner
{
    std::string section; //!< "rdma": keys under rdma.<name>.<key>
    std::string what;    //!< "congestion control"
    std::string name;
    const std::vector<ns3::PluginKey>* keys;
};

std::vector<PluginKeyOwner>
KeyOwners()
{
    std::vector<PluginKeyOwner> owners;
    for (const auto& e : ns3::RdmaCongestionRegistry::All())
    {
        if (!e.keys.empty())
        {
            owners.push_back({"rdma", "congestion control", e.name, &e.keys});
        }
    }
    for (const auto& e : ns3::FabricTopologyRegistry::All())
    {
        if (!e.keys.empty())
        {
            owners.push_back({"topology", "topology", e.name, &e.keys});
        }
    }
    for (const auto& e : ns3::CollectiveAlgorithmRegistry::All())
    {
        if (!e.keys.empty())
        {
            owners.push_back({"workload", "collective algorithm", e.name, &e.keys});
        }
    }
    return owners;
}

/// KeySpec holds C strings: the texts of the plug-ins' keys live here, for the process.
const char*
Keep(const std::string& s)
{
    static std::deque<std::string> texts;
    texts.push_back(s);
    return texts.back().c_str();
}

/// A key's value as JSON: a whole number for an integer key.
json
KeyValue(const ns3::PluginKey& k, double v)
{
    return k.integer ? json(static_cast<int64_t>(v)) : json(v);
}

} // namespace

std::vector<std::string>
CongestionControlValues()
{
    std::vector<std::string> v{"auto"};
    for (const auto& name : ns3::RdmaCongestionRegistry::Names())
    {
        v.push_back(name);
    }
    return v;
}

const char*
CongestionControlHelp()
{
    std::string onFabric;
    std::string elsewhere;
    std::string clauses;
    for (const auto& e : ns3::RdmaCongestionRegistry::All())
    {
        for (const auto& f : e.autoOn)
        {
            if (f == "*")
            {
                elsewhere = e.name;
            }
            else
            {
                onFabric += e.name + " on " + f + ", ";
            }
        }
        clauses += "; " + e.name + ": " + e.help;
    }
    return Keep("RDMA congestion control (auto: " + onFabric + elsewhere + " elsewhere" + clauses +
                ")");
}

const char*
LoadBalancingHelp()
{
    return Keep("how switches spread flows over equal-cost ports (" +
                HelpClauses<ns3::LoadBalancingRegistry>() + ")");
}

const char*
LossRecoveryHelp()
{
    return Keep("RDMA loss recovery (" + HelpClauses<ns3::RdmaLossRecoveryRegistry>() + ")");
}

std::vector<KeySpec>
PluginSchemaKeys()
{
    std::vector<KeySpec> s;
    for (const auto& o : KeyOwners())
    {
        const std::string object = o.section + "." + o.name;
        s.push_back(ObjectKey(Keep(object), Keep("keys of the " + o.what + " " + o.name)));
        for (const auto& k : *o.keys)
        {
            const char* path = Keep(object + "." + k.name);
            s.push_back(k.integer ? IntKey(path, AtLeast(k.min), AtMost(k.max), Keep(k.help))
                                  : NumKey(path, AtLeast(k.min), AtMost(k.max), Keep(k.help)));
        }
    }
    return s;
}

bool
PluginKeyDefault(const std::string& path, std::string& text)
{
    for (const auto& o : KeyOwners())
    {
        for (const auto& k : *o.keys)
        {
            if (path == o.section + "." + o.name + "." + k.name)
            {
                text = KeyValue(k, k.defaultValue).dump();
                return true;
            }
        }
    }
    return false;
}

ns3::PluginKeyValues
PluginValues(const json& j,
             const std::string& section,
             const std::string& name,
             const std::vector<ns3::PluginKey>& keys,
             json& resolved)
{
    // Not in the default scenario: a plug-in registered in a test binary or another library
    // must not change every scenario's resolved configuration (and a sweep point's id).
    const auto s = j.find(section);
    const json* own = nullptr;
    if (s != j.end() && s->is_object() && s->contains(name))
    {
        own = &s->at(name);
    }
    ns3::PluginKeyValues values;
    for (const auto& k : keys)
    {
        const double v =
            own && own->contains(k.name) ? own->at(k.name).get<double>() : k.defaultValue;
        values[k.name] = v;
        resolved[section][name][k.name] = KeyValue(k, v);
    }
    return values;
}

std::string
PluginValueText(double v)
{
    std::ostringstream os;
    if (std::floor(v) == v && std::fabs(v) < 1e18)
    {
        os << static_cast<long long>(v);
    }
    else
    {
        os.precision(17);
        os << v;
    }
    return os.str();
}

std::vector<std::string>
TopologyValues()
{
    return ns3::FabricTopologyRegistry::Names();
}

const char*
TopologyHelp()
{
    std::string clauses;
    for (const auto& e : ns3::FabricTopologyRegistry::All())
    {
        clauses += (clauses.empty() ? "" : "; ") + e.name + ": " + e.help;
    }
    return Keep("topology (" + clauses + ")");
}

const ns3::FabricTopologyInfo&
TopologyOf(const RunConfig& r)
{
    return *ns3::FabricTopologyRegistry::Find(r.topology.kind);
}

ns3::TopologyParams
TopologyParamsOf(const RunConfig& r)
{
    ns3::TopologyParams p;
    p.servers = r.topology.servers;
    p.gpusPerServer = r.topology.gpusPerServer;
    p.linkGbps = r.topology.linkGbps;
    p.leafRadix = r.topology.leafRadix;
    p.oversubscription = r.topology.oversubscription;
    p.tiers = r.topology.tiers;
    p.spineOversubscription = r.topology.spineOversubscription;
    p.planes = r.topology.planes;
    p.sharp = r.fabric.infiniband.sharp;
    p.keys = r.topology.keys;
    return p;
}

void
ResolveTopology(const json& j, RunConfig& r)
{
    const ns3::FabricTopologyInfo& t = TopologyOf(r);
    r.topology.keys = PluginValues(j, "topology", t.name, t.keys, r.resolved);
}

void
CheckTopology(const RunConfig& r)
{
    const ns3::FabricTopologyInfo& t = TopologyOf(r);
    // The shared keys only some kinds read, at a value other than their neutral one.
    for (const auto& shared :
         {std::make_pair("tiers", r.topology.tiers != 0),
          std::make_pair("planes", r.topology.planes != 1),
          std::make_pair("spine_oversubscription", r.topology.spineOversubscription != 1.0)})
    {
        // not a structured binding: C++17 lambdas cannot capture one (clang refuses)
        const char* key = shared.first;
        const bool set = shared.second;
        const auto reads = [&](const ns3::FabricTopologyInfo& e) {
            return std::find(e.sharedKeys.begin(), e.sharedKeys.end(), key) != e.sharedKeys.end();
        };
        if (!set || reads(t))
        {
            continue;
        }
        std::string kinds;
        for (const auto& e : ns3::FabricTopologyRegistry::All())
        {
            kinds += reads(e) ? (kinds.empty() ? "" : " or ") + e.name : "";
        }
        throw ScenarioError("topology." + std::string(key) + ": only with topology.kind " + kinds +
                            " (got " + t.name + ")");
    }
    const std::string why = t.Check(TopologyParamsOf(r));
    if (!why.empty())
    {
        throw ScenarioError(why);
    }
}

void
CheckSharpTopology(const RunConfig& r)
{
    const ns3::FabricTopologyInfo& t = TopologyOf(r);
    if (!r.fabric.infiniband.sharp || t.noSharp.empty())
    {
        return;
    }
    std::string kinds;
    for (const auto& e : ns3::FabricTopologyRegistry::All())
    {
        kinds += e.noSharp.empty() ? (kinds.empty() ? "" : " or ") + e.name : "";
    }
    throw ScenarioError("infiniband.sharp: needs topology.kind " + kinds + " (" + t.noSharp + ")");
}

std::vector<std::string>
AlgorithmValues()
{
    std::vector<std::string> v{"auto"};
    for (const auto& name : ns3::CollectiveAlgorithmRegistry::Names())
    {
        v.push_back(name);
    }
    return v;
}

const char*
AlgorithmHelp()
{
    std::string clauses;
    for (const auto& e : ns3::CollectiveAlgorithmRegistry::All())
    {
        clauses += "; " + e.name + ": " + e.help;
    }
    return Keep("algorithm (auto: the tuner's choice per size" + clauses + ")");
}

const char*
ProtocolHelp()
{
    std::vector<std::string> simple;
    for (const auto& e : ns3::CollectiveAlgorithmRegistry::All())
    {
        if (e.simpleOnly)
        {
            simple.push_back(e.name);
        }
    }
    return Keep("NCCL protocol (auto: the tuner's choice per size; " + Join(simple) +
                " run simple)");
}

void
ResolveAlgorithmKeys(const json& j, RunConfig& r)
{
    const ns3::CollectiveAlgorithmInfo* a =
        ns3::CollectiveAlgorithmRegistry::Find(r.workload.algorithm);
    r.workload.algorithmKeys = PluginValues(j, "workload", a->name, a->keys, r.resolved);
}

void
CheckAlgorithm(const RunConfig& r)
{
    const ns3::CollectiveAlgorithmInfo* a =
        ns3::CollectiveAlgorithmRegistry::Find(r.workload.algorithm);
    if (!a)
    {
        return; // auto: the tuner's choice
    }
    // AllToAll, Broadcast and SendRecv have one schedule whatever the algorithm.
    const std::string collective = ns3::CollectiveSpec::OpName(r.workload.collective);
    const bool byBase = ns3::CollectiveAlgorithm::IsBuiltByBase(r.workload.collective);
    const std::string why = a->Check({collective,
                                      r.topology.servers,
                                      r.topology.gpusPerServer,
                                      byBase,
                                      r.gpu.nvls,
                                      r.fabric.infiniband.sharp,
                                      NameOf(r.gpu.model),
                                      r.workload.algorithmKeys});
    if (!why.empty())
    {
        throw ScenarioError(why);
    }
    if (!byBase && !a->Implements(collective))
    {
        std::vector<std::string> ops = a->collectives;
        std::string implements;
        for (size_t i = 0; i < ops.size(); ++i)
        {
            implements += (i == 0 ? "" : " and ") + ops[i];
        }
        throw ScenarioError("workload.algorithm: '" + a->name + "' implements " + implements +
                            " only (use " + a->otherwise + " for " + collective + ")");
    }
    if (!byBase && !r.workload.protocolAuto &&
        !ns3::CollectiveProtocol::Supports(a->name, r.workload.protocol))
    {
        throw ScenarioError("workload.protocol: '" + a->name +
                            "' runs the simple protocol only, as NCCL's does (got " +
                            ns3::CollectiveProtocol::Name(r.workload.protocol) + ")");
    }
}

void
ResolveCongestionControl(const json& j, RunConfig& r)
{
    r.fabric.congestionControl = j["congestion_control"];
    if (r.fabric.congestionControl == "auto")
    {
        // What each fabric's NICs ship (RoCEv2: ConnectX firmware's DCQCN), as registered.
        r.fabric.congestionControl = ns3::AutoCongestionControl(r.fabric.name)->name;
        r.resolved["congestion_control"] = r.fabric.congestionControl;
    }
    const ns3::RdmaCongestionControlInfo* cc =
        ns3::RdmaCongestionRegistry::Find(r.fabric.congestionControl);
    r.fabric.congestionControlKeys = PluginValues(j, "rdma", cc->name, cc->keys, r.resolved);
}

void
CheckCongestionControl(const RunConfig& r)
{
    // fabric tcp and uec record the congestion control their own stack runs instead.
    const ns3::RdmaCongestionControlInfo* cc =
        ns3::RdmaCongestionRegistry::Find(r.fabric.congestionControl);
    if (!cc)
    {
        return;
    }
    const std::string why =
        cc->Check({r.fabric.name, r.topology.linkGbps, r.fabric.congestionControlKeys});
    if (why.empty())
    {
        return;
    }
    std::vector<std::string> allowed{"auto"};
    for (const auto& e : ns3::RdmaCongestionRegistry::All())
    {
        ns3::PluginKeyValues defaults;
        for (const auto& k : e.keys)
        {
            defaults[k.name] = k.defaultValue;
        }
        if (e.Check({r.fabric.name, r.topology.linkGbps, defaults}).empty())
        {
            allowed.push_back(e.name);
        }
    }
    throw ScenarioError("congestion_control: '" + cc->name + "' " + why + " (allowed on " +
                        r.fabric.name + ": " + Join(allowed) + ")");
}

} // namespace aifabric

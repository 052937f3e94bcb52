// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SCENARIO_PLUGINS_H
#define AI_FABRIC_SCENARIO_PLUGINS_H

// What the scenario level asks the plug-in registries (congestion controls registered beside
// their RdmaCongestionOps classes, ...): the allowed values and help of the keys that select a
// plug-in, each plug-in's own keys (schema, defaults, values), "auto" and the plug-ins' checks.
// No plug-in is named here: a new one registered in its own .cc appears in all of them.

#include "ns3/collective-algorithm-registry.h"
#include "ns3/fabric-topology-registry.h"
#include "ns3/load-balancing-registry.h"
#include "ns3/plugin-registry.h"
#include "ns3/rdma-congestion-registry.h"
#include "ns3/rdma-loss-recovery-registry.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace aifabric
{

struct KeySpec;
struct RunConfig;

/// The names of `Registry`'s entries that `keep` accepts, joined by `separator` ("a or b").
template <class Registry, class Pred>
std::string
NamesWhere(Pred keep, const std::string& separator)
{
    std::string out;
    for (const auto& e : Registry::All())
    {
        if (keep(e))
        {
            out += (out.empty() ? "" : separator) + e.name;
        }
    }
    return out;
}

/// "name: help" of each of `Registry`'s entries, joined by "; " (a key's --help).
template <class Registry>
std::string
HelpClauses()
{
    std::string out;
    for (const auto& e : Registry::All())
    {
        out += (out.empty() ? "" : "; ") + e.name + ": " + e.help;
    }
    return out;
}

/// congestion_control's values: "auto" and every registered congestion control.
std::vector<std::string> CongestionControlValues();
/// congestion_control's help: what auto picks on each fabric and each entry's clause.
const char* CongestionControlHelp();
/// The loss_recovery key's help: every registered loss recovery's clause.
const char* LossRecoveryHelp();
/// The routing.load_balancing key's help: every registered scheme's clause.
const char* LoadBalancingHelp();

/// Every plug-in's own keys ("rdma.<cc>.<key>", ...), for the schema (after the fixed keys).
std::vector<KeySpec> PluginSchemaKeys();
/// The default of the plug-in key at `path`, as JSON text (for --help); false if none is there.
bool PluginKeyDefault(const std::string& path, std::string& text);
/**
 * A plug-in's key values in the scenario `j` (`section`.`name`.<key>, else the key's default;
 * the defaults are not in DefaultScenario), also written into `resolved`.
 */
ns3::PluginKeyValues PluginValues(const nlohmann::json& j,
                                  const std::string& section,
                                  const std::string& name,
                                  const std::vector<ns3::PluginKey>& keys,
                                  nlohmann::json& resolved);
/// A key value as an ns-3 attribute's text (whole numbers without a decimal point).
std::string PluginValueText(double v);

/// topology.kind's values and help.
std::vector<std::string> TopologyValues();
const char* TopologyHelp();
/// The run's topology, as registered (topology.kind is validated: it is there).
const ns3::FabricTopologyInfo& TopologyOf(const RunConfig& r);
/// The run's topology.* values, as the topology's functions read them.
ns3::TopologyParams TopologyParamsOf(const RunConfig& r);
/// topology.kind's keys read (topology.<kind>.*).
void ResolveTopology(const nlohmann::json& j, RunConfig& r);
/// Shared topology.* keys the kind does not read (tiers on a star), then the kind's Check().
void CheckTopology(const RunConfig& r);
/// SHARP on this topology: refused with a line naming the kinds that support it.
void CheckSharpTopology(const RunConfig& r);

/// workload.algorithm's values ("auto" and every registered algorithm) and help.
std::vector<std::string> AlgorithmValues();
const char* AlgorithmHelp();
/// workload.protocol's help (which algorithms run the simple protocol only).
const char* ProtocolHelp();
/// workload.algorithm's keys read (workload.<algorithm>.*), once it is resolved.
void ResolveAlgorithmKeys(const nlohmann::json& j, RunConfig& r);
/**
 * A named workload.algorithm (not auto): its Check() of the cluster, the collectives it
 * implements and the protocols it runs, each refused in a line naming the key.
 */
void CheckAlgorithm(const RunConfig& r);

/// congestion_control: "auto" resolved for the fabric, the entry's keys read (rdma.<cc>.*).
void ResolveCongestionControl(const nlohmann::json& j, RunConfig& r);
/// The congestion control's Check() (e.g. needs fabric infiniband), naming what is allowed.
void CheckCongestionControl(const RunConfig& r);

} // namespace aifabric

#endif

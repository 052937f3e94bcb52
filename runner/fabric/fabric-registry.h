// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_FABRIC_REGISTRY_H
#define AI_FABRIC_FABRIC_REGISTRY_H

// The fabrics a scenario can name ("fabric": rocev2, infiniband, tcp, uec): everything the
// runner knows of one fabric is its entry, registered in its own file of runner/fabric/
// (fabric-<name>.cc), as the model's congestion controls, topologies and collective algorithms
// register beside their classes. The rest of the runner iterates FabricRegistry, asks the
// run's entry (FabricOf) and compares no fabric's name.

#include "scenario-schema.h"
#include "scenario.h"

#include "ns3/collective-transport.h"
#include "ns3/fabric-topology-helper.h"
#include "ns3/fabric-topology.h"
#include "ns3/latency-histogram.h"
#include "ns3/plugin-registry.h"
#include "ns3/rdma-nic.h"

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace aifabric
{

struct Simulation;

/// A dashboard row: its label and its cell from a run's summary.json.
using DashboardRowAdder = std::function<void(const std::string& label,
                                             std::function<std::string(const nlohmann::json&)>)>;

/**
 * One fabric: its scenario name, what the scenario level must know of it as data (link layer,
 * header bytes, PAUSE frames, labels) and its hooks, each optional: its own keys (an object of
 * the scenario named `section`), their resolution and checks, the link set-up before the
 * topology is built, the transport it installs on the hosts and its part of summary.json.
 */
struct FabricInfo
{
    std::string name;         //!< scenario name (fabric: <name>)
    std::string help;         //!< one clause for --help's fabric key
    bool isDefault{false};    //!< the default scenario's fabric (exactly one entry)
    std::string linkLayer;    //!< jobs side by side on one cluster share it ("ethernet", ...)
    std::string linkLayerWhy; //!< why other link layers cannot run beside it (a job's error)
    double headerBytes{86};   //!< wire overhead per full 4096-byte packet (the tuner's goodput)
    bool pauseFrames{true};   //!< PFC PAUSE frames (with pfc true): pause-storm, PFC health
    bool rdmaKeys{true};      //!< loss_recovery and rdma.* are checked (false: its own stack's)
    /// Connections its transport gave up on, from summary.json (a run that ends early).
    std::function<uint64_t(const nlohmann::json& summary)> failedConnections;
    std::string flowControlLabel; //!< the run line's flow control ("": PFC or no-PFC by pfc)
    std::string packetLabel;      //!< what its data packets are called in the latency figure
    std::string colour;           //!< gnuplot colour of its series ("'#rrggbb'")
    std::string section;          //!< the object of its own keys ("": none)
    /// Its own keys (`section` and section.*, with their defaults), in the order --help lists
    /// them.
    std::function<std::vector<KeySpec>()> schemaKeys;
    /// Reads `section` into r, whatever the fabric, and checks it (throws ScenarioError).
    std::function<void(const nlohmann::json& j, RunConfig& r)> resolve;
    /// When the run's fabric: cross-field checks and what it resolves from the rest of the run.
    std::function<void(RunConfig& r)> finish;
    /// When a job of `jobs` runs it: why it cannot beside other jobs ("key: ..."), or "".
    std::function<std::string(const JobConfig& job)> checkJob;
    /// When the run's fabric: the topology helper's link layer and switches before Build.
    std::function<void(const RunConfig& c, ns3::FabricTopologyHelper& helper)> configure;
    /// Its transport on every host (RDMA NICs go into `nics`); packets' latency into `latency`.
    std::function<ns3::Ptr<ns3::CollectiveTransport>(const RunConfig& c,
                                                     ns3::Ptr<ns3::FabricTopology> topo,
                                                     ns3::Ptr<ns3::LatencyHistogram> latency,
                                                     std::vector<ns3::Ptr<ns3::RdmaNic>>& nics)>
        install;
    /// Its data packets sent, counted where the transport counts them (added to the NICs').
    std::function<uint64_t(const RunConfig& c, const Simulation& sim)> dataPackets;
    /// Its part of summary.json, in every run (keys present with zeros when not the fabric).
    std::function<void(const RunConfig& c, const Simulation& sim, nlohmann::json& s)> summarize;
    /// Its dashboard rows, given the runs side by side.
    std::function<void(const std::vector<const RunConfig*>& runs, const DashboardRowAdder& row)>
        dashboardRows;
};

/// The fabrics a scenario can name (fabric, jobs[].fabric).
using FabricRegistry = ns3::PluginRegistry<FabricInfo>;

/// The entry of `r.fabric.name` (validated: always found).
const FabricInfo& FabricOf(const RunConfig& r);

/// The entry of `name`; aborts when unknown (the schema has refused it before).
const FabricInfo& FabricNamed(const std::string& name);

/// The default scenario's fabric.
const std::string& DefaultFabric();

/// "transport (rocev2: ...; infiniband: ...)" for --help.
const char* FabricHelp();

/// Every fabric's own keys, in registry order.
std::vector<KeySpec> FabricSchemaKeys();

/// Every fabric's resolve hook.
void ResolveFabrics(const nlohmann::json& j, RunConfig& r);

} // namespace aifabric

namespace ns3
{
template <>
std::vector<aifabric::FabricInfo>& PluginRegistry<aifabric::FabricInfo>::Entries();
} // namespace ns3

#endif

// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_TOPOLOGY_REGISTRY_H
#define FABRIC_TOPOLOGY_REGISTRY_H

#include "fabric-topology-helper.h"

#include "ns3/plugin-registry.h"

#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/// A scenario's topology.* values, as a topology's registered functions read them.
struct TopologyParams
{
    uint32_t servers{1};
    uint32_t gpusPerServer{1};
    double linkGbps{400}; //!< per GPU (NIC), Gb/s
    uint32_t leafRadix{64};
    double oversubscription{1};
    uint32_t tiers{0};               //!< 0: the topology's own choice
    double spineOversubscription{1}; //!< neutral: 1
    uint32_t planes{1};              //!< neutral: 1
    bool sharp{false};               //!< SHARP aggregation nodes in the switches
    PluginKeyValues keys;            //!< the topology's own keys (topology.<name>.*)
};

/// Switch ports and forwarding entries of a topology, for the memory estimate.
struct TopologySize
{
    uint64_t switchPorts{0};
    uint64_t routes{0};
};

/**
 * What the scenario level knows of one topology (a "topology.kind" value): the helper that
 * builds it with its shape attributes, which shared topology.* keys it reads, its one Check(),
 * how servers group under leaves (jobs are placed leaf by leaf), SHARP's aggregation levels on
 * it and its size for the memory estimate. Registered in its helper's .cc; the runner iterates
 * FabricTopologyRegistry and names none of them.
 */
struct FabricTopologyInfo
{
    std::string name;            //!< scenario name, e.g. "fat-tree"
    std::string help;            //!< one clause for --help
    std::vector<PluginKey> keys; //!< its own keys, under topology.<name>
    /// Shared topology.* keys besides servers, gpus_per_server and link_gbps that it reads
    /// ("tiers", "planes", "spine_oversubscription"); set elsewhere, they are refused.
    std::vector<std::string> sharedKeys;
    /// The helper with its shape attributes (and Servers, GpusPerServer) set.
    std::function<Ptr<FabricTopologyHelper>(const TopologyParams&)> create;
    /// Why the parameters do not fit, as "topology.tiers: ..." (naming the key), or "".
    std::function<std::string(const TopologyParams&)> check;
    /// Servers whose GPUs share one leaf of each rail (one leaf group).
    std::function<uint32_t(const TopologyParams&)> serversPerLeafGroup;
    /// Why SHARP cannot aggregate on it ("" when it can).
    std::string noSharp;
    /// Levels of SHARP's aggregation tree (with sharp).
    std::function<uint32_t(const TopologyParams&)> aggregationLevels;
    /// Switch ports and forwarding entries (the memory estimate; an upper bound is fine).
    std::function<TopologySize(const TopologyParams&)> size;

    /// check(p), or "" without one.
    std::string Check(const TopologyParams& p) const
    {
        return check ? check(p) : "";
    }
};

/// The topologies a scenario can name (topology.kind).
using FabricTopologyRegistry = PluginRegistry<FabricTopologyInfo>;

template <>
std::vector<FabricTopologyInfo>& FabricTopologyRegistry::Entries();

/// Switch ports and forwarding entries of a two-tier leaf-spine (a star: `over` 0, one switch).
TopologySize LeafSpineSize(uint64_t hosts, double over, uint32_t leafRadix);

} // namespace ns3

#endif

// SPDX-License-Identifier: GPL-2.0-only
#ifndef LOAD_BALANCING_REGISTRY_H
#define LOAD_BALANCING_REGISTRY_H

#include "ns3/plugin-registry.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * What the scenario level knows of one way of spreading flows over equal-cost paths (a
 * "routing.load_balancing" value): the switches' FabricSwitch::PathSelection it sets (or none:
 * the topology's own, ECMP or InfiniBand's LFT), the queue pairs per connection it opens by
 * default, whether it needs RDMA queue pairs, whether an InfiniBand subnet can run it, and
 * whether it is the default. Registered beside the switch that implements it
 * (load-balancing-registry.cc, in switch/); the runner iterates LoadBalancingRegistry and names
 * none of them.
 */
struct LoadBalancingInfo
{
    std::string name;             //!< scenario name, e.g. "flowlet"
    std::string help;             //!< one clause for --help
    int pathSelection{-1};        //!< FabricSwitch::PathSelection to set (-1: the topology's)
    uint32_t qpsPerConnection{1}; //!< routing.qps_per_connection 0 (auto) resolves to this
    bool queuePairs{false};       //!< spreads RDMA queue pairs (no use to kernel TCP)
    bool onInfiniband{false};     //!< an InfiniBand subnet (LFT or adaptive routing) runs it
    bool isDefault{false};        //!< the default scenario's (exactly one entry)
};

/// The load balancing schemes a scenario can name (routing.load_balancing).
using LoadBalancingRegistry = PluginRegistry<LoadBalancingInfo>;

template <>
std::vector<LoadBalancingInfo>& LoadBalancingRegistry::Entries();

/// The default entry's name.
const std::string& DefaultLoadBalancing();

} // namespace ns3

#endif

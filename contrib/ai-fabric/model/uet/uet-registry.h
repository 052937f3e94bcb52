// SPDX-License-Identifier: GPL-2.0-only
#ifndef UET_REGISTRY_H
#define UET_REGISTRY_H

#include "ns3/plugin-registry.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * What the scenario level knows of one UET congestion control (a "uec.cc" value): the
 * UetCongestionOps TypeId it builds and, for receiver credit with a sender window beside it,
 * the window's TypeId (UetRccc's SenderCc). Registered next to its class (uet-nscc.cc registers
 * "nscc"); the runner iterates UetCongestionRegistry and names none of them.
 */
struct UetCongestionInfo
{
    std::string name;      //!< scenario name, e.g. "nscc"
    std::string typeId;    //!< the UetCongestionOps subclass
    std::string senderCc;  //!< UetRccc's SenderCc ("": none)
    std::string help;      //!< one clause for --help
    bool isDefault{false}; //!< the default scenario's (exactly one entry)
};

/// The UET congestion controls a scenario can name (uec.cc).
using UetCongestionRegistry = PluginRegistry<UetCongestionInfo>;

template <>
std::vector<UetCongestionInfo>& UetCongestionRegistry::Entries();

/**
 * What the scenario level knows of one UET load balancer (a "uec.load_balancing" value): the
 * UetLoadBalancer TypeId it builds. Registered next to its class (uet-reps.cc registers "reps").
 */
struct UetLoadBalancerInfo
{
    std::string name;      //!< scenario name, e.g. "reps"
    std::string typeId;    //!< the UetLoadBalancer subclass
    std::string help;      //!< one clause for --help
    bool isDefault{false}; //!< the default scenario's (exactly one entry)
};

/// The UET load balancers a scenario can name (uec.load_balancing).
using UetLoadBalancerRegistry = PluginRegistry<UetLoadBalancerInfo>;

template <>
std::vector<UetLoadBalancerInfo>& UetLoadBalancerRegistry::Entries();

/// The default entry of each (its name).
const std::string& DefaultUetCongestion();
const std::string& DefaultUetLoadBalancer();

} // namespace ns3

#endif

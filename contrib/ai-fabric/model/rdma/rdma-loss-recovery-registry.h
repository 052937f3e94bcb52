// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_LOSS_RECOVERY_REGISTRY_H
#define RDMA_LOSS_RECOVERY_REGISTRY_H

#include "ns3/plugin-registry.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * What the scenario level knows of one RDMA loss recovery (a "loss_recovery" value): the
 * RdmaLossRecovery TypeId it builds, whether it keeps out-of-order packets (so that a reorder
 * threshold has something to wait for) and whether it is the default. Registered next to its
 * class (rdma-go-back-n.cc registers "go-back-n"); the runner iterates
 * RdmaLossRecoveryRegistry and names none of them.
 */
struct RdmaLossRecoveryInfo
{
    std::string name;            //!< scenario name, e.g. "go-back-n"
    std::string typeId;          //!< the RdmaLossRecovery subclass, e.g. "ns3::RdmaGoBackN"
    std::string help;            //!< one clause for --help
    bool keepsOutOfOrder{false}; //!< buffers out-of-order packets (ReorderThreshold applies)
    bool isDefault{false};       //!< the default scenario's loss recovery (exactly one entry)
};

/// The RDMA loss recoveries a scenario can name (loss_recovery).
using RdmaLossRecoveryRegistry = PluginRegistry<RdmaLossRecoveryInfo>;

template <>
std::vector<RdmaLossRecoveryInfo>& RdmaLossRecoveryRegistry::Entries();

/// The default entry's name.
const std::string& DefaultLossRecovery();

} // namespace ns3

#endif

// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SCENARIO_RDMA_H
#define AI_FABRIC_SCENARIO_RDMA_H

#include "scenario.h"

#include <nlohmann/json.hpp>

namespace aifabric
{

/**
 * The RDMA NIC's keys of a resolved scenario into `r`: loss_recovery and rdma.* (retransmission
 * timeout, path MTU, the selective-repeat requester's reorder threshold). Throws ScenarioError
 * for a reorder threshold without selective repeat (go-back-N resends from the first hole; it
 * has no out-of-order packets to wait for).
 */
void ResolveRdma(const nlohmann::json& j, RunConfig& r);

} // namespace aifabric

#endif

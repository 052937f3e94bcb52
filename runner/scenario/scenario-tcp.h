// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SCENARIO_TCP_H
#define AI_FABRIC_SCENARIO_TCP_H

#include "scenario.h"

#include <nlohmann/json.hpp>

namespace aifabric
{

/**
 * The `tcp` keys of a resolved scenario into `r` (stack, host costs, TLP, RACK, NCCL sockets
 * and threads), and on fabric tcp the congestion_control / loss_recovery that really run:
 * ns-3's SocketType and RecoveryType attributes with tcp.stack ns3, the Linux model's
 * CongestionControl attribute and rack|sack[-tlp] with tcp.stack linux. Throws ScenarioError
 * for combinations the stacks cannot run.
 */
void ResolveTcp(const nlohmann::json& j, RunConfig& r);

} // namespace aifabric

#endif

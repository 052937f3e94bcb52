// SPDX-License-Identifier: GPL-2.0-only
// Cross-field checks of a resolved run's fabric: link layer and flow control, topology kind and
// its keys, load balancing, congestion control, fault events that need PFC.
#ifndef AI_FABRIC_SCENARIO_FABRIC_CHECKS_H
#define AI_FABRIC_SCENARIO_FABRIC_CHECKS_H

#include "scenario.h"

namespace aifabric
{

/// Throw a ScenarioError naming the key when `r`'s fabric fields contradict each other.
void CheckFabricFields(const RunConfig& r);

} // namespace aifabric

#endif // AI_FABRIC_SCENARIO_FABRIC_CHECKS_H

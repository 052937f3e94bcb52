// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SCENARIO_FLOWS_H
#define AI_FABRIC_SCENARIO_FLOWS_H

#include "scenario.h"

#include "ns3/flow-size-distribution.h"

#include <nlohmann/json.hpp>
#include <string>

namespace aifabric
{

/**
 * The flow-size distribution a scenario's `cdf` names: a built-in one (websearch, fb-hadoop)
 * or a regular file of at most 1 MiB of `bytes cumulative-percent` lines (relative to the
 * working directory). Throws ns3::FlowSizeDistribution::Error, the path echoed safely.
 */
ns3::FlowSizeDistribution LoadFlowSizes(const std::string& cdf);

/**
 * A flow-traffic object of a resolved scenario (workload.flows or workload.background, at
 * `key` in messages), its distribution loaded once to check it. Throws ScenarioError.
 */
FlowsConfig ToFlows(const nlohmann::json& f, const std::string& key);

} // namespace aifabric

#endif

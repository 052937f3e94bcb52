// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SCENARIO_FLOWS_H
#define AI_FABRIC_SCENARIO_FLOWS_H

#include "scenario.h"

#include "ns3/connection-matrix.h"
#include "ns3/flow-size-distribution.h"

#include <memory>
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

/// Largest connection-matrix file accepted (bytes).
constexpr uint64_t kMaxMatrixFileBytes = 64 << 20;

/**
 * workload.matrix: an htsim connection matrix (ns3::ConnectionMatrix's format), a regular
 * non-empty file of at most kMaxMatrixFileBytes. Throws ScenarioError "workload.matrix: ..."
 * naming the file, and for a bad line its number and field.
 */
std::shared_ptr<const ns3::ConnectionMatrix> LoadMatrix(const std::string& path);

/**
 * A scenario file's relative workload.matrix and workload.trace (top level and in `compare` and
 * `jobs` entries) made relative to the file's folder `dir` instead of the working directory; a
 * null one is removed.
 */
void AnchorScenarioPaths(nlohmann::json& scenario, const std::string& dir);

} // namespace aifabric

#endif

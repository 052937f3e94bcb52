// SPDX-License-Identifier: GPL-2.0-only
// Several jobs on one fabric (`jobs: [...]`): each job's configuration and where it runs.
#ifndef AI_FABRIC_SCENARIO_JOBS_H
#define AI_FABRIC_SCENARIO_JOBS_H

#include "scenario.h"

#include <functional>
#include <nlohmann/json.hpp>

namespace aifabric
{

/**
 * Resolve `j["jobs"]` into `cluster.jobs`: each job's run configuration is the scenario with the
 * job's `workload` merged over the scenario's, its `fabric` (transport) and `servers`, resolved
 * by `toRun` (which validates it: an error is reported under `jobs[i].`); then each job is placed
 * on whole servers of the cluster in list order (contiguous: the lowest free block; spread:
 * evenly over the free servers; rail-aligned: a free block starting on a leaf group's first
 * server; random: the scenario's seed and the job's index pick free servers). Throws
 * ScenarioError naming the key (a job too large for the free servers, a transport the fabric
 * cannot carry, a workload that cannot share a fabric).
 */
void ResolveJobs(const nlohmann::json& j,
                 RunConfig& cluster,
                 const std::function<RunConfig(const nlohmann::json&)>& toRun);

/// Servers under one leaf of each rail (rail-fat-tree), or one leaf (fat-tree); star: all.
uint32_t ServersPerLeafGroup(const RunConfig& cluster);

} // namespace aifabric

#endif

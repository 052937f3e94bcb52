// SPDX-License-Identifier: GPL-2.0-only
// What a run with `jobs` reports per job: its summary, its steps, and its slowdowns.
#ifndef AI_FABRIC_RUN_JOBS_H
#define AI_FABRIC_RUN_JOBS_H

#include "scenario.h"
#include "simulation-builder.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace aifabric
{

/// The run as one job sees it: sim with job / parallel / network of `j` (for Summary).
Simulation JobView(const Simulation& sim, const SimulatedJob& j);

/**
 * The `jobs` entries of a run's summary.json, one per built job: name, servers, placement,
 * server_ids, start_ms, fabric, workload_kind, gpus, steps_completed, completed, step_ms,
 * collective_ms, mfu_effective, idle_cost_usd_per_hr, busbw_gbytes_per_s, barrier, tcp (the
 * kernel-TCP counters of a tcp job's transport, zeros on RDMA) and (training) training, as Summary
 * computes them for the job alone on its GPUs.
 */
nlohmann::json JobsSummary(const RunConfig& c, const Simulation& sim, uint64_t events, double wall);

/// jobs.csv: job,step,step_ms,last_rank,waited_on,cause (ranks are the job's own).
std::string JobsCsv(const RunConfig& c, const Simulation& sim);

/**
 * Slowdowns from the baseline runs: `alone[i]` is the jobs summary of job i run alone (one
 * entry), `without[i]` that of every job but i (empty with fewer than 3 jobs: then job i's
 * absence leaves each other job alone). Adds to each job of `jobs` alone_step_ms, slowdown (its
 * mean step together / alone) and slows_others {other job: its mean step with this job / without
 * it}.
 */
void AddSlowdowns(nlohmann::json& jobs,
                  const std::vector<nlohmann::json>& alone,
                  const std::vector<nlohmann::json>& without);

} // namespace aifabric

#endif

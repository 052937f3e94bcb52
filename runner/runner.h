// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_RUNNER_H
#define AI_FABRIC_RUNNER_H

#include "dashboard.h"
#include "results-writer.h"
#include "run-output.h"
#include "scenario.h"

#include <cstddef>

namespace aifabric
{

/**
 * Run one configuration to completion (or to limits.max_sim_seconds): build it
 * (BuildSimulation), sample it while it runs, then read its summary, traces and attributes.
 * `progress`: print a progress line on stderr (run `index` of `total`).
 */
RunOutput ExecuteRun(const RunConfig& config, bool progress, size_t index, size_t total);

/// Exit status of a runner whose runs were all written but at least one did not complete.
constexpr int kExitIncomplete = 3;

/**
 * Why a run did not complete, in one line naming the run ("run 'X': 12 queue pairs exhausted
 * their retries (faults.drop_rate 0.5); the job did not complete"); empty if it completed.
 */
std::string IncompleteRunMessage(const RunOutput& run);

} // namespace aifabric

#endif

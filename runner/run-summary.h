// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_RUN_SUMMARY_H
#define AI_FABRIC_RUN_SUMMARY_H

#include "scenario.h"
#include "simulation-builder.h"

#include "ns3/training-job.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace aifabric
{

/// The steps every rank finished (a run stopped by limits.max_sim_seconds has fewer).
std::vector<ns3::TrainingStepRecord> CompletedSteps(const Simulation& sim);

/**
 * A finished run's summary.json entry: step and collective times, effective MFU, idle cost,
 * latency quantiles, bandwidths, counters, the TCP message breakdown, who each barrier waited
 * on, and the simulation's own cost (`events`, `wall` seconds, peak RSS).
 */
nlohmann::json Summary(const RunConfig& c, const Simulation& sim, uint64_t events, double wall);

} // namespace aifabric

#endif

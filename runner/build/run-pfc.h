// SPDX-License-Identifier: GPL-2.0-only
// PFC health of a run: the watchdog and deadlock detector a scenario asks for, and what the
// summary says about storms, deadlocks and queues still paused at the end.
#ifndef AI_FABRIC_RUN_PFC_H
#define AI_FABRIC_RUN_PFC_H

#include "simulation-builder.h"

#include <nlohmann/json.hpp>
#include <string>

namespace aifabric
{

/// Install pfc_watchdog and pfc_deadlock on every switch of `sim.topo`.
void AddPfcHealth(const RunConfig& c, Simulation& sim);

/**
 * summary.json's "pfc_health" block: pause storms started, the watchdog's counters, each deadlock
 * (when, its queues as "leaf1>spine0" egress names, priority) and the queues paused at the end
 * longest first (the victims of a storm that never ended show here).
 */
nlohmann::json PfcSummary(const RunConfig& c, const Simulation& sim);

/// Why an incomplete run stalled, from its summary's "pfc_health" block ("" if PFC does not explain
/// it).
std::string PfcStallReason(const nlohmann::json& summary);

} // namespace aifabric

#endif // AI_FABRIC_RUN_PFC_H

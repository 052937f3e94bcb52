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

/// Peak resident set of this process, MB (VmHWM of /proc/self/status; 0 if unknown).
double PeakRssMb();

/// The steps every rank finished (a run stopped by limits.max_sim_seconds has fewer).
std::vector<ns3::TrainingStepRecord> CompletedSteps(const Simulation& sim);

/**
 * A finished run's summary.json entry: step and collective times, effective MFU, idle cost,
 * latency quantiles, bandwidths, counters, the TCP message breakdown, who each barrier waited
 * on, and the simulation's own cost (`events`, `wall` seconds, peak RSS).
 */
nlohmann::json Summary(const RunConfig& c, const Simulation& sim, uint64_t events, double wall);

/**
 * The `flows` entry of a run with flow traffic: flow counts, FCT slowdown quantiles (nearest
 * rank; the Poisson flows, incast bursts left out) overall and by size (upper edges 10 KB,
 * 100 KB, 1 MB, 10 MB and an open bucket), the p99 of the egress queue data frames found at
 * switch ports (`queue`), and the time ports were held paused by PFC (all ports and
 * priorities, microseconds).
 */
/**
 * A connection matrix's extra keys: fct_us {p50, p99, max} of the completed flows (nearest
 * rank), and paths {max_flows_per_link, flows_sharing_a_link}: flows per directed link of
 * their ECMP paths over the whole matrix, start times aside.
 */
nlohmann::json MatrixSummary(const ns3::FlowWorkload& flows);

/// Each flow's most flows on one directed link of its path, over the whole matrix.
std::vector<uint32_t> MatrixLinkFlows(const ns3::FlowWorkload& flows);

nlohmann::json FlowsSummary(const ns3::FlowWorkload& flows,
                            const ns3::LatencyHistogram& queue,
                            ns3::Ptr<const ns3::FabricTopology> topo);

} // namespace aifabric

#endif

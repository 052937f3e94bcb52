// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_RUN_TRACES_H
#define AI_FABRIC_RUN_TRACES_H

#include "ns3/flow-workload.h"
#include "ns3/latency-histogram.h"
#include "ns3/training-job.h"

#include <string>
#include <vector>

namespace aifabric
{

/// steps.csv: one row per completed step per rank (start, compute end, collective end, barrier).
std::string StepsCsv(const std::vector<ns3::TrainingStepRecord>& done);

/// steps_summary.csv: one row per completed step (times, who was last and why, retransmissions).
std::string StepsSummaryCsv(const std::vector<ns3::TrainingStepRecord>& done);

/// latency_cdf.csv: the latency at 1,001 quantiles (only the header without samples).
std::string LatencyCsv(const ns3::LatencyHistogram& latency);

/// One line per flow: src, dst, bytes, start, FCT, ideal FCT, slowdown, incast, status; with
/// `linkFlows` (a connection matrix) a last column link_flows: the most flows of the matrix on
/// a link of the flow's path (MatrixLinkFlows).
std::string FlowsCsv(const std::vector<ns3::FlowRecord>& flows,
                     const std::vector<uint32_t>* linkFlows = nullptr);

/**
 * FCT slowdown by flow size for figures: one line per size bucket (upper edges 1, 3, 10, 30,
 * ... KB up to 10 MB, then an open bucket plotted at the largest flow), with the bucket's
 * count and p50/p95/p99; Poisson flows only. Empty buckets are left out.
 */
std::string SlowdownCsv(const std::vector<ns3::FlowRecord>& flows);

} // namespace aifabric

#endif

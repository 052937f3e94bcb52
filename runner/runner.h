// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_RUNNER_H
#define AI_FABRIC_RUNNER_H

#include "scenario.h"

#include "ns3/results-directory.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace aifabric
{

/// Everything one run produced: its summary and its traces (written by WriteResults).
struct RunOutput
{
    RunConfig config;
    nlohmann::json summary;
    std::string stepsCsv; //!< per step per rank
    std::string stepsSummaryCsv;
    std::string latencyCsv;    //!< latency CDF
    std::string queueCsv;      //!< sampled switch queues and PFC
    std::string rateCsv;       //!< rank 0's queue-pair rates
    nlohmann::json attributes; //!< attribute values of the main objects
};

/// Run one configuration to completion (or to limits.max_sim_seconds). `progress`: print a
/// progress line on stderr.
RunOutput ExecuteRun(const RunConfig& config, bool progress, size_t index, size_t total);

/**
 * Write the results: summary.json (runs[]), config.json, per-run CSV traces and gnuplot scripts
 * (rendered to PNG when gnuplot is installed) into `dir`, then commit it (rename into place).
 */
void WriteResults(ns3::ResultsDirectory& dir,
                  const std::string& scenarioName,
                  const std::vector<RunOutput>& runs);

/// The seed's dashboard, one column per run.
std::string Dashboard(const std::vector<RunOutput>& runs);

} // namespace aifabric

#endif

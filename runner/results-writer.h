// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_RESULTS_WRITER_H
#define AI_FABRIC_RESULTS_WRITER_H

#include "run-output.h"

#include "ns3/results-directory.h"

#include <string>
#include <vector>

namespace aifabric
{

/**
 * Write the results: summary.json (runs[]), config.json, per-run CSV traces and gnuplot scripts
 * (rendered to PNG when gnuplot is installed), compare.csv/.gp and dashboard.txt into `dir`,
 * then commit it (rename into place).
 */
void WriteResults(ns3::ResultsDirectory& dir,
                  const std::string& scenarioName,
                  const std::vector<RunOutput>& runs);

} // namespace aifabric

#endif

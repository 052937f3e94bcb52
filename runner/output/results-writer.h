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
 * (rendered to PNG when gnuplot is installed), compare.csv/.gp, dashboard.txt and the results
 * page index.html into `dir`, then commit it (rename into place).
 */
void WriteResults(ns3::ResultsDirectory& dir,
                  const std::string& scenarioName,
                  const std::vector<RunOutput>& runs);

/**
 * The subdirectory of each run (and its label in compare.csv), in order: safe file names,
 * distinct from each other and from the files written beside them (UniqueFileNames).
 */
std::vector<std::string> RunDirectoryNames(const std::vector<std::string>& runNames);

} // namespace aifabric

#endif

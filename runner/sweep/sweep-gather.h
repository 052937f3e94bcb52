// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SWEEP_GATHER_H
#define AI_FABRIC_SWEEP_GATHER_H

#include <cstddef>
#include <ostream>
#include <string>

namespace aifabric
{

/**
 * Merge every finished point's summary.json into DIR/gathered/results.csv (one row per run)
 * and write gnuplot figures (figures.gp, rendered to PNG when gnuplot is installed): one line
 * per fabric (or per run name, plus the other swept values that vary), x = each numeric swept
 * key, the mean over seeds with min/max error bars; and the sweep page index.html there
 * (WriteSweepReport).
 * \return 0 on success, 1 if no point has finished
 */
int Gather(const std::string& dir, std::ostream& out, std::ostream& err);

/// The tidy CSV of a sweep directory (what Gather writes to results.csv).
std::string GatherCsv(const std::string& dir, size_t* missingPoints = nullptr);

} // namespace aifabric

#endif

// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_RUN_FIGURES_H
#define AI_FABRIC_RUN_FIGURES_H

#include "scenario.h"

#include <string>

namespace aifabric
{

/**
 * plots.gp of one run (in its subdirectory): the per-rank step timeline, the latency CDF, the
 * switch queues and, when rank 0's queue pairs reported rates (`hasRates`), those rates. The
 * run name enters only through GnuplotString.
 */
std::string RunPlotsScript(const RunConfig& c, bool hasRates);

/// compare.gp: the mean step of every run, compute stacked on waiting for the collective.
std::string CompareScript();

} // namespace aifabric

#endif

// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_RUN_FIGURES_H
#define AI_FABRIC_RUN_FIGURES_H

#include "run-output.h"

#include <string>
#include <vector>

namespace aifabric
{

/**
 * plots.gp of one run (in its subdirectory): the per-rank step timeline when a step completed,
 * the latency CDF when a data packet crossed the network (a single server's traffic never
 * does), the switch queues and, when rank 0's queue pairs reported rates, those rates. The
 * timeline has a second panel on step 0's collective; the latency is a CCDF (log-log) titled by
 * the transport; queues are the peaks of each sampling interval; rates are drawn under the
 * line rate with a key. A plot
 * without data is left out: gnuplot fails on it and stops drawing the rest. The run name
 * enters only through GnuplotString.
 */
std::string RunPlotsScript(const RunOutput& run);

/**
 * compare.gp: the mean step of every run (compute in front of the whole step, so the part above
 * it is the wait), and the wait alone on its own scale; bars labelled by the runs' names.
 */
std::string CompareScript(const std::vector<RunOutput>& runs);

/**
 * slowdown.gp: FCT slowdown against flow size (the HPCC paper's figure), one line per run
 * (its congestion control), median and 95th percentile side by side, from each run's
 * slowdown.csv in `dirs`.
 */
std::string SlowdownScript(const std::vector<RunOutput>& runs,
                           const std::vector<std::string>& dirs);

} // namespace aifabric

#endif

// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SWEEP_FIGURES_H
#define AI_FABRIC_SWEEP_FIGURES_H

#include "sweep-collect.h"

#include <string>
#include <vector>

namespace aifabric
{

/// One figure of a gathered sweep: its gnuplot commands and its data file.
struct Figure
{
    std::string file;   //!< without extension
    std::string script; //!< gnuplot commands
    std::string data;   //!< the .dat file
};

/**
 * The figures of a gathered sweep: each metric against each numeric swept key with two or more
 * values; one line per series (fabric or run name, plus the values of the other swept keys that
 * vary), at each x the mean over the rows that share it (the seeds), with min/max error bars.
 */
std::vector<Figure> Figures(const Collected& c);

} // namespace aifabric

#endif

// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SWEEP_STATUS_H
#define AI_FABRIC_SWEEP_STATUS_H

#include <cstddef>
#include <ostream>
#include <string>

namespace aifabric
{

/// Counts of a sweep directory's points.
struct SweepStatusCounts
{
    size_t done{0};
    size_t running{0};
    size_t pending{0};
    size_t failed{0};
    size_t notStarted{0};
};

/**
 * Print done/running/pending/failed counts and the logs of failed points. Reads the directory
 * and, when the sweep was submitted to Slurm and squeue/sacct answer, the queue.
 * \return 0 all done, 3 some still running or pending, 1 otherwise (failed or never started)
 */
int SweepStatus(const std::string& dir, std::ostream& out, SweepStatusCounts* counts = nullptr);

} // namespace aifabric

#endif

// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SWEEP_SLURM_H
#define AI_FABRIC_SWEEP_SLURM_H

#include "sweep-expand.h"

#include <ostream>
#include <string>

namespace aifabric
{

struct SlurmOptions
{
    std::string partition;
    std::string time;
    std::string mem;
    std::string account;
    unsigned throttle{64};   //!< %K: array tasks running at once
    unsigned maxArray{1000}; //!< tasks per job array (Slurm's MaxArraySize is 1001 by default)
};

/// Check the options (they end up in a shell script). Throws ScenarioError naming the option.
void CheckSlurmOptions(const SlurmOptions& options);

/// The sbatch script of one job array over the task list `tasksFile` (`count` point ids).
std::string SlurmScript(const Sweep& sweep,
                        const std::string& dir,
                        const std::string& runner,
                        const std::string& tasksFile,
                        size_t count,
                        const SlurmOptions& options);

/**
 * Submit the unfinished points as job arrays with sbatch; prints the job ids.
 * \return 0 when submitted (or nothing left to do), 1 if sbatch failed
 */
int SubmitSlurm(const Sweep& sweep,
                const std::string& dir,
                const std::string& runner,
                const SlurmOptions& options,
                std::ostream& out,
                std::ostream& err);

} // namespace aifabric

#endif

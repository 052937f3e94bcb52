// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SLURM_QUEUE_H
#define AI_FABRIC_SLURM_QUEUE_H

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace aifabric
{

/// What Slurm says about this sweep's array tasks: point id -> squeue state code (R, PD, ...).
struct QueueView
{
    bool submitted{false};                    //!< the sweep has recorded Slurm jobs
    bool answered{false};                     //!< squeue ran and answered
    std::map<std::string, std::string> state; //!< point id -> squeue state
    std::map<std::string, std::string> final; //!< point id -> sacct state, when accounting is on
    std::vector<std::string> jobs;
};

/// Ask squeue (and sacct, when accounting is on) about the jobs recorded in DIR/slurm/jobs.json.
QueueView ReadQueue(const std::filesystem::path& dir);

/// How many of the directory's points Slurm still has queued or running (0 without Slurm).
size_t QueuedPoints(const std::string& dir);

} // namespace aifabric

#endif

// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SWEEP_H
#define AI_FABRIC_SWEEP_H

#include "scenario.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace aifabric
{

/**
 * Parameter sweeps: a base scenario, a grid of dotted keys (cartesian product), an optional
 * zip group (keys that vary together) and a list of seeds expand into points; each point is a
 * complete scenario, validated with ResolveScenario before anything runs, and is run by the
 * unchanged runner (ai-fabric-runner POINT.json --quiet --out DIR/<id>) on local cores or as
 * one task of a Slurm job array.
 *
 * A sweep directory holds:
 *   sweep.json          the manifest: sweep name, swept keys, every point (id, seed, values)
 *   points/<id>.json    the point's scenario (the runner's input)
 *   <id>/               the runner's results directory (appears only when complete)
 *   logs/<id>.log       the point's stdout and stderr; logs/<id>.exit its exit status
 *   slurm/              generated job-array scripts, their task lists and the submitted jobs
 *   gathered/           results.csv and the figures (written by Gather)
 *
 * Deliberately left out: scheduling of our own (Slurm does that), retries inside one
 * submission (re-submitting reruns exactly the unfinished points), MPI.
 */

/// One point: the base scenario with one grid combination, one zip entry and one seed.
struct SweepPoint
{
    size_t index{0};
    std::string id; //!< PointId of its resolved runs
    uint32_t seed{1};
    nlohmann::json values;         //!< swept key (dotted) -> value
    nlohmann::json scenario;       //!< the complete scenario the runner is given
    std::vector<std::string> runs; //!< run names (one per compare entry)
};

/// A parsed, expanded and fully validated sweep.
struct Sweep
{
    std::string name;
    std::string source;                //!< the sweep file
    std::vector<std::string> gridKeys; //!< in file order
    std::vector<std::string> zipKeys;  //!< in file order
    std::vector<uint32_t> seeds;
    std::vector<SweepPoint> points;

    /// The swept keys: grid keys, then zip keys.
    std::vector<std::string> Keys() const;
    /// "fabric=tcp faults.drop_rate=1e-05 seed=2"
    std::string Describe(const SweepPoint& p) const;
};

/// FNV-1a, 64 bit, of a byte string.
uint64_t Fnv1a64(const std::string& bytes);

/**
 * The canonical form used for point ids: object keys sorted (nlohmann::json does that),
 * no whitespace, and a floating-point number with an integral value below 2^53 written as an
 * integer, so that 0 and 0.0 (or 4 and 4.0) give the same id.
 */
nlohmann::json CanonicalJson(const nlohmann::json& j);

/// 16 hex digits: FNV-1a 64 of the canonical JSON list of the runs' resolved configurations.
std::string PointId(const std::vector<RunConfig>& runs);

/**
 * Parse, expand and validate a sweep file (JSON, comments allowed). Every point is resolved
 * with ResolveScenario. Throws ScenarioError naming the field (e.g. "grid.topology.server:
 * unknown key (did you mean 'topology.servers'?) ...") on any problem.
 */
Sweep LoadSweep(const std::string& path);

/// The same from JSON text; `name` and `baseDir` stand in for the file's stem and directory.
Sweep ExpandSweep(const std::string& text, const std::string& name, const std::string& baseDir);

/// Check that `dir` is absent, empty or a directory of this sweep. Throws ScenarioError.
void CheckSweepDirectory(const Sweep& sweep, const std::string& dir);

/**
 * Create the directory layout, write every point's scenario and the manifest (each file
 * written to a temporary name and renamed). Points that are not finished lose a stale exit
 * status, so a re-submitted failed point shows as pending rather than failed.
 */
void PrepareSweepDirectory(const Sweep& sweep, const std::string& dir, const std::string& runner);

/// Whether the point's results are complete (DIR/<id>/summary.json exists).
bool PointDone(const std::string& dir, const std::string& id);

/// The arguments of the runner for one point; both engines use exactly these.
std::vector<std::string> RunnerArguments(const std::string& runner,
                                         const std::string& dir,
                                         const std::string& id);

struct LocalOptions
{
    unsigned jobs{1};
    bool quiet{false};
};

/**
 * Run the unfinished points on local cores, at most `jobs` at a time, each one's output in
 * its log. A failed point is reported with its log and does not stop the others.
 * \return 0 if every point is done at the end, 1 if any failed
 */
int RunLocal(const Sweep& sweep,
             const std::string& dir,
             const std::string& runner,
             const LocalOptions& options,
             std::ostream& out,
             std::ostream& err);

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

/// How many of the directory's points Slurm still has queued or running (0 without Slurm).
size_t QueuedPoints(const std::string& dir);

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

/**
 * Merge every finished point's summary.json into DIR/gathered/results.csv (one row per run)
 * and write gnuplot figures (figures.gp, rendered to PNG when gnuplot is installed): one line
 * per fabric (or per run name, plus the other swept values that vary), x = each numeric swept
 * key, the mean over seeds with min/max error bars.
 * \return 0 on success, 1 if no point has finished
 */
int Gather(const std::string& dir, std::ostream& out, std::ostream& err);

/// The tidy CSV of a sweep directory (what Gather writes to results.csv).
std::string GatherCsv(const std::string& dir, size_t* missingPoints = nullptr);

} // namespace aifabric

#endif

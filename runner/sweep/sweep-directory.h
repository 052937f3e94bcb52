// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SWEEP_DIRECTORY_H
#define AI_FABRIC_SWEEP_DIRECTORY_H

#include "sweep-expand.h"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace aifabric
{

/// The sweep directory: its layout, its manifest and the state files of each point.

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

/// The points whose results are not complete, in sweep order (what the engines run).
std::vector<const SweepPoint*> UnfinishedPoints(const Sweep& sweep, const std::string& dir);

/// The arguments of the runner for one point; both engines use exactly these.
std::vector<std::string> RunnerArguments(const std::string& runner,
                                         const std::string& dir,
                                         const std::string& id);

// ---- the files of one point (see the layout in sweep.h)

/// logs/<id>.log: the point's stdout and stderr, after a "# ai-fabric-sweep ..." header line.
std::filesystem::path LogPath(const std::filesystem::path& dir, const std::string& id);
/// logs/<id>.exit: the exit status of the point's last finished attempt.
std::filesystem::path ExitPath(const std::filesystem::path& dir, const std::string& id);
/// The exit status a finished attempt recorded, or -1 when there is none.
int RecordedExit(const std::filesystem::path& dir, const std::string& id);
void RecordExit(const std::filesystem::path& dir, const std::string& id, int rc);
/**
 * logs/<id>.run, locked (flock) by the point's runner for as long as it runs: the sweep opens
 * and locks it just before starting the runner, which inherits the descriptor, and closes its
 * own copy right after. The lock outlives a sweep killed with -9 and ends with the runner, so
 * an orphaned runner is seen as running and never started twice.
 * \return the descriptor (close it once the runner started), or -1
 */
int LockPointForRunner(const std::filesystem::path& dir, const std::string& id);
/// Whether a runner of the point still runs (its logs/<id>.run is locked).
bool PointRunnerAlive(const std::filesystem::path& dir, const std::string& id);
/// "key=value" fields of a log's first line ("# ai-fabric-sweep point=... engine=local ...").
std::map<std::string, std::string> LogHeader(const std::filesystem::path& log);
/// The last non-blank line of a log, trimmed.
std::string LastLine(const std::filesystem::path& log);

/**
 * The line of a point's log that says why it failed: the last line with ns-3's "aborted. ",
 * "assert failed. " or "msg=\"", the runner's "ai-fabric: " or a C++ "what(): "; else the last
 * non-empty line. (An abort ends with "terminate called ..." after the reason.)
 */
std::string ReasonLine(const std::filesystem::path& log);
/// The manifest (sweep.json) of a sweep directory. Throws ScenarioError if there is none.
nlohmann::json ReadManifest(const std::filesystem::path& dir);
/// "key=value ... seed=N" of a manifest point.
std::string DescribeManifestPoint(const nlohmann::json& manifest, const nlohmann::json& p);

} // namespace aifabric

#endif

// SPDX-License-Identifier: GPL-2.0-only
#include "sweep-status.h"

#include "slurm-queue.h"
#include "sweep-directory.h"
#include "text-util.h"

#include <filesystem>
#include <signal.h>
#include <unistd.h>

namespace aifabric
{

using nlohmann::json;
namespace fs = std::filesystem;

namespace
{

enum class PointState
{
    DONE,
    RUNNING,
    PENDING,
    FAILED,
    NOT_STARTED,
};

PointState
StateOf(const fs::path& dir, const std::string& id, const QueueView& q, std::string& why)
{
    if (PointDone(dir.string(), id))
    {
        return PointState::DONE;
    }
    if (PointRunnerAlive(dir, id))
    {
        return PointState::RUNNING; // its runner, even if the sweep that started it is gone
    }
    const auto qs = q.state.find(id);
    if (qs != q.state.end())
    {
        return qs->second == "PD" ? PointState::PENDING : PointState::RUNNING;
    }
    const int rc = RecordedExit(dir, id);
    if (rc >= 0)
    {
        why = rc == 0 ? "exit status 0 but no summary.json" : "exit status " + std::to_string(rc);
        return PointState::FAILED;
    }
    const auto fin = q.final.find(id);
    if (fin != q.final.end() && fin->second != "COMPLETED" && fin->second != "RUNNING" &&
        fin->second != "PENDING")
    {
        why = "Slurm state " + fin->second;
        return PointState::FAILED;
    }
    const fs::path log = LogPath(dir, id);
    if (!fs::exists(log))
    {
        return PointState::NOT_STARTED;
    }
    const auto h = LogHeader(log);
    const auto engine = h.find("engine");
    if (engine != h.end() && engine->second == "local" && h.count("host") &&
        h.at("host") == Hostname() && h.count("pid"))
    {
        const pid_t pid = static_cast<pid_t>(std::atol(h.at("pid").c_str()));
        if (pid > 0 && ::kill(pid, 0) == 0)
        {
            return PointState::RUNNING;
        }
        why = "interrupted (no exit status recorded)";
        return PointState::FAILED;
    }
    if (engine != h.end() && engine->second == "slurm" && q.answered)
    {
        why = "its Slurm task ended without an exit status (killed, timed out or lost)";
        return PointState::FAILED;
    }
    return PointState::RUNNING;
}

} // namespace

int
SweepStatus(const std::string& dir, std::ostream& out, SweepStatusCounts* counts)
{
    const fs::path d = fs::absolute(dir);
    const json m = ReadManifest(d);
    const QueueView q = ReadQueue(d);
    SweepStatusCounts c;
    std::vector<std::string> failedLines;
    for (const auto& p : m["points"])
    {
        const std::string id = p["id"].get<std::string>();
        std::string why;
        switch (StateOf(d, id, q, why))
        {
        case PointState::DONE:
            ++c.done;
            break;
        case PointState::RUNNING:
            ++c.running;
            break;
        case PointState::PENDING:
            ++c.pending;
            break;
        case PointState::NOT_STARTED:
            ++c.notStarted;
            break;
        case PointState::FAILED: {
            ++c.failed;
            const std::string last = ReasonLine(LogPath(d, id));
            failedLines.push_back("  failed " + id + " (" + DescribeManifestPoint(m, p) +
                                  "): " + why + "; log " + LogPath(d, id).string() +
                                  (last.empty() ? "" : "\n      " + last));
            break;
        }
        }
    }
    out << "sweep '" << m["sweep"].get<std::string>() << "' in " << d.string() << ": "
        << m["points"].size() << " points: " << c.done << " done, " << c.running << " running, "
        << c.pending << " pending, " << c.failed << " failed, " << c.notStarted << " not started";
    if (q.submitted)
    {
        out << " (Slurm jobs";
        for (const auto& j : q.jobs)
        {
            out << " " << j;
        }
        out << (q.answered ? "" : "; squeue unavailable") << ")";
    }
    out << "\n";
    for (const auto& l : failedLines)
    {
        out << l << "\n";
    }
    out.flush();
    if (counts)
    {
        *counts = c;
    }
    if (c.running + c.pending > 0)
    {
        return 3;
    }
    return c.failed + c.notStarted > 0 ? 1 : 0;
}

} // namespace aifabric

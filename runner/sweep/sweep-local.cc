// SPDX-License-Identifier: GPL-2.0-only
#include "sweep-local.h"

#include "interrupt.h"
#include "process.h"
#include "runner.h"
#include "sweep-directory.h"
#include "text-util.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace aifabric
{

namespace fs = std::filesystem;

int
RunLocal(const Sweep& sweep,
         const std::string& dir,
         const std::string& runner,
         const LocalOptions& options,
         std::ostream& out,
         std::ostream& err)
{
    const fs::path d = fs::absolute(dir);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<const SweepPoint*> todo;
    size_t orphans = 0;
    for (const SweepPoint* p : UnfinishedPoints(sweep, d.string()))
    {
        // A runner left by an earlier sweep (killed with -9) still runs this point.
        if (PointRunnerAlive(d, p->id))
        {
            err << "ai-fabric: point " << p->id << " is still being run by the runner of an "
                << "earlier sweep; not started again (see --status)" << std::endl;
            ++orphans;
            continue;
        }
        todo.push_back(p);
    }
    const size_t skipped = sweep.points.size() - todo.size() - orphans;
    if (todo.empty() && orphans > 0)
    {
        out << "sweep '" << sweep.name << "': " << orphans
            << " points still run by an earlier sweep's runners; nothing else to run" << std::endl;
        return 1;
    }
    if (todo.empty())
    {
        out << "sweep '" << sweep.name << "': all " << sweep.points.size()
            << " points already done; nothing to run (results in " << d.string() << ")"
            << std::endl;
        return 0;
    }
    const unsigned jobs = std::max(1u, options.jobs);
    if (!options.quiet)
    {
        err << "sweep '" << sweep.name << "': running " << todo.size() << " of "
            << sweep.points.size() << " points (" << skipped << " already done), " << jobs
            << " at a time" << std::endl;
    }

    struct Running
    {
        const SweepPoint* point;
        std::chrono::steady_clock::time_point start;
    };

    std::map<pid_t, Running> running;
    std::vector<const SweepPoint*> failed;
    size_t next = 0;
    size_t finished = 0;
    while (next < todo.size() || !running.empty())
    {
        if (const int sig = InterruptSignal())
        {
            // Pass the signal on: each runner removes its temporary directory and exits
            // 128 + sig. Points already finished stay; the interrupted ones run on resume.
            for (const auto& r : running)
            {
                ::kill(r.first, sig);
            }
            for (const auto& r : running)
            {
                int st = 0;
                while (::waitpid(r.first, &st, 0) < 0 && errno == EINTR)
                {
                }
            }
            err << "ai-fabric: sweep '" << sweep.name << "' interrupted by " << SignalName(sig)
                << ": " << finished << " of " << todo.size() << " points finished this time, "
                << running.size() << " stopped; resume with the same command" << std::endl;
            return 128 + sig;
        }
        while (running.size() < jobs && next < todo.size())
        {
            const SweepPoint* p = todo[next++];
            const fs::path log = LogPath(d, p->id);
            std::error_code ec;
            fs::remove(ExitPath(d, p->id), ec);
            const std::vector<std::string> args = RunnerArguments(runner, d.string(), p->id);
            {
                // The header names this engine's pid: --status tells running from interrupted.
                std::ofstream f(log, std::ios::trunc);
                f << "# ai-fabric-sweep point=" << p->id << " engine=local host=" << Hostname()
                  << " pid=" << ::getpid() << "\n";
            }
            ProcessOptions o;
            o.searchPath = false;
            o.out = Output::APPEND;
            o.outFile = log.string();
            o.err = Output::AS_STDOUT;
            int rc = 0;
            const int runLock = LockPointForRunner(d, p->id);
            const pid_t pid = StartProgram(args, o, rc);
            if (runLock >= 0)
            {
                ::close(runLock); // the runner holds it now
            }
            if (pid < 0)
            {
                std::ofstream(log, std::ios::app)
                    << "cannot start " << args[0] << ": " << std::strerror(rc) << "\n";
                RecordExit(d, p->id, 127);
                failed.push_back(p);
                ++finished;
                continue;
            }
            running[pid] = Running{p, std::chrono::steady_clock::now()};
        }
        if (running.empty())
        {
            continue;
        }
        int st = 0;
        const pid_t pid = ::waitpid(-1, &st, 0);
        if (pid < 0)
        {
            if (errno == EINTR)
            {
                continue;
            }
            throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
        }
        const auto it = running.find(pid);
        if (it == running.end())
        {
            continue;
        }
        const SweepPoint* p = it->second.point;
        const double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - it->second.start)
                .count();
        running.erase(it);
        const int rc = ExitStatus(st);
        RecordExit(d, p->id, rc);
        ++finished;
        // A point whose run did not complete (kExitIncomplete) has its results: it is done.
        const bool ok = (rc == 0 || rc == kExitIncomplete) && PointDone(d.string(), p->id);
        if (!ok)
        {
            failed.push_back(p);
        }
        if (!options.quiet)
        {
            err << "[" << finished << "/" << todo.size() << "] " << p->id << " "
                << sweep.Describe(*p) << ": "
                << (!ok  ? "FAILED (exit status " + std::to_string(rc) + ")"
                    : rc ? "done (a run did not complete; see its log)"
                         : "done")
                << " in " << std::fixed << std::setprecision(1) << secs << " s" << std::defaultfloat
                << std::endl;
        }
    }
    for (const SweepPoint* p : failed)
    {
        err << "ai-fabric: point " << p->id << " (" << sweep.Describe(*p)
            << ") failed with exit status " << RecordedExit(d, p->id)
            << "; log: " << LogPath(d, p->id).string() << std::endl;
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out << "sweep '" << sweep.name << "': " << sweep.points.size() << " points: ran " << todo.size()
        << " (" << failed.size() << " failed), skipped " << skipped << " already done"
        << (orphans ? " and " + std::to_string(orphans) + " still run by an earlier sweep" : "")
        << ", in " << std::fixed << std::setprecision(1) << wall << " s" << std::defaultfloat
        << "; results in " << d.string() << std::endl;
    return failed.empty() && orphans == 0 ? 0 : 1;
}

} // namespace aifabric

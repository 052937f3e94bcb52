// SPDX-License-Identifier: GPL-2.0-only
//
// ai-fabric-sweep: parameter sweeps of the scenario runner, on local cores or as Slurm job
// arrays, and the gathering of their results.
//
//   ai-fabric-sweep SWEEP.json [--engine local|slurm] [--out DIR] [options]
//   ai-fabric-sweep --status DIR
//   ai-fabric-sweep gather DIR
//
// Exit status: 0 success; 1 some point failed (local engine), sbatch failed, or nothing to
// gather; 2 bad input (one line on stderr, nothing written or submitted; also a point summary
// gather cannot read, named); 3 (--status only) points still running or pending; 128 + signal
// when SIGINT/SIGTERM/SIGHUP stopped the local engine (passed on to its runners; finished
// points stay).
#include "guarded-main.h"
#include "interrupt.h"
#include "json-input.h"
#include "process.h"
#include "sweep-lock.h"
#include "sweep.h"

#include <climits>
#include <filesystem>
#include <iostream>
#include <thread>
#include <unistd.h>

using namespace aifabric;
namespace fs = std::filesystem;

namespace
{

void
Usage()
{
    std::cout
        << "usage: ai-fabric sweep SWEEP.json [--engine local|slurm] [--out DIR] [--dry-run] "
           "[--quiet]\n"
           "         local engine:  [-j N]                      (default: one point per core)\n"
           "         slurm engine:  [--partition P] [--time T] [--mem M] [--account A]\n"
           "                        [--throttle K] [--max-array N]\n"
           "       ai-fabric sweep --status DIR\n"
           "       ai-fabric gather DIR\n\n"
           "A sweep file holds a base scenario, a grid of dotted keys (every combination is run), "
           "an\n"
           "optional zip group (keys that vary together) and seeds:\n"
           "  {\"name\": \"drops\", \"base\": \"../default.json\", \"set\": {\"compare\": []},\n"
           "   \"grid\": {\"faults.drop_rate\": [0, 1e-5, 1e-4]},\n"
           "   \"zip\": {\"fabric\": [\"tcp\", \"rocev2\"], \"pfc\": [false, true]}, \"seeds\": "
           "[1, 2, 3]}\n"
           "Every point is validated before anything runs. Results: DIR (default "
           "results/<name>)/<point-id>/,\n"
           "as ai-fabric run writes them; logs in DIR/logs/. Re-running skips finished points.\n\n"
           "  --engine local   run the points here, -j N at a time\n"
           "  --engine slurm   write an sbatch job-array script (one task per unfinished point,\n"
           "                   at most K running: --throttle, default 64) and submit it\n"
           "  --status DIR     done/running/pending/failed counts and the logs of failed points\n"
           "                   (exit 0 all done, 3 still running or pending, 1 failed or not "
           "started)\n"
           "  --dry-run        list the points and their ids; write and run nothing\n"
           "  gather DIR       merge every point's summary.json into DIR/gathered/results.csv and\n"
           "                   draw figures (one line per fabric, mean over seeds, min/max bars)\n";
}

unsigned
Count(const std::string& flag, const std::string& v, unsigned min)
{
    const std::string what = flag + ": must be an integer >= " + std::to_string(min);
    if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos)
    {
        throw ScenarioError(what + " (got '" + EchoText(v) + "')");
    }
    const unsigned n = static_cast<unsigned>(std::stoul(v));
    if (n < min)
    {
        throw ScenarioError(what + " (got '" + EchoText(v) + "')");
    }
    return n;
}

std::string
DefaultRunner(const char* argv0)
{
    if (const char* env = std::getenv("AIFABRIC_RUNNER"))
    {
        return env;
    }
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec)
    {
        self = fs::absolute(argv0);
    }
    return (self.parent_path() / "ai-fabric-runner").string();
}

} // namespace

int
main(int argc, char** argv)
{
    return GuardedMain([&]() -> int {
        std::vector<std::string> args(argv + 1, argv + argc);
        if (!args.empty() && args[0] == "gather")
        {
            if (args.size() == 2 && (args[1] == "--help" || args[1] == "-h"))
            {
                Usage();
                return 0;
            }
            if (args.size() != 2 || args[1].rfind("--", 0) == 0)
            {
                throw ScenarioError(
                    "gather: needs exactly one sweep directory (ai-fabric gather DIR)");
            }
            return Gather(args[1], std::cout, std::cerr);
        }

        std::string file;
        std::string out;
        std::string status;
        std::string engine = "local";
        std::string runner;
        bool dryRun = false;
        bool quiet = false;
        LocalOptions local;
        local.jobs = std::max(1u, std::thread::hardware_concurrency());
        bool jobsGiven = false;
        SlurmOptions slurm;
        std::string slurmOnly;
        for (size_t i = 0; i < args.size(); ++i)
        {
            const std::string a = args[i];
            auto value = [&](const std::string& flag) {
                if (a.size() > flag.size() && a[flag.size()] == '=')
                {
                    return a.substr(flag.size() + 1);
                }
                if (i + 1 >= args.size())
                {
                    throw ScenarioError(flag + ": needs a value");
                }
                return args[++i];
            };
            auto is = [&](const std::string& flag) {
                return a == flag || (a.rfind(flag + "=", 0) == 0 && flag.rfind("--", 0) == 0);
            };
            if (a == "--help" || a == "-h")
            {
                Usage();
                return 0;
            }
            else if (a == "--dry-run")
            {
                dryRun = true;
            }
            else if (a == "--quiet" || a == "-q")
            {
                quiet = true;
            }
            else if (is("--engine"))
            {
                engine = value("--engine");
                if (engine != "local" && engine != "slurm")
                {
                    throw ScenarioError("--engine: must be local or slurm (got '" +
                                        EchoText(engine) + "')");
                }
            }
            else if (is("--out"))
            {
                out = value("--out");
                if (out.empty())
                {
                    throw ScenarioError("--out: needs a non-empty directory path");
                }
            }
            else if (is("--status"))
            {
                status = value("--status");
            }
            else if (is("--runner"))
            {
                runner = value("--runner");
            }
            else if (a == "-j" || is("--jobs") || (a.rfind("-j", 0) == 0 && a.size() > 2))
            {
                const std::string v = a == "-j" || a.rfind("--jobs", 0) == 0
                                          ? value(a == "-j" ? "-j" : "--jobs")
                                          : a.substr(2);
                local.jobs = Count("-j", v, 1);
                jobsGiven = true;
            }
            else if (is("--partition"))
            {
                slurm.partition = value("--partition");
                slurmOnly = "--partition";
            }
            else if (is("--time"))
            {
                slurm.time = value("--time");
                slurmOnly = "--time";
            }
            else if (is("--mem"))
            {
                slurm.mem = value("--mem");
                slurmOnly = "--mem";
            }
            else if (is("--account"))
            {
                slurm.account = value("--account");
                slurmOnly = "--account";
            }
            else if (is("--throttle"))
            {
                slurm.throttle = Count("--throttle", value("--throttle"), 1);
                slurmOnly = "--throttle";
            }
            else if (is("--max-array"))
            {
                slurm.maxArray = Count("--max-array", value("--max-array"), 1);
                slurmOnly = "--max-array";
            }
            else if (a.rfind("-", 0) == 0)
            {
                throw ScenarioError(
                    EchoText(a) +
                    ": unknown option (allowed: --engine, --out, -j, --dry-run, --quiet, --status, "
                    "--partition, --time, --mem, --account, --throttle, --max-array, --help)");
            }
            else if (file.empty())
            {
                file = a;
            }
            else
            {
                throw ScenarioError(EchoText(a) + ": only one sweep file may be given");
            }
        }

        if (!status.empty())
        {
            if (!file.empty())
            {
                throw ScenarioError("--status: takes a sweep directory, not a sweep file as well");
            }
            return SweepStatus(status, std::cout);
        }
        if (file.empty())
        {
            throw ScenarioError(
                "sweep: needs a sweep file (ai-fabric sweep SWEEP.json; --help for the format)");
        }
        if (engine == "local" && !slurmOnly.empty())
        {
            throw ScenarioError(slurmOnly + ": only with --engine slurm");
        }
        if (engine == "slurm" && jobsGiven)
        {
            throw ScenarioError(
                "-j: only with --engine local (Slurm decides where points run; see --throttle)");
        }
        CheckSlurmOptions(slurm);

        const Sweep sweep = LoadSweep(file);
        if (out.empty())
        {
            out = "results/" + sweep.name;
        }
        if (dryRun)
        {
            std::cout << "sweep '" << sweep.name << "': " << sweep.points.size()
                      << " points, all valid; results would go to " << out << "\n";
            for (const auto& p : sweep.points)
            {
                std::cout << "  " << p.index << "  " << p.id << "  " << sweep.Describe(p) << "  ("
                          << p.runs.size() << (p.runs.size() == 1 ? " run" : " runs") << ")"
                          << (PointDone(out, p.id) ? "  done" : "") << "\n";
            }
            return 0;
        }
        CheckSweepDirectory(sweep, out);
        if (engine == "slurm")
        {
            if (!OnPath("sbatch"))
            {
                throw ScenarioError(
                    "--engine: slurm needs sbatch on the PATH (run this on a Slurm login node)");
            }
            if (fs::absolute(out).string().find_first_of("'\n") != std::string::npos)
            {
                throw ScenarioError(
                    "--out: must not contain quotes or newlines with --engine slurm");
            }
        }
        if (const size_t queued = QueuedPoints(out))
        {
            throw ScenarioError(
                "--out: " + std::to_string(queued) + " points of sweep '" + sweep.name +
                "' are still queued or running in Slurm; wait for them or scancel them first");
        }
        if (runner.empty())
        {
            runner = DefaultRunner(argv[0]);
        }
        runner = fs::absolute(runner).string();
        if (::access(runner.c_str(), X_OK) != 0)
        {
            std::cerr << "ai-fabric: internal error: runner '" << runner
                      << "' not found (./ai-fabric build)" << std::endl;
            return 1;
        }

        // One sweep at a time in a directory (a second one would run every point again and
        // overwrite the first one's logs).
        const SweepLock lock(out);
        PrepareSweepDirectory(sweep, out, runner);
        if (engine == "slurm")
        {
            return SubmitSlurm(sweep, out, runner, slurm, std::cout, std::cerr);
        }
        local.quiet = quiet;
        InstallInterruptHandlers(); // RunLocal passes a signal on to its runners
        const int rc = RunLocal(sweep, out, runner, local, std::cout, std::cerr);
        if (rc == 0 && !quiet)
        {
            std::cout << "gather with: ./ai-fabric gather " << out << std::endl;
        }
        return rc;
    });
}

// SPDX-License-Identifier: GPL-2.0-only
#include "run-command.h"

#include "fabric-registry.h"
#include "guarded-main.h"
#include "json-input.h"
#include "run-ranks.h"
#include "runner.h"
#include "scenario-args.h"
#include "scenario-schema.h"
#include "scenario.h"
#include "simulation-builder.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <unistd.h>

namespace aifabric
{

namespace
{

void
RunUsage()
{
    std::cout << "usage: ai-fabric run [SCENARIO.json] [--set key.path=value]... [--out DIR] "
                 "[--quiet]\n"
                 "                      [--ranks N [--sync granted-time-window|null-message]] "
                 "[--check]\n\n"
                 "Runs a scenario (default: scenarios/default.json) and writes summary.json, "
                 "config.json,\n"
                 "CSV traces and gnuplot figures to DIR (default results/<name>-<time>).\n"
                 "--ranks N runs it as one simulation on N MPI ranks (mpirun underneath; flow "
                 "workloads and\n"
                 "collectives), in the partition event order, with the results of the sequential "
                 "run in that order.\n"
                 "--check reads the scenario and checks it (and --ranks against its fabric), "
                 "runs nothing\n"
                 "and writes nothing: exit status 0 if it would start, 2 with the reason if "
                 "not.\n\n"
              << SchemaHelp();
}

/// This process's MPI rank as its launcher says (before MPI starts), 0 without one.
uint32_t
LauncherRank()
{
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    {
        if (const char* v = std::getenv(name))
        {
            return static_cast<uint32_t>(std::strtoul(v, nullptr, 10));
        }
    }
    return 0;
}

/// Stops MPI when the command ends, however it ends.
struct RanksGuard
{
    ~RanksGuard()
    {
        RunRanks::Disable();
    }
};

} // namespace

int
RunCommand(int argc, char** argv)
{
    return GuardedMain([&]() -> int {
        ScenarioArgs args;
        uint32_t ranks = 0;     // --ranks: 0 when not given
        bool checkOnly = false; // --check
        std::string sync = "granted-time-window";
        nlohmann::json scenario;
        std::vector<RunConfig> runs;
        std::vector<std::string> whole; // per run: why it runs whole ("" : split)
        try
        {
            for (int i = 1; i < argc; ++i)
            {
                const std::string a = argv[i];
                if (a == "--help" || a == "-h")
                {
                    RunUsage();
                    return 0;
                }
                if (a == "--check")
                {
                    checkOnly = true;
                    continue;
                }
                if (a == "--ranks" || a == "--sync")
                {
                    if (i + 1 >= argc)
                    {
                        throw ScenarioError(a + ": needs a value");
                    }
                    const std::string v = argv[++i];
                    if (a == "--sync")
                    {
                        sync = v;
                        continue;
                    }
                    char* end = nullptr;
                    const unsigned long n = std::strtoul(v.c_str(), &end, 10);
                    if (v.empty() || *end != '\0' || v[0] == '-' || n < 1 || n > 4096)
                    {
                        throw ScenarioError("--ranks: must be an integer from 1 to 4096, got '" +
                                            EchoText(v) + "'");
                    }
                    ranks = static_cast<uint32_t>(n);
                    continue;
                }
                if (!args.Take(argc, argv, i))
                {
                    throw ScenarioError(EchoText(a) + ": unknown option (allowed: --set, --out, "
                                                      "--quiet/-q, --ranks, --sync, --check, "
                                                      "--help/-h)");
                }
            }
            if (sync != "granted-time-window" && sync != "null-message")
            {
                throw ScenarioError("--sync: must be granted-time-window or null-message, got '" +
                                    EchoText(sync) + "'");
            }
            if (ranks > 1 && !RunRanks::Available())
            {
                throw ScenarioError(RunRanks::NoMpi(ranks));
            }
            scenario = args.Load();
            if (ranks > 0)
            {
                // On ranks the events run in the partition order (FabricPartitionScheduler); a
                // sequential run gives the same results with this key set.
                scenario["simulation"]["event_order"] = "partition";
            }
            runs = ResolveScenario(scenario);
            // Across ranks, a run Refusal keeps off them runs whole in every process (the
            // others of its scenario split); a scenario of such runs only is refused.
            for (const auto& r : runs)
            {
                CheckFaultTargets(r);
                whole.push_back(ranks > 1 ? RunRanks::Refusal(r) : std::string());
                if (ranks > 1 && whole.back().empty())
                {
                    CheckRanks(r, ranks);
                }
            }
            const auto split = std::count(whole.begin(), whole.end(), std::string());
            if (ranks > 1 && split == 0)
            {
                // One reason once; several, each with the first run it keeps whole.
                std::string why;
                for (size_t i = 0; i < runs.size(); ++i)
                {
                    if (std::find(whole.begin(), whole.begin() + i, whole[i]) == whole.begin() + i)
                    {
                        why +=
                            (why.empty() ? "" : "; ") + ("run '" + runs[i].name + "': ") + whole[i];
                    }
                }
                throw ScenarioError("--ranks: " +
                                    (std::count(whole.begin(), whole.end(), whole.front()) ==
                                             static_cast<std::ptrdiff_t>(whole.size())
                                         ? whole.front()
                                         : "no run of this scenario splits: " + why));
            }
            if (ranks > 1 && split > 1 && sync == "null-message")
            {
                // NullMessageSimulatorImpl keeps its one instance for the process's life.
                throw ScenarioError("--sync null-message: one run split across ranks per launch "
                                    "(ns-3's null-message core can be created once per "
                                    "process); this scenario splits " +
                                    std::to_string(split) +
                                    ": use granted-time-window, or run each entry alone");
            }
        }
        catch (const ScenarioError&)
        {
            if (ranks > 1 && LauncherRank() != 0)
            {
                return 2; // every rank finds it; rank 0 says it
            }
            throw;
        }
        if (checkOnly)
        {
            return 0; // before MPI: the launcher asks before it starts N processes
        }
        RanksGuard ranksGuard;
        if (ranks > 1)
        {
            RunRanks::Enable(&argc, &argv, ranks, sync == "null-message");
        }
        const bool writer = RunRanks::Rank() == 0; // across ranks, rank 0 writes the results
        const bool quiet = args.quiet || !writer;
        std::string out = args.out;
        const std::string name = args.Name(scenario);
        if (out.empty())
        {
            out = ns3::ResultsDirectory::DefaultPath(name);
        }
        // Claim the results location before running: a bad --out costs nothing.
        ns3::ResultsDirectory dir;
        const std::string outError = writer ? dir.Open(out) : std::string();
        if (RunRanks::Sum(uint64_t(outError.empty() ? 0 : 1)) > 0)
        {
            if (!writer)
            {
                return 2;
            }
            throw ScenarioError("--out: " + outError);
        }
        const bool progress = !quiet && ::isatty(STDERR_FILENO);
        std::vector<RunOutput> results;
        bool incomplete = false;
        for (size_t i = 0; i < runs.size(); ++i)
        {
            if (!quiet)
            {
                std::cerr << "[" << i + 1 << "/" << runs.size() << "] " << runs[i].name << ": "
                          << runs[i].Gpus() << " GPUs, " << runs[i].fabric.name
                          << (!FabricOf(runs[i]).flowControlLabel.empty()
                                  ? " " + FabricOf(runs[i]).flowControlLabel
                              : runs[i].fabric.pfc ? " PFC"
                                                   : " no-PFC")
                          << ", " << runs[i].fabric.congestionControl << ", drop rate "
                          << runs[i].faults.dropRate << std::endl;
                if (!whole[i].empty())
                {
                    std::cerr << "  not split across ranks (each runs it whole): " << whole[i]
                              << std::endl;
                }
            }
            RunRanks::SetWhole(!whole[i].empty());
            try
            {
                results.push_back(ExecuteRun(runs[i], progress, i, runs.size()));
            }
            catch (const ScenarioError&)
            {
                // Found by every rank alike (a value checked as the run is built): rank 0 says
                // it, once.
                if (!writer)
                {
                    return 2;
                }
                throw;
            }
            const std::string why = IncompleteRunMessage(results.back());
            if (!why.empty())
            {
                if (writer)
                {
                    std::cerr << "ai-fabric: " << why << std::endl;
                }
                incomplete = true;
            }
        }
        if (!writer)
        {
            return incomplete ? kExitIncomplete : 0;
        }
        WriteResults(dir, name, results);
        if (!quiet)
        {
            std::cout << Dashboard(results) << "\nresults in " << dir.GetFinalPath() << std::endl;
        }
        return incomplete ? kExitIncomplete : 0;
    });
}

} // namespace aifabric

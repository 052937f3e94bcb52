// SPDX-License-Identifier: GPL-2.0-only
#include "run-command.h"

#include "fabric-registry.h"
#include "guarded-main.h"
#include "json-input.h"
#include "runner.h"
#include "scenario-args.h"
#include "scenario-schema.h"
#include "scenario.h"
#include "simulation-builder.h"

#include <cstdio>
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
                 "[--quiet]\n\n"
                 "Runs a scenario (default: scenarios/default.json) and writes summary.json, "
                 "config.json,\n"
                 "CSV traces and gnuplot figures to DIR (default results/<name>-<time>).\n\n"
              << SchemaHelp();
}

} // namespace

int
RunCommand(int argc, char** argv)
{
    return GuardedMain([&]() -> int {
        ScenarioArgs args;
        for (int i = 1; i < argc; ++i)
        {
            const std::string a = argv[i];
            if (a == "--help" || a == "-h")
            {
                RunUsage();
                return 0;
            }
            if (!args.Take(argc, argv, i))
            {
                throw ScenarioError(
                    EchoText(a) +
                    ": unknown option (allowed: --set, --out, --quiet/-q, --help/-h)");
            }
        }
        const nlohmann::json scenario = args.Load();
        const bool quiet = args.quiet;
        std::string out = args.out;
        std::vector<RunConfig> runs = ResolveScenario(scenario);
        for (const auto& r : runs)
        {
            CheckFaultTargets(r);
        }
        const std::string name = args.Name(scenario);
        if (out.empty())
        {
            out = ns3::ResultsDirectory::DefaultPath(name);
        }
        // Claim the results location before running: a bad --out costs nothing.
        ns3::ResultsDirectory dir;
        const std::string outError = dir.Open(out);
        if (!outError.empty())
        {
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
            }
            results.push_back(ExecuteRun(runs[i], progress, i, runs.size()));
            const std::string why = IncompleteRunMessage(results.back());
            if (!why.empty())
            {
                std::cerr << "ai-fabric: " << why << std::endl;
                incomplete = true;
            }
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

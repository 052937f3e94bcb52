// SPDX-License-Identifier: GPL-2.0-only
//
// ai-fabric-runner: scenario JSON -> simulation -> results directory.
//
//   ai-fabric-runner [SCENARIO.json] [--set key.path=value]... [--out DIR] [--quiet]
//
// Exit status: 0 success, 2 bad input (one line on stderr naming the key), 1 internal error,
// 3 a run did not complete (results written; one line per such run says why), 128 + signal when
// SIGINT/SIGTERM/SIGHUP stopped it (nothing written).
#include "interrupt.h"
#include "json-input.h"
#include "runner.h"
#include "scenario.h"

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <unistd.h>

using namespace aifabric;

namespace
{

void
Usage()
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
main(int argc, char** argv)
{
    std::string file;
    std::string out;
    std::vector<std::string> sets;
    bool quiet = false;
    InstallInterruptHandlers();
    try
    {
        for (int i = 1; i < argc; ++i)
        {
            std::string a = argv[i];
            // A flag matches exactly or as "flag=value": "--setx" is not "--set".
            auto is = [&](const std::string& flag) {
                return a == flag || a.rfind(flag + "=", 0) == 0;
            };
            auto value = [&](const std::string& flag) {
                if (a.size() > flag.size() && a[flag.size()] == '=')
                {
                    return a.substr(flag.size() + 1);
                }
                if (i + 1 >= argc)
                {
                    throw ScenarioError(flag + ": needs a value");
                }
                return std::string(argv[++i]);
            };
            if (a == "--help" || a == "-h")
            {
                Usage();
                return 0;
            }
            else if (a == "--quiet" || a == "-q")
            {
                quiet = true;
            }
            else if (is("--set"))
            {
                sets.push_back(value("--set"));
            }
            else if (is("--out"))
            {
                out = value("--out");
                if (out.empty())
                {
                    throw ScenarioError("--out: needs a non-empty directory path");
                }
            }
            else if (a.rfind("-", 0) == 0 && a != "-")
            {
                throw ScenarioError(
                    EchoText(a) +
                    ": unknown option (allowed: --set, --out, --quiet/-q, --help/-h)");
            }
            else if (file.empty())
            {
                file = a;
            }
            else
            {
                throw ScenarioError(EchoText(a) + ": only one scenario file may be given");
            }
        }
        nlohmann::json scenario = file.empty() ? nlohmann::json::object() : LoadScenarioFile(file);
        for (const auto& s : sets)
        {
            ApplySet(scenario, s);
        }
        std::vector<RunConfig> runs = ResolveScenario(scenario);
        std::string name = scenario.value("name", std::string());
        if (name.empty())
        {
            name = file.empty() ? "run" : std::filesystem::path(file).stem().string();
        }
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
                          << runs[i].Gpus() << " GPUs, " << runs[i].fabric
                          << (runs[i].fabric == "infiniband" ? " credits"
                              : runs[i].pfc                  ? " PFC"
                                                             : " no-PFC")
                          << ", " << runs[i].congestionControl << ", drop rate " << runs[i].dropRate
                          << std::endl;
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
    }
    catch (const Interrupted& e)
    {
        // `dir` is gone by now: unwinding removed the temporary directory.
        std::cerr << "ai-fabric: " << e.what() << "; stopped, no results written" << std::endl;
        return e.ExitStatus();
    }
    catch (const ScenarioError& e)
    {
        std::cerr << "ai-fabric: error: " << e.what() << std::endl;
        return 2;
    }
    catch (const std::exception& e)
    {
        std::cerr << "ai-fabric: internal error: " << e.what() << std::endl;
        return 1;
    }
}

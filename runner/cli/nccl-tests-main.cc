// SPDX-License-Identifier: GPL-2.0-only
//
// ai-fabric-nccl-tests: nccl-tests' size sweep on a simulated cluster.
//
//   ai-fabric-nccl-tests [SCENARIO.json] [--op OP] [-b MIN] [-e MAX] [-f FACTOR | -i INC]
//                        [-n ITERS] [--set key.path=value]... [--out DIR] [--quiet]
//
// One simulation per size (the scenario's cluster, one collective, no compute), printed in
// nccl-tests' columns as each size finishes, then nccl-tests.csv and busbw.png in DIR.
// Exit status as ai-fabric-runner's: 0, 2 bad input, 1 internal error, 3 a collective did not
// complete, 128 + signal.
#include "figures.h"
#include "file-util.h"
#include "guarded-main.h"
#include "interrupt.h"
#include "json-input.h"
#include "nccl-tests.h"
#include "runner.h"
#include "scenario-args.h"
#include "scenario.h"

#include <filesystem>
#include <iostream>

using namespace aifabric;

namespace
{

void
Usage()
{
    std::cout
        << "usage: ai-fabric nccl-tests [SCENARIO.json] [--op OP] [-b MIN] [-e MAX] [-f FACTOR "
           "| -i INCREMENT] [-n ITERS] [--set key.path=value]... [--out DIR] [--quiet]\n\n"
           "Simulates one collective per message size on the scenario's cluster (default: "
           "scenarios/default.json)\nand prints nccl-tests' columns; writes nccl-tests.csv and "
           "busbw.png to DIR (default results/<name>-nccl-tests-<op>-<time>).\n\n"
           "  --op OP   all_reduce (default), all_gather, reduce_scatter, alltoall, broadcast, "
           "sendrecv\n"
           "  -b, -e    smallest and largest size, bytes with an optional K/M/G suffix (1024s); "
           "default 32M\n"
           "  -f        multiply the size by FACTOR (default 2); -i: add INCREMENT instead\n"
           "  -n        collectives per size, timed as their mean (default 1: the simulator is "
           "deterministic)\n";
}

} // namespace

int
main(int argc, char** argv)
{
    NcclTestsOptions o;
    bool maxGiven = false;
    InstallInterruptHandlers();
    return GuardedMain([&]() -> int {
        ScenarioArgs args;
        for (int i = 1; i < argc; ++i)
        {
            const std::string a = argv[i];
            auto value = [&](const std::string& flag) { return FlagValue(argc, argv, i, flag); };
            auto count = [&](const std::string& flag, uint64_t lo, uint64_t hi) {
                const std::string v = value(flag);
                const std::string range = flag + ": must be an integer from " + std::to_string(lo) +
                                          " to " + std::to_string(hi) + " (got '" + EchoText(v) +
                                          "')";
                if (v.empty() || v.size() > 12 ||
                    v.find_first_not_of("0123456789") != std::string::npos)
                {
                    throw ScenarioError(range);
                }
                const uint64_t n = std::stoull(v);
                if (n < lo || n > hi)
                {
                    throw ScenarioError(range);
                }
                return n;
            };
            if (a == "--help" || a == "-h")
            {
                Usage();
                return 0;
            }
            else if (IsFlag(a, "--op") || a == "-o")
            {
                o.op = value(a == "-o" ? "-o" : "--op");
                NcclTestsCollective(o.op);
            }
            else if (a == "-b")
            {
                o.minBytes = ParseNcclTestsSize(value("-b"), "-b");
            }
            else if (a == "-e")
            {
                o.maxBytes = ParseNcclTestsSize(value("-e"), "-e");
                maxGiven = true;
            }
            else if (a == "-f")
            {
                o.factor = count("-f", 2, 1024);
            }
            else if (a == "-i")
            {
                o.increment = ParseNcclTestsSize(value("-i"), "-i");
            }
            else if (a == "-n")
            {
                o.iters = static_cast<uint32_t>(count("-n", 1, 1000));
            }
            else if (!args.Take(argc, argv, i))
            {
                throw ScenarioError(EchoText(a) + ": unknown option (allowed: --op, -b, -e, -f, "
                                                  "-i, -n, --set, --out, --quiet/-q, --help/-h)");
            }
        }
        if (!maxGiven && o.maxBytes < o.minBytes)
        {
            o.maxBytes = o.minBytes;
        }
        const std::vector<uint64_t> sizes = NcclTestsSizes(o);
        nlohmann::json scenario = args.Load();
        const std::string name = args.Name(scenario);
        const bool quiet = args.quiet;
        std::string out = args.out;
        // One collective per step, nothing else: the cluster of the scenario's first run.
        scenario.erase("compare");
        scenario["workload"]["collective"] = NcclTestsCollective(o.op);
        scenario["workload"]["steps"] = o.iters;
        scenario["workload"]["compute_ms"] = 0;
        scenario["workload"]["buckets"] = 1;
        // Resolve every size before simulating any: a bad size or key costs nothing.
        std::vector<RunConfig> runs;
        for (uint64_t size : sizes)
        {
            nlohmann::json point = scenario;
            point["workload"]["bytes"] = size;
            std::vector<RunConfig> r = ResolveScenario(point);
            r.front().name = name + " " + o.op + " " + std::to_string(size) + " B";
            runs.push_back(r.front());
        }
        if (out.empty())
        {
            out = ns3::ResultsDirectory::DefaultPath(name + "-nccl-tests-" + o.op);
        }
        ns3::ResultsDirectory dir;
        const std::string outError = dir.Open(out);
        if (!outError.empty())
        {
            throw ScenarioError("--out: " + outError);
        }
        if (!quiet)
        {
            std::cout << NcclTestsHeader(o, runs.front().Gpus()) << std::flush;
        }
        std::vector<NcclTestsRow> rows;
        for (size_t i = 0; i < runs.size(); ++i)
        {
            const RunOutput r = ExecuteRun(runs[i], false, i, runs.size());
            rows.push_back(NcclTestsRowFromSummary(o.op, sizes[i], o.iters, r.summary));
            if (!quiet)
            {
                std::cout << NcclTestsLine(rows.back()) << std::flush;
            }
        }
        WriteAtomically(std::filesystem::path(dir.GetPath()) / "nccl-tests.csv",
                        NcclTestsCsv(rows));
        Plot(dir.GetPath(),
             "busbw.gp",
             NcclTestsPlotScript(name + ": " + o.op + " on " + std::to_string(runs.front().Gpus()) +
                                 " GPUs (" + runs.front().fabric.name + ")"));
        ThrowIfInterrupted();
        const std::string commitError = dir.Commit();
        if (!commitError.empty())
        {
            throw std::runtime_error(commitError);
        }
        uint64_t wrong = 0;
        for (const NcclTestsRow& r : rows)
        {
            wrong += r.wrong;
        }
        if (!quiet)
        {
            std::cout << NcclTestsFooter(rows) << "\nresults in " << dir.GetFinalPath()
                      << std::endl;
        }
        if (wrong > 0)
        {
            std::cerr << "ai-fabric: " << wrong
                      << " collective(s) did not complete (see limits.max_sim_seconds and "
                         "faults)"
                      << std::endl;
            return kExitIncomplete;
        }
        return 0;
    });
}

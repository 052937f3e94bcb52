// SPDX-License-Identifier: GPL-2.0-only
#include "results-writer.h"

#include "dashboard.h"
#include "figures.h"
#include "file-util.h"
#include "interrupt.h"
#include "report.h"
#include "run-figures.h"
#include "text-util.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

namespace aifabric
{

using nlohmann::json;

std::vector<std::string>
RunDirectoryNames(const std::vector<std::string>& runNames)
{
    return UniqueFileNames(runNames,
                           {"compare.csv",
                            "compare.gp",
                            "compare.png",
                            "compare.svg",
                            "summary.json",
                            "config.json",
                            "dashboard.txt",
                            "index.html",
                            "slowdown.gp",
                            "slowdown.png",
                            "slowdown.svg"});
}

void
WriteResults(ns3::ResultsDirectory& dir,
             const std::string& scenarioName,
             const std::vector<RunOutput>& runs)
{
    namespace fs = std::filesystem;
    const fs::path tmp = dir.GetPath();
    json summary = runs.front().summary;
    summary["scenario"] = scenarioName;
    summary["runs"] = json::array();
    json config;
    config["scenario"] = scenarioName;
    config["runs"] = json::array();
    // Each run's subdirectory (and its label in compare.csv): safe, and distinct from the other
    // runs' and from the files written next to them.
    std::vector<std::string> names;
    for (const auto& r : runs)
    {
        names.push_back(r.config.name);
    }
    const std::vector<std::string> dirs = RunDirectoryNames(names);
    for (size_t i = 0; i < runs.size(); ++i)
    {
        const RunOutput& r = runs[i];
        summary["runs"].push_back(r.summary);
        json rc = r.config.resolved;
        rc["ns3_attributes"] = r.attributes;
        config["runs"].push_back(rc);
        const fs::path d = tmp / dirs[i];
        fs::create_directories(d);
        WriteAtomically(d / "steps.csv", r.stepsCsv);
        WriteAtomically(d / "steps_summary.csv", r.stepsSummaryCsv);
        WriteAtomically(d / "latency_cdf.csv", r.latencyCsv);
        WriteAtomically(d / "queue.csv", r.queueCsv);
        WriteAtomically(d / "rate.csv", r.rateCsv);
        if (!r.timelineCsv.empty())
        {
            WriteAtomically(d / "timeline.csv", r.timelineCsv);
        }
        if (!r.jobsCsv.empty())
        {
            WriteAtomically(d / "jobs.csv", r.jobsCsv);
        }
        if (!r.flowsCsv.empty())
        {
            WriteAtomically(d / "flows.csv", r.flowsCsv);
            WriteAtomically(d / "slowdown.csv", r.slowdownCsv);
        }
        ThrowIfInterrupted();
        if (!Plot(d.string(), "plots.gp", RunPlotsScript(r)))
        {
            std::fprintf(stderr,
                         "ai-fabric: gnuplot failed for %s (scripts kept)\n",
                         r.config.name.c_str());
        }
    }
    // Side-by-side comparison: mean step = compute + waiting on the network.
    std::ostringstream cmp;
    cmp << "run,compute_ms,collective_ms,step_ms,mfu_effective,idle_cost_usd_per_hr,p99_latency_"
           "us,p99_message_latency_us\n";
    for (size_t i = 0; i < runs.size(); ++i)
    {
        const json& s = runs[i].summary;
        const double step = s["step_ms"]["mean"].get<double>();
        cmp << CsvField(dirs[i]) << "," << Num(s["compute_ms"].get<double>()) << ","
            << Num(std::max(0.0, step - s["compute_ms"].get<double>())) << "," << Num(step) << ","
            << Num(s["mfu_effective"].get<double>()) << ","
            << Num(s["idle_cost_usd_per_hr"].get<double>()) << ","
            << Num(s["network_latency_us"]["p99"].get<double>()) << ","
            << Num(s["message_latency_us"]["p99"].get<double>()) << "\n";
    }
    WriteAtomically(tmp / "compare.csv", cmp.str());
    ThrowIfInterrupted();
    const bool flowsOnly = runs.front().config.IsFlowWorkload();
    if (!flowsOnly && !Plot(tmp.string(), "compare.gp", CompareScript(runs)))
    {
        std::fprintf(stderr, "ai-fabric: gnuplot failed for compare.gp (script kept)\n");
    }
    if (std::any_of(runs.begin(),
                    runs.end(),
                    [](const RunOutput& r) {
                        return !r.slowdownCsv.empty() &&
                               r.slowdownCsv.find('\n') + 1 < r.slowdownCsv.size();
                    }) &&
        !Plot(tmp.string(), "slowdown.gp", SlowdownScript(runs, dirs)))
    {
        std::fprintf(stderr, "ai-fabric: gnuplot failed for slowdown.gp (script kept)\n");
    }
    WriteAtomically(tmp / "summary.json", summary.dump(2) + "\n");
    WriteAtomically(tmp / "config.json", config.dump(2) + "\n");
    WriteAtomically(tmp / "dashboard.txt", Dashboard(runs));
    WriteRunReport(tmp);
    // A figure interrupted by the signal is missing: commit nothing rather than less.
    ThrowIfInterrupted();
    const std::string err = dir.Commit();
    if (!err.empty())
    {
        throw std::runtime_error(err);
    }
}

} // namespace aifabric

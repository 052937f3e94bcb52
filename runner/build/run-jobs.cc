// SPDX-License-Identifier: GPL-2.0-only
#include "run-jobs.h"

#include "fabric-registry.h"
#include "run-summary.h"
#include "text-util.h"

#include <sstream>

namespace aifabric
{

using nlohmann::json;

Simulation
JobView(const Simulation& sim, const SimulatedJob& j)
{
    Simulation v = sim;
    v.job = j.job;
    v.parallel = j.parallel;
    v.network = j.network;
    v.jobs.clear();
    return v;
}

json
JobsSummary(const RunConfig& c, const Simulation& sim, uint64_t events, double wall)
{
    json out = json::array();
    for (const SimulatedJob& j : sim.jobs)
    {
        const JobConfig& jc = c.jobs[j.index];
        const json s = Summary(jc.run, JobView(sim, j), events, wall);
        json e{{"name", jc.name},
               {"servers", jc.servers},
               {"placement", jc.placement},
               {"server_ids", jc.serverIds},
               {"start_ms", jc.startMs},
               {"fabric", jc.run.fabric.name}};
        for (const char* k : {"workload_kind",
                              "gpus",
                              "steps",
                              "steps_completed",
                              "completed",
                              "compute_ms",
                              "step_ms",
                              "collective_ms",
                              "mfu_effective",
                              "idle_cost_usd_per_hr",
                              "busbw_gbytes_per_s",
                              "barrier"})
        {
            e[k] = s[k];
        }
        // The fabric's own block (tcp: its counters).
        for (const FabricInfo& f : FabricRegistry::All())
        {
            if (!f.section.empty() && s.contains(f.section))
            {
                e[f.section] = s[f.section];
            }
        }
        if (s.contains("training"))
        {
            e["training"] = s["training"];
        }
        out.push_back(e);
    }
    return out;
}

std::string
JobsCsv(const RunConfig& c, const Simulation& sim)
{
    std::ostringstream os;
    os << "job,step,step_ms,last_rank,waited_on,cause\n";
    for (const SimulatedJob& j : sim.jobs)
    {
        for (const auto& r : CompletedSteps(JobView(sim, j)))
        {
            // 12 significant digits, as steps.csv: a step to the nanosecond up to 1,000 s (the
            // stream's default 6 digits cut 1.042479 ms to 1.04248).
            os << CsvField(c.jobs[j.index].name) << "," << r.step << ","
               << Num(r.StepTime().GetSeconds() * 1e3, 12) << "," << r.lastRank << "," << r.waitedOn
               << "," << CsvField(r.cause) << "\n";
        }
    }
    return os.str();
}

namespace
{

double
MeanStep(const json& jobs, const std::string& name)
{
    for (const auto& e : jobs)
    {
        if (e["name"] == name)
        {
            return e["step_ms"]["mean"].get<double>();
        }
    }
    return 0;
}

} // namespace

void
AddSlowdowns(json& jobs, const std::vector<json>& alone, const std::vector<json>& without)
{
    for (size_t i = 0; i < jobs.size(); ++i)
    {
        json& e = jobs[i];
        const std::string name = e["name"];
        e["alone_step_ms"] = alone[i][0]["step_ms"];
        const double a = alone[i][0]["step_ms"]["mean"].get<double>();
        e["slowdown"] = a > 0 ? e["step_ms"]["mean"].get<double>() / a : 0.0;
        json others = json::object();
        for (size_t k = 0; k < jobs.size(); ++k)
        {
            if (k == i)
            {
                continue;
            }
            const std::string other = jobs[k]["name"];
            const double with = jobs[k]["step_ms"]["mean"].get<double>();
            const double base = without.empty() ? alone[k][0]["step_ms"]["mean"].get<double>()
                                                : MeanStep(without[i], other);
            others[other] = base > 0 ? with / base : 0.0;
        }
        e["slows_others"] = others;
    }
}

} // namespace aifabric

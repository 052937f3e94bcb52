// SPDX-License-Identifier: GPL-2.0-only
#include "runner.h"

#include "fabric-registry.h"
#include "interrupt.h"
#include "run-attributes.h"
#include "run-jobs.h"
#include "run-pfc.h"
#include "run-probe.h"
#include "run-ranks.h"
#include "run-sampler.h"
#include "run-summary.h"
#include "run-traces.h"
#include "simulation-builder.h"

#include "ns3/simulator.h"

#include <chrono>
#include <cstdio>
#include <sstream>

namespace aifabric
{

using namespace ns3;

namespace
{

/// One simulation of `c` (with `jobs`: those of `include`, or all).
RunOutput
ExecuteOnce(const RunConfig& c,
            const std::vector<bool>* include,
            bool progress,
            size_t index,
            size_t total)
{
    RunOutput out;
    out.config = c;
    Simulation sim = BuildSimulation(c, include);
    const auto& job = sim.job;

    Sampler sampler;
    sampler.topo = sim.topo;
    sampler.rank0 = sim.nics.empty() ? nullptr : sim.nics[0];
    sampler.progress = progress && RunRanks::Rank() == 0;
    sampler.split = RunRanks::Split();
    sampler.mpiRank = RunRanks::Rank();
    sampler.index = index;
    sampler.total = total;
    sampler.name = c.name;
    sampler.job = job;
    sampler.flows = sim.flows;
    sampler.steps = c.workload.steps;
    sampler.queue << "time_us,max_port_queue_bytes,total_queue_bytes,pfc_frames_in_interval,"
                     "max_switch_buffer_bytes\n";
    sampler.rate << "time_us,qpn,rate_gbps\n";
    Simulator::ScheduleNow(&Sampler::Sample, &sampler);
    for (const SimulatedJob& j : sim.jobs)
    {
        const Time at = NanoSeconds(int64_t(c.jobs[j.index].startMs * 1e6));
        if (j.job)
        {
            Simulator::Schedule(at, &TrainingJob::Start, j.job);
        }
        else
        {
            Simulator::Schedule(at, &ParallelTrainingJob::Start, j.parallel);
        }
    }
    if (job && sim.jobs.empty())
    {
        Simulator::ScheduleNow(&TrainingJob::Start, job);
    }
    if (sim.parallel && sim.jobs.empty())
    {
        Simulator::ScheduleNow(&ParallelTrainingJob::Start, sim.parallel);
    }
    if (sim.flows)
    {
        Simulator::ScheduleNow(&FlowWorkload::Start, sim.flows);
    }
    Simulator::Stop(Seconds(c.limits.maxSimSeconds));

    const auto wall0 = std::chrono::steady_clock::now();
    sampler.wall0 = wall0;
    sampler.lastPrint = wall0;
    const uint64_t ev0 = Simulator::GetEventCount();
    Simulator::Run();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    const uint64_t events = Simulator::GetEventCount() - ev0;
    if (progress)
    {
        std::fprintf(stderr, "\r%100s\r", "");
    }
    if (InterruptSignal() != 0)
    {
        Simulator::Destroy();
        ThrowIfInterrupted();
    }

    // Across MPI ranks, the histograms of every rank's nodes, added (a no-op on one rank).
    RunRanks::Merge(*sim.latency);
    if (sim.flowQueue)
    {
        RunRanks::Merge(*sim.flowQueue);
    }
    if (sim.messageLatency)
    {
        RunRanks::Merge(*sim.messageLatency);
    }
    sampler.MergeRanks();
    if (sim.faults)
    {
        RunRanks::Merge(*sim.faults);
    }
    // Each job's steps (sim.job is the first job's, when there are several).
    for (const SimulatedJob& j : sim.jobs)
    {
        if (j.job)
        {
            RunRanks::Merge(*j.job);
        }
        if (j.parallel)
        {
            RunRanks::Merge(*j.parallel);
        }
    }
    if (sim.job && sim.jobs.empty())
    {
        RunRanks::Merge(*sim.job);
    }
    if (sim.parallel && sim.jobs.empty())
    {
        RunRanks::Merge(*sim.parallel);
    }
    if (sim.jobs.empty())
    {
        out.summary = Summary(c, sim, events, wall);
        if (sim.timeline)
        {
            out.timelineCsv = sim.timeline->Csv();
            out.summary["training"]["timeline_ranks"] = sim.timeline->Ranks();
        }
    }
    else
    {
        // The top-level fields are the first job's, the counters the fabric's; jobs[] has each.
        const SimulatedJob& first = sim.jobs.front();
        out.summary = Summary(c.jobs[first.index].run, JobView(sim, first), events, wall);
        out.summary["name"] = c.name;
        out.summary["jobs"] = JobsSummary(c, sim, events, wall);
        bool all = true;
        for (const auto& e : out.summary["jobs"])
        {
            all = all && e["completed"].get<bool>();
        }
        out.summary["completed"] = all;
        out.jobsCsv = JobsCsv(c, sim);
    }
    const std::vector<TrainingStepRecord> done = CompletedSteps(sim);
    out.stepsCsv = StepsCsv(done);
    out.stepsSummaryCsv = StepsSummaryCsv(done);
    out.latencyCsv = LatencyCsv(*sim.latency);
    sampler.Finish();
    out.queueCsv = sampler.queue.str();
    out.rateCsv = sampler.rate.str();
    out.attributes = MainAttributes(sim);
    if (sim.flows)
    {
        const std::vector<uint32_t> linkFlows =
            c.workload.matrix ? MatrixLinkFlows(*sim.flows) : std::vector<uint32_t>();
        out.flowsCsv = FlowsCsv(sim.flows->GetFlows(), c.workload.matrix ? &linkFlows : nullptr);
        out.slowdownCsv = SlowdownCsv(sim.flows->GetFlows());
    }
    Simulator::Destroy();
    return out;
}

} // namespace

RunOutput
ExecuteRun(const RunConfig& c, bool progress, size_t index, size_t total)
{
    RunOutput out = ExecuteOnce(c, nullptr, progress, index, total);
    // The unloaded figure: one 1 KiB message on the idle fabric, in a simulation of its own.
    out.summary["idle_message_latency_us"] = IdleMessageProbe(c);
    const size_t n = c.jobs.size();
    if (n < 2 || !c.jobsBaselines || !out.summary["completed"].get<bool>())
    {
        return out;
    }
    // Baselines: each job alone on its servers; with 3+ jobs also all but each.
    std::vector<nlohmann::json> alone;
    std::vector<nlohmann::json> without;
    for (size_t i = 0; i < n; ++i)
    {
        std::vector<bool> only(n, false);
        only[i] = true;
        RunConfig b = c;
        b.name = c.name + " (" + c.jobs[i].name + " alone)";
        alone.push_back(ExecuteOnce(b, &only, progress, index, total).summary["jobs"]);
        if (n >= 3)
        {
            std::vector<bool> rest(n, true);
            rest[i] = false;
            b.name = c.name + " (without " + c.jobs[i].name + ")";
            without.push_back(ExecuteOnce(b, &rest, progress, index, total).summary["jobs"]);
        }
    }
    AddSlowdowns(out.summary["jobs"], alone, without);
    return out;
}

namespace
{

/// "the job did not complete (1 of 3 steps)", or with `jobs` the ones that did not:
/// "job 'stormy' did not complete (1 of 3 steps)".
std::string
NotCompleted(const RunOutput& r)
{
    const nlohmann::json& s = r.summary;
    std::ostringstream os;
    if (!s.contains("jobs"))
    {
        os << "the job did not complete (" << s["steps_completed"] << " of "
           << r.config.workload.steps << " steps)";
        return os.str();
    }
    std::vector<const nlohmann::json*> left;
    for (const nlohmann::json& j : s["jobs"])
    {
        if (!j["completed"].get<bool>())
        {
            left.push_back(&j);
        }
    }
    for (size_t i = 0; i < left.size(); ++i)
    {
        const nlohmann::json& j = *left[i];
        os << (i == 0                 ? (left.size() == 1 ? "job '" : "jobs '")
               : i + 1 == left.size() ? " and '"
                                      : ", '")
           << j["name"].get<std::string>() << "' (" << j["steps_completed"] << " of " << j["steps"]
           << " steps)";
    }
    os << " did not complete";
    return os.str();
}

} // namespace

std::string
IncompleteRunMessage(const RunOutput& r)
{
    const nlohmann::json& s = r.summary;
    if (s["completed"].get<bool>())
    {
        return "";
    }
    std::ostringstream os;
    os << "run '" << r.config.name << "': ";
    const uint64_t qpErrors = s["counters"]["qp_errors"].get<uint64_t>();
    const FabricInfo& fabric = FabricOf(r.config);
    const uint64_t failedPdcs = fabric.failedConnections ? fabric.failedConnections(s) : 0;
    if (r.config.IsFlowWorkload() && qpErrors == 0 && failedPdcs == 0 &&
        s["pfc_health"]["deadlocks"].empty())
    {
        os << "hit limits.max_sim_seconds (" << r.config.limits.maxSimSeconds << " s) with "
           << s["flows"]["completed"] << " of " << s["flows"]["total"]
           << " flows completed; its summary covers the completed flows";
        return os.str();
    }
    const std::string pfc = PfcStallReason(s);
    if (!s["pfc_health"]["deadlocks"].empty() &&
        !s["pfc_health"]["watchdog"]["enabled"].get<bool>())
    {
        os << pfc << "; " << NotCompleted(r);
    }
    else if (qpErrors > 0)
    {
        // A queue pair in the error state never delivers its message: the step cannot end, and
        // the run stopped there (NCCL aborts the communicator on a failed work completion).
        os << qpErrors
           << (qpErrors == 1 ? " queue pair exhausted its" : " queue pairs exhausted their")
           << " retries (faults.drop_rate " << r.config.faults.dropRate << "); " << NotCompleted(r)
           << (pfc.empty() ? "" : " (" + pfc + ")");
    }
    else if (failedPdcs > 0)
    {
        // A UET PDC that exhausted its retransmissions fails its connection: the job aborts
        // there, as NCCL does, long before routing could move the flow off a dead path.
        os << failedPdcs
           << (failedPdcs == 1 ? " UET PDC exhausted its" : " UET PDCs exhausted their")
           << " retransmissions (ns3::UetNic::MaxRetransmissions); ";
        if (r.config.IsFlowWorkload())
        {
            os << s["flows"]["completed"] << " of " << s["flows"]["total"] << " flows completed";
        }
        else
        {
            os << NotCompleted(r);
        }
    }
    else
    {
        os << "hit limits.max_sim_seconds (" << r.config.limits.maxSimSeconds << " s) after "
           << s["steps_completed"] << " of " << r.config.workload.steps
           << " steps; the job did not complete, its summary covers the completed steps"
           << (pfc.empty() ? "" : " (" + pfc + ")");
    }
    return os.str();
}

} // namespace aifabric

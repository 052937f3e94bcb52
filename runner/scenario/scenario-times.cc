// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-times.h"

#include "json-input.h"

#include <cmath>
#include <sstream>

namespace aifabric
{

using nlohmann::json;

namespace
{

std::string
Number(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

/// A graph's compute at the GPU's rate: a training step's FLOPs (an upper bound of any kernel
/// and of any rank's compute), its optimizer step at HBM speed, every kernel of a trace.
void
CheckComputeTimes(const RunConfig& r)
{
    const double flopsPerSecond = r.gpu.peakTflops * 1e12 * r.gpu.computeEfficiency;
    // The key to blame: an efficiency below 1% (it is a fraction of the peak), else the peak.
    const std::string rateKey =
        r.gpu.computeEfficiency < 0.01 ? "gpu.compute_efficiency" : "gpu.peak_tflops";
    if (r.workload.kind == WorkloadKind::TRAINING)
    {
        const ns3::ParallelismConfig& p = r.workload.parallelism;
        const double tokens =
            double(r.workload.model.seqLen) * p.microBatchSize * p.microbatches * double(p.dp);
        const double stepFlops = r.workload.model.TrainingFlopsPerToken() * tokens;
        if (stepFlops / flopsPerSecond > kMaxDurationSeconds)
        {
            CheckSeconds(rateKey,
                         r.gpu.computeEfficiency < 0.01 ? r.gpu.computeEfficiency
                                                        : r.gpu.peakTflops,
                         stepFlops / flopsPerSecond,
                         "a step's compute (its FLOPs / (peak_tflops x compute_efficiency))");
        }
        const double optimizer =
            double(r.workload.model.TotalParams()) * p.optimizerBytesPerParam / p.hbmBytesPerS;
        if (optimizer > kMaxDurationSeconds)
        {
            CheckSeconds("gpu.hbm_tbytes_per_s",
                         p.hbmBytesPerS / 1e12,
                         optimizer,
                         "the optimizer step (parameters x bytes per parameter / HBM rate)");
        }
    }
    if (r.workload.kind == WorkloadKind::CHAKRA && r.workload.graph)
    {
        for (uint32_t rank = 0; rank < r.workload.graph->ranks; ++rank)
        {
            const auto& ops = r.workload.graph->ops[rank];
            for (uint32_t i = 0; i < ops.size(); ++i)
            {
                const ns3::WorkloadOp& o = ops[i];
                const double seconds =
                    o.flops > 0 ? o.flops / flopsPerSecond : double(o.durationNs) * 1e-9;
                if (o.kind == ns3::WorkloadOp::COMPUTE && !(seconds <= kMaxDurationSeconds))
                {
                    throw ScenarioError(
                        "workload.trace: rank " + std::to_string(rank) + " operation " +
                        std::to_string(i) + ": a kernel of " + Number(o.flops) + " FLOPs at " +
                        Number(flopsPerSecond * 1e-12) +
                        " TFLOP/s (gpu.peak_tflops x compute_efficiency) takes " + Number(seconds) +
                        " s, beyond " + Number(kMaxDurationSeconds) +
                        " s (ns-3's time holds about 292 years)");
                }
            }
        }
    }
}

} // namespace

void
CheckSeconds(const std::string& key, double value, double seconds, const std::string& what)
{
    if (seconds >= 1e-9 && seconds <= kMaxDurationSeconds)
    {
        return;
    }
    throw ScenarioError(key + ": " + what + " must be between 1 ns (ns-3's time step) and " +
                        Number(kMaxDurationSeconds) + " s (got " + Number(value) + ", giving " +
                        Number(seconds) + " s)");
}

void
CheckDuration(const std::string& key, double value, double unitSeconds, const std::string& unit)
{
    const double seconds = value * unitSeconds;
    if (seconds >= 1e-9 && seconds <= kMaxDurationSeconds)
    {
        return;
    }
    throw ScenarioError(key +
                        ": must be a duration of at least 1 ns (ns-3's time step) and at "
                        "most " +
                        Number(kMaxDurationSeconds) + " s: " + Number(1e-9 / unitSeconds) + " to " +
                        Number(kMaxDurationSeconds / unitSeconds) + " " + unit + " (got " +
                        Number(value) + ")");
}

void
CheckRate(const std::string& key, double value, double bitsPerSecond, const std::string& what)
{
    if (bitsPerSecond >= kMinRateBitsPerSecond)
    {
        return;
    }
    throw ScenarioError(key + ": " + what + " must be at least " + Number(kMinRateBitsPerSecond) +
                        " bit/s (ns-3's DataRate counts whole bits per second; 0 cannot send) " +
                        "(got " + Number(value) + ", giving " + Number(bitsPerSecond) + " bit/s)");
}

void
CheckTimesAndRates(const RunConfig& r)
{
    constexpr double ms = 1e-3;
    constexpr double us = 1e-6;
    // Rates: every port of every plane, NVLink.
    CheckRate("topology.link_gbps",
              r.topology.linkGbps,
              r.topology.linkGbps * 1e9 / std::max<uint32_t>(1, r.topology.planes),
              "a port's rate (link_gbps / topology.planes)");
    CheckRate("gpu.nvlink_gbytes_per_s",
              r.gpu.nvlinkGBytesPerS,
              r.gpu.nvlinkGBytesPerS * 8e9 * 0.5,
              "NVLink's rate (x 8 bit/B, x an efficiency of at least 0.5)");
    // Timers and periods.
    CheckDuration("rdma.retransmit_timeout_ms", r.fabric.rdma.retransmitTimeoutMs, ms, "ms");
    CheckDuration("pfc_watchdog.poll_ms", r.pfcWatchdog.pollMs, ms, "ms");
    CheckDuration("pfc_watchdog.detection_ms", r.pfcWatchdog.detectionMs, ms, "ms");
    CheckDuration("pfc_watchdog.restoration_ms", r.pfcWatchdog.restorationMs, ms, "ms");
    CheckDuration("pfc_deadlock.poll_ms", r.pfcDeadlock.pollMs, ms, "ms");
    CheckDuration("pfc_deadlock.threshold_ms", r.pfcDeadlock.thresholdMs, ms, "ms");
    CheckDuration("limits.max_sim_seconds", r.limits.maxSimSeconds, 1, "s");
    if (r.routing.convergenceMs > 0)
    {
        CheckDuration("routing.convergence_ms", r.routing.convergenceMs, ms, "ms");
    }
    if (r.routing.flowletGapUs > 0)
    {
        CheckDuration("routing.flowlet_gap_us", r.routing.flowletGapUs, us, "us");
    }
    if (r.faults.random.mtbfHours > 0)
    {
        CheckDuration("faults.random.mtbf_hours", r.faults.random.mtbfHours, 3600, "hours");
        CheckDuration("faults.random.repair_ms", r.faults.random.repairMs, ms, "ms");
        // A link fails about once per mtbf + repair until max_sim_seconds. Drawn as the run
        // goes, each failure is two events and a reconvergence of every switch's routes: more
        // than 10^5 per link is a run that would not end in any useful time.
        const double cycle = r.faults.random.mtbfHours * 3600 + r.faults.random.repairMs * ms;
        if (r.limits.maxSimSeconds / cycle > 1e5)
        {
            throw ScenarioError("faults.random.mtbf_hours: mtbf_hours + repair_ms give " +
                                Number(r.limits.maxSimSeconds / cycle) +
                                " failures per link in limits.max_sim_seconds; at most 1e+05 "
                                "(mtbf_hours x 3600 + repair_ms / 1000 >= max_sim_seconds / "
                                "1e5 s)");
        }
    }
    for (size_t i = 0; i < r.faults.events.size(); ++i)
    {
        const json& e = r.faults.events[i];
        const std::string at = "faults.events[" + std::to_string(i) + "]";
        const std::string action = e.value("action", "");
        if (e.contains("period_ms"))
        {
            const double period = e["period_ms"].get<double>();
            CheckSeconds(at + ".period_ms",
                         period,
                         period * ms / 2,
                         "a flap's half period (period_ms / 2)");
        }
        if (action == "degrade" && e.contains("gbps"))
        {
            const double gbps = e["gbps"].get<double>();
            CheckRate(at + ".gbps", gbps, gbps * 1e9, "the degraded rate");
        }
    }
    // Flow traffic: the mean gap between a host's arrivals, and the incast period.
    const FlowsConfig* flows = r.workload.kind == WorkloadKind::FLOWS ? &r.workload.flows : nullptr;
    for (const auto& [f, key] :
         {std::make_pair(flows, "workload.flows"),
          std::make_pair(r.workload.background ? &*r.workload.background : nullptr,
                         "workload.background")})
    {
        if (!f)
        {
            continue;
        }
        const double mean = f->sizes.GetMean();
        if (mean > 0)
        {
            // The host's whole NIC rate, as FlowWorkload defines the load.
            CheckSeconds(std::string(key) + ".load",
                         f->load,
                         8 * mean / (f->load * r.topology.linkGbps * 1e9),
                         "the mean gap between a host's flows (8 x mean flow size / (load x "
                         "topology.link_gbps))");
        }
        if (f->incastPeriodUs > 0)
        {
            CheckDuration(std::string(key) + ".incast.period_us", f->incastPeriodUs, us, "us");
        }
    }
    // The GPU's rates, whatever the workload: a collective workload (compute_ms given) does not
    // use them, but a value no GPU can have is refused the same way for every workload, as
    // every other rate (it used to pass there and abort a training run).
    const double flopsPerSecond = r.gpu.peakTflops * 1e12 * r.gpu.computeEfficiency;
    if (!(flopsPerSecond >= kMinFlopsPerSecond))
    {
        const bool efficiency = r.gpu.computeEfficiency < 0.01;
        throw ScenarioError(
            std::string(efficiency ? "gpu.compute_efficiency" : "gpu.peak_tflops") +
            ": the GPU's compute rate (peak_tflops x compute_efficiency) must be at least " +
            Number(kMinFlopsPerSecond) + " FLOP/s (got " +
            Number(efficiency ? r.gpu.computeEfficiency : r.gpu.peakTflops) + ", giving " +
            Number(flopsPerSecond) + " FLOP/s)");
    }
    const double hbm = r.resolved["gpu"].value("hbm_tbytes_per_s", 0.0);
    CheckRate("gpu.hbm_tbytes_per_s", hbm, hbm * 8e12, "HBM's rate (x 8e12 bit/TB)");
    CheckComputeTimes(r);
}

} // namespace aifabric

// SPDX-License-Identifier: GPL-2.0-only
#include "run-summary.h"

#include "fabric-registry.h"
#include "run-pfc.h"
#include "run-ranks.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <unordered_map>

namespace aifabric
{

using nlohmann::json;
using namespace ns3;

namespace
{

/// Nearest-rank quantile of a sample.
double
Quantile(std::vector<double> v, double q)
{
    if (v.empty())
    {
        return 0;
    }
    std::sort(v.begin(), v.end());
    size_t rank = static_cast<size_t>(std::ceil(q * double(v.size())));
    rank = std::min(std::max<size_t>(rank, 1), v.size());
    return v[rank - 1];
}

json
Stats(const std::vector<double>& v)
{
    double sum = 0;
    for (double x : v)
    {
        sum += x;
    }
    return json{{"mean", v.empty() ? 0.0 : sum / double(v.size())},
                {"p50", Quantile(v, 0.5)},
                {"p99", Quantile(v, 0.99)},
                {"max", Quantile(v, 1.0)}};
}

/// Per connection that lost data to a down link: from its first such loss to its last, or
/// (firstBurst) to the end of its first burst of them (us).
json
ConnectionLossWindows(const Ptr<FabricFaultInjector>& f, bool firstBurst)
{
    std::vector<double> us;
    if (f)
    {
        for (const Time& t :
             firstBurst ? f->GetConnectionFirstBursts() : f->GetConnectionLossWindows())
        {
            us.push_back(t.GetSeconds() * 1e6);
        }
    }
    return json{{"connections", us.size()},
                {"p50", Quantile(us, 0.5)},
                {"p99", Quantile(us, 0.99)},
                {"max", Quantile(us, 1.0)}};
}

json
Quantiles(const FlowSlowdownBucket& b)
{
    return json{{"p50", b.p50}, {"p95", b.p95}, {"p99", b.p99}};
}

} // namespace

json
FlowsSummary(const FlowWorkload& flows,
             const LatencyHistogram& queue,
             Ptr<const FabricTopology> topo)
{
    const auto& all = flows.GetFlows();
    uint64_t incast = 0;
    for (const FlowRecord& r : all)
    {
        incast += r.incast ? 1 : 0;
    }
    // Upper edges of the size buckets (bytes, inclusive), then an open bucket.
    static const std::vector<uint64_t> edges = {10000, 100000, 1000000, 10000000};
    const FlowSlowdownBucket overall = FlowWorkload::SlowdownBySize(all, {}, false).front();
    json bySize = json::array();
    for (const FlowSlowdownBucket& b : FlowWorkload::SlowdownBySize(all, edges, false))
    {
        json e = Quantiles(b);
        e["max_bytes"] = b.maxBytes == UINT64_MAX ? json(nullptr) : json(b.maxBytes);
        e["count"] = b.count;
        bySize.push_back(e);
    }
    int64_t paused = 0; // time steps, added exactly
    for (const auto& l : topo->GetLinks())
    {
        for (Ptr<FabricNetDevice> d : {l.devA, l.devB})
        {
            if (Ptr<PfcFlowControl> pfc = DynamicCast<PfcFlowControl>(d->GetFlowControl()))
            {
                for (uint8_t p = 0; p < 8; ++p)
                {
                    paused += pfc->GetPausedTime(p).GetTimeStep();
                }
            }
        }
    }
    const double pausedUs = TimeStep(RunRanks::Sum(paused)).GetSeconds() * 1e6;
    return json{{"total", all.size()},
                {"completed", flows.GetNCompleted()},
                {"failed", flows.GetNFailed()},
                {"incast", incast},
                {"arrivals_per_s_per_host", flows.GetArrivalRate()},
                {"slowdown", Quantiles(overall)},
                {"slowdown_by_size", bySize},
                {"queue_p99_bytes", queue.GetCount() ? queue.Quantile(0.99) : 0.0},
                {"pfc_pause_us", pausedUs}};
}

std::vector<uint32_t>
MatrixLinkFlows(const FlowWorkload& flows)
{
    const auto& all = flows.GetFlows();
    // Flows per directed link over the whole matrix (start times aside): ECMP collisions on
    // a permutation, the shared last hop of an incast.
    std::unordered_map<uint64_t, uint32_t> perLink;
    auto key = [](const FabricPathTiming::Hop& h) {
        return (uint64_t(h.link) << 1) | (h.fromA ? 0 : 1);
    };
    for (uint32_t i = 0; i < all.size(); ++i)
    {
        for (const FabricPathTiming::Hop& h : flows.GetFlowPath(i).hops)
        {
            ++perLink[key(h)];
        }
    }
    std::vector<uint32_t> most(all.size(), 0);
    for (uint32_t i = 0; i < all.size(); ++i)
    {
        for (const FabricPathTiming::Hop& h : flows.GetFlowPath(i).hops)
        {
            most[i] = std::max(most[i], perLink[key(h)]);
        }
    }
    return most;
}

json
MatrixSummary(const FlowWorkload& flows)
{
    const auto& all = flows.GetFlows();
    std::vector<double> fct;
    for (const FlowRecord& r : all)
    {
        if (r.completed)
        {
            fct.push_back((r.end - r.start).GetSeconds() * 1e6);
        }
    }
    uint32_t maxPerLink = 0;
    uint64_t sharing = 0;
    for (uint32_t n : MatrixLinkFlows(flows))
    {
        maxPerLink = std::max(maxPerLink, n);
        sharing += n > 1 ? 1 : 0;
    }
    std::sort(fct.begin(), fct.end());
    auto rank = [&fct](double q) {
        if (fct.empty())
        {
            return 0.0;
        }
        const size_t k = static_cast<size_t>(std::ceil(q * fct.size()));
        return fct[std::max<size_t>(k, 1) - 1];
    };
    return json{{"fct_us", {{"p50", rank(0.5)}, {"p99", rank(0.99)}, {"max", rank(1.0)}}},
                {"paths", {{"max_flows_per_link", maxPerLink}, {"flows_sharing_a_link", sharing}}}};
}

json
TrainingSummary(const RunConfig& c, const ParallelTrainingJob& job, size_t steps)
{
    // Where the time went, mean over ranks and completed steps (each rank's phases sum to its
    // step), and the same for the rank everyone waited on.
    const uint32_t n = job.GetGraph()->ranks;
    double phase[7] = {0, 0, 0, 0, 0, 0, 0};
    for (size_t k = 0; k < steps; ++k)
    {
        for (uint32_t r = 0; r < n; ++r)
        {
            const RankPhaseTimes& t = job.GetPhaseTimes(static_cast<uint32_t>(k), r);
            const Time v[7] = {t.compute,
                               t.tpExposed,
                               t.ppBubble,
                               t.dpExposed,
                               t.epExposed,
                               t.fsdpExposed,
                               t.barrier};
            for (int i = 0; i < 7; ++i)
            {
                phase[i] += v[i].GetSeconds() * 1e3 / double(n * steps);
            }
        }
    }
    const ParallelismConfig& p = c.workload.parallelism;
    const TransformerModel& model = c.workload.model;
    json choices = json::array();
    for (const std::string& x : job.GetCollectiveChoices())
    {
        choices.push_back(x);
    }
    const json ph = {{"compute", phase[0]},
                     {"tp_exposed", phase[1]},
                     {"pp_bubble", phase[2]},
                     {"dp_exposed", phase[3]},
                     {"ep_exposed", phase[4]},
                     {"fsdp_exposed", phase[5]},
                     {"barrier_wait", phase[6]}};
    if (c.workload.kind == WorkloadKind::CHAKRA)
    {
        // A trace: no model shape or parallelism to report; its own FLOPs and operations.
        return json{{"model", "chakra"},
                    {"trace", c.workload.trace},
                    {"model_tflop_per_step", job.GetGraph()->modelFlops / 1e12},
                    {"mfu", job.GetMfu()},
                    {"phases_ms", ph},
                    {"operations_per_step", job.GetGraph()->OpCount()},
                    {"collectives_per_step", job.GetCollectivesPerStep()},
                    {"collectives", choices}};
    }
    return json{{"model", model.name},
                {"params_b", double(model.TotalParams()) / 1e9},
                {"active_params_b", double(model.ActiveParams()) / 1e9},
                {"parallelism",
                 {{"tp", p.tp},
                  {"pp", p.pp},
                  {"dp", p.dp},
                  {"ep", p.ep},
                  {"microbatches", p.microbatches},
                  {"micro_batch_size", p.microBatchSize},
                  {"zero", p.zero},
                  {"schedule", ParallelismConfig::ScheduleName(p.schedule)}}},
                {"tokens_per_step",
                 double(p.dp) * p.microbatches * p.microBatchSize * double(model.seqLen)},
                {"model_tflop_per_step", job.GetGraph()->modelFlops / 1e12},
                {"mfu", job.GetMfu()},
                {"bubble_fraction_analytic", TransformerWorkload::BubbleFraction(p)},
                {"phases_ms",
                 {{"compute", phase[0]},
                  {"tp_exposed", phase[1]},
                  {"pp_bubble", phase[2]},
                  {"dp_exposed", phase[3]},
                  {"ep_exposed", phase[4]},
                  {"fsdp_exposed", phase[5]},
                  {"barrier_wait", phase[6]}}},
                {"operations_per_step", job.GetGraph()->OpCount()},
                {"collectives_per_step", job.GetCollectivesPerStep()},
                {"collectives", choices}};
}

double
PeakRssMb()
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
    {
        if (line.rfind("VmHWM:", 0) == 0)
        {
            return std::stod(line.substr(6)) / 1024.0;
        }
    }
    return 0;
}

std::vector<TrainingStepRecord>
CompletedSteps(const Simulation& sim)
{
    std::vector<TrainingStepRecord> done;
    if (!sim.job && !sim.parallel)
    {
        return done;
    }
    for (const auto& r : sim.job ? sim.job->GetSteps() : sim.parallel->GetSteps())
    {
        if (!r.collectiveEnd.empty())
        {
            done.push_back(r);
        }
    }
    return done;
}

json
Summary(const RunConfig& c, const Simulation& sim, uint64_t events, double wall)
{
    const auto& topo = sim.topo;
    const auto& nics = sim.nics;
    const auto& network = sim.network;
    const auto& job = sim.job;
    const auto& latency = sim.latency;
    const std::vector<TrainingStepRecord> done = CompletedSteps(sim);
    std::vector<double> stepMs;
    std::vector<double> collMs;
    for (const auto& r : done)
    {
        stepMs.push_back(r.StepTime().GetSeconds() * 1e3);
        collMs.push_back(r.CollectiveTime().GetSeconds() * 1e3);
    }
    const double meanStep = stepMs.empty() ? 0 : Stats(stepMs)["mean"].get<double>();
    const double meanColl = collMs.empty() ? 0 : Stats(collMs)["mean"].get<double>();
    const auto& parallel = sim.parallel;
    const double computeMs = job        ? job->GetMeanComputeTime().GetSeconds() * 1e3
                             : parallel ? parallel->GetMeanComputeTime().GetSeconds() * 1e3
                                        : 0;
    const double busyFraction = meanStep > 0 ? std::min(1.0, computeMs / meanStep) : 0;
    const CollectiveSpec spec = job ? job->GetSpec() : CollectiveSpec();
    const double algbw = meanColl > 0 ? double(c.workload.bytes) / (meanColl * 1e-3) / 1e9 : 0;

    uint64_t dataPackets = 0;
    uint64_t cnps = 0;
    uint64_t qpErrors = 0;
    uint64_t outOfOrder = 0;
    uint64_t portChanges = 0;
    // Sums over the nodes this process ran; across MPI ranks, RunRanks::Sum adds every rank's.
    const uint64_t retx = RunRanks::Sum(network->GetRetransmissions());
    const uint64_t timeouts = RunRanks::Sum(network->GetTimeouts());
    for (auto& n : nics)
    {
        dataPackets += n->GetCounters().dataPacketsSent;
        cnps += n->GetCounters().cnpsSent;
        qpErrors += n->GetCounters().qpErrors;
        outOfOrder += n->GetCounters().outOfOrderPackets;
        portChanges += n->GetCounters().portChanges;
    }
    // Packets the fabric's transport counts itself (TCP's segments, UET's packets).
    if (const FabricInfo& f = FabricOf(c); f.dataPackets)
    {
        dataPackets += f.dataPackets(c, sim);
    }
    uint64_t dropsBuffer = 0;
    uint64_t dropsCorrupt = 0;
    uint64_t pauses = 0;
    uint64_t ecn = 0;
    for (uint32_t j = 0; j < topo->GetNSwitches(); ++j)
    {
        const auto& sc = topo->GetSwitch(j)->GetCounters();
        dropsBuffer += sc.drops[size_t(FabricDropReason::BUFFER_FULL)] +
                       sc.drops[size_t(FabricDropReason::HEADROOM_FULL)];
        ecn += sc.ecnMarks;
    }
    uint64_t fcps = 0;
    int64_t creditStall = 0; // time steps, added exactly (in any order, on any number of ranks)
    uint64_t frameHops = 0;  // frames sent on every port: link traversals (events per hop)
    for (const auto& l : topo->GetLinks())
    {
        for (Ptr<FabricNetDevice> d : {l.devA, l.devB})
        {
            frameHops += d->GetCounters().txFrames;
            dropsCorrupt += d->GetCounters().drops[size_t(FabricDropReason::CORRUPT)];
            Ptr<PfcFlowControl> pfc = DynamicCast<PfcFlowControl>(d->GetFlowControl());
            if (pfc)
            {
                pauses += pfc->GetPauseFramesSent();
            }
            if (Ptr<IbCreditFlowControl> ibfc =
                    DynamicCast<IbCreditFlowControl>(d->GetFlowControl()))
            {
                fcps += ibfc->GetFcpsSent();
                for (uint8_t vl = 0; vl < 8; ++vl)
                {
                    creditStall += ibfc->GetStallTime(vl).GetTimeStep();
                }
            }
        }
    }
    dataPackets = RunRanks::Sum(dataPackets);
    cnps = RunRanks::Sum(cnps);
    qpErrors = RunRanks::Sum(qpErrors);
    outOfOrder = RunRanks::Sum(outOfOrder);
    portChanges = RunRanks::Sum(portChanges);
    dropsBuffer = RunRanks::Sum(dropsBuffer);
    dropsCorrupt = RunRanks::Sum(dropsCorrupt);
    pauses = RunRanks::Sum(pauses);
    ecn = RunRanks::Sum(ecn);
    fcps = RunRanks::Sum(fcps);
    frameHops = RunRanks::Sum(frameHops);
    const double creditStallUs = TimeStep(RunRanks::Sum(creditStall)).GetSeconds() * 1e6;
    const double stepTimeP = Simulator::Now().GetSeconds();
    json s;
    s["name"] = c.name;
    s["fabric"] = c.fabric.name;
    s["gpus"] = c.Gpus();
    s["drop_rate"] = c.faults.dropRate;
    s["steps"] = c.workload.steps;
    s["workload_kind"] = c.workload.kind;
    s["steps_completed"] = done.size();
    s["completed"] = job || parallel ? done.size() == c.workload.steps
                                     : sim.flows->IsDrained() && sim.flows->GetNFailed() == 0;
    s["compute_ms"] = computeMs;
    s["collective"] = CollectiveSpec::OpName(c.workload.collective);
    s["algorithm"] = c.workload.algorithmAuto ? "auto" : c.workload.algorithm;
    // What ran: All-to-All, Broadcast and SendRecv have one schedule whatever the algorithm.
    s["algorithm_used"] = spec.op == CollectiveSpec::ALLTOALL    ? "pairwise"
                          : spec.op == CollectiveSpec::BROADCAST ? "chain"
                          : spec.op == CollectiveSpec::SENDRECV  ? "p2p"
                                                                 : c.workload.algorithm;
    s["protocol"] =
        c.workload.protocolAuto ? "auto" : CollectiveProtocol::Name(c.workload.protocol);
    s["protocol_used"] = CollectiveProtocol::Name(c.workload.protocol);
    s["gpu_model"] = c.gpu.model;
    s["nvlink_gbytes_per_s"] = c.gpu.nvlinkGBytesPerS;
    s["channels_used"] =
        spec.op == CollectiveSpec::ALLTOALL ? 1u : CollectiveAlgorithm::EffectiveChannels(spec);
    s["bytes"] = c.workload.bytes;
    s["pfc"] = c.fabric.pfc;
    s["congestion_control"] = c.fabric.congestionControl;
    s["loss_recovery"] = c.fabric.lossRecovery;
    s["step_ms"] = Stats(stepMs);
    s["collective_ms"] = Stats(collMs);
    s["mfu_effective"] = job        ? busyFraction * job->GetMfuInsideCompute()
                         : parallel ? parallel->GetMfu()
                                    : 0.0;
    s["idle_cost_usd_per_hr"] = double(c.Gpus()) * c.cost.gpuHourUsd * (1.0 - busyFraction);
    s["network_latency_us"] = json{{"p50", latency->Quantile(0.5) / 1000.0},
                                   {"p99", latency->Quantile(0.99) / 1000.0},
                                   {"max", double(latency->GetMax()) / 1000.0}};
    // One way, a message's first byte leaving GPU memory to its last byte in the peer's GPU
    // memory, on the run's own traffic: host path included (TCP), NIC and PCIe (RDMA).
    const LatencyHistogram* msg = PeekPointer(sim.messageLatency);
    const bool anyMsg = msg && msg->GetCount() > 0;
    s["message_latency_us"] = json{{"p50", anyMsg ? msg->Quantile(0.5) / 1000.0 : 0.0},
                                   {"p99", anyMsg ? msg->Quantile(0.99) / 1000.0 : 0.0},
                                   {"max", anyMsg ? double(msg->GetMax()) / 1000.0 : 0.0},
                                   {"messages", msg ? msg->GetCount() : 0}};
    s["algbw_gbytes_per_s"] = algbw;
    s["busbw_gbytes_per_s"] = algbw * CollectiveSpec::BusBwFactor(spec.op, c.Gpus());
    s["counters"] = json{{"data_packets", dataPackets},
                         {"drops_buffer", dropsBuffer},
                         {"drops_corrupt", dropsCorrupt},
                         {"pfc_pause_frames", pauses},
                         {"ecn_marks", ecn},
                         {"ib_flow_control_packets", fcps},
                         {"ib_credit_stall_us", creditStallUs},
                         {"cnps", cnps},
                         {"retransmitted_packets", retx},
                         {"timeouts", timeouts},
                         {"qp_errors", qpErrors},
                         {"out_of_order_packets", outOfOrder},
                         {"port_changes", portChanges},
                         {"frame_hops", frameHops}};
    if (parallel)
    {
        // A training model or a trace: what it ran, not the scenario's unused collective workload
        // (same keys). Kinds and bytes are rank 0's per step; algorithms, protocols and channels
        // those of every communicator.
        const WorkloadGraph& g = *parallel->GetGraph();
        std::set<std::string> ops;
        uint64_t bytes = 0;
        bool sends = false;
        for (const WorkloadOp& o : g.ops.empty() ? std::vector<WorkloadOp>() : g.ops[0])
        {
            if (o.kind == WorkloadOp::COLLECTIVE)
            {
                ops.insert(CollectiveSpec::OpName(o.op));
            }
            if (o.kind != WorkloadOp::COMPUTE && o.kind != WorkloadOp::RECV)
            {
                bytes += o.bytes;
            }
            sends = sends || o.kind == WorkloadOp::SEND;
        }
        std::set<std::string> algorithms;
        std::set<std::string> protocols;
        uint32_t channels = 0;
        for (const auto& ch : parallel->GetCollectiveChoiceParts())
        {
            algorithms.insert(ch.algorithm);
            protocols.insert(ch.protocol);
            channels = std::max(channels, ch.channels);
        }
        const auto joined = [](const std::set<std::string>& names, const char* none) {
            std::string out;
            for (const std::string& n : names)
            {
                out += (out.empty() ? "" : "+") + n;
            }
            return out.empty() ? std::string(none) : out;
        };
        s["collective"] = ops.empty() ? (sends ? "p2p" : "none") : joined(ops, "");
        s["bytes"] = bytes; // rank 0's collective and send buffers
        s["algorithm_used"] = joined(algorithms, "none");
        s["protocol_used"] = joined(protocols, "none");
        s["channels_used"] = channels;
        s["algbw_gbytes_per_s"] = 0.0; // a step of many operations has no one bandwidth
        s["busbw_gbytes_per_s"] = 0.0;
    }
    // The fabrics' own blocks (tcp, tcp_message_breakdown_us in every run; uec on uec).
    for (const FabricInfo& f : FabricRegistry::All())
    {
        if (f.summarize)
        {
            f.summarize(c, sim, s);
        }
    }
    json last = json::array();
    for (const auto& r : done)
    {
        last.push_back(json{{"step", r.step},
                            {"step_ms", r.StepTime().GetSeconds() * 1e3},
                            {"last_rank", r.lastRank},
                            {"waited_on", r.waitedOn},
                            {"cause", r.cause}});
    }
    s["barrier"] = last;
    // Same keys in every run: without a fault timeline, zeros.
    const auto& f = sim.faults;
    s["faults"] = json{{"events", c.faults.events.size()},
                       {"changes", f ? f->GetChanges() : 0},
                       {"reconvergences", f ? f->GetReconvergences() : 0},
                       {"link_down_drops", f ? RunRanks::Sum(f->GetLinkDownDrops()) : 0},
                       {"loss_window_us", f ? f->GetLossWindow().GetSeconds() * 1e6 : 0.0},
                       {"connection_loss_window_us", ConnectionLossWindows(f, false)},
                       {"connection_first_burst_us", ConnectionLossWindows(f, true)},
                       {"links_down_at_end", f ? f->GetLinksDown() : 0}};
    s["pfc_health"] = PfcSummary(c, sim);
    if (sim.flows)
    {
        s["flows"] = FlowsSummary(*sim.flows, *sim.flowQueue, topo);
        if (c.workload.matrix)
        {
            const json m = MatrixSummary(*sim.flows);
            s["flows"]["fct_us"] = m["fct_us"];
            s["flows"]["paths"] = m["paths"];
            s["flows"]["matrix"] = c.workload.matrixFile;
        }
    }
    if (parallel)
    {
        s["training"] = TrainingSummary(c, *parallel, done.size());
    }
    // Across MPI ranks: every rank's events (each runs the workload's own events, and receives
    // messages), the slowest rank's wall time, the largest rank's memory.
    s["sim"] = json{{"events", RunRanks::Sum(events)},
                    {"wall_s", RunRanks::MaxDouble(wall)},
                    {"sim_time_s", stepTimeP},
                    {"peak_rss_mb", RunRanks::MaxDouble(PeakRssMb())}};
    if (RunRanks::Split())
    {
        s["sim"]["ranks"] = RunRanks::Size();
    }
    return s;
}

} // namespace aifabric

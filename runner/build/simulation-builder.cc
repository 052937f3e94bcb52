// SPDX-License-Identifier: GPL-2.0-only
#include "simulation-builder.h"

#include "fabric-registry.h"
#include "json-input.h"
#include "run-faults.h"
#include "run-pfc.h"
#include "run-ranks.h"
#include "run-timeline.h"
#include "run-transports.h"
#include "scenario-plugins.h"
#include "scenario-tuning.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <algorithm>

namespace aifabric
{

using namespace ns3;

namespace
{

void
StopNow()
{
    Simulator::Stop();
}

/// A Ranks error's message without the attribute's name ("must ...").
std::string
RanksMessage(const FabricConfigError& e)
{
    const std::string what = e.what();
    return what.substr(std::min(what.size(), e.GetParameter().size() + 1));
}

/// Record the egress queue (bytes, on its priority) each data frame finds at a switch port.
void
QueueFound(LatencyHistogram* hist, FabricNetDevice* port, const FabricFrame& f)
{
    if (f.kind == FabricFrame::DATA)
    {
        hist->Add(port->GetQueueBytes(f.priority));
    }
}

void
WatchSwitchQueues(Ptr<FabricTopology> topo, Ptr<LatencyHistogram> hist)
{
    for (uint32_t j = 0; j < topo->GetNSwitches(); ++j)
    {
        Ptr<FabricSwitch> sw = topo->GetSwitch(j);
        for (uint16_t p = 0; p < sw->GetNPorts(); ++p)
        {
            Ptr<FabricNetDevice> d = sw->GetPort(p);
            d->TraceConnectWithoutContext(
                "Enqueue",
                MakeBoundCallback(&QueueFound, PeekPointer(hist), PeekPointer(d)));
        }
    }
}

Ptr<FlowWorkload>
BuildFlows(const FlowsConfig& f, Time duration, Ptr<FabricTopology> topo)
{
    Ptr<FlowWorkload> w = CreateObject<FlowWorkload>();
    w->SetDistribution(f.sizes);
    w->SetAttribute("Load", DoubleValue(f.load));
    w->SetAttribute("Duration", TimeValue(duration));
    w->SetAttribute(
        "Pattern",
        StringValue(f.pattern == FlowsPattern::PERMUTATION ? "Permutation" : "Uniform"));
    w->SetAttribute("IncastFanin", UintegerValue(f.incastFanin));
    w->SetAttribute("IncastBytes", UintegerValue(f.incastBytes));
    w->SetAttribute("IncastPeriod", TimeValue(NanoSeconds(int64_t(f.incastPeriodUs * 1e3))));
    w->Install(topo);
    w->AssignStreams(500000);
    return w;
}

/// A parallel transformer job (its step as every rank's dependency graph) on `gpus`, whose
/// rank r is transport rank ranks[r].
Ptr<ParallelTrainingJob>
MakeParallelJob(const RunConfig& c,
                NodeContainer gpus,
                const std::vector<uint32_t>& ranks,
                Ptr<CollectiveTransport> network,
                Ptr<CollectiveTransport> nvlink)
{
    // A Chakra trace's graph as read, or the transformer's step built from the model.
    std::shared_ptr<const WorkloadGraph> graph =
        c.workload.graph
            ? c.workload.graph
            : std::make_shared<const WorkloadGraph>(
                  TransformerWorkload::Build(c.workload.model, c.workload.parallelism));
    Ptr<ParallelTrainingJob> job = CreateObject<ParallelTrainingJob>();
    job->SetAttribute("Steps", UintegerValue(c.workload.steps));
    job->SetAttribute("PeakTflops", DoubleValue(c.gpu.peakTflops));
    job->SetAttribute("ComputeEfficiency", DoubleValue(c.gpu.computeEfficiency));
    job->SetAttribute("Nvls", BooleanValue(c.gpu.nvls));
    job->SetAttribute(
        "Algorithm",
        StringValue(c.workload.algorithmAuto ? std::string("auto") : c.workload.algorithm));
    job->SetAttribute("Protocol",
                      StringValue(c.workload.protocolAuto
                                      ? "auto"
                                      : ns3::CollectiveProtocol::Name(c.workload.protocol)));
    // workload.channels and chunks apply to every collective too (they were ignored): 0
    // channels is NCCL's count per communicator and algorithm.
    job->SetAttribute("Channels", UintegerValue(c.workload.channelsAuto ? 0 : c.workload.channels));
    job->SetAttribute("Chunks", UintegerValue(c.workload.chunks));
    job->SetTuner(MakeTuner(c));
    job->SetGraph(graph);
    job->Setup(gpus, ranks, c.topology.gpusPerServer, network, nvlink);
    return job;
}

/// The collective step loop (compute, then the collective, then the barrier) on the GPUs
/// ranks[0..n), each given its GpuTrainingApp; `mapped`: run them as those transport ranks (a
/// job beside others), else the cluster's GPUs in order.
Ptr<TrainingJob>
MakeCollectiveJob(const RunConfig& c,
                  Ptr<FabricTopology> topo,
                  const std::vector<uint32_t>& ranks,
                  Ptr<CollectiveTransport> network,
                  Ptr<CollectiveTransport> nvlink,
                  bool mapped)
{
    NodeContainer gpus;
    for (uint32_t r : ranks)
    {
        Ptr<GpuTrainingApp> app = CreateObject<GpuTrainingApp>();
        app->SetAttribute("ComputeTime", TimeValue(ScenarioMs(c.workload.computeMs)));
        app->AssignStreams(100000 + r);
        topo->GetHostNode(r)->AddApplication(app);
        gpus.Add(topo->GetHostNode(r));
    }
    Ptr<TrainingJob> job = CreateObject<TrainingJob>();
    job->SetAttribute("Steps", UintegerValue(c.workload.steps));
    job->SetAttribute("Collective", StringValue(CollectiveSpec::OpName(c.workload.collective)));
    job->SetAttribute(
        "Algorithm",
        TypeIdValue(TypeId::LookupByName(CollectiveAlgorithm::TypeIdName(c.workload.algorithm))));
    job->SetAttribute("Bytes", UintegerValue(c.workload.bytes));
    job->SetAttribute("Chunks", UintegerValue(c.workload.chunks));
    job->SetAttribute("Buckets", UintegerValue(c.workload.buckets));
    job->SetAttribute("Channels", UintegerValue(c.workload.channels));
    job->SetAttribute("Protocol", StringValue(CollectiveProtocol::Name(c.workload.protocol)));
    if (c.fabric.infiniband.sharp)
    {
        try
        {
            job->SetInNetworkTree(
                std::make_shared<const InNetworkTree>(InNetworkTreeHelper::Build(topo)));
        }
        catch (const FabricConfigError& e)
        {
            throw ScenarioError(std::string("infiniband.sharp: ") + e.what());
        }
    }
    if (mapped)
    {
        job->SetTransportRanks(ranks);
    }
    job->Setup(gpus, c.topology.gpusPerServer, network, nvlink);
    return job;
}

/// Stops the simulator once every job of a run (one, or those of `jobs`) has ended: done its
/// steps or lost a connection.
struct JobsLeft
{
    std::vector<int32_t> owner; //!< per host: the slot of the job it runs, or -1
    std::vector<bool> over;     //!< per slot: done or aborted

    void End(size_t slot)
    {
        if (!over[slot])
        {
            over[slot] = true;
            if (std::find(over.begin(), over.end(), false) == over.end())
            {
                Simulator::Stop();
            }
        }
    }
};

void
JobDone(std::shared_ptr<JobsLeft> jobs, size_t slot, uint32_t steps, const TrainingStepRecord& r)
{
    if (r.step + 1 >= steps)
    {
        jobs->End(slot);
    }
}

/// A connection from `src` failed: its job aborts (NCCL's communicator does); the others go on.
void
JobConnectionFailed(std::shared_ptr<JobsLeft> jobs, uint32_t src, uint32_t)
{
    if (src < jobs->owner.size() && jobs->owner[src] >= 0)
    {
        jobs->End(size_t(jobs->owner[src]));
    }
}

/// Count `job` (a TrainingJob or ParallelTrainingJob) as slot `slot` of `left`, ended after
/// `steps` steps.
void
WatchSteps(Ptr<Object> job, std::shared_ptr<JobsLeft> left, size_t slot, uint32_t steps)
{
    left->over.push_back(false);
    job->TraceConnectWithoutContext("StepDone", MakeBoundCallback(&JobDone, left, slot, steps));
}

/// A failed connection ends its job: each transport of `sim` once.
void
WatchConnections(const Simulation& sim, std::shared_ptr<JobsLeft> left)
{
    for (const auto& n : sim.Transports())
    {
        n->TraceConnectWithoutContext("ConnectionFailed",
                                      MakeBoundCallback(&JobConnectionFailed, left));
    }
}

/// `jobs`: each included job on its servers, over its transport (RDMA, or Linux TCP beside it
/// on the same ports), the first one also as sim.job / sim.parallel.
void
AddJobs(const RunConfig& c, const std::vector<bool>* include, Simulation& sim)
{
    auto left = std::make_shared<JobsLeft>();
    left->owner.assign(sim.topo->GetNHosts(), -1);
    for (size_t i = 0; i < c.jobs.size(); ++i)
    {
        if (include && !(*include)[i])
        {
            continue;
        }
        const JobConfig& jc = c.jobs[i];
        std::vector<uint32_t> ranks;
        NodeContainer gpus;
        for (uint32_t server : jc.serverIds)
        {
            for (uint32_t g = 0; g < c.topology.gpusPerServer; ++g)
            {
                ranks.push_back(server * c.topology.gpusPerServer + g);
                gpus.Add(sim.topo->GetHostNode(ranks.back()));
                left->owner[ranks.back()] = int32_t(sim.jobs.size());
            }
        }
        SimulatedJob sj;
        sj.index = i;
        sj.network = sim.networks.at(jc.run.fabric.name);
        if (jc.run.RunsGraph())
        {
            sj.parallel = MakeParallelJob(jc.run, gpus, ranks, sj.network, sim.nvlink);
        }
        else
        {
            sj.job = MakeCollectiveJob(jc.run, sim.topo, ranks, sj.network, sim.nvlink, true);
        }
        WatchSteps(sj.parallel ? Ptr<Object>(sj.parallel) : Ptr<Object>(sj.job),
                   left,
                   sim.jobs.size(),
                   jc.run.workload.steps);
        if (sim.jobs.empty())
        {
            sim.job = sj.job;
            sim.parallel = sj.parallel;
        }
        sim.jobs.push_back(sj);
    }
    WatchConnections(sim, left);
}

} // namespace

/// The run's topology helper, configured; nothing built yet.
static Ptr<FabricTopologyHelper>
ConfiguredHelper(const RunConfig& c)
{
    Ptr<FabricTopologyHelper> helper = TopologyOf(c).create(TopologyParamsOf(c));
    // First, the fabric's link layer and flow control (IB's ports with credits and the subnet
    // manager's LFT, which the load balancing below may override; PFC's priorities; UEC's).
    if (const FabricInfo& f = FabricOf(c); f.configure)
    {
        f.configure(c, *helper);
    }
    helper->SetAttribute("InNetworkAggregation", BooleanValue(c.fabric.infiniband.sharp));
    // The load balancing as registered beside the switch (routing.load_balancing, validated).
    if (const int ps = LoadBalancingRegistry::Find(c.routing.loadBalancing)->pathSelection; ps >= 0)
    {
        helper->SetSwitchAttribute("PathSelection",
                                   EnumValue(static_cast<FabricSwitch::PathSelection>(ps)));
        helper->SetSwitchAttribute("FlowletGap",
                                   TimeValue(NanoSeconds(int64_t(c.routing.flowletGapUs * 1e3))));
    }
    helper->SetAttribute("Servers", UintegerValue(c.topology.servers));
    helper->SetAttribute("GpusPerServer", UintegerValue(c.topology.gpusPerServer));
    helper->SetAttribute("LinkRate", DataRateValue(DataRate(uint64_t(c.topology.linkGbps * 1e9))));
    helper->SetAttribute("HostCableLength", DoubleValue(c.topology.hostCableM));
    helper->SetAttribute("FabricCableLength", DoubleValue(c.topology.fabricCableM));
    if (c.topology.hopLatencyUs > 0)
    {
        // htsim's hop: a fixed delay per link (its Pipe), store-and-forward switches (its
        // queues serialize whole packets) with a fixed switching latency. 5 ns per metre.
        helper->SetAttribute("HostCableLength", DoubleValue(c.topology.hopLatencyUs * 200));
        helper->SetAttribute("FabricCableLength", DoubleValue(c.topology.hopLatencyUs * 200));
        helper->SetSwitchAttribute("CutThrough", BooleanValue(false));
        helper->SetSwitchAttribute(
            "PortToPortLatency",
            TimeValue(NanoSeconds(int64_t(c.topology.switchLatencyUs * 1e3))));
    }
    return helper;
}

Ptr<FabricTopology>
BuildTopology(const RunConfig& c, bool split)
{
    Config::Reset();
    // Scenario keys first, so that the scenario's "attributes" can still override them.
    Config::SetDefault("ns3::NvlinkTransport::Bandwidth",
                       DataRateValue(DataRate(uint64_t(c.gpu.nvlinkGBytesPerS * 8e9))));
    Config::SetDefault("ns3::RingCollective::Pxn", BooleanValue(c.workload.pxn));
    Config::SetDefault("ns3::NvlinkTransport::NvlsEfficiency",
                       StringValue(PresetNvlsEfficiency(c.gpu.model)));
    // What the congestion control needs of the switches (DCQCN: ECN below PFC's XOFF).
    const RdmaCongestionControlInfo* cc = RdmaCongestionRegistry::Find(c.fabric.congestionControl);
    if (cc && cc->switchDefaults)
    {
        for (const auto& [name, value] : cc->switchDefaults(
                 {c.fabric.name, c.topology.linkGbps, c.fabric.congestionControlKeys}))
        {
            Config::SetDefault(name, StringValue(value));
        }
    }
    for (const auto& a : c.attributes)
    {
        if (!Config::SetDefaultFailSafe(a.first, StringValue(a.second)))
        {
            throw ScenarioError("attributes." + a.first + ": invalid value '" + a.second + "'");
        }
    }
    Config::SetDefault("ns3::FabricTopology::ValleyFree", BooleanValue(c.routing.valleyFree));
    RngSeedManager::SetSeed(c.seed);
    RngSeedManager::SetRun(1);
    // Takes effect when this call creates the simulator (the first run, or a run after
    // Simulator::Destroy); same event order as ns-3's default, less work per event.
    // simulation.event_order "partition" orders events of equal times as a run on MPI ranks
    // can (FabricPartitionScheduler); it also makes cables deliver one event per frame.
    // Across MPI ranks (--ranks): ns-3's distributed core, in the partition order.
    if (split)
    {
        RunRanks::Renew();
        GlobalValue::Bind("SimulatorImplementationType", StringValue(RunRanks::SimulatorType()));
        FabricPartitionScheduler::Select();
        Simulator::Now(); // creates the simulator with the bound core and scheduler
    }
    else
    {
        GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::FabricSimulatorImpl"));
        ObjectFactory sched;
        sched.SetTypeId(c.simulation.partitionOrder ? "ns3::FabricPartitionScheduler"
                                                    : "ns3::TimingWheelScheduler");
        Simulator::SetScheduler(sched);
    }

    // --- topology
    Ptr<FabricTopologyHelper> helper = ConfiguredHelper(c);
    if (split)
    {
        // Groups (a leaf with its hosts, a pod, a server block) to ranks; only switch-to-switch
        // cables are cut (FabricTopologyHelper::SetPartition).
        helper->SetPartition(RunRanks::Size());
    }
    Ptr<FabricTopology> topo;
    try
    {
        topo = helper->Build();
        if (split)
        {
            // The runner's ranks tell each other things (RunRanks, FabricRankMailbox).
            helper->CheckRankCables(*topo);
        }
    }
    catch (const FabricConfigError& e)
    {
        if (e.GetParameter() == "Ranks")
        {
            throw ScenarioError("--ranks: " + RanksMessage(e));
        }
        // Only the switch buffer's attributes can still be refused here (a fixed BufferSize
        // smaller than its reserved space and PFC headroom, EcnKmax below EcnKmin): bad input.
        throw ScenarioError("attributes.ns3::SwitchBufferManager::" + e.GetParameter() + ": " +
                            e.what());
    }
    topo->AssignStreams(1000);
    for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
    {
        for (uint32_t p = 0; p < topo->GetNHostPorts(h); ++p)
        {
            topo->GetHostDevice(h, p)->SetAttribute("ReceiveErrorRate",
                                                    DoubleValue(c.faults.dropRate));
        }
    }
    return topo;
}

Time
RankMessageDelay(const FabricTopology& topo)
{
    std::vector<Time> delays;
    for (const FabricLinkInfo& l : topo.GetLinks())
    {
        delays.push_back(DynamicCast<FabricChannel>(l.devA->GetChannel())->GetDelay());
    }
    return FabricRankMailbox::GetMessageDelay(delays);
}

void
CheckRanks(const RunConfig& c, uint32_t ranks)
{
    Ptr<FabricTopologyHelper> helper = ConfiguredHelper(c);
    helper->SetPartition(ranks);
    try
    {
        helper->CheckPartition();
    }
    catch (const FabricConfigError& e)
    {
        throw ScenarioError("--ranks: " + RanksMessage(e));
    }
}

void
CheckFaultTargets(const RunConfig& c)
{
    if (c.faults.events.empty())
    {
        return;
    }
    BuildFaults(c, BuildTopology(c));
    Simulator::Destroy();
}

Simulation
BuildSimulation(const RunConfig& c, const std::vector<bool>* include)
{
    Ptr<FabricTopology> topo = BuildTopology(c, RunRanks::Split());
    Ptr<FabricFaultInjector> faults = BuildFaults(c, topo);
    if (faults && RunRanks::Split())
    {
        faults->SetKeepDropLog(true); // each rank sees its own ports' drops: merged after
    }
    Ptr<LatencyHistogram> latency = Create<LatencyHistogram>();
    std::vector<Ptr<RdmaNic>> nics;
    // The run's fabric's transport; with jobs side by side, each fabric's that a job runs (RDMA
    // NICs and Linux TCP stacks share the hosts' ports), in registry order, each installed with
    // the run's keys if it is the run's fabric, else with its first job's.
    std::map<std::string, Ptr<CollectiveTransport>> networks;
    Ptr<CollectiveTransport> network;
    const std::vector<std::string> single{c.fabric.name};
    for (const std::string& name : c.jobs.empty() ? single : c.jobFabrics)
    {
        const RunConfig* keys = &c;
        for (size_t i = 0; i < c.jobs.size() && name != c.fabric.name; ++i)
        {
            if (c.jobs[i].run.fabric.name == name)
            {
                keys = &c.jobs[i].run;
                break;
            }
        }
        networks[name] = FabricNamed(name).install(*keys, topo, latency, nics);
        network = network ? network : networks[name];
    }
    // In the partition order (--ranks, or simulation.event_order "partition" in one process) a
    // collective's transport runs split: each GPU's sends on its node's rank, what one rank
    // learns reaching the others a message delay later, so that one process and N give the
    // same run (CollectiveTransport::SetPartitioned).
    // A training model or trace runs split too (ParallelTrainingJob), and with several jobs
    // each job's transport.
    bool splits = FabricPartitionScheduler::IsActive() && !c.IsFlowWorkload();
    for (const auto& [name, n] : networks)
    {
        splits = splits && n->CanPartition();
    }
    if (splits)
    {
        const Time delay = RankMessageDelay(*topo);
        for (const auto& [name, n] : networks)
        {
            n->SetPartitioned(delay);
        }
    }
    Simulation sim;
    sim.topo = topo;
    sim.faults = faults;
    AddPfcHealth(c, sim);
    sim.nics = nics;
    sim.network = network;
    sim.networks = networks;
    sim.latency = latency;
    // Messages over the fabric, GPU memory to GPU memory (NVLink's stay inside a server).
    sim.messageLatency = Create<LatencyHistogram>();
    auto toHistogram = MakeBoundCallback(
        +[](LatencyHistogram* h, uint32_t, uint32_t, uint64_t, Time oneWay) {
            h->Add(oneWay.GetTimeStep());
        },
        PeekPointer(sim.messageLatency));
    for (const auto& n : sim.Transports())
    {
        n->TraceConnectWithoutContext("MessageLatency", toHistogram);
    }
    if (c.workload.kind == WorkloadKind::FLOWS || c.workload.background)
    {
        sim.flows = BuildFlows(
            c.workload.kind == WorkloadKind::FLOWS ? c.workload.flows : *c.workload.background,
            c.workload.kind == WorkloadKind::FLOWS ? ScenarioMs(c.workload.flows.durationMs)
                                                   : Seconds(c.limits.maxSimSeconds),
            topo);
        sim.flowQueue = Create<LatencyHistogram>();
        WatchSwitchQueues(topo, sim.flowQueue);
    }
    if (c.workload.matrix)
    {
        // The matrix's flows only: no Poisson arrivals (no distribution, rate 0).
        sim.flows = CreateObject<FlowWorkload>();
        sim.flows->Install(topo);
        for (const MatrixConnection& m : c.workload.matrix->GetConnections())
        {
            sim.flows->AddScheduledFlow(m.start, m.src, m.dst, m.bytes);
        }
        sim.flowQueue = Create<LatencyHistogram>();
        WatchSwitchQueues(topo, sim.flowQueue);
    }
    if (c.IsFlowWorkload())
    {
        sim.flows->TraceConnectWithoutContext("Drained", MakeCallback(&StopNow));
        return sim;
    }
    Ptr<NvlinkTransport> nvlink;
    if (c.topology.gpusPerServer > 1)
    {
        nvlink = CreateObject<NvlinkTransport>();
        nvlink->SetRanks(topo->GetNHosts());
    }
    sim.nvlink = nvlink;
    if (!c.jobs.empty())
    {
        AddJobs(c, include, sim);
        return sim;
    }
    std::vector<uint32_t> ranks(topo->GetNHosts());
    for (uint32_t r = 0; r < ranks.size(); ++r)
    {
        ranks[r] = r;
    }
    if (c.RunsGraph())
    {
        sim.parallel = MakeParallelJob(c, topo->GetHosts(), ranks, network, nvlink);
        sim.timeline = TimelineRecorder::Attach(
            sim.parallel,
            c.workload.kind == WorkloadKind::TRAINING ? &c.workload.parallelism : nullptr);
    }
    else
    {
        sim.job = MakeCollectiveJob(c, topo, ranks, network, nvlink, false);
    }
    // One job on every host: its last step or a failed connection stops the run.
    auto left = std::make_shared<JobsLeft>();
    left->owner.assign(topo->GetNHosts(), 0);
    WatchSteps(sim.parallel ? Ptr<Object>(sim.parallel) : Ptr<Object>(sim.job),
               left,
               0,
               c.workload.steps);
    WatchConnections(sim, left);
    return sim;
}

} // namespace aifabric

// SPDX-License-Identifier: GPL-2.0-only
#include "runner.h"

#include "figures.h"
#include "file-util.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <unistd.h>

namespace aifabric
{

using nlohmann::json;
using namespace ns3;

namespace
{

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

std::string
Num(double v, int precision = 6)
{
    std::ostringstream os;
    os << std::setprecision(precision) << v;
    return os.str();
}

/// Attribute values of an object, as strings.
json
DumpAttributes(Ptr<Object> o)
{
    json j = json::object();
    if (!o)
    {
        return j;
    }
    TypeId tid = o->GetInstanceTypeId();
    for (TypeId t = tid;; t = t.GetParent())
    {
        for (uint32_t i = 0; i < t.GetAttributeN(); ++i)
        {
            TypeId::AttributeInformation info = t.GetAttribute(i);
            if (!(info.flags & TypeId::ATTR_GET) || !info.accessor->HasGetter())
            {
                continue;
            }
            Ptr<AttributeValue> v = info.checker->Create();
            if (o->GetAttributeFailSafe(info.name, *v))
            {
                j[t.GetName() + "::" + info.name] = v->SerializeToString(info.checker);
            }
        }
        if (t == t.GetParent() || t.GetParent() == Object::GetTypeId() ||
            t.GetParent() == ObjectBase::GetTypeId())
        {
            break;
        }
    }
    return j;
}

struct Sampler
{
    Ptr<FabricTopology> topo;
    Ptr<RdmaNic> rank0;
    std::ostringstream queue;
    std::ostringstream rate;
    uint64_t lastPfc{0};
    Time period{MicroSeconds(100)};
    // progress
    bool progress{false};
    size_t index{0};
    size_t total{1};
    std::string name;
    Ptr<TrainingJob> job;
    uint32_t steps{1};
    std::chrono::steady_clock::time_point wall0;
    std::chrono::steady_clock::time_point lastPrint;
    uint64_t lastEvents{0};

    void Sample()
    {
        uint32_t maxQ = 0;
        uint64_t sumQ = 0;
        uint64_t pfc = 0;
        for (uint32_t j = 0; j < topo->GetNSwitches(); ++j)
        {
            Ptr<FabricSwitch> sw = topo->GetSwitch(j);
            for (uint16_t p = 0; p < sw->GetNPorts(); ++p)
            {
                Ptr<FabricNetDevice> d = sw->GetPort(p);
                uint32_t q = 0;
                for (uint8_t prio = 0; prio < 8; ++prio)
                {
                    q += d->GetQueueBytes(prio);
                }
                maxQ = std::max(maxQ, q);
                sumQ += q;
                pfc += d->GetCounters().pfcFramesTx;
            }
        }
        const double t = Simulator::Now().GetNanoSeconds() / 1000.0;
        queue << Num(t, 10) << "," << maxQ << "," << sumQ << "," << (pfc - lastPfc) << "\n";
        lastPfc = pfc;
        if (rank0)
        {
            for (uint32_t q = 1; q <= rank0->GetNQueuePairs(); ++q)
            {
                Ptr<RdmaQueuePair> qp = rank0->GetQueuePair(q);
                if (qp->GetStats().dataPackets > 0)
                {
                    rate << Num(t, 10) << "," << q << "," << Num(qp->GetRate().GetBitRate() / 1e9)
                         << "\n";
                }
            }
        }
        if (progress)
        {
            auto now = std::chrono::steady_clock::now();
            const double since = std::chrono::duration<double>(now - lastPrint).count();
            if (since >= 0.5)
            {
                const double wall = std::chrono::duration<double>(now - wall0).count();
                const uint64_t ev = Simulator::GetEventCount();
                const size_t done = job->GetSteps().empty() ? 0 : job->GetSteps().size() - 1;
                std::string eta = "?";
                if (done > 0)
                {
                    eta = Num(wall / double(done) * double(steps - done), 3) + " s";
                }
                std::fprintf(
                    stderr,
                    "\r[%zu/%zu %s] sim %.3f ms | step %zu/%u | %.2f M events/s | ETA %s   ",
                    index + 1,
                    total,
                    name.c_str(),
                    Simulator::Now().GetSeconds() * 1e3,
                    done + 1,
                    steps,
                    double(ev - lastEvents) / since / 1e6,
                    eta.c_str());
                lastEvents = ev;
                lastPrint = now;
            }
        }
        Simulator::Schedule(period, &Sampler::Sample, this);
    }
};

void
StopWhenDone(uint32_t steps, const TrainingStepRecord& r)
{
    if (r.step + 1 >= steps)
    {
        Simulator::Stop();
    }
}

} // namespace

RunOutput
ExecuteRun(const RunConfig& c, bool progress, size_t index, size_t total)
{
    RunOutput out;
    out.config = c;
    Config::Reset();
    for (const auto& a : c.attributes)
    {
        if (!Config::SetDefaultFailSafe(a.first, StringValue(a.second)))
        {
            throw ScenarioError("attributes." + a.first + ": invalid value '" + a.second + "'");
        }
    }
    RngSeedManager::SetSeed(c.seed);
    RngSeedManager::SetRun(1);
    ObjectFactory sched;
    sched.SetTypeId("ns3::TimingWheelScheduler");
    Simulator::SetScheduler(sched);

    // --- topology
    Ptr<FabricTopologyHelper> helper;
    if (c.topologyKind == "rail-fat-tree")
    {
        helper = CreateObject<RailOptimizedFatTreeHelper>();
        helper->SetAttribute("LeafRadix", UintegerValue(c.leafRadix));
        helper->SetAttribute("Oversubscription", DoubleValue(c.oversubscription));
    }
    else if (c.topologyKind == "fat-tree")
    {
        helper = CreateObject<FatTreeHelper>();
        helper->SetAttribute("LeafRadix", UintegerValue(c.leafRadix));
        helper->SetAttribute("Oversubscription", DoubleValue(c.oversubscription));
    }
    else
    {
        helper = CreateObject<StarTopologyHelper>();
    }
    const bool ib = c.fabric == "infiniband";
    if (ib)
    {
        // First: switches the link helper to IB ports with credit flow control.
        helper->SetAttribute("LinkLayer", EnumValue(FabricNetDevice::INFINIBAND));
        helper->GetLinkHelper().SetFlowControlAttribute(
            "RxBufferBytes",
            UintegerValue(uint32_t(c.ibRxBufferKib * 1024)));
        helper->GetLinkHelper().SetFlowControlAttribute(
            "FecnThreshold",
            UintegerValue(uint32_t(c.ibFecnThresholdKib * 1024)));
    }
    helper->SetAttribute("Servers", UintegerValue(c.servers));
    helper->SetAttribute("GpusPerServer", UintegerValue(c.gpusPerServer));
    helper->SetAttribute("LinkRate", DataRateValue(DataRate(uint64_t(c.linkGbps * 1e9))));
    helper->SetAttribute("HostCableLength", DoubleValue(c.hostCableM));
    helper->SetAttribute("FabricCableLength", DoubleValue(c.fabricCableM));
    if (!c.pfc && !ib)
    {
        helper->GetLinkHelper().SetFlowControlAttribute("EnabledPriorities", UintegerValue(0));
    }
    const bool tcp = c.fabric == "tcp";
    if (tcp && c.pfc)
    {
        // Lossless TCP: PFC on TCP's class (priority 0, DSCP 0) as well as RoCE's.
        helper->GetLinkHelper().SetFlowControlAttribute("EnabledPriorities", UintegerValue(0x09));
    }
    Ptr<FabricTopology> topo = helper->Build();
    topo->AssignStreams(1000);
    for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
    {
        topo->GetHostDevice(h)->SetAttribute("ReceiveErrorRate", DoubleValue(c.dropRate));
    }

    Ptr<LatencyHistogram> latency = Create<LatencyHistogram>();
    std::vector<Ptr<RdmaNic>> nics;
    Ptr<CollectiveTransport> network;
    if (tcp)
    {
        // --- kernel TCP (ns-3's TCP) on every host's NIC
        FabricInternetHelper::Install(topo);
        if (c.tcpHostCosts)
        {
            for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
            {
                Ptr<HostStackCostModel> m = CreateObject<HostStackCostModel>();
                m->SetAttribute("Cores", UintegerValue(c.tcpCores));
                topo->GetHostNode(h)->AggregateObject(m);
                m->Attach(topo->GetHostDevice(h));
            }
        }
        Ptr<TcpCollectiveTransport> t = CreateObject<TcpCollectiveTransport>();
        t->SetRanks(topo->GetHosts());
        network = t;
        for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
        {
            topo->GetHostDevice(h)->TraceConnectWithoutContext(
                "MacRx",
                MakeBoundCallback(
                    +[](Ptr<LatencyHistogram> hist, const FabricFrame& f) {
                        if (f.protocol == 6 && f.payloadBytes > 0)
                        {
                            hist->Add(Simulator::Now().GetTimeStep() - f.txTimeStep);
                        }
                    },
                    latency));
        }
    }
    else
    {
        // --- RoCEv2, or InfiniBand host channel adapters (the same engine on IB ports)
        RdmaHelper rdma;
        if (c.congestionControl == "none")
        {
            rdma.SetCongestionControl("ns3::RdmaNoCc");
        }
        else if (c.congestionControl == "ib-cc")
        {
            rdma.SetCongestionControl("ns3::IbCongestionControl");
        }
        else if (c.congestionControl == "dcqcn-nvidia")
        {
            rdma.SetCongestionControlAttribute("Preset", StringValue("nvidia"));
            rdma.SetNicAttribute("CnpInterval", TimeValue(MicroSeconds(4)));
        }
        rdma.SetLossRecovery(c.lossRecovery == "selective-repeat" ? "ns3::RdmaSelectiveRepeat"
                                                                  : "ns3::RdmaGoBackN");
        rdma.SetNicAttribute("RetransmitTimeout",
                             TimeValue(NanoSeconds(int64_t(c.retransmitTimeoutMs * 1e6))));
        rdma.SetNicAttribute("PathMtu", UintegerValue(c.pathMtu));
        nics = rdma.Install(topo);
        for (auto& n : nics)
        {
            n->SetLatencyHistogram(latency);
        }
        Ptr<RdmaCollectiveTransport> r = CreateObject<RdmaCollectiveTransport>();
        r->SetRanks(topo->GetHosts());
        network = r;
    }
    Ptr<NvlinkTransport> nvlink;
    if (c.gpusPerServer > 1)
    {
        nvlink = CreateObject<NvlinkTransport>();
        nvlink->SetRanks(topo->GetNHosts());
    }
    // --- GPUs and the job
    for (uint32_t r = 0; r < topo->GetNHosts(); ++r)
    {
        Ptr<GpuTrainingApp> app = CreateObject<GpuTrainingApp>();
        app->SetAttribute("ComputeTime", TimeValue(NanoSeconds(int64_t(c.computeMs * 1e6))));
        app->AssignStreams(100000 + r);
        topo->GetHostNode(r)->AddApplication(app);
    }
    Ptr<TrainingJob> job = CreateObject<TrainingJob>();
    job->SetAttribute("Steps", UintegerValue(c.steps));
    job->SetAttribute("Collective", StringValue(c.collective));
    const std::string alg = c.algorithm == "tree"               ? "ns3::DoubleBinaryTreeCollective"
                            : c.algorithm == "halving-doubling" ? "ns3::HalvingDoublingCollective"
                            : c.algorithm == "hierarchical"     ? "ns3::HierarchicalCollective"
                                                                : "ns3::RingCollective";
    job->SetAttribute("Algorithm", TypeIdValue(TypeId::LookupByName(alg)));
    job->SetAttribute("Bytes", UintegerValue(c.bytes));
    job->SetAttribute("Chunks", UintegerValue(c.chunks));
    job->SetAttribute("Buckets", UintegerValue(c.buckets));
    job->SetAttribute("Channels", UintegerValue(c.channels));
    job->Setup(topo->GetHosts(), c.gpusPerServer, network, nvlink);
    job->TraceConnectWithoutContext("StepDone", MakeBoundCallback(&StopWhenDone, c.steps));

    Sampler sampler;
    sampler.topo = topo;
    sampler.rank0 = nics.empty() ? nullptr : nics[0];
    sampler.progress = progress;
    sampler.index = index;
    sampler.total = total;
    sampler.name = c.name;
    sampler.job = job;
    sampler.steps = c.steps;
    sampler.queue << "time_us,max_port_queue_bytes,total_queue_bytes,pfc_frames_in_interval\n";
    sampler.rate << "time_us,qpn,rate_gbps\n";
    Simulator::ScheduleNow(&Sampler::Sample, &sampler);
    Simulator::ScheduleNow(&TrainingJob::Start, job);
    Simulator::Stop(Seconds(c.maxSimSeconds));

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

    // --- summary
    const auto& recs = job->GetSteps();
    std::vector<TrainingStepRecord> done;
    for (const auto& r : recs)
    {
        if (!r.collectiveEnd.empty())
        {
            done.push_back(r);
        }
    }
    std::vector<double> stepMs;
    std::vector<double> collMs;
    for (const auto& r : done)
    {
        stepMs.push_back(r.StepTime().GetSeconds() * 1e3);
        collMs.push_back(r.CollectiveTime().GetSeconds() * 1e3);
    }
    const double meanStep = stepMs.empty() ? 0 : Stats(stepMs)["mean"].get<double>();
    const double meanColl = collMs.empty() ? 0 : Stats(collMs)["mean"].get<double>();
    const double computeMs = job->GetMeanComputeTime().GetSeconds() * 1e3;
    const double busyFraction = meanStep > 0 ? std::min(1.0, computeMs / meanStep) : 0;
    const CollectiveSpec spec = job->GetSpec();
    const double algbw = meanColl > 0 ? double(c.bytes) / (meanColl * 1e-3) / 1e9 : 0;

    uint64_t dataPackets = 0;
    uint64_t cnps = 0;
    uint64_t qpErrors = 0;
    const uint64_t retx = network->GetRetransmissions();
    const uint64_t timeouts = network->GetTimeouts();
    for (auto& n : nics)
    {
        dataPackets += n->GetCounters().dataPacketsSent;
        cnps += n->GetCounters().cnpsSent;
        qpErrors += n->GetCounters().qpErrors;
    }
    if (tcp)
    {
        for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
        {
            dataPackets += topo->GetHostDevice(h)->GetCounters().txDataFrames;
        }
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
    double creditStallUs = 0;
    for (const auto& l : topo->GetLinks())
    {
        for (Ptr<FabricNetDevice> d : {l.devA, l.devB})
        {
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
                    creditStallUs += ibfc->GetStallTime(vl).GetSeconds() * 1e6;
                }
            }
        }
    }
    const double stepTimeP = Simulator::Now().GetSeconds();
    json s;
    s["name"] = c.name;
    s["fabric"] = c.fabric;
    s["gpus"] = c.Gpus();
    s["drop_rate"] = c.dropRate;
    s["steps"] = c.steps;
    s["steps_completed"] = done.size();
    s["completed"] = done.size() == c.steps;
    s["compute_ms"] = computeMs;
    s["collective"] = c.collective;
    s["algorithm"] = c.algorithm;
    s["bytes"] = c.bytes;
    s["pfc"] = c.pfc;
    s["congestion_control"] = c.congestionControl;
    s["loss_recovery"] = c.lossRecovery;
    s["step_ms"] = Stats(stepMs);
    s["collective_ms"] = Stats(collMs);
    s["mfu_effective"] = busyFraction * job->GetMfuInsideCompute();
    s["idle_cost_usd_per_hr"] = double(c.Gpus()) * c.gpuHourUsd * (1.0 - busyFraction);
    s["network_latency_us"] = json{{"p50", latency->Quantile(0.5) / 1000.0},
                                   {"p99", latency->Quantile(0.99) / 1000.0},
                                   {"max", double(latency->GetMax()) / 1000.0}};
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
                         {"qp_errors", qpErrors}};
    // Same keys in every run: RDMA runs report zero TCP messages.
    s["tcp_message_breakdown_us"] = json{{"messages", 0},
                                         {"gpu_to_host", 0.0},
                                         {"send_cpu", 0.0},
                                         {"network", 0.0},
                                         {"recv_cpu", 0.0},
                                         {"host_to_gpu", 0.0}};
    if (Ptr<TcpCollectiveTransport> t = DynamicCast<TcpCollectiveTransport>(network))
    {
        const HostStackBreakdown& b = t->GetBreakdownTotals();
        const double n = std::max<double>(1.0, double(t->GetMessagesArrived()));
        s["tcp_message_breakdown_us"] = json{{"messages", t->GetMessagesArrived()},
                                             {"gpu_to_host", b.pcieTx.GetSeconds() * 1e6 / n},
                                             {"send_cpu", b.cpuTx.GetSeconds() * 1e6 / n},
                                             {"network", b.network.GetSeconds() * 1e6 / n},
                                             {"recv_cpu", b.cpuRx.GetSeconds() * 1e6 / n},
                                             {"host_to_gpu", b.pcieRx.GetSeconds() * 1e6 / n}};
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
    s["sim"] = json{{"events", events},
                    {"wall_s", wall},
                    {"sim_time_s", stepTimeP},
                    {"peak_rss_mb", PeakRssMb()}};
    out.summary = s;

    // --- traces
    std::ostringstream steps;
    steps << "step,rank,start_ms,compute_end_ms,collective_end_ms,barrier_ms,last\n";
    std::ostringstream stepSum;
    stepSum << "step,start_ms,step_ms,collective_ms,last_rank,waited_on,cause,retransmissions,"
               "timeouts\n";
    for (const auto& r : done)
    {
        for (uint32_t k = 0; k < r.computeEnd.size(); ++k)
        {
            steps << r.step << "," << k << "," << Num(r.start.GetSeconds() * 1e3, 12) << ","
                  << Num(r.computeEnd[k].GetSeconds() * 1e3, 12) << ","
                  << Num(r.collectiveEnd[k].GetSeconds() * 1e3, 12) << ","
                  << Num(r.barrier.GetSeconds() * 1e3, 12) << "," << (k == r.lastRank ? 1 : 0)
                  << "\n";
        }
        stepSum << r.step << "," << Num(r.start.GetSeconds() * 1e3, 12) << ","
                << Num(r.StepTime().GetSeconds() * 1e3, 12) << ","
                << Num(r.CollectiveTime().GetSeconds() * 1e3, 12) << "," << r.lastRank << ","
                << r.waitedOn << "," << r.cause << "," << r.retransmissions << "," << r.timeouts
                << "\n";
    }
    out.stepsCsv = steps.str();
    out.stepsSummaryCsv = stepSum.str();
    std::ostringstream lat;
    lat << "quantile,latency_us\n";
    if (latency->GetCount() > 0)
    {
        for (int i = 0; i <= 1000; ++i)
        {
            const double q = i / 1000.0;
            lat << Num(q) << "," << Num(latency->Quantile(q) / 1000.0) << "\n";
        }
    }
    out.latencyCsv = lat.str();
    out.queueCsv = sampler.queue.str();
    out.rateCsv = sampler.rate.str();
    json attrs;
    attrs["FabricNetDevice(host 0)"] = DumpAttributes(topo->GetHostDevice(0));
    {
        Ptr<FabricFlowControl> fc = topo->GetHostDevice(0)->GetFlowControl();
        attrs[fc->GetInstanceTypeId().GetName().substr(5) + "(host 0)"] = DumpAttributes(fc);
    }
    if (topo->GetNSwitches() > 0)
    {
        attrs["FabricSwitch(0)"] = DumpAttributes(topo->GetSwitch(0));
        attrs["SwitchBufferManager(0)"] = DumpAttributes(topo->GetSwitch(0)->GetBufferManager());
        attrs["FabricChannel(host 0)"] = DumpAttributes(topo->GetHostDevice(0)->GetChannel());
    }
    if (!nics.empty())
    {
        attrs["RdmaNic(host 0)"] = DumpAttributes(nics[0]);
        if (nics[0]->GetNQueuePairs() > 0)
        {
            attrs["RdmaCongestionOps(host 0, qp 1)"] =
                DumpAttributes(nics[0]->GetQueuePair(1)->GetCongestionOps());
        }
    }
    attrs["CollectiveTransport"] = DumpAttributes(network);
    if (topo->GetHostNode(0)->GetObject<HostStackCostModel>())
    {
        attrs["HostStackCostModel(host 0)"] =
            DumpAttributes(topo->GetHostNode(0)->GetObject<HostStackCostModel>());
    }
    if (nvlink)
    {
        attrs["NvlinkTransport"] = DumpAttributes(nvlink);
    }
    attrs["GpuTrainingApp(rank 0)"] = DumpAttributes(topo->GetHostNode(0)->GetApplication(0));
    attrs["TrainingJob"] = DumpAttributes(job);
    out.attributes = attrs;
    Simulator::Destroy();
    return out;
}

namespace
{

/// A run's subdirectory (and its label in compare.csv).
std::string
SafeName(const std::string& s)
{
    const std::string r = SafeFileName(s);
    return r.empty() ? "run" : r;
}

} // namespace

std::string
Dashboard(const std::vector<RunOutput>& runs)
{
    std::ostringstream os;
    const int w = 26;
    auto row = [&](const std::string& label, auto fn) {
        os << std::left << std::setw(28) << label;
        for (const auto& r : runs)
        {
            os << std::left << std::setw(w) << fn(r.summary);
        }
        os << "\n";
    };
    os << "\n  CLUSTER SYNC & TAIL LATENCY — " << runs.front().config.Gpus() << " GPUs, "
       << runs.front().config.topologyKind << ", " << runs.front().config.linkGbps
       << " Gb/s per GPU, " << runs.front().config.collective << " of "
       << Num(runs.front().config.bytes / 1048576.0) << " MiB (" << runs.front().config.algorithm
       << "), " << runs.front().config.computeMs << " ms compute/step\n\n";
    row("", [](const json& s) { return s["name"].get<std::string>().substr(0, 24); });
    row("Effective MFU",
        [](const json& s) { return Num(s["mfu_effective"].get<double>() * 100, 3) + " %"; });
    row("AllReduce duration (mean)",
        [](const json& s) { return Num(s["collective_ms"]["mean"].get<double>(), 4) + " ms"; });
    row("Step time (mean / max)", [](const json& s) {
        return Num(s["step_ms"]["mean"].get<double>(), 4) + " / " +
               Num(s["step_ms"]["max"].get<double>(), 4) + " ms";
    });
    row("Idle cost", [](const json& s) {
        return "$" + Num(s["idle_cost_usd_per_hr"].get<double>(), 5) + "/hr";
    });
    row("p99 network latency",
        [](const json& s) { return Num(s["network_latency_us"]["p99"].get<double>(), 4) + " us"; });
    row("busbw",
        [](const json& s) { return Num(s["busbw_gbytes_per_s"].get<double>(), 4) + " GB/s"; });
    row("retransmits / timeouts", [](const json& s) {
        return std::to_string(s["counters"]["retransmitted_packets"].get<uint64_t>()) + " / " +
               std::to_string(s["counters"]["timeouts"].get<uint64_t>());
    });
    row("slowest step waited on", [](const json& s) {
        std::string best = "-";
        double worst = -1;
        for (const auto& b : s["barrier"])
        {
            if (b["step_ms"].get<double>() > worst)
            {
                worst = b["step_ms"].get<double>();
                best = "rank " + std::to_string(b["waited_on"].get<uint32_t>()) + " (" +
                       b["cause"].get<std::string>() + ")";
            }
        }
        return best;
    });
    row("simulation", [](const json& s) {
        return Num(s["sim"]["wall_s"].get<double>(), 3) + " s, " +
               Num(s["sim"]["events"].get<uint64_t>() / 1e6, 3) + " M ev";
    });
    return os.str();
}

void
WriteResults(ResultsDirectory& dir,
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
    for (const auto& r : runs)
    {
        summary["runs"].push_back(r.summary);
        json rc = r.config.resolved;
        rc["ns3_attributes"] = r.attributes;
        config["runs"].push_back(rc);
        const fs::path d = tmp / SafeName(r.config.name);
        fs::create_directories(d);
        WriteAtomically(d / "steps.csv", r.stepsCsv);
        WriteAtomically(d / "steps_summary.csv", r.stepsSummaryCsv);
        WriteAtomically(d / "latency_cdf.csv", r.latencyCsv);
        WriteAtomically(d / "queue.csv", r.queueCsv);
        WriteAtomically(d / "rate.csv", r.rateCsv);
        const std::string& name = r.config.name;
        std::ostringstream gp;
        gp << "set terminal pngcairo noenhanced size 1000,600\nset datafile separator ','\n"
           << "set output 'timeline.png'\nset title "
           << GnuplotString(
                  name +
                  ": per-rank step timeline (green: compute, red: waiting for the collective)")
           << "\nset xlabel 'time (ms)'\nset ylabel 'rank'\nset yrange [-1:" << r.config.Gpus()
           << "]\nunset key\n"
           << "plot 'steps.csv' every ::1 using 4:2:3:4:($2-0.4):($2+0.4) with boxxyerror fs solid "
              "0.8 lc rgb '#2e8b57', \\\n"
           << "     '' every ::1 using 5:2:4:5:($2-0.4):($2+0.4) with boxxyerror fs solid 0.8 lc "
              "rgb '#c0392b'\n"
           << "set output 'latency.png'\nset title "
           << GnuplotString(name + ": one-way latency of RDMA data packets (CDF)") << "\n"
           << "set xlabel 'latency (us)'\nset ylabel 'fraction'\nset logscale x\nset yrange "
              "[0:1]\nset key bottom right\n"
           << "plot 'latency_cdf.csv' every ::1 using 2:1 with lines lw 2 title 'CDF'\nunset "
              "logscale x\n"
           << "set output 'queue.png'\nset title "
           << GnuplotString(name + ": switch queues (sampled every 100 us)") << "\n"
           << "set xlabel 'time (ms)'\nset ylabel 'KB'\nset autoscale y\nset key top right\n"
           << "plot 'queue.csv' every ::1 using ($1/1000):($2/1024) with steps title 'largest port "
              "queue', \\\n"
           << "     '' every ::1 using ($1/1000):($3/1024) with steps title 'all switch queues'\n";
        if (std::count(r.rateCsv.begin(), r.rateCsv.end(), '\n') > 1)
        {
            gp << "set output 'rate.png'\nset title "
               << GnuplotString(name + ": rank 0 queue-pair rates (congestion control)") << "\n"
               << "set ylabel 'Gb/s'\nset yrange [0:*]\nunset key\n"
               << "plot 'rate.csv' every ::1 using ($1/1000):3 with points pt 7 ps 0.3\n";
        }
        if (!Plot(d.string(), "plots.gp", gp.str()))
        {
            std::fprintf(stderr,
                         "ai-fabric: gnuplot failed for %s (scripts kept)\n",
                         r.config.name.c_str());
        }
    }
    // Side-by-side comparison: mean step = compute + waiting on the network.
    std::ostringstream cmp;
    cmp << "run,compute_ms,collective_ms,step_ms,mfu_effective,idle_cost_usd_per_hr,p99_latency_"
           "us\n";
    for (const auto& r : runs)
    {
        const json& s = r.summary;
        const double step = s["step_ms"]["mean"].get<double>();
        cmp << SafeName(r.config.name) << "," << Num(s["compute_ms"].get<double>()) << ","
            << Num(std::max(0.0, step - s["compute_ms"].get<double>())) << "," << Num(step) << ","
            << Num(s["mfu_effective"].get<double>()) << ","
            << Num(s["idle_cost_usd_per_hr"].get<double>()) << ","
            << Num(s["network_latency_us"]["p99"].get<double>()) << "\n";
    }
    WriteAtomically(tmp / "compare.csv", cmp.str());
    std::ostringstream gp;
    gp << "set terminal pngcairo noenhanced size 1000,550\nset datafile separator ','\nset output "
          "'compare.png'\n"
       << "set title 'Mean training step: compute vs. waiting on the network'\nset style data "
          "histograms\n"
       << "set style histogram rowstacked\nset style fill solid 0.8 border -1\nset boxwidth 0.6\n"
       << "set ylabel 'ms'\nset xtics rotate by -20\nset key top left\n"
       << "plot 'compare.csv' every ::1 using 2:xtic(1) title 'compute' lc rgb '#2e8b57', '' every "
          "::1 using 3 title "
          "'waiting on the collective' lc rgb '#c0392b'\n";
    if (!Plot(tmp.string(), "compare.gp", gp.str()))
    {
        std::fprintf(stderr, "ai-fabric: gnuplot failed for compare.gp (script kept)\n");
    }
    WriteAtomically(tmp / "summary.json", summary.dump(2) + "\n");
    WriteAtomically(tmp / "config.json", config.dump(2) + "\n");
    WriteAtomically(tmp / "dashboard.txt", Dashboard(runs));
    const std::string err = dir.Commit();
    if (!err.empty())
    {
        throw std::runtime_error(err);
    }
}

} // namespace aifabric

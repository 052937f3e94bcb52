// SPDX-License-Identifier: GPL-2.0-only
//
// A FlowWorkload across MPI ranks (issue 45): the standard congestion-control workload (web
// search flow sizes, Poisson arrivals at 60% load, uniform destinations, and a 6-to-1 incast
// every 20 us) on 16 RoCEv2 hosts under 4 leaves and 4 spines, DCQCN with PFC and ECN on
// shallow switch buffers, run twice in one program: first sequentially, then on N ranks with
// ns-3's distributed simulator (--sync=granted-time-window: DistributedSimulatorImpl,
// --sync=null-message: NullMessageSimulatorImpl). Both order events by FabricPartitionScheduler.
// The topology is dealt by FatTreeHelper::SetPartition (a leaf with its hosts per group, spines
// round robin), so leaf-spine cables cross ranks.
//
// Every rank keeps the whole workload (FlowWorkload, "Across MPI ranks"): it draws every
// arrival, keeps every flow's record and every connection, and learns of a completion on
// another rank by a message (FabricRankMailbox::Broadcast). So each rank's own flow table must
// equal the sequential one — every flow's hosts, size, start, ideal and end, to the nanosecond —
// and the ranks' counters (PAUSE frames, ECN marks, data frames, drops) must add up to the
// sequential run's. With --faults both runs also lose 0.5% of the frames at both ends of every
// leaf-spine cable (RDMA's retransmission timeout 100 us). With --uet the hosts run Ultra
// Ethernet NICs instead (UetNic, NSCC, packets sprayed) over trimming switches without PFC: the
// incasts trim packets, answered by NACKs and retransmitted.
// Run: mpirun -np N ai-fabric-flow-cut-test --sync=granted-time-window|null-message [--faults]
// [--uet]
// (ctest: flow-cut-*). Exit 0 when identical, 1 when not, 2 on bad usage.

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/mpi-interface.h"
#include "ns3/network-module.h"

#include <cstdio>
#include <mpi.h>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

struct Outcome
{
    std::vector<FlowRecord> flows; //!< this rank's copy of the whole table
    uint64_t queuePairs{0};
    int64_t counters[6]{0, 0, 0, 0, 0, 0}; //!< of this rank's nodes: see kCounterNames
    int64_t controls{0};                   //!< messages of Broadcast sent to other ranks
    int64_t cutCables{0};
};

const char* const kCounterNames[6] = {"PAUSE frames",
                                      "CNPs received (UET: trim NACKs received)",
                                      "data frames",
                                      "frames lost",
                                      "queue pair errors (UET: failed PDCs)",
                                      "retransmitted packets"};

Outcome
RunOnce(uint32_t ranks, uint32_t rank, bool faults, bool uet)
{
    Config::SetDefault("ns3::RdmaNic::RetransmitTimeout", TimeValue(MicroSeconds(100)));
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("Servers", UintegerValue(16));
    ft->SetAttribute("GpusPerServer", UintegerValue(1));
    ft->SetAttribute("Tiers", UintegerValue(2));
    ft->SetAttribute("LeafRadix", UintegerValue(8));
    ft->SetAttribute("LinkRate", DataRateValue(DataRate("100Gbps")));
    // Shallow buffers (64 KiB per port): the incasts pause the spines, on other ranks.
    ft->SetBufferAttribute("BufferPerPort", UintegerValue(64 * 1024));
    // ECN at 100G as the DCQCN paper's 5-200 KB at 40G, scaled under the buffers: DCQCN reacts.
    ft->SetBufferAttribute("EcnKmin", UintegerValue(5000));
    ft->SetBufferAttribute("EcnKmax", UintegerValue(40000));
    if (uet)
    {
        // Trimming switches, no PFC (UEC's best-effort profile).
        ft->SetBufferAttribute("TrimEnabled", BooleanValue(true));
        ft->SetBufferAttribute("EcnOnDequeue", BooleanValue(true));
        ft->GetLinkHelper().SetFlowControlAttribute("EnabledPriorities", UintegerValue(0));
    }
    ft->SetPartition(ranks);
    Ptr<FabricTopology> topo = ft->Build();
    if (uet)
    {
        UetHelper nics;
        nics.SetNicAttribute("Trimming", BooleanValue(true));
        nics.Install(topo);
    }
    else
    {
        RdmaHelper rdma;
        rdma.SetCongestionControl("ns3::RdmaDcqcn");
        rdma.Install(topo);
    }
    // Fixed random streams: both runs are built in one process, one after the other.
    int64_t stream = 1000 + topo->AssignStreams(1000);

    Outcome out;
    for (const FabricLinkInfo& l : topo->GetLinks())
    {
        if (l.devA->GetNode()->GetSystemId() != l.devB->GetNode()->GetSystemId())
        {
            ++out.cutCables;
        }
    }
    Ptr<FabricFaultInjector> injector;
    if (faults)
    {
        injector = CreateObject<FabricFaultInjector>();
        injector->SetTopology(topo);
        FabricFaultEvent loss;
        loss.action = FabricFaultEvent::LOSS;
        loss.rate = 0.005;
        for (uint32_t k = 0; k < topo->GetLinks().size(); ++k)
        {
            const FabricLinkInfo& l = topo->GetLinks()[k];
            if (l.a >= topo->GetNHosts() && l.b >= topo->GetNHosts())
            {
                loss.links.push_back(k);
            }
        }
        injector->AddEvent(loss);
    }
    Ptr<FlowWorkload> w = CreateObject<FlowWorkload>();
    w->SetDistribution(FlowSizeDistribution::Named("fb-hadoop"));
    w->SetAttribute("Load", DoubleValue(0.6));
    w->SetAttribute("Duration", TimeValue(MicroSeconds(300)));
    w->SetAttribute("IncastFanin", UintegerValue(6));
    w->SetAttribute("IncastBytes", UintegerValue(64 * 1024));
    w->SetAttribute("IncastPeriod", TimeValue(MicroSeconds(20)));
    w->Install(topo);
    w->AssignStreams(stream);
    w->TraceConnectWithoutContext("Drained", MakeCallback(+[]() { Simulator::Stop(); }));
    Simulator::ScheduleNow(&FlowWorkload::Start, w);
    Simulator::Stop(MilliSeconds(20));
    Simulator::Run();

    out.flows = w->GetFlows();
    out.queuePairs = w->GetNQueuePairs();
    NodeContainer nodes(topo->GetEndpoints(), topo->GetSwitches());
    for (uint32_t v = 0; v < nodes.GetN(); ++v)
    {
        Ptr<Node> node = nodes.Get(v);
        if (node->GetSystemId() != rank)
        {
            continue;
        }
        for (uint32_t i = 0; i < node->GetNDevices(); ++i)
        {
            Ptr<FabricNetDevice> d = DynamicCast<FabricNetDevice>(node->GetDevice(i));
            if (!d)
            {
                continue;
            }
            const FabricDeviceCounters& c = d->GetCounters();
            out.counters[0] += static_cast<int64_t>(c.pfcFramesTx);
            out.counters[2] += static_cast<int64_t>(c.txDataFrames);
            out.counters[3] +=
                static_cast<int64_t>(c.drops[static_cast<size_t>(FabricDropReason::CORRUPT)]);
        }
        if (Ptr<RdmaNic> nic = node->GetObject<RdmaNic>())
        {
            out.counters[1] += static_cast<int64_t>(nic->GetCounters().cnpsReceived);
            out.counters[4] += static_cast<int64_t>(nic->GetCounters().qpErrors);
            out.counters[5] += static_cast<int64_t>(nic->GetCounters().retransmittedPackets);
        }
        if (Ptr<UetNic> nic = node->GetObject<UetNic>())
        {
            out.counters[1] += static_cast<int64_t>(nic->GetCounters().trimNacks);
            out.counters[4] += static_cast<int64_t>(nic->GetCounters().failedPdcs);
            out.counters[5] += static_cast<int64_t>(nic->GetCounters().retransmissions);
        }
    }
    out.controls = static_cast<int64_t>(FabricRankMailbox::GetControlMessagesSent());
    Simulator::Destroy();
    return out;
}

/// The first field in which two records differ, or "" when none does.
std::string
Differs(const FlowRecord& a, const FlowRecord& b)
{
    if (a.src != b.src || a.dst != b.dst || a.bytes != b.bytes || a.incast != b.incast)
    {
        return "hosts, size or kind";
    }
    if (a.start != b.start)
    {
        return "start";
    }
    if (a.ideal != b.ideal)
    {
        return "ideal FCT";
    }
    if (a.completed != b.completed || a.failed != b.failed)
    {
        return "outcome";
    }
    if (a.end != b.end)
    {
        return "end";
    }
    if (a.connection != b.connection)
    {
        return "connection";
    }
    return "";
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string sync;
    bool faults = false;
    bool uet = false;
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        if (a.rfind("--sync=", 0) == 0)
        {
            sync = a.substr(7);
        }
        faults = faults || a == "--faults";
        uet = uet || a == "--uet";
    }
    if (sync != "granted-time-window" && sync != "null-message")
    {
        std::fprintf(stderr, "flow-cut-test: --sync must be granted-time-window or null-message\n");
        return 2;
    }
    FabricPartitionScheduler::Select();
    const Outcome seq = RunOnce(1, 0, faults, uet);

    GlobalValue::Bind("SimulatorImplementationType",
                      StringValue(sync == "null-message" ? "ns3::NullMessageSimulatorImpl"
                                                         : "ns3::DistributedSimulatorImpl"));
    MpiInterface::Enable(&argc, &argv);
    FabricPartitionScheduler::Select();
    const uint32_t rank = MpiInterface::GetSystemId();
    const uint32_t ranks = MpiInterface::GetSize();
    const Outcome dist = RunOnce(ranks, rank, faults, uet);

    // Each rank's own table against the sequential one.
    int failures = 0;
    std::string first;
    if (dist.flows.size() != seq.flows.size() || dist.queuePairs != seq.queuePairs)
    {
        ++failures;
        first = "rank " + std::to_string(rank) + ": " + std::to_string(dist.flows.size()) +
                " flows and " + std::to_string(dist.queuePairs) + " queue pairs, sequential " +
                std::to_string(seq.flows.size()) + " and " + std::to_string(seq.queuePairs);
    }
    for (size_t i = 0; failures == 0 && i < seq.flows.size(); ++i)
    {
        const std::string what = Differs(seq.flows[i], dist.flows[i]);
        if (!what.empty())
        {
            ++failures;
            first = "rank " + std::to_string(rank) + ", flow " + std::to_string(i) + ": " + what +
                    " differs (end " + std::to_string(dist.flows[i].end.GetNanoSeconds()) +
                    " ns, sequential " + std::to_string(seq.flows[i].end.GetNanoSeconds()) + " ns)";
        }
    }
    if (!first.empty())
    {
        std::fprintf(stderr, "%s\n", first.c_str());
    }
    int64_t total[7] = {0, 0, 0, 0, 0, 0, 0};
    int64_t mine[7] = {dist.counters[0],
                       dist.counters[1],
                       dist.counters[2],
                       dist.counters[3],
                       dist.counters[4],
                       dist.counters[5],
                       dist.controls};
    MPI_Reduce(mine, total, 7, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    int failed = 0;
    MPI_Reduce(&failures, &failed, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
    {
        uint64_t completed = 0;
        uint64_t incast = 0;
        int64_t fctSum = 0;
        for (const FlowRecord& r : seq.flows)
        {
            completed += r.completed ? 1 : 0;
            incast += r.incast ? 1 : 0;
            fctSum += r.completed ? (r.end - r.start).GetNanoSeconds() : 0;
        }
        std::printf("%u ranks, %s%s%s: %lld cables cross ranks; %zu flows (%llu of an incast), "
                    "%llu completed, FCT sum %lld ns; each rank's table %s\n",
                    ranks,
                    sync.c_str(),
                    uet ? ", Ultra Ethernet" : ", RoCEv2",
                    faults ? ", faults" : "",
                    static_cast<long long>(dist.cutCables),
                    seq.flows.size(),
                    static_cast<unsigned long long>(incast),
                    static_cast<unsigned long long>(completed),
                    static_cast<long long>(fctSum),
                    failed == 0 ? "identical to the sequential one" : "DIFFERS");
        // The run must be one worth comparing: many flows, all ended, the incasts paused the
        // spines and DCQCN reacted (UET: trimmed packets were NACKed), and (faults) frames were
        // lost.
        failed += seq.flows.size() >= 100 &&
                          completed + static_cast<uint64_t>(seq.counters[4]) == seq.flows.size()
                      ? 0
                      : 1;
        failed += (uet || seq.counters[0] > 0) && seq.counters[1] > 0 ? 0 : 1;
        failed += !faults || seq.counters[3] > 0 ? 0 : 1;
        for (int k = 0; k < 6; ++k)
        {
            const bool same = total[k] == seq.counters[k];
            failed += same ? 0 : 1;
            std::printf("%s %lld sequential, %lld on %u ranks%s\n",
                        kCounterNames[k],
                        static_cast<long long>(seq.counters[k]),
                        static_cast<long long>(total[k]),
                        ranks,
                        same ? "" : "  DIFFERS");
        }
        // Completions crossed ranks as messages (none on one rank).
        const bool messages = ranks == 1 ? total[6] == 0 : total[6] > 0;
        failed += messages ? 0 : 1;
        std::printf("completions sent to other ranks %lld\n", static_cast<long long>(total[6]));
        std::printf("%s\n", failed == 0 ? "identical" : "NOT identical");
    }
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MpiInterface::Disable();
    return failed == 0 ? 0 : 1;
}

// SPDX-License-Identifier: GPL-2.0-only
//
// The cost of one packet-level simulation split across MPI ranks (issue 45): an RDMA permutation
// on a two-tier leaf-spine fabric (host i sends --bytes to host i + hosts/2, across the spines),
// its leaves dealt to ranks in contiguous blocks with their hosts and its spines round robin, so
// only leaf-spine cables cross ranks. Prints, on rank 0, the events run, the wall time of
// Simulator::Run (the slowest rank's), the CPU time of all ranks, the largest rank's peak
// resident memory, and the flows' completion times (sum and largest), which must be the same
// for every rank count under the same event order.
//
//   fabric-mpi-bench --core=fabric|ns3 [--order=ns3|partition]                 (sequential)
//   mpirun -np N fabric-mpi-bench --core=granted-time-window|null-message      (partition)
//
// Options: --hosts (128), --radix (16: 8 hosts and 8 spines per leaf), --bytes (1 MiB),
// --stop-us (1000: the null-message synchronizer exchanges messages until then), --batch (1:
// frames to another rank leave in batches, FabricChannel::RankBatching; 0: one MPI message per
// frame). With MPI it also prints the frames that crossed ranks and the messages they took.
// --workload=flows runs a FlowWorkload instead of the permutation (--cdf websearch|fb-hadoop,
// --load 0.5, --duration-us 200; DCQCN; until every flow has ended or --stop-us): every rank
// keeps the whole workload and the senders' ranks post (FlowWorkload, "Across MPI ranks"); the
// FCTs printed are of its table (the same on every rank).
// Exit 2 on bad usage.

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/mpi-interface.h"
#include "ns3/network-module.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <mpi.h>
#include <string>
#include <sys/resource.h>
#include <vector>

using namespace ns3;

namespace
{

double
CpuSeconds()
{
    return double(std::clock()) / CLOCKS_PER_SEC;
}

double
PeakRssMiB()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_maxrss) / 1024.0;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string core = "fabric";
    std::string order = "partition";
    uint32_t hosts = 128;
    uint32_t radix = 16;
    uint64_t bytes = 1 << 20;
    double stopUs = 1000;
    bool batch = true;
    std::string workload = "permutation";
    std::string cdf = "websearch";
    double load = 0.5;
    double durationUs = 200;
    CommandLine cmd(__FILE__);
    cmd.AddValue("core", "fabric, ns3 (sequential), granted-time-window, null-message", core);
    cmd.AddValue("order", "ns3 or partition (the distributed cores: partition)", order);
    cmd.AddValue("hosts", "hosts (a multiple of radix/2)", hosts);
    cmd.AddValue("radix", "ports per switch", radix);
    cmd.AddValue("bytes", "bytes per flow", bytes);
    cmd.AddValue("stop-us", "simulated time to stop at, us (null messages run until then)", stopUs);
    cmd.AddValue("batch", "frames to another rank in batches (FabricChannel::RankBatching)", batch);
    cmd.AddValue("workload", "permutation or flows (FlowWorkload)", workload);
    cmd.AddValue("cdf", "flows: the flow-size distribution (websearch, fb-hadoop)", cdf);
    cmd.AddValue("load", "flows: offered load per host, (0, 1]", load);
    cmd.AddValue("duration-us", "flows: how long flows arrive, us", durationUs);
    cmd.Parse(argc, argv);
    Config::SetDefault("ns3::FabricChannel::RankBatching", BooleanValue(batch));
    const bool distributed = core == "granted-time-window" || core == "null-message";
    if ((!distributed && core != "fabric" && core != "ns3") ||
        (order != "ns3" && order != "partition") || (distributed && order != "partition") ||
        radix < 4 || hosts == 0 || hosts % (radix / 2) != 0 || bytes == 0 || !(stopUs > 0) ||
        (workload != "permutation" && workload != "flows") || !(load > 0 && load <= 1) ||
        !(durationUs > 0) || (cdf != "websearch" && cdf != "fb-hadoop"))
    {
        std::fprintf(stderr,
                     "fabric-mpi-bench: --core fabric|ns3|granted-time-window|null-message, "
                     "--order ns3|partition (partition on MPI), --hosts a multiple of radix/2, "
                     "--workload permutation|flows, --cdf websearch|fb-hadoop, --load in (0, 1], "
                     "--duration-us > 0\n");
        return 2;
    }
    GlobalValue::Bind("SimulatorImplementationType",
                      StringValue(core == "fabric"         ? "ns3::FabricSimulatorImpl"
                                  : core == "ns3"          ? "ns3::DefaultSimulatorImpl"
                                  : core == "null-message" ? "ns3::NullMessageSimulatorImpl"
                                                           : "ns3::DistributedSimulatorImpl"));
    uint32_t rank = 0;
    uint32_t ranks = 1;
    if (distributed)
    {
        MpiInterface::Enable(&argc, &argv);
        rank = MpiInterface::GetSystemId();
        ranks = MpiInterface::GetSize();
    }
    if (order == "partition")
    {
        FabricPartitionScheduler::Select();
    }
    else if (core == "fabric")
    {
        GlobalValue::Bind("SchedulerType", StringValue("ns3::TimingWheelScheduler"));
    }

    const auto t0 = std::chrono::steady_clock::now();
    const uint32_t down = radix / 2;
    const uint32_t leaves = hosts / down;
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("Servers", UintegerValue(hosts));
    ft->SetAttribute("GpusPerServer", UintegerValue(1));
    ft->SetAttribute("Tiers", UintegerValue(2));
    ft->SetAttribute("LeafRadix", UintegerValue(radix));
    ft->SetAttribute("LinkRate", DataRateValue(DataRate("400Gbps")));
    ft->SetPartition(ranks);
    Ptr<FabricTopology> topo;
    try
    {
        topo = ft->Build();
    }
    catch (const FabricConfigError& e)
    {
        std::fprintf(stderr, "fabric-mpi-bench: %s\n", e.what());
        return 2;
    }
    const bool flows = workload == "flows";
    RdmaHelper rdma;
    rdma.SetCongestionControl(flows ? "ns3::RdmaDcqcn" : "ns3::RdmaNoCc");
    rdma.Install(topo);
    topo->AssignStreams(1000);
    std::vector<int64_t> fct(flows ? 0 : hosts, 0);
    Ptr<FlowWorkload> w;
    if (flows)
    {
        w = CreateObject<FlowWorkload>();
        w->SetDistribution(FlowSizeDistribution::Named(cdf));
        w->SetAttribute("Load", DoubleValue(load));
        w->SetAttribute("Duration",
                        TimeValue(NanoSeconds(static_cast<int64_t>(durationUs * 1000))));
        w->Install(topo);
        w->AssignStreams(2000);
        w->TraceConnectWithoutContext("Drained", MakeCallback(+[]() { Simulator::Stop(); }));
        Simulator::ScheduleNow(&FlowWorkload::Start, w);
    }
    for (uint32_t i = 0; i < fct.size(); ++i)
    {
        const uint32_t dst = (i + hosts / 2) % hosts;
        auto qp = RdmaHelper::Connect(topo->GetHostNode(i), topo->GetHostNode(dst));
        if (topo->GetHostNode(i)->GetSystemId() != rank)
        {
            continue;
        }
        qp.first->SetCompletionCallback(MakeCallback(+[](int64_t* f, const RdmaCompletion&) {
                                            *f = Simulator::Now().GetNanoSeconds();
                                        }).Bind(&fct[i]));
        Simulator::ScheduleWithContext(topo->GetHostNode(i)->GetId(),
                                       NanoSeconds(0),
                                       &RdmaQueuePair::PostWrite,
                                       qp.first,
                                       bytes);
    }
    Simulator::Stop(NanoSeconds(static_cast<int64_t>(stopUs * 1000)));
    const double buildS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu0 = CpuSeconds();
    const auto t1 = std::chrono::steady_clock::now();
    Simulator::Run();
    const double runS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    const double cpuS = CpuSeconds() - cpu0;
    int64_t mine[3] = {static_cast<int64_t>(Simulator::GetEventCount()), 0, 0};
    // Frames that crossed ranks and the MPI messages they took (all ranks).
    int64_t crossMine[2] = {static_cast<int64_t>(FabricRankMailbox::GetFramesSent()),
                            static_cast<int64_t>(FabricRankMailbox::GetMessagesSent())};
    int64_t cross[2] = {crossMine[0], crossMine[1]};
    for (int64_t f : fct)
    {
        mine[1] += f;
        mine[2] = std::max(mine[2], f);
    }
    int64_t nFlows = static_cast<int64_t>(fct.size());
    if (flows)
    {
        // Every rank's table is the whole workload's: rank 0's is printed.
        nFlows = static_cast<int64_t>(w->GetFlows().size());
        for (const FlowRecord& r : w->GetFlows())
        {
            const int64_t f = r.completed ? (r.end - r.start).GetNanoSeconds() : 0;
            mine[1] += f;
            mine[2] = std::max(mine[2], f);
        }
    }
    double timesMine[3] = {runS, cpuS, PeakRssMiB()};
    int64_t sums[2] = {mine[0], mine[1]};
    int64_t maxFct = mine[2];
    double times[3] = {runS, cpuS, timesMine[2]};
    if (distributed)
    {
        MPI_Reduce(mine, sums, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
        if (!flows)
        {
            MPI_Reduce(&mine[1], &sums[1], 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
        }
        MPI_Reduce(&mine[2], &maxFct, 1, MPI_INT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(crossMine, cross, 2, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&timesMine[0], &times[0], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&timesMine[1], &times[1], 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&timesMine[2], &times[2], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    }
    if (rank == 0)
    {
        std::printf("hosts %u leaves %u ranks %u core %s order %s %s: events %lld, run wall "
                    "%.3f s, cpu %.3f s (all ranks), build %.3f s, peak RSS %.1f MiB (largest "
                    "rank), %lld flows, FCT sum %lld ns max %lld ns\n",
                    hosts,
                    leaves,
                    ranks,
                    core.c_str(),
                    order.c_str(),
                    workload.c_str(),
                    static_cast<long long>(sums[0]),
                    times[0],
                    times[1],
                    buildS,
                    times[2],
                    static_cast<long long>(nFlows),
                    static_cast<long long>(sums[1]),
                    static_cast<long long>(maxFct));
        if (distributed && batch && ranks > 1)
        {
            std::printf("frames across ranks in batches %lld, messages %lld (%.1f frames per "
                        "message)\n",
                        static_cast<long long>(cross[0]),
                        static_cast<long long>(cross[1]),
                        cross[1] > 0 ? double(cross[0]) / double(cross[1]) : 0.0);
        }
    }
    Simulator::Destroy();
    if (distributed)
    {
        MpiInterface::Disable();
    }
    return 0;
}

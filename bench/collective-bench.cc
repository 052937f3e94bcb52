// SPDX-License-Identifier: GPL-2.0-only
//
// Packet-level AllReduce benchmark: S servers x 8 GPUs on the rail-optimized fat-tree at
// 400 Gb/s, RoCEv2 with PFC and DCQCN (or InfiniBand, or kernel TCP with the host cost model:
// the Linux TCP model, or ns-3's TCP over IPv4), no trace sinks, one AllReduce step.
// Prints CPU time, events, events/s, CPU ns per packet-hop and peak RSS.
//
// Usage: collective-bench [--servers=16] [--mib=64]
// [--algorithm=ring|tree|nvls|nvls-tree|hd|hierarchical]
//        [--channels=1] [--lazy=1]
//        [--fabric=rocev2|infiniband|tcp|tcp-ns3] [--job-servers=K] [--pending-stats]
//        [--scheduler=ns3::TimingWheelScheduler|ns3::PriorityQueueScheduler]
//
// --job-servers runs the job on the first K servers of the topology only (the rest of the
// fabric is built but idle), which separates the cost of a large topology from the cost of a
// large job. --pending-stats counts pending events (the scheduler's heap size).
#include "bench-util.h"
#include "counting-scheduler.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>

using namespace ns3;
using namespace aifabricbench;

int
main(int argc, char** argv)
{
    uint32_t servers = 16;
    uint32_t mib = 64;
    std::string algorithm = "ring";
    uint32_t channels = 1;
    bool lazy = true;
    std::string cc;
    std::string fabric = "rocev2";
    CommandLine cmd(__FILE__);
    cmd.AddValue("servers", "servers of 8 GPUs", servers);
    cmd.AddValue("mib", "AllReduce size per GPU in MiB", mib);
    cmd.AddValue("algorithm", "ring, tree, nvls, nvls-tree, hd or hierarchical", algorithm);
    cmd.AddValue("cc",
                 "congestion control TypeId (default: RdmaDcqcn, IbCongestionControl on IB)",
                 cc);
    cmd.AddValue("fabric",
                 "rocev2 (PFC + DCQCN), infiniband (credits + IB CC), tcp (the Linux TCP model) "
                 "or tcp-ns3 (ns-3's TCP), both TCPs with host costs on a PFC fabric",
                 fabric);
    uint32_t jobServers = 0;
    bool pendingStats = false;
    cmd.AddValue("channels", "parallel channels (NCCL's; ring: one per rail)", channels);
    cmd.AddValue("lazy", "run rings lazily (false: write every transfer out first)", lazy);
    cmd.AddValue("job-servers", "run the job on the first K servers only (0 = all)", jobServers);
    cmd.AddValue("pending-stats", "count pending events (peak and mean)", pendingStats);
    std::string scheduler = "ns3::TimingWheelScheduler";
    cmd.AddValue("scheduler",
                 "event scheduler TypeId (e.g. ns3::PriorityQueueScheduler)",
                 scheduler);
    cmd.Parse(argc, argv);
    if (jobServers > servers)
    {
        std::fprintf(stderr,
                     "collective-bench: job-servers must be in [0, %u] (got %u)\n",
                     servers,
                     jobServers);
        return 2;
    }
    if (fabric != "rocev2" && fabric != "infiniband" && fabric != "tcp" && fabric != "tcp-ns3")
    {
        std::fprintf(stderr,
                     "collective-bench: fabric must be rocev2, infiniband, tcp or tcp-ns3 (got "
                     "%s)\n",
                     fabric.c_str());
        return 2;
    }
    const bool linuxTcp = fabric == "tcp";
    const bool ns3Tcp = fabric == "tcp-ns3";
    const bool ib = fabric == "infiniband";
    if (cc.empty())
    {
        cc = ib ? "ns3::IbCongestionControl" : "ns3::RdmaDcqcn";
    }
    const std::string tid =
        CollectiveAlgorithm::TypeIdName(algorithm == "hd" ? "halving-doubling" : algorithm);
    if (tid.empty())
    {
        std::fprintf(stderr,
                     "collective-bench: algorithm must be ring, tree, nvls, nvls-tree, hd or "
                     "hierarchical (got %s)\n",
                     algorithm.c_str());
        return 2;
    }
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::FabricSimulatorImpl"));
    ObjectFactory sched;
    TypeId schedTid;
    if (!TypeId::LookupByNameFailSafe(scheduler, &schedTid) ||
        !schedTid.IsChildOf(Scheduler::GetTypeId()))
    {
        std::fprintf(stderr,
                     "collective-bench: scheduler must be an ns-3 Scheduler TypeId (got %s)\n",
                     scheduler.c_str());
        return 2;
    }
    if (pendingStats)
    {
        schedTid = CountingSchedulerFor(scheduler);
        if (schedTid.GetUid() == 0)
        {
            std::fprintf(stderr,
                         "collective-bench: pending-stats needs scheduler "
                         "ns3::PriorityQueueScheduler or ns3::TimingWheelScheduler (got %s)\n",
                         scheduler.c_str());
            return 2;
        }
    }
    sched.SetTypeId(schedTid);
    Simulator::SetScheduler(sched);

    const double cpu0 = CpuSeconds();
    Ptr<RailOptimizedFatTreeHelper> rail = CreateObject<RailOptimizedFatTreeHelper>();
    if (ib)
    {
        rail->SetAttribute("LinkLayer", EnumValue(FabricNetDevice::INFINIBAND));
        rail->GetLinkHelper().SetFlowControlAttribute("FecnThreshold", UintegerValue(16384));
    }
    rail->SetAttribute("Servers", UintegerValue(servers));
    rail->SetAttribute("GpusPerServer", UintegerValue(8));
    Ptr<FabricTopology> topo = rail->Build();
    topo->AssignStreams(0);
    const uint32_t ranks = (jobServers ? jobServers : servers) * 8;
    NodeContainer hosts;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        hosts.Add(topo->GetHostNode(r));
    }
    Ptr<CollectiveTransport> net;
    if (linuxTcp)
    {
        LinuxTcpHelper lt;
        lt.SetHostCosts(true);
        lt.Install(topo);
        Ptr<LinuxTcpCollectiveTransport> t = CreateObject<LinuxTcpCollectiveTransport>();
        t->SetRanks(hosts);
        net = t;
    }
    else if (ns3Tcp)
    {
        FabricInternetHelper::Install(topo);
        FabricInternetHelper::InstallHostCosts(topo, ObjectFactory("ns3::HostStackCostModel"));
        Ptr<TcpCollectiveTransport> t = CreateObject<TcpCollectiveTransport>();
        t->SetRanks(hosts);
        net = t;
    }
    else
    {
        RdmaHelper rdma;
        rdma.SetCongestionControl(cc);
        rdma.Install(topo);
        Ptr<RdmaCollectiveTransport> t = CreateObject<RdmaCollectiveTransport>();
        t->SetRanks(hosts);
        net = t;
    }
    Ptr<NvlinkTransport> nvlink = CreateObject<NvlinkTransport>();
    nvlink->SetRanks(ranks);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        Ptr<GpuTrainingApp> app = CreateObject<GpuTrainingApp>();
        app->SetAttribute("ComputeTime", TimeValue(Time(0)));
        topo->GetHostNode(r)->AddApplication(app);
    }
    Ptr<TrainingJob> job = CreateObject<TrainingJob>();
    job->SetAttribute("Steps", UintegerValue(1));
    job->SetAttribute("Algorithm", TypeIdValue(TypeId::LookupByName(tid)));
    job->SetAttribute("Bytes", UintegerValue(uint64_t(mib) << 20));
    job->SetAttribute("Channels", UintegerValue(channels));
    job->SetAttribute("LazySchedules", BooleanValue(lazy));
    job->Setup(hosts, 8, net, nvlink);
    const double setup = CpuSeconds() - cpu0;

    job->Start();
    const uint64_t ev0 = Simulator::GetEventCount();
    const double t0 = CpuSeconds();
    Simulator::Run();
    const double cpu = CpuSeconds() - t0;
    const uint64_t events = Simulator::GetEventCount() - ev0;
    uint64_t hops = 0;
    for (const auto& l : topo->GetLinks())
    {
        hops += l.devA->GetCounters().txDataFrames + l.devB->GetCounters().txDataFrames;
    }
    uint64_t packets = 0;
    uint64_t retx = net->GetRetransmissions();
    for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
    {
        // RDMA: data packets only; TCP: every frame the host sent (segments and ACKs).
        Ptr<RdmaNic> nic = topo->GetHostNode(h)->GetObject<RdmaNic>();
        packets += nic ? nic->GetCounters().dataPacketsSent
                       : topo->GetHostDevice(h)->GetCounters().txDataFrames;
    }
    const TrainingStepRecord& rec = job->GetSteps().at(0);
    const double t = rec.CollectiveTime().GetSeconds();
    const double busbw = double(uint64_t(mib) << 20) / t *
                         CollectiveSpec::BusBwFactor(CollectiveSpec::ALLREDUCE, ranks);
    std::printf("%u GPUs (%u x 8 of a %u x 8 rail-optimized 1:1 fat-tree, 400G), %s AllReduce of "
                "%u MiB on %u channel(s), %s schedule, %s, %s\n",
                ranks,
                ranks / 8,
                servers,
                algorithm.c_str(),
                mib,
                channels,
                lazy ? "lazy" : "written-out",
                ib ? "InfiniBand credits" : (linuxTcp || ns3Tcp ? "Ethernet PFC" : "RoCEv2 PFC"),
                linuxTcp ? "Linux TCP model (CUBIC, RACK-TLP) + host costs"
                         : (ns3Tcp ? "ns-3 TCP (CUBIC) + host costs" : cc.c_str()));
    std::printf("  simulated AllReduce %.3f ms, busbw %.1f GB/s, retransmissions %llu\n",
                t * 1e3,
                busbw / 1e9,
                (unsigned long long)retx);
    std::printf("  setup cpu %.2f s; run cpu %.2f s, %llu events (%.2f M/s), %llu data packets, "
                "%llu packet-hops, %.1f ns/packet-hop, %.2f events/packet-hop, peak RSS %.0f MB\n",
                setup,
                cpu,
                (unsigned long long)events,
                events / cpu / 1e6,
                (unsigned long long)packets,
                (unsigned long long)hops,
                cpu * 1e9 / double(hops),
                double(events) / double(hops),
                PeakRssMb());
    if (pendingStats)
    {
        std::printf("  pending events: max %llu, mean %.0f\n",
                    (unsigned long long)PendingStats::s_peak,
                    PendingStats::Mean());
    }
    Simulator::Destroy();
    return 0;
}

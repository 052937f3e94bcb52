// SPDX-License-Identifier: GPL-2.0-only
//
// RoCEv2 NIC benchmark: a 16->1 incast on one 400 Gb/s switch and a 16-host permutation on a
// 2-tier leaf-spine (4 leaves, 4 spines), PFC and DCQCN on, no trace sinks. Prints simulated
// time, CPU time, delivered data packets, packets/s, events/s, events per delivered packet,
// CPU ns per packet-hop and peak RSS. Events are scheduled by ns3::TimingWheelScheduler on
// ns3::FabricSimulatorImpl, as the scenario runner schedules them.
//
// Usage: rdma-bench [--mib=N] (MiB per sender, default 16) [--cc=dcqcn|hpcc|none]
// (hpcc: in-band telemetry on every data packet and an ACK per packet, as the runner sets it)
#include "bench-util.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>

using namespace ns3;
using namespace aifabricbench;

namespace
{

uint64_t
DataHops(Ptr<FabricTopology> topo)
{
    uint64_t hops = 0;
    for (const auto& l : topo->GetLinks())
    {
        hops += l.devA->GetCounters().txDataFrames + l.devB->GetCounters().txDataFrames;
    }
    return hops;
}

Time g_lastCompletion;

void
OnCompletion(const RdmaCompletion& c)
{
    g_lastCompletion = std::max(g_lastCompletion, c.completed);
}

void
Report(const char* name,
       Ptr<FabricTopology> topo,
       const std::vector<Ptr<RdmaQueuePair>>& rx,
       double cpu,
       uint64_t events)
{
    uint64_t packets = 0;
    uint64_t bytes = 0;
    uint64_t timeouts = 0;
    uint64_t retx = 0;
    for (auto& q : rx)
    {
        bytes += q->GetStats().bytesReceived;
    }
    for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
    {
        const RdmaNicCounters& c = topo->GetHostNode(h)->GetObject<RdmaNic>()->GetCounters();
        packets += c.dataPacketsSent;
        timeouts += c.timeouts;
        retx += c.retransmittedPackets;
    }
    const uint64_t hops = DataHops(topo);
    const double simS = g_lastCompletion.GetSeconds();
    std::printf(
        "%-30s done %7.3f ms  cpu %6.2f s  data packets %8llu  %6.2f M pkt/s  %6.2f M "
        "events/s  %5.2f events/pkt  %6.1f ns/pkt-hop  goodput %6.1f Gb/s  peak RSS %.0f MB\n",
        name,
        simS * 1e3,
        cpu,
        (unsigned long long)packets,
        packets / cpu / 1e6,
        events / cpu / 1e6,
        double(events) / double(packets),
        cpu * 1e9 / double(hops),
        bytes * 8.0 / simS / 1e9,
        PeakRssMb());
    std::printf("%-30s timeouts %llu, retransmitted packets %llu\n",
                "",
                (unsigned long long)timeouts,
                (unsigned long long)retx);
}

std::string g_cc = "dcqcn";

RdmaHelper
Rdma()
{
    RdmaHelper rdma;
    if (g_cc == "hpcc")
    {
        rdma.SetCongestionControl("ns3::RdmaHpcc");
        rdma.SetNicAttribute("AckInterval", TimeValue(Time(0)));
    }
    else if (g_cc == "none")
    {
        rdma.SetCongestionControl("ns3::RdmaNoCc");
    }
    else
    {
        rdma.SetCongestionControlAttribute("Preset", StringValue("paper"));
        rdma.SetNicAttribute("CnpInterval", TimeValue(MicroSeconds(50)));
    }
    return rdma;
}

} // namespace

int
main(int argc, char** argv)
{
    uint32_t mib = 16;
    CommandLine cmd(__FILE__);
    cmd.AddValue("mib", "MiB per sender", mib);
    cmd.AddValue("cc", "congestion control: dcqcn (paper preset), hpcc (telemetry), none", g_cc);
    cmd.Parse(argc, argv);
    if (g_cc != "dcqcn" && g_cc != "hpcc" && g_cc != "none")
    {
        std::fprintf(stderr,
                     "rdma-bench: --cc must be dcqcn, hpcc or none (got %s)\n",
                     g_cc.c_str());
        return 2;
    }
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::FabricSimulatorImpl"));
    ObjectFactory sched;
    sched.SetTypeId("ns3::TimingWheelScheduler");
    std::printf("RoCEv2 at 400 Gb/s, path MTU 4096, PFC + %s, %u MiB per sender\n",
                g_cc == "hpcc"   ? "HPCC (in-band telemetry, an ACK per packet)"
                : g_cc == "none" ? "no congestion control"
                                 : "DCQCN (paper preset, CNP every 50 us)",
                mib);
    {
        Simulator::SetScheduler(sched);
        g_lastCompletion = Time(0);
        Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
        star->SetAttribute("Servers", UintegerValue(17));
        star->SetAttribute("GpusPerServer", UintegerValue(1));
        Ptr<FabricTopology> topo = star->Build();
        RdmaHelper rdma = Rdma();
        rdma.Install(topo);
        std::vector<Ptr<RdmaQueuePair>> rx;
        for (uint32_t i = 1; i <= 16; ++i)
        {
            auto qp = RdmaHelper::Connect(topo->GetHostNode(i), topo->GetHostNode(0));
            qp.first->SetCompletionCallback(MakeCallback(&OnCompletion));
            qp.first->PostWrite(uint64_t(mib) << 20);
            rx.push_back(qp.second);
        }
        const uint64_t ev0 = Simulator::GetEventCount();
        const double t0 = CpuSeconds();
        Simulator::Run();
        Report("16->1 incast", topo, rx, CpuSeconds() - t0, Simulator::GetEventCount() - ev0);
        Simulator::Destroy();
    }
    {
        Simulator::SetScheduler(sched);
        g_lastCompletion = Time(0);
        Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
        ft->SetAttribute("Servers", UintegerValue(16));
        ft->SetAttribute("GpusPerServer", UintegerValue(1));
        ft->SetAttribute("LeafRadix", UintegerValue(8));
        Ptr<FabricTopology> topo = ft->Build();
        RdmaHelper rdma = Rdma();
        rdma.Install(topo);
        std::vector<Ptr<RdmaQueuePair>> rx;
        for (uint32_t i = 0; i < 16; ++i)
        {
            auto qp = RdmaHelper::Connect(topo->GetHostNode(i), topo->GetHostNode((i + 8) % 16));
            qp.first->SetCompletionCallback(MakeCallback(&OnCompletion));
            qp.first->PostWrite(uint64_t(mib) << 20);
            rx.push_back(qp.second);
        }
        const uint64_t ev0 = Simulator::GetEventCount();
        const double t0 = CpuSeconds();
        Simulator::Run();
        Report("16-host permutation (2-tier)",
               topo,
               rx,
               CpuSeconds() - t0,
               Simulator::GetEventCount() - ev0);
        Simulator::Destroy();
    }
    return 0;
}

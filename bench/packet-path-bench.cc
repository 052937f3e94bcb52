// SPDX-License-Identifier: GPL-2.0-only
//
// The per-packet paths at fixed sizes, for the instruction budget (scripts/perf-budget.sh runs
// each case under callgrind at two sizes and divides the difference in instructions executed
// inside Simulator::Run by the difference in data packet-hops, so set-up and the first and last
// round trips cancel out).
//
// Every case is a permutation on a 3-tier k-ary fat-tree (k = 4: 16 hosts, 20 switches, 400 Gb/s,
// 10 m cables), host i sending `--packets` MTU-sized packets to host (5i + 3) mod 16 (paths of
// 2, 4 and 6 links), on ai-fabric's TimingWheelScheduler:
//   rdma-nocc   RoCEv2 without congestion control (ACKs coalesced every 2 us, the default)
//   rdma-dcqcn  RoCEv2 with DCQCN (paper preset, CNP every 50 us)
//   rdma-ack    RoCEv2 without congestion control, an ACK per packet
//   rdma-hpcc   RoCEv2 with HPCC: in-band telemetry on every packet, an ACK per packet
//   switch      raw UDP frames from FabricTrafficSource at line rate: links and switches only
//   tcp         the Linux TCP model (MSS 8,948, no host costs)
//   uec         Ultra Ethernet (UetNic: NSCC, REPS spraying, an ACK every 16 KiB; switches
//               trimming, ECN on dequeue at 20-80% of a 10 us BDP), one PDC per host
// A packet-hop is one data packet (not an ACK, CNP or PFC frame) crossing one link; the ACKs'
// work is part of the cost per packet-hop.
//
// Prints a line per case: "<case> packets <N> packet-hops <H> events <E> completions <T> ns"
// (the sum of the flows' completion times) and the CPU time (which the budget ignores; it reads
// callgrind's totals).
//
// Usage: packet-path-bench [--case=NAME] (default all) [--packets=N] (per host, default 256)
#include "bench-util.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using namespace ns3;
using namespace aifabricbench;

namespace
{

constexpr uint32_t HOSTS = 16;

/// Sum of the flows' completion times (ns): a fingerprint of the simulated results.
int64_t g_completions = 0;

void
OnCompletion(const RdmaCompletion& c)
{
    g_completions += c.completed.GetNanoSeconds();
}

uint32_t
Peer(uint32_t i)
{
    return (5 * i + 3) % HOSTS;
}

Ptr<FabricTopology>
FatTree()
{
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("Servers", UintegerValue(HOSTS));
    ft->SetAttribute("GpusPerServer", UintegerValue(1));
    ft->SetAttribute("Tiers", UintegerValue(3));
    ft->SetAttribute("K", UintegerValue(4));
    return ft->Build();
}

/// Links from host a to host b (every shortest path of a fat-tree has the same length).
uint32_t
Links(Ptr<FabricTopology> topo, uint32_t a, uint32_t b)
{
    FabricFrame f;
    f.src = topo->GetHostAddress(a).Get();
    f.dst = topo->GetHostAddress(b).Get();
    f.ComputeFlowHash();
    return topo->TracePath(a, f).size() - 1;
}

/// Data packet-hops of `packets[i]` data packets sent by each host i to Peer(i).
uint64_t
PacketHops(Ptr<FabricTopology> topo, const std::vector<uint64_t>& packets)
{
    uint64_t hops = 0;
    for (uint32_t i = 0; i < HOSTS; ++i)
    {
        hops += packets[i] * Links(topo, i, Peer(i));
    }
    return hops;
}

uint64_t
Rdma(const std::string& name, uint32_t packets)
{
    Ptr<FabricTopology> topo = FatTree();
    RdmaHelper rdma;
    if (name == "rdma-dcqcn")
    {
        rdma.SetCongestionControlAttribute("Preset", StringValue("paper"));
        rdma.SetNicAttribute("CnpInterval", TimeValue(MicroSeconds(50)));
    }
    else if (name == "rdma-hpcc")
    {
        rdma.SetCongestionControl("ns3::RdmaHpcc");
        rdma.SetNicAttribute("AckInterval", TimeValue(Time(0)));
    }
    else
    {
        rdma.SetCongestionControl("ns3::RdmaNoCc");
        if (name == "rdma-ack")
        {
            rdma.SetNicAttribute("AckInterval", TimeValue(Time(0)));
        }
    }
    rdma.Install(topo);
    for (uint32_t i = 0; i < HOSTS; ++i)
    {
        auto qp = RdmaHelper::Connect(topo->GetHostNode(i), topo->GetHostNode(Peer(i)));
        qp.first->SetCompletionCallback(MakeCallback(&OnCompletion));
        qp.first->PostWrite(uint64_t(packets) * 4096);
    }
    Simulator::Run();
    std::vector<uint64_t> sent;
    for (uint32_t i = 0; i < HOSTS; ++i)
    {
        sent.push_back(topo->GetHostNode(i)->GetObject<RdmaNic>()->GetCounters().dataPacketsSent);
    }
    return PacketHops(topo, sent);
}

uint64_t
Switch(uint32_t packets)
{
    Ptr<FabricTopology> topo = FatTree();
    const uint32_t payload = 4096 - FabricFrame::IPV4_UDP_HEADER_BYTES;
    std::vector<Ptr<FabricTrafficSink>> sinks;
    for (uint32_t i = 0; i < HOSTS; ++i)
    {
        Ptr<FabricTrafficSource> src = CreateObject<FabricTrafficSource>();
        src->SetAttribute("Remote", Ipv4AddressValue(topo->GetHostAddress(Peer(i))));
        src->SetAttribute("FlowId", UintegerValue(i));
        src->SetAttribute("PayloadSize", UintegerValue(payload));
        src->SetAttribute("MaxBytes", UintegerValue(uint64_t(packets) * payload));
        topo->GetHostNode(i)->AddApplication(src);
        Ptr<FabricTrafficSink> sink = CreateObject<FabricTrafficSink>();
        topo->GetHostNode(i)->AddApplication(sink);
        sinks.push_back(sink);
    }
    Simulator::Run();
    std::vector<uint64_t> received(HOSTS, 0);
    for (uint32_t i = 0; i < HOSTS; ++i)
    {
        received[i] = sinks[Peer(i)]->GetReceivedPackets();
        g_completions += sinks[Peer(i)]->GetLastRxTime().GetNanoSeconds();
    }
    return PacketHops(topo, received);
}

uint64_t
Uec(uint32_t packets)
{
    Ptr<FabricTopology> topo = FatTree();
    for (uint32_t j = 0; j < topo->GetNSwitches(); ++j)
    {
        Ptr<SwitchBufferManager> bm = topo->GetSwitch(j)->GetBufferManager();
        bm->SetAttribute("TrimEnabled", BooleanValue(true));
        bm->SetAttribute("EcnOnDequeue", BooleanValue(true));
        bm->SetAttribute("EcnKmin", UintegerValue(100000)); // 20% and 80% of 400G x 10 us
        bm->SetAttribute("EcnKmax", UintegerValue(400000));
    }
    UetHelper uet;
    uet.SetNicAttribute("NetworkRtt", TimeValue(MicroSeconds(10)));
    std::vector<Ptr<UetNic>> nics = uet.Install(topo);
    for (uint32_t i = 0; i < HOSTS; ++i)
    {
        Ptr<UetPdc> pdc = nics[i]->CreatePdc(topo->GetHostAddress(Peer(i)));
        pdc->SetCompletionCallback(MakeCallback(
            +[](uint64_t, uint64_t) { g_completions += Simulator::Now().GetNanoSeconds(); }));
        pdc->Send(uint64_t(packets) * 4096);
    }
    Simulator::Run();
    std::vector<uint64_t> sent;
    for (uint32_t i = 0; i < HOSTS; ++i)
    {
        sent.push_back(nics[i]->GetCounters().dataPackets);
    }
    return PacketHops(topo, sent);
}

/// Adds the arrival time of each message to the fingerprint.
struct Arrivals : public CollectiveTransportListener
{
    void MessageArrived(uint64_t) override
    {
        g_completions += Simulator::Now().GetNanoSeconds();
    }
};

uint64_t
Tcp(uint32_t packets)
{
    Ptr<FabricTopology> topo = FatTree();
    LinuxTcpHelper helper;
    helper.Install(topo);
    Ptr<LinuxTcpCollectiveTransport> tcp = CreateObject<LinuxTcpCollectiveTransport>();
    tcp->SetRanks(topo->GetHosts());
    Arrivals a;
    const uint32_t mss = 8948;
    for (uint32_t i = 0; i < HOSTS; ++i)
    {
        tcp->Send(i, Peer(i), uint64_t(packets) * mss, &a, i);
    }
    Simulator::Run();
    std::vector<uint64_t> sent;
    for (uint32_t i = 0; i < HOSTS; ++i)
    {
        const LinuxTcpStack& s = *topo->GetHostNode(i)->GetObject<LinuxTcpStack>();
        sent.push_back(s.GetCounters().segmentsSent);
    }
    tcp->Dispose();
    return PacketHops(topo, sent);
}

/// Runs one case and prints its line.
void
RunCase(const std::string& name, uint32_t packets)
{
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::FabricSimulatorImpl"));
    ObjectFactory sched;
    sched.SetTypeId("ns3::TimingWheelScheduler");
    Simulator::SetScheduler(sched);
    g_completions = 0;
    const double t0 = CpuSeconds();
    uint64_t hops = 0;
    if (name == "switch")
    {
        hops = Switch(packets);
    }
    else if (name == "tcp")
    {
        hops = Tcp(packets);
    }
    else if (name == "uec")
    {
        hops = Uec(packets);
    }
    else
    {
        hops = Rdma(name, packets);
    }
    const double cpu = CpuSeconds() - t0;
    std::printf("%s packets %u packet-hops %llu events %llu completions %lld ns  (cpu %.3f s, "
                "%.1f ns per packet-hop including set-up)\n",
                name.c_str(),
                packets,
                (unsigned long long)hops,
                (unsigned long long)Simulator::GetEventCount(),
                (long long)g_completions,
                cpu,
                cpu * 1e9 / double(hops));
    Simulator::Destroy();
}

} // namespace

int
main(int argc, char** argv)
{
    std::string name = "all";
    uint32_t packets = 256;
    CommandLine cmd(__FILE__);
    cmd.AddValue("case",
                 "rdma-nocc, rdma-dcqcn, rdma-ack, rdma-hpcc, switch, tcp, uec or all",
                 name);
    cmd.AddValue("packets", "data packets per host (1..1000000)", packets);
    cmd.Parse(argc, argv);
    const std::vector<std::string> cases =
        {"rdma-nocc", "rdma-dcqcn", "rdma-ack", "rdma-hpcc", "switch", "tcp", "uec"};
    if (name != "all" && std::find(cases.begin(), cases.end(), name) == cases.end())
    {
        std::fprintf(stderr,
                     "packet-path-bench: --case must be one of rdma-nocc, rdma-dcqcn, rdma-ack, "
                     "rdma-hpcc, switch, tcp, uec, all (got '%s')\n",
                     name.c_str());
        return 2;
    }
    if (packets < 1 || packets > 1000000)
    {
        std::fprintf(stderr, "packet-path-bench: --packets must be 1..1000000 (got %u)\n", packets);
        return 2;
    }
    for (const std::string& c : cases)
    {
        if (name == "all" || name == c)
        {
            RunCase(c, packets);
        }
    }
    return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
//
// Forwarding benchmark of the ai-fabric link/switch model against stock ns-3, in one run.
//
// Prints CPU ns per packet-hop, scheduler events per packet-hop and the peak pending-event set
// for: our fabric on a 3-hop path and on a 16-host permutation (PFC and ECN enabled, no trace
// sinks), stock PointToPointNetDevice forwarding raw packets over the same 3-hop path, and stock
// PointToPoint + IPv4 + UDP. Also the build time and memory of a 1,024-GPU rail-optimized
// fat-tree. The comparisons use ns3::PriorityQueueScheduler for every model (wrapped to count
// pending events); one more row runs the fabric chain on ai-fabric's TimingWheelScheduler.
//
// Usage: fabric-forwarding-bench [--packets=N] [--repeat=R]
#include "bench-util.h"
#include "counting-scheduler.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

using namespace ns3;
using namespace aifabricbench;

namespace
{

struct Result
{
    std::string name;
    double cpuS{0};
    uint64_t events{0};
    uint64_t packetHops{0};
    uint64_t delivered{0};
    uint64_t peakPending{0};
    uint32_t links{0};

    double NsPerHop() const
    {
        return cpuS * 1e9 / double(packetHops);
    }

    double EventsPerHop() const
    {
        return double(events) / double(packetHops);
    }
};

void
Prepare(const std::string& scheduler = "ns3::PriorityQueueScheduler")
{
    ObjectFactory f;
    f.SetTypeId(CountingSchedulerFor(scheduler));
    Simulator::SetScheduler(f);
    PendingStats::Reset();
}

Result
Measure(const std::string& name)
{
    Result r;
    r.name = name;
    const uint64_t ev0 = Simulator::GetEventCount();
    const double t0 = CpuSeconds();
    Simulator::Run();
    r.cpuS = CpuSeconds() - t0;
    r.events = Simulator::GetEventCount() - ev0;
    r.peakPending = PendingStats::s_peak;
    return r;
}

uint64_t
FabricDataHops(NodeContainer nodes)
{
    uint64_t hops = 0;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        for (uint32_t d = 0; d < nodes.Get(i)->GetNDevices(); ++d)
        {
            Ptr<FabricNetDevice> dev = DynamicCast<FabricNetDevice>(nodes.Get(i)->GetDevice(d));
            if (dev)
            {
                hops += dev->GetCounters().txDataFrames;
            }
        }
    }
    return hops;
}

/// Host - switch - switch - host: 3 links, PFC (priority 3) and ECN on.
Result
FabricChain(uint32_t packets,
            double cableMeters,
            const std::string& name,
            const std::string& scheduler = "ns3::PriorityQueueScheduler")
{
    Prepare(scheduler);
    NodeContainer nodes;
    nodes.Create(4);
    std::vector<Ptr<FabricSwitch>> sw;
    for (uint32_t i = 1; i <= 2; ++i)
    {
        Ptr<FabricSwitch> s = CreateObject<FabricSwitch>();
        nodes.Get(i)->AggregateObject(s);
        sw.push_back(s);
    }
    FabricLinkHelper link;
    std::vector<NetDeviceContainer> devs;
    for (uint32_t i = 0; i < 3; ++i)
    {
        devs.push_back(
            link.Install(nodes.Get(i), nodes.Get(i + 1), DataRate("100Gbps"), cableMeters));
    }
    auto dev = [&](uint32_t l, uint32_t end) {
        return DynamicCast<FabricNetDevice>(devs[l].Get(end));
    };
    dev(0, 0)->SetIpv4Address(Ipv4Address("10.0.0.1"));
    dev(2, 1)->SetIpv4Address(Ipv4Address("10.0.0.2"));
    sw[0]->AddPort(dev(0, 1));
    uint16_t p01 = sw[0]->AddPort(dev(1, 0));
    sw[1]->AddPort(dev(1, 1));
    uint16_t p11 = sw[1]->AddPort(dev(2, 0));
    sw[0]->GetRoutingTable().AddHostRoute(Ipv4Address("10.0.0.2"), {p01});
    sw[1]->GetRoutingTable().AddHostRoute(Ipv4Address("10.0.0.2"), {p11});
    Ptr<FabricTrafficSource> src = CreateObject<FabricTrafficSource>();
    src->SetAttribute("Remote", Ipv4AddressValue(Ipv4Address("10.0.0.2")));
    src->SetAttribute("PayloadSize", UintegerValue(1000 - 28));
    src->SetAttribute("MaxBytes", UintegerValue(uint64_t(packets) * (1000 - 28)));
    nodes.Get(0)->AddApplication(src);
    Ptr<FabricTrafficSink> sink = CreateObject<FabricTrafficSink>();
    nodes.Get(3)->AddApplication(sink);
    Result r = Measure(name);
    r.packetHops = FabricDataHops(nodes);
    r.delivered = sink->GetReceivedPackets();
    r.links = 3;
    Simulator::Destroy();
    return r;
}

/// 16 hosts on a 2-tier leaf-spine (radix 8: 4 leaves, 4 spines); host i sends to i+8 mod 16.
Result
FabricPermutation(uint32_t packetsPerHost)
{
    Prepare();
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("Servers", UintegerValue(16));
    ft->SetAttribute("GpusPerServer", UintegerValue(1));
    ft->SetAttribute("LeafRadix", UintegerValue(8));
    ft->SetAttribute("LinkRate", DataRateValue(DataRate("100Gbps")));
    Ptr<FabricTopology> topo = ft->Build();
    std::vector<Ptr<FabricTrafficSink>> sinks;
    for (uint32_t i = 0; i < 16; ++i)
    {
        Ptr<FabricTrafficSource> src = CreateObject<FabricTrafficSource>();
        src->SetAttribute("Remote", Ipv4AddressValue(topo->GetHostAddress((i + 8) % 16)));
        src->SetAttribute("FlowId", UintegerValue(i));
        src->SetAttribute("PayloadSize", UintegerValue(1000 - 28));
        src->SetAttribute("MaxBytes", UintegerValue(uint64_t(packetsPerHost) * (1000 - 28)));
        topo->GetHostNode(i)->AddApplication(src);
        Ptr<FabricTrafficSink> sink = CreateObject<FabricTrafficSink>();
        topo->GetHostNode(i)->AddApplication(sink);
        sinks.push_back(sink);
    }
    Result r = Measure("fabric 16-host permutation");
    NodeContainer all(topo->GetHosts(), topo->GetSwitches());
    r.packetHops = FabricDataHops(all);
    for (auto& s : sinks)
    {
        r.delivered += s->GetReceivedPackets();
    }
    r.links = topo->GetNLinks();
    Simulator::Destroy();
    return r;
}

// ---- stock PointToPoint without IP: forward raw packets hop by hop with protocol handlers.

struct RawForwarder
{
    Ptr<NetDevice> out;
    uint64_t* delivered{nullptr};

    void Receive(Ptr<NetDevice>,
                 Ptr<const Packet> p,
                 uint16_t proto,
                 const Address&,
                 const Address&,
                 NetDevice::PacketType)
    {
        if (out)
        {
            out->Send(p->Copy(), out->GetBroadcast(), proto);
        }
        else
        {
            ++*delivered;
        }
    }
};

void
RawSend(Ptr<NetDevice> dev, uint32_t left, Time interval)
{
    dev->Send(Create<Packet>(1000), dev->GetBroadcast(), 0x0800);
    if (left > 1)
    {
        Simulator::Schedule(interval, &RawSend, dev, left - 1, interval);
    }
}

Result
StockP2pChain(uint32_t packets)
{
    Prepare();
    NodeContainer nodes;
    nodes.Create(4);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
    p2p.SetChannelAttribute("Delay", StringValue("15ns"));
    std::vector<NetDeviceContainer> devs;
    for (uint32_t i = 0; i < 3; ++i)
    {
        devs.push_back(p2p.Install(nodes.Get(i), nodes.Get(i + 1)));
    }
    uint64_t delivered = 0;
    std::vector<RawForwarder> fw(3);
    for (uint32_t i = 0; i < 3; ++i)
    {
        fw[i].out = i < 2 ? devs[i + 1].Get(0) : nullptr;
        fw[i].delivered = &delivered;
        nodes.Get(i + 1)->RegisterProtocolHandler(MakeCallback(&RawForwarder::Receive, &fw[i]),
                                                  0x0800,
                                                  devs[i].Get(1));
    }
    // One packet per serialization time of 1000 B + PPP header at 100 Gb/s: line rate.
    Time interval = DataRate("100Gbps").CalculateBytesTxTime(1002);
    Simulator::Schedule(Time(0), &RawSend, devs[0].Get(0), packets, interval);
    Result r = Measure("stock PointToPoint, no IP, 3 hops");
    r.delivered = delivered;
    r.packetHops = delivered * 3;
    r.links = 3;
    Simulator::Destroy();
    return r;
}

Result
StockIpv4UdpChain(uint32_t packets)
{
    Prepare();
    NodeContainer nodes;
    nodes.Create(4);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
    p2p.SetChannelAttribute("Delay", StringValue("15ns"));
    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper addr;
    for (uint32_t i = 0; i < 3; ++i)
    {
        NetDeviceContainer d = p2p.Install(nodes.Get(i), nodes.Get(i + 1));
        std::string net = "10.1." + std::to_string(i) + ".0";
        addr.SetBase(net.c_str(), "255.255.255.0");
        addr.Assign(d);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    Ptr<Ipv4> ip3 = nodes.Get(3)->GetObject<Ipv4>();
    Ipv4Address dst = ip3->GetAddress(1, 0).GetLocal();
    UdpClientHelper client(dst, 9);
    client.SetAttribute("MaxPackets", UintegerValue(packets));
    client.SetAttribute("PacketSize", UintegerValue(1000 - 28));
    client.SetAttribute("Interval", TimeValue(DataRate("100Gbps").CalculateBytesTxTime(1002)));
    ApplicationContainer ca = client.Install(nodes.Get(0));
    PacketSinkHelper sinkHelper("ns3::UdpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), 9));
    ApplicationContainer sa = sinkHelper.Install(nodes.Get(3));
    Result r = Measure("stock PointToPoint + IPv4 + UDP, 3 hops");
    Ptr<PacketSink> sink = DynamicCast<PacketSink>(sa.Get(0));
    r.delivered = sink->GetTotalRx() / (1000 - 28);
    r.packetHops = r.delivered * 3;
    r.links = 3;
    Simulator::Destroy();
    return r;
}

void
Print(const Result& r)
{
    std::printf("%-44s %9.1f ns/pkt-hop %6.2f events/pkt-hop  delivered %9llu  hops %10llu  "
                "cpu %7.3f s  peak pending %5llu (links %u)\n",
                r.name.c_str(),
                r.NsPerHop(),
                r.EventsPerHop(),
                (unsigned long long)r.delivered,
                (unsigned long long)r.packetHops,
                r.cpuS,
                (unsigned long long)r.peakPending,
                r.links);
}

Result
Best(std::vector<Result> v)
{
    // Median by CPU time.
    std::sort(v.begin(), v.end(), [](const Result& a, const Result& b) { return a.cpuS < b.cpuS; });
    return v[v.size() / 2];
}

} // namespace

int
main(int argc, char** argv)
{
    uint32_t packets = 200000;
    uint32_t repeat = 3;
    CommandLine cmd(__FILE__);
    cmd.AddValue("packets", "packets per flow", packets);
    cmd.AddValue("repeat", "runs per variant (median reported)", repeat);
    cmd.Parse(argc, argv);

    // 1. Topology build cost first, while the heap is fresh.
    {
        const double rss0 = RssMb();
        auto w0 = std::chrono::steady_clock::now();
        Ptr<RailOptimizedFatTreeHelper> rail = CreateObject<RailOptimizedFatTreeHelper>();
        rail->SetAttribute("Servers", UintegerValue(128));
        rail->SetAttribute("GpusPerServer", UintegerValue(8));
        Ptr<FabricTopology> topo = rail->Build();
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
        const double rss = RssMb() - rss0;
        std::printf("build 1,024-GPU rail-optimized fat-tree: %.3f s, +%.1f MB RSS  [%s]\n",
                    wall,
                    rss,
                    topo->Describe().c_str());
        std::printf("  goal: <= 0.5 s and <= 40 MB\n");
        Simulator::Destroy();
    }

    auto run = [&](auto fn) {
        std::vector<Result> v;
        for (uint32_t i = 0; i < repeat; ++i)
        {
            v.push_back(fn());
        }
        return Best(v);
    };
    Result chain = run([&] { return FabricChain(packets, 3.0, "fabric 3 hops (3 m cables)"); });
    Result longChain =
        run([&] { return FabricChain(packets, 3000.0, "fabric 3 hops (3 km cables)"); });
    Result wheel = run([&] {
        return FabricChain(packets,
                           3.0,
                           "fabric 3 hops, TimingWheelScheduler",
                           "ns3::TimingWheelScheduler");
    });
    Result perm = run([&] { return FabricPermutation(packets / 16 * 4); });
    Result p2p = run([&] { return StockP2pChain(packets); });
    Result ip = run([&] { return StockIpv4UdpChain(packets); });
    std::printf("\nmedian of %u runs, %u packets of 1000 B at 100 Gb/s\n", repeat, packets);
    for (const Result* r : {&chain, &longChain, &wheel, &perm, &p2p, &ip})
    {
        Print(*r);
    }
    std::printf(
        "\nfabric vs stock PointToPoint (no IP): %.2fx faster per packet-hop (goal >= 2.5x)\n",
        p2p.NsPerHop() / chain.NsPerHop());
    std::printf("fabric vs stock PointToPoint+IPv4+UDP: %.2fx faster per packet-hop (goal >= 9x)\n",
                ip.NsPerHop() / chain.NsPerHop());
    std::printf("fabric: %.1f ns/packet-hop (goal <= 600), %.2f events/packet-hop (goal <= 2)\n",
                chain.NsPerHop(),
                chain.EventsPerHop());
    std::printf("fabric on TimingWheelScheduler: %.1f ns/packet-hop, %.2fx faster than on "
                "PriorityQueueScheduler\n",
                wheel.NsPerHop(),
                chain.NsPerHop() / wheel.NsPerHop());
    std::printf("pending events, 3 m vs 3 km cables (1000x more packets in flight): %llu vs %llu\n",
                (unsigned long long)chain.peakPending,
                (unsigned long long)longChain.peakPending);
    return 0;
}

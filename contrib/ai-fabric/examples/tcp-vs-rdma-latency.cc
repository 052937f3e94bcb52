// SPDX-License-Identifier: GPL-2.0-only
//
// One message, GPU to GPU across a 400 Gb/s switch: kernel TCP (with the host stack cost model;
// the Linux TCP model, or ns-3's TCP with --stack=ns3) versus GPUDirect RDMA (RoCEv2). Prints
// and plots where the time goes. --leaves=2 puts the two GPUs on two leaves of a fat-tree (leaf,
// spine, leaf: the path of the runner's idle probe, summary.json idle_message_latency_us).
//
//   tcp-vs-rdma-latency [--bytes=1000] [--stack=linux|ns3] [--leaves=1|2] [--out=DIR]
//
// Writes breakdown.csv (transport, component, microseconds) and breakdown.png (stacked bars).
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

#include <cstdlib>
#include <fstream>
#include <iostream>

using namespace ns3;

namespace
{

[[noreturn]] void
BadInput(const std::string& msg)
{
    std::cerr << "tcp-vs-rdma-latency: " << msg << std::endl;
    std::exit(2);
}

struct Arrival : public CollectiveTransportListener
{
    Time at;

    void MessageArrived(uint64_t) override
    {
        at = Simulator::Now();
    }
};

} // namespace

int
main(int argc, char** argv)
{
    uint64_t bytes = 1000;
    std::string out;
    std::string stack = "linux";
    uint32_t leaves = 1;
    CommandLine cmd(__FILE__);
    cmd.AddValue("bytes", "message size in bytes, 1..1073741824", bytes);
    cmd.AddValue("stack", "linux (the Linux TCP model) or ns3 (ns-3's TCP over IPv4)", stack);
    cmd.AddValue("leaves", "1: both GPUs on one switch; 2: on two leaves under a spine", leaves);
    cmd.AddValue("out", "results directory (default results/tcp-vs-rdma-latency-<time>)", out);
    cmd.Parse(argc, argv);
    if (bytes < 1 || bytes > (1ULL << 30))
    {
        BadInput("bytes must be in [1, 1073741824] (got " + std::to_string(bytes) + ")");
    }
    if (stack != "linux" && stack != "ns3")
    {
        BadInput("stack must be linux or ns3 (got " + stack.substr(0, 40) + ")");
    }
    if (leaves != 1 && leaves != 2)
    {
        BadInput("leaves must be 1 or 2 (got " + std::to_string(leaves) + ")");
    }
    ResultsDirectory results;
    results.Start(out, "tcp-vs-rdma-latency");

    Ptr<FabricTopologyHelper> helper;
    if (leaves == 1)
    {
        helper = CreateObject<StarTopologyHelper>();
    }
    else
    {
        // Radix 2: one host and one uplink per leaf, one spine.
        helper = CreateObject<FatTreeHelper>();
        helper->SetAttribute("LeafRadix", UintegerValue(2));
    }
    helper->SetAttribute("Servers", UintegerValue(2));
    helper->SetAttribute("GpusPerServer", UintegerValue(1));
    Ptr<FabricTopology> topo = helper->Build();

    // Kernel TCP with host costs on both hosts; its last message's breakdown from the trace.
    Ptr<CollectiveTransport> tcp;
    HostStackBreakdown b;
    auto keep = MakeBoundCallback(
        +[](HostStackBreakdown* last, const HostStackBreakdown& x) { *last = x; },
        &b);
    if (stack == "linux")
    {
        LinuxTcpHelper lt;
        lt.SetHostCosts(true);
        lt.Install(topo);
        Ptr<LinuxTcpCollectiveTransport> t = CreateObject<LinuxTcpCollectiveTransport>();
        t->SetRanks(topo->GetHosts());
        t->TraceConnectWithoutContext("MessageBreakdown", keep);
        tcp = t;
    }
    else
    {
        FabricInternetHelper::Install(topo);
        FabricInternetHelper::InstallHostCosts(topo, ObjectFactory("ns3::HostStackCostModel"));
        Ptr<TcpCollectiveTransport> t = CreateObject<TcpCollectiveTransport>();
        t->SetRanks(topo->GetHosts());
        t->TraceConnectWithoutContext("MessageBreakdown", keep);
        tcp = t;
    }
    // GPUDirect RDMA on the same NICs.
    RdmaHelper rdma;
    rdma.Install(topo);
    auto qp = RdmaHelper::Connect(topo->GetHostNode(0), topo->GetHostNode(1));
    Ptr<RdmaNic> nicA = topo->GetHostNode(0)->GetObject<RdmaNic>();
    Ptr<RdmaNic> nicB = topo->GetHostNode(1)->GetObject<RdmaNic>();

    // Warm the TCP connection up first (ns-3's handshake, both stacks' first RTT sample), then
    // measure each transport alone.
    Arrival warm;
    tcp->Send(0, 1, bytes, &warm, 0);
    Simulator::Run();
    Arrival tcpArrival;
    const Time tcpPost = Simulator::Now() + MilliSeconds(100);
    Simulator::Schedule(MilliSeconds(100), [&] { tcp->Send(0, 1, bytes, &tcpArrival, 1); });
    Simulator::Run();

    Time rdmaDone;
    qp.second->SetReceiveCallback(
        MakeCallback(+[](Time* t, const RdmaCompletion& c) { *t = c.completed; }).Bind(&rdmaDone));
    const Time rdmaPost = Simulator::Now() + MilliSeconds(100);
    Simulator::Schedule(MilliSeconds(100), [&] { qp.first->PostWrite(bytes); });
    Simulator::Run();

    const double tcpUs = (tcpArrival.at - tcpPost).GetNanoSeconds() / 1000.0;
    const double reqUs = nicA->GetRequesterDelay(bytes).GetNanoSeconds() / 1000.0;
    const double respUs = nicB->GetResponderDelay(bytes).GetNanoSeconds() / 1000.0;
    const double rdmaUs = (rdmaDone - rdmaPost).GetNanoSeconds() / 1000.0;
    std::ofstream csv(results.GetPath() + "/breakdown.csv");
    csv << "transport,pcie_and_nic_tx_us,cpu_tx_us,network_us,cpu_rx_us,pcie_and_nic_rx_us,total_"
           "us\n";
    auto us = [](Time t) { return t.GetNanoSeconds() / 1000.0; };
    const std::string tcpName = stack == "linux" ? "Linux TCP" : "ns-3 TCP";
    csv << tcpName << "," << us(b.pcieTx) << "," << us(b.cpuTx) << "," << us(b.network) << ","
        << us(b.cpuRx) << "," << us(b.pcieRx) << "," << tcpUs << "\n";
    csv << "GPUDirect RDMA," << reqUs << ",0," << rdmaUs - reqUs - respUs << ",0," << respUs << ","
        << rdmaUs << "\n";
    csv.close();
    std::cout << bytes << "-byte message, GPU to GPU through "
              << (leaves == 1 ? "one 400 Gb/s switch" : "leaf, spine and leaf (400 Gb/s)") << ":\n"
              << "  kernel TCP (" << tcpName << "): " << tcpUs << " us = GPU->host " << us(b.pcieTx)
              << " + send CPU " << us(b.cpuTx) << " + network/interrupts " << us(b.network)
              << " + recv CPU " << us(b.cpuRx) << " + host->GPU " << us(b.pcieRx) << "\n"
              << "  GPUDirect RDMA: " << rdmaUs << " us = NIC + PCIe read " << reqUs
              << " + network " << rdmaUs - reqUs - respUs << " + PCIe write " << respUs << "\n";
    {
        std::ofstream gp(results.GetPath() + "/breakdown.gp");
        gp << "set terminal pngcairo size 900,500\nset output 'breakdown.png'\nset datafile "
              "separator ','\n"
           << "set title 'One " << bytes << "-byte message, GPU to GPU: where the time goes'\n"
           << "set style data histograms\nset style histogram rowstacked\nset style fill solid "
              "0.85 border -1\n"
           << "set boxwidth 0.5\nset ylabel 'microseconds'\nset key outside right\n"
           << "plot 'breakdown.csv' every ::1 using 2:xtic(1) title 'GPU<->host copy / NIC tx', "
              "'' every ::1 using 3 title 'send syscall + copy', '' every ::1 using 4 title "
              "'network + interrupts', "
              "'' every ::1 using 5 title 'recv syscall + copy', '' every ::1 using 6 title "
              "'host->GPU / NIC rx'\n";
    }
    Simulator::Destroy();
    return results.Finish("breakdown.gp", "tcp-vs-rdma-latency");
}

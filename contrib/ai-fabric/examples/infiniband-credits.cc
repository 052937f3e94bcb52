// SPDX-License-Identifier: GPL-2.0-only
//
// InfiniBand's credit loop and congestion control, in two experiments.
//
//  1. Credit loop: one NDR (400 Gb/s) RDMA WRITE over a long cable into a receive buffer of k
//     full packets. A sender may only have the buffer's worth of unreturned credits, so its
//     throughput is min(line, buffer / credit round trip); measured against that theory.
//  2. Victim flow: 4 HDR hosts incast into one, a fifth host (the victim) sends to another host
//     behind the same XDR trunk. Without congestion control the incast's packets hold the
//     trunk's credits (congestion spreading) and the victim crawls; with IB CC (FECN at the root
//     port, BECN, CCT index) the incast backs off and the victim runs.
//
//   infiniband-credits [--cable=100] [--out=DIR]
//
// Writes credit-loop.csv, victim.csv and their figures (credit-loop.png, victim.png).
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
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
    std::cerr << "infiniband-credits: " << msg << std::endl;
    std::exit(2);
}

constexpr double kNdr = 400e9;
constexpr uint32_t kPacketBytes = 4096 + 8 + 12 + 4 + 2; // payload + LRH, BTH, ICRC, VCRC

/**
 * Goodput of a 16 MiB WRITE between two HCAs over `meters` into a `packets`-packet buffer: bytes
 * over the transfer time (completion minus the fixed NIC, PCIe and cable latency of one packet).
 */
double
CreditLoopRun(uint32_t packets, double meters)
{
    Ptr<Node> a = CreateObject<Node>();
    Ptr<Node> b = CreateObject<Node>();
    FabricLinkHelper link;
    link.SetLinkLayer(FabricNetDevice::INFINIBAND);
    link.SetFlowControlAttribute(
        "RxBufferBytes",
        UintegerValue(packets * IbCreditFlowControl::Blocks(kPacketBytes) * 64));
    NetDeviceContainer d = link.Install(a, b, DataRate("400Gbps"), meters);
    DynamicCast<FabricNetDevice>(d.Get(0))->SetIpv4Address(Ipv4Address(1u));
    DynamicCast<FabricNetDevice>(d.Get(1))->SetIpv4Address(Ipv4Address(2u));
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    rdma.Install(a);
    rdma.Install(b);
    auto qp = RdmaHelper::Connect(a, b);
    Time done;
    qp.second->SetReceiveCallback(
        MakeCallback(+[](Time* t, const RdmaCompletion& c) { *t = c.completed; }).Bind(&done));
    const uint64_t bytes = 16ULL << 20;
    qp.first->PostWrite(bytes);
    Simulator::Run();
    Simulator::Destroy();
    const double fixed = 300e-9 + 250e-9 + meters * 5e-9 + 300e-9 + 250e-9;
    return bytes * 8.0 / (done.GetSeconds() - fixed);
}

struct VictimTrace
{
    Time bin{MicroSeconds(10)};
    std::vector<uint64_t> bytes; //!< victim payload bytes per bin
    std::vector<uint32_t> ccti;  //!< incast sender 0's CCT index at the end of each bin

    void Rx(const FabricFrame& f)
    {
        const size_t i = static_cast<size_t>(Simulator::Now().GetTimeStep() / bin.GetTimeStep());
        if (bytes.size() <= i)
        {
            bytes.resize(i + 1, 0);
        }
        bytes[i] += f.payloadBytes;
    }
};

/// The victim experiment; \return the victim's completion time.
Time
VictimRun(bool cc, VictimTrace& trace)
{
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("LinkLayer", EnumValue(FabricNetDevice::INFINIBAND));
    ft->SetAttribute("Servers", UintegerValue(8));
    ft->SetAttribute("GpusPerServer", UintegerValue(1));
    ft->SetAttribute("LeafRadix", UintegerValue(7)); // 6 hosts + 1 uplink: one spine
    ft->SetAttribute("Oversubscription", DoubleValue(6));
    ft->SetAttribute("LinkRate", DataRateValue(DataRate("200Gbps")));
    ft->SetAttribute("FabricLinkRate", DataRateValue(DataRate("800Gbps")));
    ft->SetAttribute("FabricCableLength", DoubleValue(10));
    ft->GetLinkHelper().SetFlowControlAttribute("FecnThreshold", UintegerValue(cc ? 16384 : 0));
    Ptr<FabricTopology> topo = ft->Build();
    RdmaHelper rdma;
    rdma.SetCongestionControl(cc ? "ns3::IbCongestionControl" : "ns3::RdmaNoCc");
    rdma.Install(topo);
    std::vector<Ptr<RdmaQueuePair>> incast;
    for (uint32_t i = 0; i < 4; ++i)
    {
        auto qp = RdmaHelper::Connect(topo->GetHostNode(i), topo->GetHostNode(6));
        qp.first->PostWrite(32 << 20);
        incast.push_back(qp.first);
    }
    auto victim = RdmaHelper::Connect(topo->GetHostNode(4), topo->GetHostNode(7));
    Time done;
    victim.first->SetCompletionCallback(
        MakeCallback(+[](Time* t, const RdmaCompletion& c) { *t = c.completed; }).Bind(&done));
    victim.first->PostWrite(8 << 20);
    topo->GetHostDevice(7)->TraceConnectWithoutContext("MacRx",
                                                       MakeCallback(&VictimTrace::Rx, &trace));
    Ptr<IbCongestionControl> ibcc = DynamicCast<IbCongestionControl>(incast[0]->GetCongestionOps());
    for (Time t = trace.bin; t <= MicroSeconds(1500); t += trace.bin)
    {
        Simulator::Schedule(t,
                            [&trace, ibcc] { trace.ccti.push_back(ibcc ? ibcc->GetCcti() : 0); });
    }
    Simulator::Stop(MicroSeconds(1500));
    Simulator::Run();
    Simulator::Destroy();
    return done;
}

} // namespace

int
main(int argc, char** argv)
{
    double cable = 100;
    std::string out;
    CommandLine cmd(__FILE__);
    cmd.AddValue("cable", "cable length of the credit-loop link in metres, 1..2000", cable);
    cmd.AddValue("out", "results directory (default results/infiniband-credits-<time>)", out);
    cmd.Parse(argc, argv);
    if (!(cable >= 1 && cable <= 2000))
    {
        BadInput("cable must be in [1, 2000] m (got " + std::to_string(cable) + ")");
    }
    ResultsDirectory results;
    results.Start(out, "infiniband-credits");

    // 1. Credit loop: the round trip of one credit is the packet's serialization, the cable both
    //    ways, the HCA's 300 ns receive latency and the 6-byte flow-control packet.
    const double rtt = kPacketBytes * 8 / kNdr + 2 * cable * 5e-9 + 300e-9 + 6 * 8 / kNdr;
    const double line = kNdr * 4096 / kPacketBytes;
    std::ofstream loop(results.GetPath() + "/credit-loop.csv");
    loop << "buffer_packets,buffer_kib,measured_gbps,theory_gbps\n";
    std::cout << "Credit loop over " << cable << " m at NDR (credit round trip " << rtt * 1e9
              << " ns):\n";
    for (uint32_t k : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32})
    {
        const double measured = CreditLoopRun(k, cable);
        const double theory = std::min(line, k * 4096.0 * 8 / rtt);
        const double kib = k * IbCreditFlowControl::Blocks(kPacketBytes) * 64 / 1024.0;
        loop << k << "," << kib << "," << measured / 1e9 << "," << theory / 1e9 << "\n";
        std::cout << "  buffer " << k << " packets (" << kib << " KiB): " << measured / 1e9
                  << " Gb/s, theory " << theory / 1e9 << " Gb/s\n";
    }
    loop.close();

    // 2. Victim flow, IB CC off and on.
    VictimTrace off;
    VictimTrace on;
    const Time offDone = VictimRun(false, off);
    const Time onDone = VictimRun(true, on);
    std::ofstream victim(results.GetPath() + "/victim.csv");
    victim << "time_us,victim_gbps_cc_off,victim_gbps_cc_on,incast0_ccti\n";
    const size_t n = std::max(off.bytes.size(), on.bytes.size());
    for (size_t i = 0; i < n; ++i)
    {
        auto gbps = [&](const VictimTrace& v) {
            return i < v.bytes.size() ? v.bytes[i] * 8.0 / v.bin.GetSeconds() / 1e9 : 0.0;
        };
        victim << (i + 1) * 10 << "," << gbps(off) << "," << gbps(on) << ","
               << (i < on.ccti.size() ? on.ccti[i] : 0) << "\n";
    }
    victim.close();
    const double mib8 = 8.0 * (1 << 20) * 8;
    std::cout << "Victim flow (8 MiB, HDR host behind an XDR trunk shared with a 4:1 incast):\n"
              << "  IB CC off: done at " << offDone.GetMicroSeconds() << " us, "
              << (offDone.IsZero() ? 0 : mib8 / offDone.GetSeconds() / 1e9) << " Gb/s\n"
              << "  IB CC on:  done at " << onDone.GetMicroSeconds() << " us, "
              << (onDone.IsZero() ? 0 : mib8 / onDone.GetSeconds() / 1e9) << " Gb/s\n";

    {
        std::ofstream gp(results.GetPath() + "/infiniband.gp");
        gp << "set terminal pngcairo size 900,500\nset datafile separator ','\nset key top left\n"
           << "set output 'credit-loop.png'\nset key bottom right\n"
           << "set title 'InfiniBand credit loop: NDR over " << cable << " m'\n"
           << "set xlabel 'receive buffer per VL (KiB)'\nset ylabel 'goodput (Gb/s)'\nset yrange "
              "[0:*]\n"
           << "plot 'credit-loop.csv' every ::1 using 2:4 with lines lw 2 title "
              "'theory: min(line, buffer / credit RTT)', '' every ::1 using 2:3 with points pt 7 "
              "ps 1.3 title 'measured'\n"
           << "set output 'victim.png'\nset key top right\n"
           << "set title 'Victim flow behind a 4:1 incast (HDR hosts, XDR trunk)'\n"
           << "set xlabel 'time (us)'\nset ylabel 'victim goodput per 10 us (Gb/s)'\n"
           << "set y2label 'incast sender CCT index'\nset y2tics\nset ytics nomirror\n"
           << "plot 'victim.csv' every ::1 using 1:2 with steps lw 2 title 'IB CC off', "
              "'' every ::1 using 1:3 with steps lw 2 title 'IB CC on', "
              "'' every ::1 using 1:4 axes x1y2 with lines dt 2 title 'CCTI (CC on)'\n";
    }
    return results.Finish("infiniband.gp", "infiniband-credits");
}

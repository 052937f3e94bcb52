// SPDX-License-Identifier: GPL-2.0-only
//
// N->1 incast on one 400 Gb/s switch, with PFC on (lossless) or off (lossy, drops).
//
// Writes to --out DIR (default results/fabric-incast-<time>/), via a temporary directory that
// is renamed only on success:
//   queue.csv   bottleneck egress queue length (priority 3) over time
//   pfc.csv     every PFC frame the switch sent (port, priority, quanta; 0 = resume)
//   flows.csv   per-sender delivered bytes, goodput and one-way latency
//   drops.csv   every drop with its reason
//   summary.txt the headline numbers; queue.gp / queue.png (when gnuplot is installed)
//
//   ./ai-fabric run --senders=16 --pfc=false --buffer=1000000
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

using namespace ns3;

namespace
{

[[noreturn]] void
BadInput(const std::string& msg)
{
    std::cerr << "fabric-incast: " << msg << std::endl;
    std::exit(2);
}

void
QueueSink(Ptr<CsvTraceWriter> w, uint8_t prio, uint32_t bytes)
{
    if (prio == 3)
    {
        w->Row(Simulator::Now().GetNanoSeconds() / 1000.0, bytes);
    }
}

void
PfcSink(Ptr<CsvTraceWriter> w, uint32_t port, uint8_t prio, uint16_t quanta)
{
    w->Row(Simulator::Now().GetNanoSeconds() / 1000.0, port, unsigned(prio), quanta);
}

void
DropSink(Ptr<CsvTraceWriter> w, std::string where, const FabricFrame& f, FabricDropReason r)
{
    w->Row(Simulator::Now().GetNanoSeconds() / 1000.0,
           where,
           f.flowId,
           f.seq,
           FabricDropReasonName(r));
}

} // namespace

int
main(int argc, char** argv)
{
    uint32_t senders = 8;
    bool pfc = true;
    double linkGbps = 400;
    uint64_t bytes = 4 * 1024 * 1024;
    uint64_t buffer = 0;
    uint32_t payload = 4096;
    uint32_t seed = 1;
    bool pcap = false;
    std::string out;
    CommandLine cmd(__FILE__);
    cmd.Usage("N->1 incast through one switch with PFC on or off; writes CSV traces and a plot.");
    cmd.AddValue("senders", "number of senders, 1..1024", senders);
    cmd.AddValue("pfc", "PFC on priority 3 (lossless) or off (lossy)", pfc);
    cmd.AddValue("linkGbps", "link rate in Gb/s, > 0", linkGbps);
    cmd.AddValue("bytes", "payload bytes per sender, > 0", bytes);
    cmd.AddValue("buffer", "switch buffer in bytes (0 = 2 MiB per port)", buffer);
    cmd.AddValue("payload", "UDP payload per datagram, 16..4096", payload);
    cmd.AddValue("seed", "random seed, >= 1", seed);
    cmd.AddValue("pcap", "write pcap files of the switch ports", pcap);
    cmd.AddValue("out", "results directory (default results/fabric-incast-<time>)", out);
    cmd.Parse(argc, argv);

    if (senders < 1 || senders > 1024)
    {
        BadInput("senders must be in [1, 1024] (got " + std::to_string(senders) + ")");
    }
    if (!(linkGbps > 0))
    {
        BadInput("linkGbps must be > 0 (got " + std::to_string(linkGbps) + ")");
    }
    if (bytes == 0)
    {
        BadInput("bytes must be > 0");
    }
    if (payload < 16 || payload > 4096)
    {
        BadInput("payload must be in [16, 4096] (got " + std::to_string(payload) + ")");
    }
    if (seed < 1)
    {
        BadInput("seed must be >= 1");
    }
    ResultsDirectory results;
    results.Start(out, "fabric-incast");
    namespace fs = std::filesystem;
    const fs::path tmp = results.GetPath();

    RngSeedManager::SetSeed(seed);
    Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
    star->SetAttribute("Servers", UintegerValue(senders + 1));
    star->SetAttribute("GpusPerServer", UintegerValue(1));
    star->SetAttribute("LinkRate", DataRateValue(DataRate(uint64_t(linkGbps * 1e9))));
    if (buffer)
    {
        star->SetBufferAttribute("BufferSize", UintegerValue(buffer));
    }
    if (!pfc)
    {
        star->GetLinkHelper().SetFlowControlAttribute("EnabledPriorities", UintegerValue(0));
    }
    Ptr<FabricTopology> topo = star->Build();
    topo->AssignStreams(0);
    std::cout << topo->Describe() << std::endl;

    std::vector<Ptr<FabricTrafficSource>> srcs;
    for (uint32_t i = 1; i <= senders; ++i)
    {
        Ptr<FabricTrafficSource> s = CreateObject<FabricTrafficSource>();
        s->SetAttribute("Remote", Ipv4AddressValue(topo->GetHostAddress(0)));
        s->SetAttribute("FlowId", UintegerValue(i));
        s->SetAttribute("PayloadSize", UintegerValue(payload));
        s->SetAttribute("MaxBytes", UintegerValue(bytes));
        topo->GetHostNode(i)->AddApplication(s);
        srcs.push_back(s);
    }
    Ptr<FabricTrafficSink> sink = CreateObject<FabricTrafficSink>();
    topo->GetHostNode(0)->AddApplication(sink);

    Ptr<FabricSwitch> sw = topo->GetSwitch(0);
    auto queue = Create<CsvTraceWriter>((tmp / "queue.csv").string(),
                                        std::vector<std::string>{"time_us", "queue_bytes"});
    sw->GetPort(0)->TraceConnectWithoutContext("QueueLength", MakeBoundCallback(&QueueSink, queue));
    auto pfcCsv =
        Create<CsvTraceWriter>((tmp / "pfc.csv").string(),
                               std::vector<std::string>{"time_us", "port", "priority", "quanta"});
    auto drops = Create<CsvTraceWriter>(
        (tmp / "drops.csv").string(),
        std::vector<std::string>{"time_us", "where", "flow", "seq", "reason"});
    for (uint16_t p = 0; p < sw->GetNPorts(); ++p)
    {
        sw->GetPort(p)->GetFlowControl()->TraceConnectWithoutContext(
            "PauseSent",
            MakeBoundCallback(&PfcSink, pfcCsv, uint32_t(p)));
    }
    sw->TraceConnectWithoutContext("Drop",
                                   MakeBoundCallback(&DropSink, drops, std::string("switch")));
    for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
    {
        topo->GetHostDevice(h)->TraceConnectWithoutContext(
            "Drop",
            MakeBoundCallback(&DropSink, drops, "host" + std::to_string(h)));
    }
    if (pcap)
    {
        star->GetLinkHelper().EnablePcap((tmp / "incast").string(),
                                         NodeContainer(topo->GetSwitchNode(0)));
    }

    Simulator::Run();

    uint64_t sentPkts = 0;
    for (auto& s : srcs)
    {
        sentPkts += s->GetSentPackets();
    }
    uint64_t pauses = 0;
    for (uint16_t p = 0; p < sw->GetNPorts(); ++p)
    {
        pauses += sw->GetPort(p)->GetCounters().pfcFramesTx;
    }
    const auto& c = sw->GetCounters();
    uint64_t dropped = 0;
    for (auto d : c.drops)
    {
        dropped += d;
    }
    const double span = (sink->GetLastRxTime() - sink->GetFirstRxTime()).GetSeconds();
    const double goodput = span > 0 ? sink->GetReceivedBytes() * 8.0 / span / 1e9 : 0;
    std::ostringstream summary;
    summary << "senders " << senders << ", PFC " << (pfc ? "on" : "off") << ", link " << linkGbps
            << " Gb/s, " << bytes << " B each\n"
            << "sent packets      " << sentPkts << "\n"
            << "delivered packets " << sink->GetReceivedPackets() << "\n"
            << "dropped packets   " << dropped << " (buffer-full "
            << c.drops[size_t(FabricDropReason::BUFFER_FULL)] << ")\n"
            << "PFC frames sent   " << pauses << "\n"
            << "ECN marks         " << c.ecnMarks << "\n"
            << "goodput           " << goodput << " Gb/s at the receiver\n"
            << "latency us        min " << sink->GetMinLatency().GetMicroSeconds() << " mean "
            << sink->GetMeanLatency().GetMicroSeconds() << " max "
            << sink->GetMaxLatency().GetMicroSeconds() << "\n"
            << "peak buffer       " << sw->GetBufferManager()->GetPeakUsedBytes() << " B\n";
    std::cout << summary.str();
    {
        std::ofstream f(tmp / "summary.txt");
        f << summary.str();
        auto flows = Create<CsvTraceWriter>(
            (tmp / "flows.csv").string(),
            std::vector<std::string>{"flow", "bytes", "packets", "ce_marked", "goodput_gbps"});
        for (const auto& kv : sink->GetFlowStats())
        {
            const double d = (kv.second.lastRx - kv.second.firstRx).GetSeconds();
            flows->Row(kv.first,
                       kv.second.bytes,
                       kv.second.packets,
                       kv.second.ceMarked,
                       d > 0 ? kv.second.bytes * 8.0 / d / 1e9 : 0.0);
        }
    }
    queue->Flush();
    pfcCsv->Flush();
    drops->Flush();
    {
        std::ofstream gp(tmp / "queue.gp");
        gp << "set terminal pngcairo size 900,500\nset output 'queue.png'\n"
           << "set datafile separator ','\nset key top right\n"
           << "set xlabel 'time (us)'\nset ylabel 'bottleneck queue (KB)'\n"
           << "set title '" << senders << "->1 incast at " << linkGbps << " Gb/s, PFC "
           << (pfc ? "on" : "off") << "'\n"
           << "plot 'queue.csv' every ::1 using 1:($2/1024) with steps lw 2 title 'egress queue "
              "(prio 3)'\n";
    }
    Simulator::Destroy();
    return results.Finish("queue.gp", "fabric-incast");
}

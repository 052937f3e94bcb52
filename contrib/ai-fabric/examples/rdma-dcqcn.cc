// SPDX-License-Identifier: GPL-2.0-only
//
// DCQCN on RoCEv2: N senders share one 400 Gb/s bottleneck (star, PFC on priority 3). Plots
// each queue pair's rate (set by DCQCN) and the bottleneck queue with gnuplot.
//
//   rdma-dcqcn [--senders=2] [--preset=nvidia|paper] [--cc=ns3::RdmaDcqcn|ns3::RdmaNoCc]
//              [--ms=10] [--stagger=200] [--out=DIR]
//
// Writes rate.csv (time_us, sender, rate_gbps: every DCQCN rate change), queue.csv (time_us,
// bytes), throughput.csv (time_us, then each sender's Gb/s at the receiver per 100 us),
// summary.txt, and rate.png / queue.png when gnuplot exists. The CNP interval follows the
// preset (NVIDIA 4 us, paper 50 us) unless --cnpInterval is given.
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <cmath>
#include <cstdlib>
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
    std::cerr << "rdma-dcqcn: " << msg << std::endl;
    std::exit(2);
}

void
RateSink(Ptr<CsvTraceWriter> w, uint32_t sender, uint64_t, uint64_t bps)
{
    w->Row(Simulator::Now().GetNanoSeconds() / 1000.0, sender, bps / 1e9);
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
Sample(Ptr<CsvTraceWriter> w,
       std::vector<Ptr<RdmaQueuePair>> rx,
       std::vector<uint64_t> last,
       Time period)
{
    std::vector<uint64_t> now(rx.size());
    std::ostringstream row;
    row << Simulator::Now().GetNanoSeconds() / 1000.0;
    for (size_t i = 0; i < rx.size(); ++i)
    {
        now[i] = rx[i]->GetStats().bytesReceived;
        row << "," << double(now[i] - last[i]) * 8 / period.GetSeconds() / 1e9;
    }
    w->RawRow(row.str());
    Simulator::Schedule(period, &Sample, w, rx, now, period);
}

} // namespace

int
main(int argc, char** argv)
{
    uint32_t senders = 2;
    std::string preset = "nvidia";
    std::string cc = "ns3::RdmaDcqcn";
    double ms = 10;
    double staggerUs = 200;
    double cnpUs = 0;
    std::string out;
    CommandLine cmd(__FILE__);
    cmd.AddValue("senders", "number of senders, 1..256", senders);
    cmd.AddValue("preset", "DCQCN preset: nvidia or paper", preset);
    cmd.AddValue("cc", "congestion control TypeId", cc);
    cmd.AddValue("ms", "simulated milliseconds, > 0", ms);
    cmd.AddValue("stagger", "microseconds between sender starts, >= 0", staggerUs);
    cmd.AddValue("cnpInterval", "NP CNP interval in us (0 = preset's)", cnpUs);
    cmd.AddValue("out", "results directory (default results/rdma-dcqcn-<preset>-<pid>)", out);
    cmd.Parse(argc, argv);
    if (senders < 1 || senders > 256)
    {
        BadInput("senders must be in [1, 256] (got " + std::to_string(senders) + ")");
    }
    if (preset != "nvidia" && preset != "paper")
    {
        BadInput("preset must be nvidia or paper (got '" + preset + "')");
    }
    if (!(ms > 0) || !(staggerUs >= 0))
    {
        BadInput("ms must be > 0 and stagger >= 0");
    }
    TypeId ccTid;
    if (!TypeId::LookupByNameFailSafe(cc, &ccTid) ||
        !ccTid.IsChildOf(RdmaCongestionOps::GetTypeId()))
    {
        BadInput("cc must name an RdmaCongestionOps TypeId such as ns3::RdmaDcqcn (got '" + cc +
                 "')");
    }
    ResultsDirectory results;
    results.Start(out, "rdma-dcqcn");
    namespace fs = std::filesystem;
    const fs::path tmp = results.GetPath();

    Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
    star->SetAttribute("Servers", UintegerValue(senders + 1));
    star->SetAttribute("GpusPerServer", UintegerValue(1));
    Ptr<FabricTopology> topo = star->Build();
    topo->AssignStreams(0);
    RdmaHelper rdma;
    rdma.SetCongestionControl(cc);
    if (cc == "ns3::RdmaDcqcn")
    {
        rdma.SetCongestionControlAttribute("Preset", StringValue(preset));
    }
    rdma.SetNicAttribute("CnpInterval",
                         TimeValue(MicroSeconds(cnpUs > 0           ? cnpUs
                                                : preset == "paper" ? 50
                                                                    : 4)));
    rdma.Install(topo);

    auto rate = Create<CsvTraceWriter>((tmp / "rate.csv").string(),
                                       std::vector<std::string>{"time_us", "sender", "rate_gbps"});
    auto queue = Create<CsvTraceWriter>((tmp / "queue.csv").string(),
                                        std::vector<std::string>{"time_us", "queue_bytes"});
    std::vector<std::string> cols{"time_us"};
    for (uint32_t i = 0; i < senders; ++i)
    {
        cols.push_back("sender" + std::to_string(i) + "_gbps");
    }
    auto tput = Create<CsvTraceWriter>((tmp / "throughput.csv").string(), cols);
    std::vector<Ptr<RdmaQueuePair>> rx;
    for (uint32_t i = 0; i < senders; ++i)
    {
        auto qp = RdmaHelper::Connect(topo->GetHostNode(i + 1), topo->GetHostNode(0));
        qp.first->TraceConnectWithoutContext("Rate", MakeBoundCallback(&RateSink, rate, i));
        const uint64_t bytes = uint64_t(ms * 1e-3 * 400e9 / 8); // more than it can send
        Simulator::Schedule(MicroSeconds(staggerUs * i),
                            [qp, bytes] { qp.first->PostWrite(bytes); });
        rx.push_back(qp.second);
    }
    topo->GetSwitch(0)->GetPort(0)->TraceConnectWithoutContext(
        "QueueLength",
        MakeBoundCallback(&QueueSink, queue));
    const Time period = MicroSeconds(100);
    Simulator::Schedule(period, &Sample, tput, rx, std::vector<uint64_t>(senders, 0), period);
    Simulator::Stop(MicroSeconds(ms * 1000));
    Simulator::Run();

    // Throughput over the last half of the run, and Jain's fairness index.
    std::ofstream summary(tmp / "summary.txt");
    double sum = 0;
    double sum2 = 0;
    summary << "cc " << cc << " preset " << preset << ", " << senders << " senders, " << ms
            << " ms\n";
    uint64_t cnps = 0;
    for (uint32_t i = 0; i < senders; ++i)
    {
        const double gbps = double(rx[i]->GetStats().bytesReceived) * 8 / (ms * 1e-3) / 1e9;
        sum += gbps;
        sum2 += gbps * gbps;
        summary << "sender " << i << ": " << gbps << " Gb/s average\n";
        cnps += rx[i]->GetStats().cnpsSent;
    }
    summary << "total " << sum << " Gb/s, Jain index " << sum * sum / (senders * sum2) << ", CNPs "
            << cnps << "\n";
    summary.close();
    std::cout << std::ifstream(tmp / "summary.txt").rdbuf();
    rate->Flush();
    queue->Flush();
    tput->Flush();
    {
        std::ofstream gp(tmp / "plots.gp");
        gp << "set terminal pngcairo size 900,500\nset datafile separator ','\n"
           << "set xlabel 'time (us)'\n"
           << "set output 'rate.png'\nset ylabel 'Gb/s'\nset title 'DCQCN (" << preset
           << "): per-sender throughput at the receiver, 100 us bins'\n"
           << "set key outside right\n"
           << "plot for [i=2:" << senders + 1
           << "] 'throughput.csv' every ::1 using 1:i with steps lw 2 title 'sender '.(i-2)\n"
           << "set output 'queue.png'\nset ylabel 'KB'\nset title 'bottleneck queue'\n"
           << "plot 'queue.csv' every ::1 using 1:($2/1024) with steps title 'queue (prio 3)'\n";
    }
    Simulator::Destroy();
    return results.Finish("plots.gp", "rdma-dcqcn");
}

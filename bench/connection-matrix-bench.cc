// SPDX-License-Identifier: GPL-2.0-only
//
// The workload of a side-by-side with UEC's htsim: a connection matrix in htsim's format run on
// a 3-tier k-ary fat-tree, 400 Gb/s, RoCEv2 with PFC, path MTU 4096, no congestion control,
// every cable 50 m (250 ns), on ai-fabric's TimingWheelScheduler. Prints the CPU time inside
// Simulator::Run, events, data packet-links (a data packet crossing one link), CPU per
// packet-link, and the flows' completion times (FCT: from the start of the flow to its
// completion at the sender, as htsim reports its flows' finish times); --fct-out writes one
// line per flow.
//
// The matrix format (htsim's ConnectionMatrix::load, what its gen_permutation.py writes):
//   Nodes <N>
//   Connections <M>
//   <src>-><dst> [id <n>] [start <picoseconds>] size <bytes>
// Empty lines and lines starting with '#' are skipped; hosts are numbered 0..N-1. htsim's
// triggers and failures are not supported.
//
// Usage: connection-matrix-bench --matrix=FILE [--ack-per-packet] [--k=K] [--fct-out=FILE]
//   --ack-per-packet   acknowledge every data packet (htsim's RoCE does; our default coalesces
//                      ACKs for up to 2 us)
//   --k                the fat-tree's switch radix (0, the default: the smallest that holds N)
#include "bench-util.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
using namespace aifabricbench;

namespace
{

struct Connection
{
    uint32_t src{0};
    uint32_t dst{0};
    uint64_t startPs{0};
    uint64_t bytes{0};
    Time completed;
};

/// Bad input: one line naming what is wrong, exit status 2.
[[noreturn]] void
Fail(const std::string& what)
{
    std::fprintf(stderr, "connection-matrix-bench: %s\n", what.c_str());
    std::exit(2);
}

uint64_t
Number(const std::string& s, const std::string& field, uint64_t max)
{
    size_t used = 0;
    unsigned long long v = 0;
    try
    {
        v = std::stoull(s, &used);
    }
    catch (const std::exception&)
    {
        used = 0;
    }
    if (used == 0 || used != s.size() || v > max)
    {
        Fail(field + " must be an integer in 0.." + std::to_string(max) + " (got '" + s + "')");
    }
    return v;
}

std::vector<Connection>
Load(const std::string& path, uint32_t& nodes)
{
    std::ifstream in(path);
    if (!in)
    {
        Fail("cannot read the matrix file '" + path + "'");
    }
    std::vector<Connection> conns;
    uint64_t declared = 0;
    nodes = 0;
    std::string line;
    uint32_t lineNo = 0;
    while (std::getline(in, line))
    {
        ++lineNo;
        std::istringstream words(line);
        std::vector<std::string> w;
        for (std::string t; words >> t;)
        {
            w.push_back(t);
        }
        const std::string where = path + ":" + std::to_string(lineNo) + ": ";
        if (w.empty() || w[0][0] == '#')
        {
            continue;
        }
        if (w[0] == "Nodes" && w.size() == 2)
        {
            nodes = static_cast<uint32_t>(Number(w[1], where + "Nodes", 65536));
            continue;
        }
        if (w[0] == "Connections" && w.size() == 2)
        {
            declared = Number(w[1], where + "Connections", 100000000);
            continue;
        }
        const size_t arrow = w[0].find("->");
        if (arrow == std::string::npos)
        {
            Fail(where + "expected 'Nodes N', 'Connections M' or 'SRC->DST ... size BYTES' (got '" +
                 line + "'; triggers and failures are not supported)");
        }
        Connection c;
        c.src = static_cast<uint32_t>(Number(w[0].substr(0, arrow), where + "source", 65535));
        c.dst = static_cast<uint32_t>(Number(w[0].substr(arrow + 2), where + "destination", 65535));
        bool sized = false;
        for (size_t i = 1; i + 1 < w.size(); i += 2)
        {
            if (w[i] == "start")
            {
                c.startPs = Number(w[i + 1], where + "start (picoseconds)", UINT64_MAX / 2);
            }
            else if (w[i] == "size")
            {
                c.bytes = Number(w[i + 1], where + "size (bytes)", uint64_t(1) << 40);
                sized = c.bytes > 0;
            }
            else if (w[i] != "id")
            {
                Fail(where + "unknown key '" + w[i] + "' (allowed: id, start, size)");
            }
        }
        if (!sized || w.size() % 2 != 1)
        {
            Fail(where + "a connection needs 'size BYTES' (> 0) and key-value pairs");
        }
        if (c.src >= nodes || c.dst >= nodes || c.src == c.dst)
        {
            Fail(where + "hosts must be distinct and below Nodes (" + std::to_string(nodes) + ")");
        }
        conns.push_back(c);
    }
    if (nodes < 2 || conns.empty() || conns.size() != declared)
    {
        Fail("'" + path + "' must declare Nodes >= 2 and as many connections as 'Connections' (" +
             std::to_string(declared) + " declared, " + std::to_string(conns.size()) + " found)");
    }
    return conns;
}

std::vector<Connection> g_conns;

void
OnCompletion(uint32_t i, const RdmaCompletion& c)
{
    g_conns[i].completed = c.completed;
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

} // namespace

int
main(int argc, char** argv)
{
    std::string matrix;
    std::string fctOut;
    bool ackPerPacket = false;
    uint32_t k = 0;
    CommandLine cmd(__FILE__);
    cmd.AddValue("matrix", "htsim connection matrix (Nodes, Connections, SRC->DST lines)", matrix);
    cmd.AddValue("ack-per-packet", "acknowledge every data packet", ackPerPacket);
    cmd.AddValue("k", "fat-tree switch radix (even; 0: the smallest that holds every host)", k);
    cmd.AddValue("fct-out", "write 'src dst bytes fct_ns' per flow to this file", fctOut);
    cmd.Parse(argc, argv);
    if (matrix.empty())
    {
        // ./ai-fabric bench runs every benchmark without arguments: nothing to do here.
        std::printf("connection-matrix-bench: give --matrix=FILE (htsim's connection-matrix "
                    "format, e.g. from its gen_permutation.py)\n");
        return 0;
    }
    uint32_t nodes = 0;
    g_conns = Load(matrix, nodes);

    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::FabricSimulatorImpl"));
    ObjectFactory sched;
    sched.SetTypeId("ns3::TimingWheelScheduler");
    Simulator::SetScheduler(sched);
    const double t0 = CpuSeconds();
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("Servers", UintegerValue(nodes));
    ft->SetAttribute("GpusPerServer", UintegerValue(1));
    ft->SetAttribute("Tiers", UintegerValue(3));
    ft->SetAttribute("K", UintegerValue(k));
    ft->SetAttribute("LinkRate", DataRateValue(DataRate("400Gbps")));
    ft->SetAttribute("HostCableLength", DoubleValue(50));
    ft->SetAttribute("FabricCableLength", DoubleValue(50));
    Ptr<FabricTopology> topo = ft->Build();
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    if (ackPerPacket)
    {
        rdma.SetNicAttribute("AckInterval", TimeValue(Time(0)));
    }
    rdma.Install(topo);
    std::vector<Ptr<RdmaQueuePair>> senders;
    for (uint32_t i = 0; i < g_conns.size(); ++i)
    {
        const Connection& c = g_conns[i];
        auto qp = RdmaHelper::Connect(topo->GetHostNode(c.src), topo->GetHostNode(c.dst));
        qp.first->SetCompletionCallback(MakeBoundCallback(&OnCompletion, i));
        Simulator::Schedule(PicoSeconds(c.startPs), &RdmaQueuePair::PostWrite, qp.first, c.bytes);
        senders.push_back(qp.first);
    }
    const double setup = CpuSeconds() - t0;
    const uint64_t ev0 = Simulator::GetEventCount();
    const double t1 = CpuSeconds();
    Simulator::Run();
    const double cpu = CpuSeconds() - t1;
    const uint64_t events = Simulator::GetEventCount() - ev0;

    uint64_t packetLinks = 0;
    std::vector<double> fcts;
    std::ofstream fct;
    if (!fctOut.empty())
    {
        fct.open(fctOut);
    }
    for (uint32_t i = 0; i < g_conns.size(); ++i)
    {
        const Connection& c = g_conns[i];
        packetLinks += senders[i]->GetStats().dataPackets * Links(topo, c.src, c.dst);
        const double us = (c.completed - PicoSeconds(c.startPs)).GetNanoSeconds() / 1e3;
        fcts.push_back(c.completed.IsZero() ? -1 : us);
        if (fct)
        {
            fct << c.src << ' ' << c.dst << ' ' << c.bytes << ' '
                << (c.completed - PicoSeconds(c.startPs)).GetNanoSeconds() << '\n';
        }
    }
    std::sort(fcts.begin(), fcts.end());
    const size_t unfinished = std::count(fcts.begin(), fcts.end(), -1.0);
    std::printf(
        "%u hosts (k-ary fat-tree, %u switches), %zu flows, 400 Gb/s, MTU 4096, PFC, no CC, "
        "%s\n",
        nodes,
        topo->GetNSwitches(),
        g_conns.size(),
        ackPerPacket ? "an ACK per packet" : "ACKs coalesced (2 us)");
    std::printf("cpu %.3f s in Simulator::Run (set-up %.3f s), %llu events, %llu packet-links, "
                "%.1f ns per packet-link, %.2f events per packet-link, peak RSS %.0f MB\n",
                cpu,
                setup,
                (unsigned long long)events,
                (unsigned long long)packetLinks,
                cpu * 1e9 / double(packetLinks),
                double(events) / double(packetLinks),
                PeakRssMb());
    if (unfinished < fcts.size())
    {
        const size_t done = fcts.size() - unfinished;
        std::printf("FCT us: fastest %.3f, median %.3f, slowest %.3f (%zu unfinished)\n",
                    fcts[unfinished],
                    fcts[unfinished + done / 2],
                    fcts.back(),
                    unfinished);
    }
    Simulator::Destroy();
    return 0;
}

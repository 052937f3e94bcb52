// SPDX-License-Identifier: GPL-2.0-only
//
// The seed's barrier story on a packet-level cluster: 64 GPUs (8 servers x 8) on the
// rail-optimized fat-tree run data-parallel training steps (compute, then a hierarchical
// AllReduce over RoCEv2). Step 1 has a compute straggler; step 2 loses packets on one GPU's link
// (lossy RoCE, go-back-N) including the tail of a message, so a retransmission timeout fires.
// Every rank waits at the barrier for the slowest one.
//
//   barrier-story [--servers=8] [--mib=64] [--straggler-ms=10] [--rto-us=500] [--out=DIR]
//
// Writes steps.csv (per step per rank: compute end, collective end), steps_summary.csv (who was
// last and why) and timeline.png (per-rank timeline: compute green, waiting red).
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

using namespace ns3;

namespace
{

[[noreturn]] void
BadInput(const std::string& msg)
{
    std::cerr << "barrier-story: " << msg << std::endl;
    std::exit(2);
}

bool g_dropTail = false;
uint32_t g_tails = 0;
uint32_t g_lastTail = 0;

/// Lose the tail of the last network message that reaches the victim in step 2: no later packet
/// of that queue pair can reveal the gap, so only the retransmission timeout recovers it.
bool
TailFilter(Ptr<TrainingJob> job, const FabricFrame& f)
{
    if (g_dropTail || job->GetSteps().size() != 3 || f.dstPort != 4791 || f.aux[0] > 0x0a)
    {
        return false;
    }
    if ((f.aux[0] == 0x08 || f.aux[0] == 0x0a) && ++g_tails == g_lastTail) // WRITE LAST / ONLY
    {
        g_dropTail = true;
        return true;
    }
    return false;
}

} // namespace

int
main(int argc, char** argv)
{
    uint32_t servers = 8;
    uint32_t mib = 64;
    double stragglerMs = 10;
    double rtoUs = 500;
    std::string out;
    CommandLine cmd(__FILE__);
    cmd.AddValue("servers", "servers of 8 GPUs, 2..64", servers);
    cmd.AddValue("mib", "AllReduce MiB per GPU, >= 1", mib);
    cmd.AddValue("straggler-ms", "extra compute of the straggler in step 1, >= 0", stragglerMs);
    cmd.AddValue("rto-us", "RDMA retransmission timeout in us, > 0", rtoUs);
    cmd.AddValue("out", "results directory (default results/barrier-story-<pid>)", out);
    cmd.Parse(argc, argv);
    if (servers < 2 || servers > 64)
    {
        BadInput("servers must be in [2, 64] (got " + std::to_string(servers) + ")");
    }
    if (mib < 1 || !(stragglerMs >= 0) || !(rtoUs > 0))
    {
        BadInput("mib must be >= 1, straggler-ms >= 0 and rto-us > 0");
    }
    ResultsDirectory results;
    results.Start(out, "barrier-story");
    namespace fs = std::filesystem;
    const fs::path tmp = results.GetPath();

    Ptr<RailOptimizedFatTreeHelper> rail = CreateObject<RailOptimizedFatTreeHelper>();
    rail->SetAttribute("Servers", UintegerValue(servers));
    rail->SetAttribute("GpusPerServer", UintegerValue(8));
    rail->GetLinkHelper().SetFlowControlAttribute("EnabledPriorities",
                                                  UintegerValue(0)); // lossy RoCE
    Ptr<FabricTopology> topo = rail->Build();
    topo->AssignStreams(0);
    std::cout << topo->Describe() << std::endl;
    RdmaHelper rdma;
    rdma.SetNicAttribute("RetransmitTimeout", TimeValue(MicroSeconds(rtoUs)));
    rdma.Install(topo);
    Ptr<RdmaCollectiveTransport> net = CreateObject<RdmaCollectiveTransport>();
    net->SetRanks(topo->GetHosts());
    Ptr<NvlinkTransport> nvlink = CreateObject<NvlinkTransport>();
    nvlink->SetRanks(topo->GetNHosts());
    const uint32_t straggler = 8 + 5; // GPU 5 of server 1
    for (uint32_t r = 0; r < topo->GetNHosts(); ++r)
    {
        Ptr<GpuTrainingApp> app = CreateObject<GpuTrainingApp>();
        app->SetAttribute("ComputeTime", TimeValue(MilliSeconds(20)));
        if (r == straggler)
        {
            app->SetAttribute("ExtraDelay", TimeValue(MicroSeconds(stragglerMs * 1000)));
            app->SetAttribute("SlowSteps", StringValue("1"));
        }
        topo->GetHostNode(r)->AddApplication(app);
    }
    Ptr<TrainingJob> job = CreateObject<TrainingJob>();
    job->SetAttribute("Steps", UintegerValue(3));
    job->SetAttribute("Algorithm", TypeIdValue(HierarchicalCollective::GetTypeId()));
    job->SetAttribute("Bytes", UintegerValue(uint64_t(mib) << 20));
    job->Setup(topo->GetHosts(), 8, net, nvlink);
    // Step 2: a lossy link into one GPU (0.1% random loss plus one lost message tail).
    const uint32_t victim = (servers / 2) * 8 + 2; // GPU 2 of the middle server
    g_lastTail = 2 * (servers - 1);                // messages of the per-rail inter-server ring
    topo->GetHostDevice(victim)->SetAttribute("ReceiveErrorRate", DoubleValue(1e-3));
    topo->GetHostDevice(victim)->SetReceiveFilter(MakeBoundCallback(&TailFilter, job));
    Simulator::Schedule(Time(0), [&] {
        // Lossless before step 2: the random loss is switched on when step 2 starts.
        topo->GetHostDevice(victim)->SetAttribute("ReceiveErrorRate", DoubleValue(0.0));
    });
    job->TraceConnectWithoutContext(
        "StepDone",
        MakeCallback(+[](Ptr<FabricNetDevice> dev, const TrainingStepRecord& r) {
            dev->SetAttribute("ReceiveErrorRate", DoubleValue(r.step == 1 ? 1e-3 : 0.0));
        }).Bind(topo->GetHostDevice(victim)));
    job->Start();
    Simulator::Run();

    std::ofstream steps(tmp / "steps.csv");
    std::ofstream sum(tmp / "steps_summary.csv");
    steps << "step,rank,start_ms,compute_end_ms,collective_end_ms\n";
    sum << "step,step_ms,collective_ms,last_rank,waited_on,cause,retransmissions,timeouts\n";
    for (const auto& r : job->GetSteps())
    {
        for (uint32_t k = 0; k < r.computeEnd.size(); ++k)
        {
            steps << r.step << "," << k << "," << r.start.GetSeconds() * 1e3 << ","
                  << r.computeEnd[k].GetSeconds() * 1e3 << ","
                  << r.collectiveEnd[k].GetSeconds() * 1e3 << "\n";
        }
        sum << r.step << "," << r.StepTime().GetSeconds() * 1e3 << ","
            << r.CollectiveTime().GetSeconds() * 1e3 << "," << r.lastRank << "," << r.waitedOn
            << "," << r.cause << "," << r.retransmissions << "," << r.timeouts << "\n";
        std::cout << "step " << r.step << ": " << r.StepTime().GetSeconds() * 1e3
                  << " ms (AllReduce " << r.CollectiveTime().GetSeconds() * 1e3
                  << " ms after the last compute), everyone waited on rank " << r.waitedOn << " ("
                  << r.cause << "; " << r.retransmissions << " retransmissions, " << r.timeouts
                  << " timeouts)" << std::endl;
    }
    steps.close();
    sum.close();
    {
        std::ofstream gp(tmp / "timeline.gp");
        gp << "set terminal pngcairo size 1000,600\nset output 'timeline.png'\nset datafile "
              "separator ','\n"
           << "set title 'Who waited for whom: compute (green), waiting at the AllReduce barrier "
              "(red)'\n"
           << "set xlabel 'time (ms)'\nset ylabel 'rank'\nset yrange [-1:" << topo->GetNHosts()
           << "]\nunset key\n"
           << "plot 'steps.csv' every ::1 using 4:2:3:4:($2-0.4):($2+0.4) with boxxyerror fs solid "
              "0.8 lc rgb '#2e8b57', \\\n"
           << "     '' every ::1 using 5:2:4:5:($2-0.4):($2+0.4) with boxxyerror fs solid 0.8 lc "
              "rgb '#c0392b'\n";
    }
    Simulator::Destroy();
    return results.Finish("timeline.gp", "barrier-story");
}

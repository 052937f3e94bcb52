// SPDX-License-Identifier: GPL-2.0-only
//
// A fabric cut across MPI ranks (issue 45): the same RDMA traffic on a leaf-spine fabric run
// twice in one program, first sequentially (ns-3's DefaultSimulatorImpl, every node on rank 0),
// then on N ranks with ns-3's distributed simulator (--sync=granted-time-window:
// DistributedSimulatorImpl, --sync=null-message: NullMessageSimulatorImpl). Hosts and leaves are
// dealt to ranks in contiguous blocks and spines round robin, so only leaf-spine cables cross
// ranks; frames on them (data, ACKs and PAUSE frames: an incast fills a leaf's buffer) travel as
// MPI messages. Rank 0 gathers every flow's completion time and the fabric's counters and
// compares them with the sequential run's, to the nanosecond. Both runs order events of equal
// times by FabricPartitionScheduler (--order=partition, the default): identical on 2 and 4 ranks
// (ctest: fabric-cut-*). With --order=ns3 (ns-3's own schedulers) 2 ranks happen to be identical
// but on 4 one flow ends 1 ns later and the leaves send 2 more PAUSE frames: events at equal
// times run in another order when one of them came from another rank (doc/ai-fabric.rst,
// "Building with MPI").
// With --faults both runs also lose 0.5% of all frames (PAUSE frames included) at both ends of
// every leaf-spine cable and take the cut cable leaf 0-spine 1 down from 20 to 45 us (RDMA's
// retransmission timeout 100 us): lost and link-down frames are compared too.
// Frames to another rank leave in batches (FabricRankMailbox): the test checks that batches
// formed (fewer messages than frames); --no-batch sends each frame as a message of its own
// (FabricChannel::RankBatching false), with the same results.
// Run: mpirun -np N ai-fabric-fabric-cut-test --sync=granted-time-window|null-message
// [--order=partition|ns3] [--faults] [--no-batch]
// (ctest: fabric-cut-*). With --system-id-beyond-ranks the spines are put on rank N, which
// does not exist: the build must stop with one line naming the node and the ranks. Exit 0 when
// identical, 1 when not, 2 on bad usage.

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/mpi-interface.h"
#include "ns3/network-module.h"

#include <cstdio>
#include <mpi.h>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

struct Flow
{
    uint32_t src;
    uint32_t dst;
    uint64_t bytes;
    int64_t startNs;
};

// Eight hosts under four leaves (two each) and two spines. Starts are spread over odd
// nanoseconds; hosts 0-3 also send into host 7 at once, an incast that fills its leaf and makes
// it pause the spines, which are on other ranks.
const std::vector<Flow> kFlows = {
    {0, 5, 1 << 20, 0},
    {1, 6, 1 << 20, 1003},
    {6, 2, 1 << 19, 2011},
    {4, 1, 1 << 19, 3019},
    {0, 7, 1 << 18, 5003},
    {1, 7, 1 << 18, 5011},
    {2, 7, 1 << 18, 5023},
    {3, 7, 1 << 18, 5039},
};

struct Outcome
{
    std::vector<int64_t> fctNs; //!< per flow; -1 where this rank does not run the sender
    int64_t pauses{0};          //!< PAUSE frames sent by the ports of nodes this rank runs
    int64_t dataFrames{0};      //!< data frames sent by those ports
    int64_t lost{0};            //!< frames those ports dropped as corrupt (link loss)
    int64_t linkDown{0};        //!< frames those ports dropped as link-down
    int64_t cutCables{0};
    size_t cables{0};
    int64_t batchedFrames{0}; //!< frames this rank sent to others in batches
    int64_t messages{0};      //!< the batches' messages
};

Outcome
RunOnce(uint32_t ranks, uint32_t rank, bool beyond, bool faults)
{
    // With faults, a lost tail is recovered after 100 us (IRN's timeout) instead of 67 ms.
    Config::SetDefault("ns3::RdmaNic::RetransmitTimeout",
                       TimeValue(faults ? MicroSeconds(100) : NanoSeconds(4096ULL << 14)));
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("Servers", UintegerValue(8));
    ft->SetAttribute("GpusPerServer", UintegerValue(1));
    ft->SetAttribute("Tiers", UintegerValue(2));
    ft->SetAttribute("LeafRadix", UintegerValue(4));
    ft->SetAttribute("LinkRate", DataRateValue(DataRate("400Gbps")));
    // Small switches (256 KiB each), so that the incast into host 7 pauses the spines.
    ft->SetBufferAttribute("BufferPerPort", UintegerValue(64 * 1024));
    // Leaves with their hosts in contiguous blocks, spines round robin (SetPartition's rule
    // for a leaf-spine fat-tree), so only leaf-spine cables cross ranks.
    ft->SetPartition(ranks);
    if (beyond)
    {
        ft->SetSystemIdOf([ranks](const std::string& role, uint32_t index) -> uint32_t {
            if (role == "spine")
            {
                return ranks; // one rank too far: the build must stop and say so
            }
            return role == "host" ? index * ranks / 8 : index * ranks / 4;
        });
    }
    Ptr<FabricTopology> topo = ft->Build();
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    rdma.Install(topo);
    // Fixed random streams: the sequential and the distributed run are built in one process,
    // one after the other, and automatic stream numbers would differ between them.
    topo->AssignStreams(1000);

    Outcome out;
    out.fctNs.assign(kFlows.size(), -1);
    out.cables = topo->GetLinks().size();
    for (const FabricLinkInfo& l : topo->GetLinks())
    {
        const uint32_t sa = l.devA->GetNode()->GetSystemId();
        const uint32_t sb = l.devB->GetNode()->GetSystemId();
        if (sa != sb)
        {
            ++out.cutCables;
            NS_ABORT_MSG_IF(l.a < topo->GetNHosts() || l.b < topo->GetNHosts(),
                            "fabric-cut-test: a host cable crosses ranks");
        }
    }
    Ptr<FabricFaultInjector> injector;
    if (faults)
    {
        // Every rank schedules the same changes (they act on both ends of a link; a rank's
        // changes to the other rank's devices touch nothing that runs there). 0.5% of data
        // frames lost at both ends of every leaf-spine cable, PAUSE frames included; and the
        // one from leaf 0 to spine 1 goes down at 20 us and comes back at 45 us.
        injector = CreateObject<FabricFaultInjector>();
        injector->SetTopology(topo);
        FabricFaultEvent loss;
        loss.action = FabricFaultEvent::LOSS;
        loss.rate = 0.005;
        loss.allFrames = true;
        FabricFaultEvent down;
        down.action = FabricFaultEvent::DOWN;
        down.at = MicroSeconds(20);
        for (uint32_t k = 0; k < topo->GetLinks().size(); ++k)
        {
            const FabricLinkInfo& l = topo->GetLinks()[k];
            if (l.a >= topo->GetNHosts() && l.b >= topo->GetNHosts())
            {
                loss.links.push_back(k);
                // leaf 0 (vertex 8) to spine 1 (vertex 13): cut on 2 and 4 ranks
                if ((l.a == 8 && l.b == 13) || (l.a == 13 && l.b == 8))
                {
                    down.links.push_back(k);
                }
            }
        }
        FabricFaultEvent up = down;
        up.action = FabricFaultEvent::UP;
        up.at = MicroSeconds(45);
        injector->AddEvent(loss);
        if (!down.links.empty())
        {
            injector->AddEvent(down);
            injector->AddEvent(up);
        }
    }
    for (uint32_t i = 0; i < kFlows.size(); ++i)
    {
        const Flow& f = kFlows[i];
        auto qp = RdmaHelper::Connect(topo->GetHostNode(f.src), topo->GetHostNode(f.dst));
        if (topo->GetHostNode(f.src)->GetSystemId() != rank)
        {
            continue; // the sender runs on another rank
        }
        qp.first->SetCompletionCallback(
            MakeCallback(+[](int64_t* fct, int64_t start, const RdmaCompletion&) {
                *fct = Simulator::Now().GetNanoSeconds() - start;
            }).Bind(&out.fctNs[i], f.startNs));
        Simulator::ScheduleWithContext(topo->GetHostNode(f.src)->GetId(),
                                       NanoSeconds(f.startNs),
                                       &RdmaQueuePair::PostWrite,
                                       qp.first,
                                       f.bytes);
    }
    Simulator::Stop(MilliSeconds(5));
    Simulator::Run();
    for (const FabricLinkInfo& l : topo->GetLinks())
    {
        for (Ptr<FabricNetDevice> d : {l.devA, l.devB})
        {
            if (d->GetNode()->GetSystemId() == rank)
            {
                out.pauses += static_cast<int64_t>(d->GetCounters().pfcFramesTx);
                out.dataFrames += static_cast<int64_t>(d->GetCounters().txDataFrames);
                const auto& drops = d->GetCounters().drops;
                out.lost +=
                    static_cast<int64_t>(drops[static_cast<size_t>(FabricDropReason::CORRUPT)]);
                out.linkDown +=
                    static_cast<int64_t>(drops[static_cast<size_t>(FabricDropReason::LINK_DOWN)]);
            }
        }
    }
    out.batchedFrames = static_cast<int64_t>(FabricRankMailbox::GetFramesSent());
    out.messages = static_cast<int64_t>(FabricRankMailbox::GetMessagesSent());
    Simulator::Destroy();
    return out;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string sync;
    std::string order = "partition";
    bool beyond = false; // --system-id-beyond-ranks: spines on a rank that does not exist
    bool faults = false; // --faults: loss on the leaf-spine cables and a cut cable down a while
    bool batch = true;   // --no-batch: a message per frame across ranks
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        if (a.rfind("--sync=", 0) == 0)
        {
            sync = a.substr(7);
        }
        if (a.rfind("--order=", 0) == 0)
        {
            order = a.substr(8);
        }
        beyond = beyond || a == "--system-id-beyond-ranks";
        faults = faults || a == "--faults";
        batch = batch && a != "--no-batch";
    }
    Config::SetDefault("ns3::FabricChannel::RankBatching", BooleanValue(batch));
    if (sync != "granted-time-window" && sync != "null-message")
    {
        std::fprintf(stderr,
                     "fabric-cut-test: --sync must be granted-time-window or null-message\n");
        return 2;
    }
    if (order != "partition" && order != "ns3")
    {
        std::fprintf(stderr, "fabric-cut-test: --order must be partition or ns3\n");
        return 2;
    }
    const bool partition = order == "partition";
    if (partition)
    {
        // Both runs order events of equal times by FabricPartitionScheduler's key (ns-3's
        // cores wrapped in FabricOrderedSimulatorImpl).
        FabricPartitionScheduler::Select();
    }

    // The sequential run: every node on rank 0, ns-3's default simulator.
    const Outcome seq = RunOnce(1, 0, false, faults);

    GlobalValue::Bind("SimulatorImplementationType",
                      StringValue(sync == "null-message" ? "ns3::NullMessageSimulatorImpl"
                                                         : "ns3::DistributedSimulatorImpl"));
    MpiInterface::Enable(&argc, &argv); // reads SimulatorImplementationType: the synchronizer
    if (partition)
    {
        FabricPartitionScheduler::Select();
    }
    const uint32_t rank = MpiInterface::GetSystemId();
    const uint32_t ranks = MpiInterface::GetSize();
    const Outcome dist = RunOnce(ranks, rank, beyond, faults);

    std::vector<int64_t> fct(kFlows.size(), -1);
    MPI_Reduce(dist.fctNs.data(),
               fct.data(),
               static_cast<int>(fct.size()),
               MPI_INT64_T,
               MPI_MAX,
               0,
               MPI_COMM_WORLD);
    int64_t sums[6] =
        {dist.pauses, dist.dataFrames, dist.lost, dist.linkDown, dist.batchedFrames, dist.messages};
    int64_t total[6] = {0, 0, 0, 0, 0, 0};
    MPI_Reduce(sums, total, 6, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    int failures = 0;
    if (rank == 0)
    {
        std::printf("%u ranks, %s, %s order: %lld of %zu cables cross ranks (leaf-spine only)\n",
                    ranks,
                    sync.c_str(),
                    order.c_str(),
                    static_cast<long long>(dist.cutCables),
                    dist.cables);
        for (uint32_t i = 0; i < kFlows.size(); ++i)
        {
            const bool same = fct[i] == seq.fctNs[i] && fct[i] > 0;
            failures += same ? 0 : 1;
            std::printf("flow %u: host %u -> %u, %llu B: FCT %lld ns sequential, %lld ns on %u "
                        "ranks%s\n",
                        i,
                        kFlows[i].src,
                        kFlows[i].dst,
                        static_cast<unsigned long long>(kFlows[i].bytes),
                        static_cast<long long>(seq.fctNs[i]),
                        static_cast<long long>(fct[i]),
                        ranks,
                        same ? "" : "  DIFFERS");
        }
        const bool pausesSame = total[0] == seq.pauses;
        const bool framesSame = total[1] == seq.dataFrames;
        failures += (pausesSame ? 0 : 1) + (framesSame ? 0 : 1) + (seq.pauses > 0 ? 0 : 1);
        std::printf("PAUSE frames %lld sequential, %lld on %u ranks%s\n",
                    static_cast<long long>(seq.pauses),
                    static_cast<long long>(total[0]),
                    ranks,
                    pausesSame ? (seq.pauses > 0 ? "" : "  (none: the incast did not pause)")
                               : "  DIFFERS");
        std::printf("data frames %lld sequential, %lld on %u ranks%s\n",
                    static_cast<long long>(seq.dataFrames),
                    static_cast<long long>(total[1]),
                    ranks,
                    framesSame ? "" : "  DIFFERS");
        if (faults)
        {
            const bool lostSame = total[2] == seq.lost;
            const bool downSame = total[3] == seq.linkDown;
            // The faults must have acted: frames lost, and some dropped at the down link.
            failures += (lostSame ? 0 : 1) + (downSame ? 0 : 1) + (seq.lost > 0 ? 0 : 1) +
                        (seq.linkDown > 0 ? 0 : 1);
            std::printf("frames lost %lld sequential, %lld on %u ranks%s\n",
                        static_cast<long long>(seq.lost),
                        static_cast<long long>(total[2]),
                        ranks,
                        lostSame ? "" : "  DIFFERS");
            std::printf("frames dropped at the down link %lld sequential, %lld on %u ranks%s\n",
                        static_cast<long long>(seq.linkDown),
                        static_cast<long long>(total[3]),
                        ranks,
                        downSame ? "" : "  DIFFERS");
        }
        // Batches must have formed (or, with --no-batch, none at all).
        const bool batched = batch ? total[4] > 0 && total[5] < total[4] : total[4] == 0;
        failures += batched ? 0 : 1;
        std::printf("frames across ranks in batches %lld, in %lld messages%s\n",
                    static_cast<long long>(total[4]),
                    static_cast<long long>(total[5]),
                    batched ? "" : (batch ? "  NO BATCHES" : "  BATCHED WITH --no-batch"));
        std::printf("%s\n", failures == 0 ? "identical" : "NOT identical");
    }
    MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MpiInterface::Disable();
    return failures == 0 ? 0 : 1;
}

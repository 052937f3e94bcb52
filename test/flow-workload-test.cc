// SPDX-License-Identifier: GPL-2.0-only
// Flow workloads (FlowSizeDistribution, FlowWorkload, FabricPathTiming): the distributions
// against their data files and their own arithmetic, the ideal FCT against a flow alone in the
// simulator, Poisson arrivals, permutation and incast patterns, and slowdown quantiles.
#include "test-util.h"

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace ns3;

TEST(FlowSizeDistributionTest, BuiltInDistributionsAreTheShippedDataFiles)
{
    for (const std::string& name : FlowSizeDistribution::Names())
    {
        const FlowSizeDistribution file = FlowSizeDistribution::FromFile(
            std::string(AIFABRIC_SOURCE_DIR) + "/contrib/ai-fabric/data/" + name + ".txt");
        EXPECT_EQ(FlowSizeDistribution::Named(name).GetPoints(), file.GetPoints()) << name;
    }
}

TEST(FlowSizeDistributionTest, SamplesInvertThePiecewiseLinearCdf)
{
    const FlowSizeDistribution ws = FlowSizeDistribution::Named("websearch");
    // Points of the CDF come back exactly; between two points sizes are interpolated.
    EXPECT_EQ(ws.Sample(0.15), 10000u);
    EXPECT_EQ(ws.Sample(0.175), 15000u);    // half-way from (10 KB, 15%) to (20 KB, 20%)
    EXPECT_EQ(ws.Sample(0.0), 1u);          // the first segment starts at 0 bytes: at least 1
    EXPECT_EQ(ws.Sample(0.985), 20000000u); // (10 MB, 97%) .. (30 MB, 100%)
    // The mean of the piecewise-linear distribution: each segment's midpoint, weighted.
    double mean = 0;
    const auto& p = ws.GetPoints();
    for (size_t i = 1; i < p.size(); ++i)
    {
        mean += (p[i].first + p[i - 1].first) / 2 * (p[i].second - p[i - 1].second) / 100;
    }
    EXPECT_DOUBLE_EQ(ws.GetMean(), mean);
    // ... and sampling on a fine grid of u reproduces it (the midpoint rule is exact on
    // linear pieces).
    for (const std::string& name : FlowSizeDistribution::Names())
    {
        const FlowSizeDistribution d = FlowSizeDistribution::Named(name);
        const int n = 1000000;
        double sum = 0;
        for (int i = 0; i < n; ++i)
        {
            sum += double(d.Sample((i + 0.5) / n));
        }
        EXPECT_NEAR(sum / n, d.GetMean(), d.GetMean() * 1e-3) << name;
    }
}

TEST(FlowSizeDistributionTest, BadFilesAreRefusedNamingTheLine)
{
    auto error = [](const std::string& text) {
        try
        {
            FlowSizeDistribution::FromText(text, "cdf.txt");
        }
        catch (const FlowSizeDistribution::Error& e)
        {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_EQ(error("0 0\n100 50\n50 100\n"),
              "cdf.txt: point 3 (50 100): bytes must not decrease and the percent must increase");
    EXPECT_EQ(error("0 0\n100 x\n"), "cdf.txt:2: expected two numbers, 'bytes cumulative-percent'");
    EXPECT_EQ(error("0 0\n100 90\n"),
              "cdf.txt: the cumulative percent must start at 0 and end at 100 (got 0 .. 90)");
    EXPECT_EQ(error("# comment only\n"), "cdf.txt: needs at least two points (got 0)");
    EXPECT_EQ(error("0 0 # start\n\n1000 100\n"), "accepted");
}

namespace
{

/// A 2-tier fat-tree of `hosts` at `gbps` (fabric links `fabricGbps`), 4 hosts per leaf, with
/// RDMA NICs running `cc`.
Ptr<FabricTopology>
SmallFatTree(uint32_t hosts, double gbps, double fabricGbps, const std::string& cc)
{
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("Servers", UintegerValue(hosts));
    ft->SetAttribute("GpusPerServer", UintegerValue(1));
    ft->SetAttribute("LeafRadix", UintegerValue(8));
    ft->SetAttribute("LinkRate", DataRateValue(DataRate(uint64_t(gbps * 1e9))));
    ft->SetAttribute("FabricLinkRate", DataRateValue(DataRate(uint64_t(fabricGbps * 1e9))));
    Ptr<FabricTopology> topo = ft->Build();
    RdmaHelper rdma;
    rdma.SetCongestionControl(cc);
    if (cc == "ns3::RdmaHpcc")
    {
        rdma.SetNicAttribute("AckInterval", TimeValue(Time(0)));
    }
    rdma.Install(topo);
    return topo;
}

} // namespace

// A flow alone on an idle fabric takes its ideal FCT: the path timing (rates, cables, switch
// latencies, store-and-forward), the packets' wire bytes and the NIC's delays add up to what the
// simulator does, up to its rounding to whole nanoseconds (at most 1 ns per hop of the data
// path and the ACK's), for one-packet, odd-sized and many-packet flows, same-leaf and
// cross-spine: 100G hosts under a 400G fabric (with and without congestion control, which
// never acts on a flow alone) and 400G hosts under a 100G fabric (the train is serialized
// at the spine links; without congestion control: DCQCN rightly reacts to the queue that the
// faster host builds there).
TEST_F(FabricTest, AFlowAloneTakesItsIdealFct)
{
    struct Case
    {
        double hostGbps;
        double fabricGbps;
        std::string cc;
    };

    for (const Case& k : {Case{100, 400, "ns3::RdmaNoCc"},
                          Case{100, 400, "ns3::RdmaDcqcn"},
                          Case{400, 400, "ns3::RdmaHpcc"},
                          Case{400, 100, "ns3::RdmaNoCc"}})
    {
        Ptr<FabricTopology> topo = SmallFatTree(8, k.hostGbps, k.fabricGbps, k.cc);
        Ptr<FlowWorkload> w = CreateObject<FlowWorkload>();
        w->Install(topo);
        const std::vector<uint64_t> sizes = {1, 1000, 4096, 4097, 100000, 10000000};
        Time t(0);
        std::vector<uint32_t> flows;
        for (uint64_t bytes : sizes)
        {
            for (uint32_t dst : {1u, 6u}) // host 1 shares host 0's leaf; host 6 does not
            {
                Simulator::Schedule(t, [&flows, w, bytes, dst]() {
                    flows.push_back(w->StartFlow(0, dst, bytes));
                });
                t += MilliSeconds(2); // each flow long done before the next
            }
        }
        Simulator::Run();
        ASSERT_EQ(w->GetNCompleted(), flows.size());
        for (uint32_t i : flows)
        {
            const FlowRecord& r = w->GetFlows()[i];
            const int64_t hops = r.dst == 1 ? 2 * 2 : 2 * 4;
            const int64_t fct = (r.end - r.start).GetNanoSeconds();
            if (k.cc == "ns3::RdmaHpcc")
            {
                // HPCC aims at eta = 95% of the bottleneck: a long flow alone runs at about
                // that share of the line (its window W = eta B T once it measured U = 1).
                EXPECT_LE(r.Slowdown(), 1 / 0.95 * 1.01) << r.bytes << " B to " << r.dst;
                EXPECT_GE(fct, r.ideal.GetNanoSeconds()) << r.bytes << " B to " << r.dst;
                continue;
            }
            EXPECT_NEAR(double(fct), double(r.ideal.GetNanoSeconds()), double(hops))
                << k.cc << ", hosts " << k.hostGbps << "G, fabric " << k.fabricGbps
                << "G: " << r.bytes << " B to host " << r.dst;
        }
        // First principles for the big flow: beyond a 1-byte flow's fixed latencies, the
        // bottleneck's rate x payload / (payload + overhead).
        const FlowRecord& big = w->GetFlows()[flows[11]]; // 10 MB across the spines
        const FlowRecord& tiny = w->GetFlows()[flows[1]]; // 1 B across the spines
        const double bps = std::min(k.hostGbps, k.fabricGbps) * 1e9;
        const uint32_t wire =
            topo->GetHostNode(0)->GetObject<RdmaNic>()->GetDataWireBytes(4096,
                                                                         false,
                                                                         k.cc == "ns3::RdmaHpcc");
        const double expected = 1e7 * 8 / bps * wire / 4096;
        EXPECT_NEAR((big.ideal - tiny.ideal).GetSeconds(), expected, expected * 2e-3);
        Simulator::Destroy();
    }
}

// Under FabricPartitionScheduler (ready to split across MPI ranks) a completion reaches the
// workload's table a message delay after the flow's end — the longest cable's delay plus a step —
// on every rank alike: the record keeps the true end, but FlowCompleted fires, and the connection
// is idle, only then. A flow of the same pair that starts before that gets a new connection; one
// that starts after reuses it.
TEST_F(FabricTest, UnderThePartitionOrderACompletionIsSeenAMessageDelayLater)
{
    SimulatorImplGuard core("ns3::FabricSimulatorImpl");
    FabricPartitionScheduler::Select();
    auto run = [](const std::vector<Time>& starts, Time* delay) {
        Ptr<FabricTopology> topo = SmallFatTree(8, 100, 100, "ns3::RdmaDcqcn");
        std::vector<Time> cables;
        for (const FabricLinkInfo& l : topo->GetLinks())
        {
            cables.push_back(DynamicCast<FabricChannel>(l.devA->GetChannel())->GetDelay());
        }
        *delay = FabricRankMailbox::GetMessageDelay(cables);
        Ptr<FlowWorkload> w = CreateObject<FlowWorkload>();
        w->SetAttribute("Duration", TimeValue(Time(0)));
        w->Install(topo);
        for (const Time& t : starts)
        {
            w->AddScheduledFlow(t, 0, 5, 64 * 1024);
        }
        std::vector<std::pair<FlowRecord, Time>> seen;
        w->TraceConnectWithoutContext(
            "FlowCompleted",
            MakeCallback(+[](std::vector<std::pair<FlowRecord, Time>>* v, const FlowRecord& r) {
                v->emplace_back(r, Simulator::Now());
            }).Bind(&seen));
        Simulator::ScheduleNow(&FlowWorkload::Start, w);
        Simulator::Run();
        Simulator::Destroy();
        return seen;
    };
    Time d;
    const auto alone = run({Time(0)}, &d);
    ASSERT_EQ(alone.size(), 1u);
    const Time end = alone[0].first.end;
    EXPECT_EQ(alone[0].second - end, d);
    EXPECT_GT(d, NanoSeconds(1));
    EXPECT_NEAR(alone[0].first.Slowdown(), 1.0, 1e-3) << "the end itself is the flow's";
    // A second flow of the pair while the first's connection is not yet idle, a third after.
    const auto three = run({Time(0), end + d / 2, end + 2 * d}, &d);
    ASSERT_EQ(three.size(), 3u);
    std::map<Time, FlowRecord> byStart;
    for (const auto& [r, at] : three)
    {
        EXPECT_EQ(at - r.end, d);
        byStart[r.start] = r;
    }
    EXPECT_EQ(byStart[Time(0)].end, end);
    EXPECT_EQ(byStart[end + d / 2].connection, 1u) << "the first connection was not idle yet";
    EXPECT_EQ(byStart[end + 2 * d].connection, 0u) << "the first connection is idle again";
    GlobalValue::Bind("SchedulerType", StringValue("ns3::MapScheduler"));
}

// Poisson arrivals at Load x line rate / mean size per host: the number of flows is within 4
// standard deviations of its expectation, every flow completes, and Drained fires once.
TEST_F(FabricTest, FlowsArriveAtTheOfferedLoadAndAllComplete)
{
    Ptr<FabricTopology> topo = SmallFatTree(8, 100, 100, "ns3::RdmaDcqcn");
    Ptr<FlowWorkload> w = CreateObject<FlowWorkload>();
    w->SetDistribution(FlowSizeDistribution::Named("fb-hadoop"));
    w->SetAttribute("Load", DoubleValue(0.5));
    w->SetAttribute("Duration", TimeValue(MilliSeconds(4)));
    w->Install(topo);
    w->AssignStreams(7);
    int drained = 0;
    Time drainedAt;
    w->TraceConnectWithoutContext("Drained", MakeCallback(+[](int* d) { ++*d; }).Bind(&drained));
    Simulator::ScheduleNow(&FlowWorkload::Start, w);
    Simulator::Run();
    const double rate = 0.5 * 100e9 / (8 * FlowSizeDistribution::Named("fb-hadoop").GetMean());
    EXPECT_DOUBLE_EQ(w->GetArrivalRate(), rate);
    const double expected = rate * 8 * 4e-3;
    const double n = double(w->GetFlows().size());
    EXPECT_NEAR(n, expected, 4 * std::sqrt(expected)) << "flows";
    EXPECT_EQ(w->GetNCompleted(), w->GetFlows().size());
    EXPECT_EQ(drained, 1);
    std::set<std::pair<uint32_t, uint32_t>> pairs;
    for (const FlowRecord& r : w->GetFlows())
    {
        EXPECT_NE(r.src, r.dst);
        EXPECT_LT(r.start, MilliSeconds(4));
        EXPECT_GE(r.Slowdown(), 1.0 - 1e-9);
        pairs.insert({r.src, r.dst});
    }
    EXPECT_GT(pairs.size(), 40u) << "uniform destinations reach most of the 56 pairs";
    // Queue pairs: one per concurrently running flow of a pair, reused after, never one per
    // flow.
    EXPECT_LT(w->GetNQueuePairs(), 2 * w->GetFlows().size());
}

TEST_F(FabricTest, PermutationAndIncastPatternsSendWhereTheySay)
{
    Ptr<FabricTopology> topo = SmallFatTree(8, 100, 100, "ns3::RdmaDcqcn");
    Ptr<FlowWorkload> w = CreateObject<FlowWorkload>();
    w->SetDistribution(FlowSizeDistribution::Named("websearch"));
    w->SetAttribute("Load", DoubleValue(0.3));
    w->SetAttribute("Duration", TimeValue(MilliSeconds(5)));
    w->SetAttribute("Pattern", StringValue("Permutation"));
    w->SetAttribute("IncastFanin", UintegerValue(5));
    w->SetAttribute("IncastBytes", UintegerValue(20000));
    w->SetAttribute("IncastPeriod", TimeValue(MicroSeconds(1000)));
    w->Install(topo);
    Simulator::ScheduleNow(&FlowWorkload::Start, w);
    Simulator::Run();
    std::map<uint32_t, std::set<uint32_t>> partners;
    std::map<int64_t, std::vector<FlowRecord>> bursts;
    for (const FlowRecord& r : w->GetFlows())
    {
        EXPECT_TRUE(r.completed);
        if (r.incast)
        {
            EXPECT_EQ(r.bytes, 20000u);
            bursts[r.start.GetTimeStep()].push_back(r);
        }
        else
        {
            partners[r.src].insert(r.dst);
        }
    }
    // A derangement: one partner each, nobody its own, every host received by exactly one.
    std::map<uint32_t, int> receivers;
    for (const auto& [src, dsts] : partners)
    {
        ASSERT_EQ(dsts.size(), 1u) << "host " << src;
        EXPECT_NE(*dsts.begin(), src);
        ++receivers[*dsts.begin()];
    }
    for (const auto& [dst, n] : receivers)
    {
        EXPECT_EQ(n, 1) << "host " << dst;
    }
    // Bursts at 1, 2, 3, 4 ms (the one at 5 ms is past the arrivals' end): 5 distinct
    // senders into one receiver each.
    ASSERT_EQ(bursts.size(), 4u);
    int64_t k = 1;
    for (const auto& [at, flows] : bursts)
    {
        EXPECT_EQ(at, MilliSeconds(k++).GetTimeStep());
        ASSERT_EQ(flows.size(), 5u);
        std::set<uint32_t> senders;
        for (const FlowRecord& r : flows)
        {
            EXPECT_EQ(r.dst, flows[0].dst);
            EXPECT_NE(r.src, r.dst);
            senders.insert(r.src);
        }
        EXPECT_EQ(senders.size(), 5u);
    }
}

TEST(FlowWorkloadTest, SlowdownQuantilesBySizeAreNearestRank)
{
    std::vector<FlowRecord> flows;
    auto add = [&](uint64_t bytes, double slowdown, bool incast = false) {
        FlowRecord r;
        r.bytes = bytes;
        r.start = Time(0);
        r.ideal = MicroSeconds(10);
        r.end = NanoSeconds(int64_t(std::llround(10000 * slowdown)));
        r.completed = true;
        r.incast = incast;
        flows.push_back(r);
    };
    for (int i = 1; i <= 100; ++i)
    {
        add(10000, i); // slowdowns 1 .. 100 in the first bucket (<= 10,000 B: inclusive)
    }
    add(10001, 2.5);
    add(5000000, 7, true); // incast: left out
    FlowRecord failed;
    failed.bytes = 20;
    flows.push_back(failed); // not completed: left out
    const auto b = FlowWorkload::SlowdownBySize(flows, {10000, 100000}, false);
    ASSERT_EQ(b.size(), 3u);
    EXPECT_EQ(b[0].count, 100u);
    EXPECT_NEAR(b[0].p50, 50, 1e-9);
    EXPECT_NEAR(b[0].p95, 95, 1e-9);
    EXPECT_NEAR(b[0].p99, 99, 1e-9);
    EXPECT_EQ(b[1].count, 1u);
    EXPECT_NEAR(b[1].p99, 2.5, 1e-9);
    EXPECT_EQ(b[2].count, 0u);
    EXPECT_EQ(b[2].maxBytes, UINT64_MAX);
    const auto all = FlowWorkload::SlowdownBySize(flows, {}, true);
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0].count, 102u);
}

namespace
{

/// Last FCT of a permutation of 32 MiB flows on the 128-host 3-tier fat-tree (k = 8) at 400G,
/// every host starting at once, with `cc` (and `preset` for DCQCN).
Time
PermutationLastFct(const std::string& cc, const std::string& preset)
{
    if (preset == "production")
    {
        // The HPCC simulator's production marking, as the runner sets it (100 / 400 KB x
        // 400/25, Pmax 0.2).
        Config::SetDefault("ns3::SwitchBufferManager::EcnKmin", UintegerValue(1600000));
        Config::SetDefault("ns3::SwitchBufferManager::EcnKmax", UintegerValue(6400000));
        Config::SetDefault("ns3::SwitchBufferManager::EcnPmax", DoubleValue(0.2));
    }
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("Tiers", UintegerValue(3));
    ft->SetAttribute("K", UintegerValue(8));
    ft->SetAttribute("Servers", UintegerValue(128));
    ft->SetAttribute("GpusPerServer", UintegerValue(1));
    ft->SetAttribute("LinkRate", DataRateValue(DataRate("400Gbps")));
    Ptr<FabricTopology> topo = ft->Build();
    RdmaHelper rdma;
    rdma.SetCongestionControl(cc);
    if (!preset.empty())
    {
        rdma.SetCongestionControlAttribute("Preset", StringValue(preset));
    }
    rdma.Install(topo);
    Ptr<FlowWorkload> w = CreateObject<FlowWorkload>();
    w->Install(topo);
    // The derangement host i -> (i + 64) mod 128: every flow crosses the core.
    for (uint32_t i = 0; i < 128; ++i)
    {
        w->StartFlow(i, (i + 64) % 128, 32 << 20);
    }
    Simulator::Run();
    EXPECT_EQ(w->GetNCompleted(), 128u) << cc << " " << preset;
    Time last(0);
    for (const FlowRecord& r : w->GetFlows())
    {
        last = std::max(last, r.end);
    }
    Simulator::Destroy();
    Config::Reset();
    Config::SetDefault("ns3::TrainingJob::ProtocolLatency", BooleanValue(false));
    return last;
}

} // namespace

// The production DCQCN preset at 400G: a permutation's last flow within 1.5x of no congestion
// control (ECMP collisions make both longer than the 0.69 ms a flow alone takes: 32 MiB at
// 400G x 4096/4178), where the paper preset's 5 KB / 200 KB marking and 55 us timers slow it
// down far more.
TEST_F(FabricTest, ProductionDcqcnKeepsThePermutationNearNoCc)
{
    const Time none = PermutationLastFct("ns3::RdmaNoCc", "");
    const Time production = PermutationLastFct("ns3::RdmaDcqcn", "production");
    const Time paper = PermutationLastFct("ns3::RdmaDcqcn", "paper");
    std::cout << "128-host permutation, 32 MiB at 400G, last flow: no CC " << none.GetMicroSeconds()
              << " us, DCQCN production " << production.GetMicroSeconds() << " us, DCQCN paper "
              << paper.GetMicroSeconds() << " us\n";
    EXPECT_GT(none.GetSeconds(), 32.0 * 1048576 * 8 / 400e9 * 4178 / 4096);
    EXPECT_LE(production.GetSeconds(), 1.5 * none.GetSeconds());
    EXPECT_GT(paper.GetSeconds(), production.GetSeconds());
}

// A connection reused for a new flow starts like a new one: the gap its last packet left at a
// slow rate (4 KB at 1 Mb/s: 33 ms) does not delay the next message.
TEST_F(FabricTest, RestartedCongestionControlLeavesNoPacingGap)
{
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    TwoHosts h(rdma);
    Completions done;
    h.qa->SetCompletionCallback(done.Cb());
    h.qa->SetRate(DataRate("1Mbps"));
    h.qa->PostWrite(4096);
    Simulator::Schedule(MicroSeconds(100), [&h]() {
        h.qa->GetNic()->RestartCongestionControl(h.qa);
        EXPECT_EQ(h.qa->GetRate(), h.qa->GetLineRate());
        h.qa->PostWrite(4096);
    });
    Simulator::Run();
    ASSERT_EQ(done.v.size(), 2u);
    EXPECT_LT(done.v[0].completed, MicroSeconds(100)) << "one packet is sent at once";
    EXPECT_LT(done.v[1].completed, MicroSeconds(110)) << "the second message waited for a gap";
}

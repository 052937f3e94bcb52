// SPDX-License-Identifier: GPL-2.0-only
// Topology helpers: counts, reachability, rail paths, bisection, parameter validation.
#include "test-util.h"

#include <cctype>
#include <string>

using namespace ns3;

namespace
{

Ptr<RailOptimizedFatTreeHelper>
Rail(uint32_t servers, uint32_t gpus, uint32_t radix, double oversub = 1.0)
{
    Ptr<RailOptimizedFatTreeHelper> h = CreateObject<RailOptimizedFatTreeHelper>();
    h->SetAttribute("Servers", UintegerValue(servers));
    h->SetAttribute("GpusPerServer", UintegerValue(gpus));
    h->SetAttribute("LeafRadix", UintegerValue(radix));
    h->SetAttribute("Oversubscription", DoubleValue(oversub));
    return h;
}

FabricFrame
FlowFrame(Ptr<FabricTopology> topo, uint32_t s, uint32_t d, uint16_t sport = 10000)
{
    FabricFrame f;
    f.src = topo->GetHostAddress(s).Get();
    f.dst = topo->GetHostAddress(d).Get();
    f.srcPort = sport;
    f.dstPort = 9000;
    f.protocol = 17;
    f.ComputeFlowHash();
    return f;
}

} // namespace

struct RailCase
{
    uint32_t servers, gpus, radix;
    double oversub;
    uint32_t leaves, spines, links;
};

/// Printed in test listings (ctest names): the values, never the struct's raw bytes.
void
PrintTo(const RailCase& c, std::ostream* os)
{
    *os << c.servers << " servers x " << c.gpus << " GPUs, radix " << c.radix << ", " << c.oversub
        << ":1";
}

class RailCountTest : public FabricTest, public ::testing::WithParamInterface<RailCase>
{
};

TEST_P(RailCountTest, SwitchAndLinkCounts)
{
    const RailCase c = GetParam();
    Ptr<FabricTopology> topo = Rail(c.servers, c.gpus, c.radix, c.oversub)->Build();
    EXPECT_EQ(topo->GetNHosts(), c.servers * c.gpus);
    EXPECT_EQ(topo->CountSwitches("leaf"), c.leaves);
    EXPECT_EQ(topo->CountSwitches("spine"), c.spines);
    EXPECT_EQ(topo->GetNLinks(), c.links);
}

INSTANTIATE_TEST_SUITE_P(
    Sizes,
    RailCountTest,
    ::testing::Values(
        // 128 GPUs: one leaf per rail (16 of 32 down ports), 16 uplinks each -> 16 spines.
        RailCase{16, 8, 64, 1.0, 8, 16, 128 + 8 * 16},
        // 1,024 GPUs: 4 leaves per rail, 32 leaves x 32 uplinks, 32 spines.
        RailCase{128, 8, 64, 1.0, 32, 32, 1024 + 32 * 32},
        // Small radix: 4 servers x 2 GPUs on radix-8 leaves.
        RailCase{4, 2, 8, 1.0, 2, 4, 8 + 2 * 4},
        // 3:1 oversubscription: 48 down / 16 up ports per radix-64 leaf.
        RailCase{96, 1, 64, 3.0, 2, 16, 96 + 2 * 16},
        // A single leaf needs no spine.
        RailCase{8, 1, 64, 1.0, 1, 0, 8}),
    [](const ::testing::TestParamInfo<RailCase>& i) {
        return std::to_string(i.param.servers) + "x" + std::to_string(i.param.gpus) + "_radix" +
               std::to_string(i.param.radix) + "_oversub" +
               std::to_string(static_cast<int>(i.param.oversub));
    });

TEST_F(FabricTest, RailAllPairsReachableAndPathsFollowRails)
{
    Ptr<FabricTopology> topo = Rail(6, 4, 8)->Build(); // 6 servers > 4 down ports: 2 leaves/rail
    const uint32_t h = topo->GetNHosts();
    for (uint32_t s = 0; s < h; ++s)
    {
        for (uint32_t d = 0; d < h; ++d)
        {
            if (s == d)
            {
                continue;
            }
            auto path = topo->TracePath(s, FlowFrame(topo, s, d));
            ASSERT_EQ(path.back(), d) << s << " -> " << d;
            const uint32_t gs = s % 4;
            const uint32_t gd = d % 4;
            const bool sameLeaf = gs == gd && (s / 4) / 4 == (d / 4) / 4;
            if (sameLeaf)
            {
                EXPECT_EQ(path.size(), 3u) << "same rail, same leaf: NIC -> leaf -> NIC";
            }
            else
            {
                ASSERT_EQ(path.size(), 5u) << "otherwise NIC -> leaf -> spine -> leaf -> NIC";
                EXPECT_EQ(topo->GetSwitchRole(path[2] - h), "spine");
            }
            EXPECT_EQ(topo->GetSwitchRole(path[1] - h), "leaf");
        }
    }
}

TEST_F(FabricTest, RailAllPairsDeliverRealTraffic)
{
    Ptr<FabricTopology> topo = Rail(3, 4, 8)->Build();
    const uint32_t h = topo->GetNHosts();
    std::vector<Ptr<FabricTrafficSink>> sinks;
    for (uint32_t d = 0; d < h; ++d)
    {
        sinks.push_back(AddSink(topo->GetHostNode(d)));
    }
    uint32_t flow = 0;
    for (uint32_t s = 0; s < h; ++s)
    {
        for (uint32_t d = 0; d < h; ++d)
        {
            if (s != d)
            {
                AddSource(topo->GetHostNode(s), topo->GetHostAddress(d), flow++, 4096, 4096);
            }
        }
    }
    DropCounter drops;
    drops.ConnectAll();
    Simulator::Run();
    EXPECT_EQ(drops.Total(), 0u);
    for (uint32_t d = 0; d < h; ++d)
    {
        EXPECT_EQ(sinks[d]->GetReceivedPackets(), h - 1) << "host " << d;
    }
}

TEST_F(FabricTest, RailCrossRailPathLatencyIsThreeHops)
{
    Ptr<FabricTopology> topo = Rail(2, 2, 8)->Build();
    // GPU 0 of server 0 -> GPU 1 of server 1: leaf, spine, leaf (cut-through, 500 ns each).
    AddSource(topo->GetHost(0, 0), topo->GetHostAddress(topo->GetHostIndex(1, 1)), 1, 4096, 4096);
    auto sink = AddSink(topo->GetHost(1, 1));
    Simulator::Run();
    const double ser = (4096 + 70) * 8 / 400e9;
    const double expected = 2 * 15e-9 + 2 * 250e-9 + 3 * 500e-9 + ser;
    EXPECT_NEAR(sink->GetMinLatency().GetSeconds(), expected, 1.01e-9);
}

TEST_F(FabricTest, OneToOneGivesFullBisection)
{
    for (uint32_t servers : {4u, 6u})
    {
        Ptr<FabricTopology> topo = Rail(servers, 4, 8)->Build();
        const double full = topo->GetNHosts() * 400e9 / 2;
        EXPECT_DOUBLE_EQ(topo->GetBisectionBandwidth(), full);
        std::vector<uint32_t> a;
        std::vector<uint32_t> b;
        for (uint32_t i = 0; i < topo->GetNHosts(); ++i)
        {
            (i < topo->GetNHosts() / 2 ? a : b).push_back(i);
        }
        EXPECT_NEAR(topo->MaxFlow(a, b), full, 1.0);
        // A worst-case split (every rail split across the cut) is also full.
        a.clear();
        b.clear();
        for (uint32_t i = 0; i < topo->GetNHosts(); ++i)
        {
            ((i / 4) % 2 == 0 ? a : b).push_back(i);
        }
        EXPECT_NEAR(topo->MaxFlow(a, b), double(a.size()) * 400e9, 1.0);
    }
}

TEST_F(FabricTest, OversubscribedFabricHasLessBisection)
{
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("Servers", UintegerValue(12));
    ft->SetAttribute("GpusPerServer", UintegerValue(1));
    ft->SetAttribute("LeafRadix", UintegerValue(8));
    ft->SetAttribute("Oversubscription", DoubleValue(3.0)); // 6 down, 2 up
    Ptr<FabricTopology> topo = ft->Build();
    EXPECT_DOUBLE_EQ(topo->GetBisectionBandwidth(), 2 * 2 * 400e9 / 2);
    std::vector<uint32_t> a{0, 1, 2, 3, 4, 5};
    std::vector<uint32_t> b{6, 7, 8, 9, 10, 11};
    EXPECT_NEAR(topo->MaxFlow(a, b), 2 * 400e9, 1.0);
}

TEST_F(FabricTest, ThreeTierFatTreeCountsAndReachability)
{
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("Tiers", UintegerValue(3));
    ft->SetAttribute("Servers", UintegerValue(16));
    ft->SetAttribute("GpusPerServer", UintegerValue(1));
    Ptr<FabricTopology> topo = ft->Build(); // k = 4: 16 hosts
    EXPECT_EQ(topo->CountSwitches("edge"), 8u);
    EXPECT_EQ(topo->CountSwitches("aggregation"), 8u);
    EXPECT_EQ(topo->CountSwitches("core"), 4u);
    EXPECT_EQ(topo->GetNLinks(), 16u + 16u + 16u);
    for (uint32_t s = 0; s < 16; ++s)
    {
        for (uint32_t d = 0; d < 16; ++d)
        {
            if (s != d)
            {
                auto path = topo->TracePath(s, FlowFrame(topo, s, d));
                EXPECT_EQ(path.back(), d);
                // same edge 3, same pod 5, other pod 7 vertices
                const size_t expect = s / 2 == d / 2 ? 3 : s / 4 == d / 4 ? 5 : 7;
                EXPECT_EQ(path.size(), expect) << s << "->" << d;
            }
        }
    }
    std::vector<uint32_t> a{0, 1, 2, 3, 4, 5, 6, 7};
    std::vector<uint32_t> b{8, 9, 10, 11, 12, 13, 14, 15};
    EXPECT_NEAR(topo->MaxFlow(a, b), 8 * 400e9, 1.0);
}

TEST_F(FabricTest, BuildsThe1024GpuRailFabricQuickly)
{
    Ptr<FabricTopology> topo = Rail(128, 8, 64)->Build();
    EXPECT_EQ(topo->GetNHosts(), 1024u);
    EXPECT_DOUBLE_EQ(topo->GetBisectionBandwidth(), 1024 * 400e9 / 2);
    // Every leaf routes to every host: a host route to each of its own 32 hosts, the rest by
    // the default route up (all 32 uplinks); groups are interned.
    Ptr<FabricSwitch> leaf = topo->GetSwitch(0);
    EXPECT_EQ(leaf->GetRoutingTable().GetNHostRoutes(), 32u);
    EXPECT_LE(leaf->GetRoutingTable().GetNGroups(), 33u);
    for (uint32_t d = 0; d < 1024; ++d)
    {
        const size_t n = leaf->GetRoutingTable().GetPorts(topo->GetHostAddress(d)).size();
        EXPECT_EQ(n, d % 8 == 0 && d / 8 < 32 ? 1u : 32u) << "host " << d;
    }
}

struct BadParam
{
    const char* attribute;
    const char* value;
    const char* parameterInError;
};

void
PrintTo(const BadParam& p, std::ostream* os)
{
    *os << p.attribute << "=" << p.value;
}

class RailValidationTest : public FabricTest, public ::testing::WithParamInterface<BadParam>
{
};

TEST_P(RailValidationTest, RejectsWithTheParameterName)
{
    const BadParam p = GetParam();
    Ptr<RailOptimizedFatTreeHelper> h = Rail(16, 8, 64);
    if (std::string(p.attribute) == "LinkRate")
    {
        h->SetAttribute(p.attribute, DataRateValue(DataRate(p.value)));
    }
    else if (std::string(p.attribute) == "Oversubscription")
    {
        h->SetAttribute(p.attribute, DoubleValue(std::stod(p.value)));
    }
    else
    {
        h->SetAttribute(p.attribute, UintegerValue(std::stoul(p.value)));
    }
    const uint32_t nodesBefore = NodeList::GetNNodes();
    try
    {
        h->Build();
        FAIL() << "expected FabricConfigError for " << p.attribute << "=" << p.value;
    }
    catch (const FabricConfigError& e)
    {
        EXPECT_EQ(e.GetParameter(), p.parameterInError);
        EXPECT_NE(std::string(e.what()).find(p.parameterInError), std::string::npos);
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line";
    }
    EXPECT_EQ(NodeList::GetNNodes(), nodesBefore) << "nothing built on error";
}

INSTANTIATE_TEST_SUITE_P(Errors,
                         RailValidationTest,
                         ::testing::Values(BadParam{"Servers", "0", "Servers"},
                                           BadParam{"GpusPerServer", "0", "GpusPerServer"},
                                           BadParam{"GpusPerServer", "73", "GpusPerServer"},
                                           BadParam{"Oversubscription", "0.5", "Oversubscription"},
                                           BadParam{"LinkRate", "0bps", "LinkRate"},
                                           BadParam{"LeafRadix", "1", "LeafRadix"},
                                           BadParam{"Servers", "100000", "Servers"},
                                           BadParam{"Spines", "40", "Spines"}),
                         [](const ::testing::TestParamInfo<BadParam>& i) {
                             std::string v = i.param.value;
                             for (char& ch : v)
                             {
                                 ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                             }
                             return std::string(i.param.attribute) + "_" + v;
                         });

TEST_F(FabricTest, FatTreeValidation)
{
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("Tiers", UintegerValue(4));
    EXPECT_THROW(ft->Build(), FabricConfigError);
    ft->SetAttribute("Tiers", UintegerValue(3));
    ft->SetAttribute("K", UintegerValue(5));
    EXPECT_THROW(ft->Build(), FabricConfigError);
    ft->SetAttribute("K", UintegerValue(4));
    ft->SetAttribute("Servers", UintegerValue(17));
    ft->SetAttribute("GpusPerServer", UintegerValue(1));
    try
    {
        ft->Build();
        FAIL();
    }
    catch (const FabricConfigError& e)
    {
        EXPECT_EQ(e.GetParameter(), "K");
    }
}

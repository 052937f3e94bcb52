// SPDX-License-Identifier: GPL-2.0-only
// Three-tier and multi-plane rail-optimized fat-trees: switch and link counts from the radix,
// valley-free reachability, bisection, NVL72-sized servers, bad inputs, and an AllReduce on a
// small three-tier fabric against a two-tier one of the same size.
#include "process-util.h"
#include "test-util.h"

#include <string>

using namespace ns3;

namespace
{

Ptr<RailOptimizedFatTreeHelper>
Rail(uint32_t servers,
     uint32_t gpus,
     uint32_t radix,
     uint32_t tiers = 0,
     uint32_t planes = 1,
     double spineOversub = 1.0)
{
    Ptr<RailOptimizedFatTreeHelper> h = CreateObject<RailOptimizedFatTreeHelper>();
    h->SetAttribute("Servers", UintegerValue(servers));
    h->SetAttribute("GpusPerServer", UintegerValue(gpus));
    h->SetAttribute("LeafRadix", UintegerValue(radix));
    h->SetAttribute("Tiers", UintegerValue(tiers));
    h->SetAttribute("Planes", UintegerValue(planes));
    h->SetAttribute("SpineOversubscription", DoubleValue(spineOversub));
    return h;
}

FabricFrame
FlowFrame(Ptr<FabricTopology> topo, uint32_t s, uint32_t d, uint16_t sport)
{
    FabricFrame f;
    f.src = topo->GetHostAddress(s).Get();
    f.dst = topo->GetHostAddress(d).Get();
    f.srcPort = sport;
    f.dstPort = 4791;
    f.protocol = 17;
    f.ComputeFlowHash();
    return f;
}

/// Switch hops of a traced path that reached `d`, checking it goes up, then only down.
uint32_t
ValleyFreeSwitchHops(Ptr<FabricTopology> topo, const std::vector<uint32_t>& path, uint32_t d)
{
    EXPECT_EQ(path.back(), d);
    bool down = false;
    for (size_t i = 1; i < path.size(); ++i)
    {
        const uint32_t a = topo->GetTier(path[i - 1]);
        const uint32_t b = topo->GetTier(path[i]);
        EXPECT_NE(a, b) << "no hop within a tier";
        if (b < a)
        {
            down = true;
        }
        else
        {
            EXPECT_FALSE(down) << "up after down: a valley at " << topo->GetVertexName(path[i]);
        }
    }
    return static_cast<uint32_t>(path.size() - 2);
}

} // namespace

struct ShapeCase
{
    const char* name;
    uint32_t servers, gpus, radix, tiers, planes;
    double spineOversub;
    uint32_t leaves, spines, cores, links;
};

void
PrintTo(const ShapeCase& c, std::ostream* os)
{
    *os << c.name;
}

class ThreeTierShapeTest : public FabricTest, public ::testing::WithParamInterface<ShapeCase>
{
};

// Counts from the radix: a leaf of radix k at 1:1 has k/2 host ports and k/2 uplinks (one per
// spine of its pod); a spine has k/2 ports down (one per leaf of its pod) and k/2 up; a pod
// takes k/2 leaves (k/2 / G per rail); spine j of each of P pods sends its k/2 uplinks to core
// group j, whose C cores need P * ceil((k/2) / C) <= k ports.
TEST_P(ThreeTierShapeTest, CountsFromFirstPrinciples)
{
    const ShapeCase c = GetParam();
    Ptr<RailOptimizedFatTreeHelper> h =
        Rail(c.servers, c.gpus, c.radix, c.tiers, c.planes, c.spineOversub);
    const RailOptimizedFatTreeHelper::Shape s = h->GetShape();
    EXPECT_EQ(s.leaves, c.leaves);
    EXPECT_EQ(s.spines, c.spines);
    EXPECT_EQ(s.cores, c.cores);
    EXPECT_EQ(h->GetTiers(), c.cores ? 3u : 2u);
    if (c.servers * c.gpus > 10000)
    {
        return; // the shape only (the 16k build has its own test)
    }
    Ptr<FabricTopology> topo = h->Build();
    EXPECT_EQ(topo->CountSwitches("leaf"), c.leaves);
    EXPECT_EQ(topo->CountSwitches("spine"), c.spines);
    EXPECT_EQ(topo->CountSwitches("core"), c.cores);
    EXPECT_EQ(topo->GetNLinks(), c.links);
    // No switch has more ports than its radix.
    for (uint32_t j = 0; j < topo->GetNSwitches(); ++j)
    {
        EXPECT_LE(topo->GetSwitch(j)->GetNPorts(), c.radix) << topo->GetVertexName(j);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes,
    ThreeTierShapeTest,
    ::testing::Values(
        // radix 8, 2 rails, 32 servers: 8 leaves per rail (4 hosts each), pods of 2 leaves per
        // rail (4 pods x 4 spines), core groups of 2 (4 pods x 2 links = 8 ports).
        ShapeCase{"radix8_32x2", 32, 2, 8, 0, 1, 1.0, 16, 16, 8, 64 + 16 * 4 + 16 * 4},
        // The same fabric forced to 3 tiers when 2 would do: 1 pod, 4 spines, 4 cores of 4 links.
        ShapeCase{"radix8_8x2_forced", 8, 2, 8, 3, 1, 1.0, 4, 4, 4, 16 + 4 * 4 + 4 * 4},
        // Spine 3:1 (6 down, 2 up): pods of 3 leaves per rail (3 pods), 2 uplinks per spine,
        // one core per group (3 pods x 2 links = 6 ports).
        ShapeCase{"radix8_32x2_spine3", 32, 2, 8, 0, 1, 3.0, 16, 12, 4, 64 + 16 * 4 + 12 * 2},
        // NVL72-class servers: 72 rails cannot share 32 spine down ports: 3 rail groups of 24,
        // 4 spines per pod with 24 uplinks, 2 cores per group (3 pods x 12 links).
        ShapeCase{"nvl72_4x72", 4, 72, 64, 0, 1, 1.0, 72, 12, 8, 288 + 72 * 4 + 12 * 24},
        // 16,384 GPUs at radix 64: 512 leaves; 16 pods of 128 servers x 32 spines; 32 groups
        // of 8 cores (16 pods x 4 links = 64 ports).
        ShapeCase{"k64_2048x8", 2048, 8, 64, 0, 1, 1.0, 512, 512, 256, 3 * 16384},
        // The largest: 64 pods, 32 groups of 32 cores (the k=64 fat-tree's 1,024 cores).
        ShapeCase{"k64_8192x8", 8192, 8, 64, 0, 1, 1.0, 2048, 2048, 1024, 3 * 65536},
        // Two planes, each a whole rail fabric: 2 x (2 rails x 4 leaves, 4 spines); every GPU
        // has a port in each (64 host links).
        ShapeCase{"planes2_16x2", 16, 2, 8, 0, 2, 1.0, 16, 8, 0, 64 + 16 * 4},
        // Four planes of 2 x 2 leaves and 4 spines: 4 ports a GPU.
        ShapeCase{"planes4_8x2", 8, 2, 8, 0, 4, 1.0, 16, 16, 0, 64 + 16 * 4},
        // HPN-sized: 2,048 GPUs in two planes of radix-64 switches, each plane 2 tiers.
        ShapeCase{"planes2_256x8", 256, 8, 64, 0, 2, 1.0, 128, 64, 0, 4096 + 128 * 32},
        // A plane is as large as a single-plane fabric: 300 servers take 3 tiers in each.
        ShapeCase{"planes2_300x8",
                  300,
                  8,
                  64,
                  0,
                  2,
                  1.0,
                  160,
                  192,
                  128,
                  4800 + 160 * 32 + 192 * 32}),
    [](const ::testing::TestParamInfo<ShapeCase>& i) { return std::string(i.param.name); });

TEST_F(FabricTest, ThreeTierEveryHostReachesEveryHostValleyFree)
{
    Ptr<FabricTopology> topo = Rail(32, 2, 8)->Build(); // 4 pods, 64 GPUs
    const uint32_t h = topo->GetNHosts();
    uint32_t maxHops = 0;
    uint32_t viaCore = 0;
    for (uint32_t s = 0; s < h; ++s)
    {
        for (uint32_t d = 0; d < h; ++d)
        {
            if (s == d)
            {
                continue;
            }
            for (uint16_t sport : {1000, 1001, 1002})
            {
                const auto path = topo->TracePath(s, FlowFrame(topo, s, d, sport));
                ASSERT_EQ(path.back(), d) << topo->GetVertexName(s) << " -> " << d;
                const uint32_t hops = ValleyFreeSwitchHops(topo, path, d);
                maxHops = std::max(maxHops, hops);
                // Servers 0-7 are pod 0, 8-15 pod 1, ...: other pods only through a core.
                const bool samePod = (s / 2) / 8 == (d / 2) / 8;
                const bool sameLeaf = s % 2 == d % 2 && (s / 2) / 4 == (d / 2) / 4;
                EXPECT_EQ(hops, sameLeaf ? 1u : samePod ? 3u : 5u) << s << " -> " << d;
                viaCore += hops == 5 ? 1 : 0;
                if (hops == 5)
                {
                    EXPECT_EQ(topo->GetVertexName(path[3]).rfind("core", 0), 0u);
                }
            }
        }
    }
    EXPECT_LE(maxHops, 6u);
    EXPECT_GT(viaCore, 0u);
}

TEST_F(FabricTest, ThreeTierEcmpUsesEveryCoreOfAGroup)
{
    Ptr<FabricTopology> topo = Rail(32, 2, 8)->Build();
    std::set<uint32_t> cores;
    for (uint16_t sport = 0; sport < 2000; ++sport)
    {
        const auto path = topo->TracePath(0, FlowFrame(topo, 0, 62, sport)); // pod 0 -> pod 3
        ASSERT_EQ(path.size(), 7u);
        cores.insert(path[3]);
    }
    EXPECT_EQ(cores.size(), 8u) << "4 spines x 2 cores of their groups";
}

TEST_F(FabricTest, NonBlockingThreeTierHasFullBisection)
{
    Ptr<FabricTopology> topo = Rail(32, 2, 8)->Build();
    const double half = 64 * 400e9 / 2;
    EXPECT_DOUBLE_EQ(topo->GetBisectionBandwidth(), half);
    std::vector<uint32_t> a;
    std::vector<uint32_t> b;
    for (uint32_t i = 0; i < 64; ++i)
    {
        (i < 32 ? a : b).push_back(i); // servers 0-15 (pods 0, 1) vs 16-31 (pods 2, 3)
    }
    EXPECT_NEAR(topo->MaxFlow(a, b), half, 1.0);
    // Spine 3:1: 12 spines x 2 uplinks carry what leaves the pods.
    Ptr<FabricTopology> over = Rail(32, 2, 8, 0, 1, 3.0)->Build();
    EXPECT_DOUBLE_EQ(over->GetBisectionBandwidth(), 12 * 2 * 400e9 / 2);
    EXPECT_LT(over->MaxFlow(a, b), half);
}

TEST_F(FabricTest, Builds16kGpuThreeTierFabric)
{
    // No timing here (a loaded CI machine took 70 s where this one takes 9): `ai-fabric topology`
    // prints the build time and memory, measured alone.
    Ptr<FabricTopology> topo = Rail(2048, 8, 64)->Build();
    EXPECT_EQ(topo->GetNHosts(), 16384u);
    EXPECT_EQ(topo->GetNSwitches(), 512u + 512u + 256u);
    EXPECT_DOUBLE_EQ(topo->GetBisectionBandwidth(), 16384 * 400e9 / 2);
    // gpu0 (rail 0, pod 0) to the last GPU (rail 7, pod 15): leaf, spine, core, spine, leaf.
    const auto path = topo->TracePath(0, FlowFrame(topo, 0, 16383, 7));
    ASSERT_EQ(path.size(), 7u);
    EXPECT_EQ(topo->GetVertexName(path[1]), "leaf0");
    EXPECT_EQ(topo->GetVertexName(path[5]), "leaf511");
    EXPECT_EQ(topo->GetVertexName(path[3]).rfind("core", 0), 0u);
    // Every switch routes to every host; host routes only below it (default route up):
    // a leaf its 32 hosts, a spine its pod's 1,024, a core (the top: no default) all 16,384.
    for (uint32_t j : {0u, 600u, 1279u})
    {
        const FabricRoutingTable& t = topo->GetSwitch(j)->GetRoutingTable();
        for (uint32_t d = 0; d < 16384; d += 97)
        {
            EXPECT_FALSE(t.GetPorts(topo->GetHostAddress(d)).empty()) << j << " -> " << d;
        }
    }
    EXPECT_EQ(topo->GetSwitch(0)->GetRoutingTable().GetNHostRoutes(), 32u);
    EXPECT_EQ(topo->GetSwitch(600)->GetRoutingTable().GetNHostRoutes(), 1024u);
    EXPECT_EQ(topo->GetSwitch(1279)->GetRoutingTable().GetNHostRoutes(), 16384u);
}

TEST_F(FabricTest, Nvl72RailFabricNamesAndRoutes)
{
    Ptr<RailOptimizedFatTreeHelper> h = Rail(2, 72, 64);
    Ptr<FabricTopology> topo = h->Build();
    ASSERT_EQ(topo->GetNHosts(), 144u);
    EXPECT_EQ(h->GetTiers(), 3u);
    EXPECT_EQ(topo->CountSwitches("leaf"), 72u); // one per rail, both servers on it
    EXPECT_EQ(topo->GetVertexName(topo->GetNHosts()), "leaf0");
    EXPECT_EQ(topo->FindVertex("leaf71"), int32_t(topo->GetNHosts() + 71));
    EXPECT_GE(topo->FindVertex("core0"), 0);
    // Same rail: the leaf. Rails 0 and 23 (one group): a spine. Rails 0 and 71: a core.
    const uint32_t s1g0 = topo->GetHostIndex(1, 0);
    EXPECT_EQ(topo->TracePath(0, FlowFrame(topo, 0, s1g0, 1)).size(), 3u);
    const uint32_t g23 = topo->GetHostIndex(1, 23);
    EXPECT_EQ(topo->TracePath(0, FlowFrame(topo, 0, g23, 1)).size(), 5u);
    const uint32_t g71 = topo->GetHostIndex(1, 71);
    const auto far = topo->TracePath(0, FlowFrame(topo, 0, g71, 1));
    ASSERT_EQ(far.size(), 7u);
    EXPECT_EQ(topo->GetVertexName(far[5]), "leaf71");
    for (uint32_t s = 0; s < 144; s += 7)
    {
        for (uint32_t d = 0; d < 144; d += 5)
        {
            if (s != d)
            {
                const auto p = topo->TracePath(s, FlowFrame(topo, s, d, 3));
                EXPECT_LE(ValleyFreeSwitchHops(topo, p, d), 5u);
            }
        }
    }
}

// HPN's dual plane: every GPU's NIC has a port of half the NIC rate in each plane, port p on
// its rail's leaf of plane p; no cable joins two planes; from either port every host is
// reached, valley-free, without leaving the port's plane; the fabric keeps full bisection.
TEST_F(FabricTest, PlanesEachReachEveryHostAndShareNoSwitch)
{
    Ptr<FabricTopology> topo = Rail(16, 2, 8, 0, 2)->Build(); // 32 GPUs, 2 tiers a plane
    const uint32_t h = topo->GetNHosts();
    ASSERT_EQ(h, 32u);
    EXPECT_EQ(topo->GetNPlanes(), 2u);
    for (uint32_t d = 0; d < h; ++d)
    {
        ASSERT_EQ(topo->GetNHostPorts(d), 2u);
        EXPECT_EQ(topo->GetHostRate(d), uint64_t(400e9));
        for (uint32_t p = 0; p < 2; ++p)
        {
            EXPECT_EQ(topo->GetHostDevice(d, p)->GetDataRate().GetBitRate(), uint64_t(200e9));
            EXPECT_EQ(topo->GetHostDevice(d, p)->GetIpv4Address(), topo->GetHostAddress(d));
        }
    }
    for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
    {
        const FabricLinkInfo& li = topo->GetLinks()[l];
        if (li.a >= h)
        {
            EXPECT_EQ(topo->GetSwitchPlane(li.a - h), topo->GetSwitchPlane(li.b - h))
                << topo->GetLinkName(l);
            EXPECT_EQ(li.devA->GetDataRate().GetBitRate(), uint64_t(200e9));
        }
    }
    for (uint32_t s = 0; s < h; ++s)
    {
        for (uint32_t d = 0; d < h; ++d)
        {
            for (uint32_t p = 0; p < 2 && s != d; ++p)
            {
                const auto path = topo->TracePath(s, FlowFrame(topo, s, d, 7), p);
                ASSERT_EQ(path.back(), d) << s << " -> " << d << " on port " << p;
                EXPECT_LE(ValleyFreeSwitchHops(topo, path, d), 3u);
                for (size_t i = 1; i + 1 < path.size(); ++i)
                {
                    EXPECT_EQ(topo->GetSwitchPlane(path[i] - h), p) << "it stays in its plane";
                }
                // It arrives on the destination's port of that plane.
                EXPECT_EQ(path[path.size() - 2], topo->GetLinks()[topo->GetVertexLinks(d)[p]].b);
            }
        }
    }
    // Default routes per plane: a leaf keeps its 4 hosts, a spine every host.
    EXPECT_EQ(topo->GetSwitch(0)->GetRoutingTable().GetNHostRoutes(), 4u);
    std::vector<uint32_t> a;
    std::vector<uint32_t> b;
    for (uint32_t i = 0; i < h; ++i)
    {
        (i < h / 2 ? a : b).push_back(i);
    }
    EXPECT_DOUBLE_EQ(topo->GetBisectionBandwidth(), h * 400e9 / 2);
    EXPECT_NEAR(topo->MaxFlow(a, b), h * 400e9 / 2, 1.0) << "both planes carry the cut";
}

TEST_F(FabricTest, DefaultTwoTierShapeUnchanged)
{
    Ptr<RailOptimizedFatTreeHelper> autoTiers = Rail(16, 8, 64);
    Ptr<FabricTopology> a = autoTiers->Build();
    EXPECT_EQ(autoTiers->GetTiers(), 2u);
    EXPECT_EQ(a->CountSwitches("core"), 0u);
    EXPECT_EQ(a->CountSwitches("spine"), 16u);
    Ptr<FabricTopology> b = Rail(16, 8, 64, 2)->Build();
    ASSERT_EQ(a->GetNLinks(), b->GetNLinks());
    for (uint32_t l = 0; l < a->GetNLinks(); ++l)
    {
        EXPECT_EQ(a->GetLinkName(l), b->GetLinkName(l));
    }
    // 256 servers is still two tiers; 257 needs three.
    EXPECT_EQ(Rail(256, 8, 64)->GetTiers(), 2u);
    EXPECT_EQ(Rail(257, 8, 64)->GetTiers(), 3u);
}

struct BadShape
{
    const char* name;
    uint32_t servers, gpus, radix, tiers, planes;
    double spineOversub;
    const char* parameter;
    const char* range; //!< text the message must hold
};

void
PrintTo(const BadShape& c, std::ostream* os)
{
    *os << c.name;
}

class ThreeTierValidationTest : public FabricTest, public ::testing::WithParamInterface<BadShape>
{
};

TEST_P(ThreeTierValidationTest, NamesTheAttributeAndRange)
{
    const BadShape c = GetParam();
    Ptr<RailOptimizedFatTreeHelper> h =
        Rail(c.servers, c.gpus, c.radix, c.tiers, c.planes, c.spineOversub);
    const uint32_t nodesBefore = NodeList::GetNNodes();
    try
    {
        h->Build();
        FAIL() << "expected FabricConfigError";
    }
    catch (const FabricConfigError& e)
    {
        EXPECT_EQ(e.GetParameter(), c.parameter) << e.what();
        EXPECT_NE(std::string(e.what()).find(c.range), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
    EXPECT_EQ(NodeList::GetNNodes(), nodesBefore);
}

INSTANTIATE_TEST_SUITE_P(
    Errors,
    ThreeTierValidationTest,
    ::testing::Values(
        BadShape{"tiers4", 16, 8, 64, 4, 1, 1.0, "Tiers", "0 (auto), 2 or 3"},
        BadShape{"tiers1", 16, 8, 64, 1, 1, 1.0, "Tiers", "0 (auto), 2 or 3"},
        BadShape{"planes0", 16, 8, 64, 0, 0, 1.0, "Planes", "must be in [1, 8]"},
        BadShape{"planes9", 16, 8, 64, 0, 9, 1.0, "Planes", "must be in [1, 8]"},
        BadShape{"spineOversub", 16, 8, 64, 0, 1, 0.5, "SpineOversubscription", ">= 1"},
        BadShape{"twoTiers16k", 2048, 8, 64, 2, 1, 1.0, "Servers", "must be <= 256"},
        // radix 16: pods of 8 leaves (1 per rail, 8 servers), at most 16 pods = 128 servers.
        BadShape{"radix16for16k", 2048, 8, 16, 0, 1, 1.0, "Servers", "must be <= 128"},
        BadShape{"beyondK64", 8193, 8, 64, 0, 1, 1.0, "Servers", "must be <= 8192"}),
    [](const ::testing::TestParamInfo<BadShape>& i) { return std::string(i.param.name); });

TEST_F(FabricTest, SharpTreesNeedOnePlane)
{
    Ptr<RailOptimizedFatTreeHelper> h = Rail(16, 8, 64, 0, 2);
    h->SetAttribute("InNetworkAggregation", BooleanValue(true));
    try
    {
        h->Build();
        FAIL() << "expected FabricConfigError";
    }
    catch (const FabricConfigError& e)
    {
        EXPECT_EQ(e.GetParameter(), "InNetworkAggregation");
        EXPECT_NE(std::string(e.what()).find("needs Planes 1"), std::string::npos) << e.what();
    }
}

// A ring AllReduce on a 3-tier fabric (radix 4: 16 servers x 1 GPU in 4 pods) against a 2-tier
// fabric of the same 16 GPUs (radix 8). One flow leaves each leaf and each pod, so neither has
// ECMP collisions; the 2 extra hops (2 x (500 ns switch + 250 ns cable)) of a ring step across
// pods add microseconds to a ~1 ms collective: busbw within a few percent. (With 2 rails per
// pod two flows share a spine's uplinks and ECMP collides, a real effect, not a topology one.)
TEST_F(FabricTest, ThreeTierAllReduceMatchesTwoTier)
{
    auto run = [](uint32_t radix, uint32_t expectTiers) {
        Ptr<RailOptimizedFatTreeHelper> h = Rail(16, 1, radix);
        EXPECT_EQ(h->GetTiers(), expectTiers);
        Cluster c =
            MakeJob(h->Build(), "ns3::RingCollective", "allreduce", 16 << 20, 1, Time(0), false);
        c.job->Start();
        Simulator::Run();
        EXPECT_TRUE(c.job->IsFinished());
        const double t =
            c.job->IsFinished() ? c.job->GetSteps()[0].CollectiveTime().GetSeconds() : 0.0;
        Simulator::Destroy();
        return t;
    };
    const double three = run(4, 3);
    const double two = run(8, 2);
    ASSERT_GT(three, 0.0);
    ASSERT_GT(two, 0.0);
    const double busbw3 = double(16 << 20) * 2 * 15 / 16 / three;
    const double busbw2 = double(16 << 20) * 2 * 15 / 16 / two;
    EXPECT_LE(busbw3, busbw2 * 1.001) << "more hops never make it faster";
    EXPECT_NEAR(busbw3 / busbw2, 1.0, 0.05) << busbw3 / 1e9 << " vs " << busbw2 / 1e9 << " GB/s";
    // And both near the NIC bound: 400G x 4096/4182 payload per wire byte (RoCEv2 framing).
    EXPECT_GT(busbw2, 0.8 * 400e9 / 8 * 4096 / 4182);
}

// The runner: one line naming topology.<key> and the allowed range, exit status 2.
TEST(ThreeTierRunnerTest, BadTopologyKeysExitTwoNamingTheKey)
{
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"--set topology.tiers=4", "topology.tiers: must be an integer >= 0 and <= 3"},
        {"--set topology.tiers=1", "topology.tiers: Tiers must be 0 (auto), 2 or 3"},
        {"--set topology.planes=0", "topology.planes: must be an integer >= 1"},
        {"--set topology.planes=9", "topology.planes: must be an integer >= 1 and <= 8"},
        {"--set topology.planes=2 --set compare=[] --set fabric=tcp",
         "topology.planes: 2 planes need an RDMA fabric (rocev2 or infiniband)"},
        {"--set topology.planes=2 --set compare=[] --set fabric=infiniband --set "
         "infiniband.sharp=true",
         "infiniband.sharp: SHARP trees per plane are not modelled"},
        {"--set topology.spine_oversubscription=0.5",
         "topology.spine_oversubscription: must be a number >= 1"},
        {"--set topology.servers=2048 --set topology.leaf_radix=16",
         "topology.servers: Servers must be <= 128 for a 3-tier"},
        {"--set topology.servers=300 --set topology.tiers=2",
         "topology.servers: Servers must be <= 256 for a 2-tier"}};
    for (const auto& [args, text] : cases)
    {
        const Result r = Runner(args + " --out /nonexistent-aif-3tier");
        EXPECT_EQ(r.status, 2) << args;
        EXPECT_NE(r.err.find(text), std::string::npos) << args << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    }
}

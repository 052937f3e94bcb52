// SPDX-License-Identifier: GPL-2.0-only
// Names of a topology's vertices and links (what fault events and `ai-fabric topology --list`
// use), and `ai-fabric topology` itself: counts, the link list, bad input.
#include "process-util.h"
#include "test-util.h"

#include <set>
#include <sstream>

using namespace ns3;

TEST_F(FabricTest, EveryVertexAndLinkHasAUniqueNameThatFindsIt)
{
    Ptr<FatTreeHelper> h = CreateObject<FatTreeHelper>();
    h->SetAttribute("Servers", UintegerValue(32));
    h->SetAttribute("GpusPerServer", UintegerValue(1));
    h->SetAttribute("LeafRadix", UintegerValue(8));
    h->SetAttribute("Tiers", UintegerValue(3));
    Ptr<FabricTopology> topo = h->Build();
    std::set<std::string> vertices;
    const uint32_t nv = topo->GetNEndpoints() + topo->GetNSwitches();
    for (uint32_t v = 0; v < nv; ++v)
    {
        const std::string n = topo->GetVertexName(v);
        EXPECT_TRUE(vertices.insert(n).second) << n;
        EXPECT_EQ(topo->FindVertex(n), int32_t(v)) << n;
    }
    EXPECT_EQ(topo->GetVertexName(0), "gpu0");
    EXPECT_EQ(topo->GetVertexName(topo->GetNEndpoints()), "edge0");
    EXPECT_TRUE(vertices.count("core0"));
    std::set<std::string> links;
    for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
    {
        const std::string n = topo->GetLinkName(l);
        EXPECT_TRUE(links.insert(n).second) << n;
        EXPECT_EQ(topo->FindLink(n), int32_t(l)) << n;
        const auto& li = topo->GetLinks()[l];
        EXPECT_EQ(n.rfind(topo->GetVertexName(li.a) + "-" + topo->GetVertexName(li.b), 0), 0u);
    }
    for (const char* bad : {"", "gpu", "gpu32", "leaf", "leaf01", "spine-1", "x0", "gpu0-leaf9"})
    {
        EXPECT_EQ(topo->FindVertex(bad), -1) << bad;
        EXPECT_EQ(topo->FindLink(bad), -1) << bad;
    }
}

TEST(TopologyCommandTest, PrintsCountsAndListsEveryLink)
{
    const Result r = RunCommand(std::string(AIFABRIC_TOPOLOGY) +
                                    " --set topology.servers=4 --set topology.leaf_radix=8 --list",
                                "topology");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("GPUs 32 (4 servers x 8), switches 12, links 64 (32 host-leaf, 32 "
                         "switch-switch)"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("built in "), std::string::npos);
    EXPECT_NE(r.out.find("peak RSS "), std::string::npos);
    std::istringstream in(r.out);
    std::string line;
    size_t rows = 0;
    bool header = false;
    std::set<std::string> names;
    while (std::getline(in, line))
    {
        if (line == "NAME END-A END-B GBPS")
        {
            header = true;
            continue;
        }
        if (!header)
        {
            continue;
        }
        std::istringstream f(line);
        std::string name, a, b;
        double gbps = 0;
        f >> name >> a >> b >> gbps;
        EXPECT_EQ(name.rfind(a + "-" + b, 0), 0u) << line;
        EXPECT_EQ(gbps, 400) << line;
        names.insert(name);
        ++rows;
    }
    EXPECT_EQ(rows, 64u);
    EXPECT_EQ(names.size(), 64u);
    EXPECT_TRUE(names.count("gpu0-leaf0"));
    EXPECT_TRUE(names.count("leaf0-spine0"));
}

TEST(TopologyCommandTest, BadInputIsOneLineAndExitTwo)
{
    for (const std::string args : {"--set topology.servers=0", "--bogus", "--out x"})
    {
        const Result r = RunCommand(std::string(AIFABRIC_TOPOLOGY) + " " + args, "topology-bad");
        EXPECT_EQ(r.status, 2) << args << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
}

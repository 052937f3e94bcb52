// SPDX-License-Identifier: GPL-2.0-only
// workload.kind matrix (htsim's connection matrices) and the fat-tree that matches htsim's:
// a single flow's FCT from first principles, a permutation's ECMP collisions against its FCTs
// on RoCEv2 and InfiniBand, the 3-tier shape and hop latency, and bad matrices (exit 2).
#include "process-util.h"
#include "scenario.h"
#include "simulation-builder.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <nlohmann/json.hpp>
#include <sstream>

using nlohmann::json;
namespace fs = std::filesystem;

namespace
{

/// 16 hosts on htsim's 3-tier fat-tree (k = 4) at 100 Gb/s, 1 us per link, store-and-forward
/// switches with no switching latency, no NIC latencies (htsim's NIC has none), no CC.
json
Scenario(const std::string& matrix)
{
    return json::parse(R"({"name": "m",
      "topology": {"kind": "fat-tree", "tiers": 3, "servers": 16, "gpus_per_server": 1,
                   "link_gbps": 100, "hop_latency_us": 1},
      "congestion_control": "none",
      "attributes": {"ns3::RdmaNic::NicTxLatency": "0ns", "ns3::RdmaNic::NicRxLatency": "0ns",
                     "ns3::RdmaNic::PcieLatency": "0ns"},
      "workload": {"kind": "matrix", "matrix": ")" +
                       matrix + R"("}})");
}

/// RoCEv2 bytes on the wire around a payload: Ethernet 14 + 802.1Q 4 + FCS 4, preamble/SFD 8
/// + IFG 12 (IEEE 802.3), IPv4 20 + UDP 8, BTH 12 + ICRC 4 (IBTA RoCEv2 annex A17).
constexpr double kOverhead = 14 + 4 + 4 + 8 + 12 + 20 + 8 + 12 + 4;
constexpr double kMtu = 4096;

/// Column `col` of flows.csv, one value per flow.
std::vector<double>
Column(const std::string& csv, size_t col)
{
    std::vector<double> v;
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line))
    {
        std::istringstream f(line);
        std::string cell;
        for (size_t i = 0; i <= col; ++i)
        {
            std::getline(f, cell, ',');
        }
        v.push_back(std::stod(cell));
    }
    return v;
}

} // namespace

// One 1 MB flow between pods (6 links, 5 store-and-forward switches): FCT = size / (rate x
// payload / (payload + overhead)) + the first packet's store-and-forward at the 5 switches
// (the train cannot cross the last link before it) + 6 hops of 1 us out and 6 back for the
// ACK. Left out, < 0.1 us: the first packet's RETH, the short last packet's own overhead and
// the ACK's serialization.
TEST(RunnerMatrixTest, SingleFlowFctFromFirstPrinciples)
{
    const fs::path dir = ScratchDir("aif-matrix-one");
    WriteFile(dir / "one.cm", "Nodes 16\nConnections 1\n0->15 id 1 start 0 size 1000000\n");
    fs::create_directories(dir / "sub");
    WriteFile(dir / "sub" / "s.json", Scenario("../one.cm").dump()); // relative to the file
    const fs::path out = dir / "out";
    const Result r = Runner((dir / "sub" / "s.json").string() + " -q --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    const json s = json::parse(ReadFile(out / "summary.json"))["runs"][0];
    ASSERT_EQ(s["flows"]["completed"], 1);
    const double rate = 100e9;
    const double expected = 1e6 * 8 / (rate * kMtu / (kMtu + kOverhead)) * 1e6 +
                            5 * (kMtu + kOverhead) * 8 / rate * 1e6 + 12.0;
    const double fct = s["flows"]["fct_us"]["max"].get<double>();
    EXPECT_NEAR(fct, expected, 0.1);
    EXPECT_EQ(s["flows"]["fct_us"]["p50"], s["flows"]["fct_us"]["max"]);
    EXPECT_EQ(s["flows"]["paths"]["max_flows_per_link"], 1);
    EXPECT_EQ(s["flows"]["paths"]["flows_sharing_a_link"], 0);
    const std::vector<double> csvFct = Column(ReadFile(out / "m" / "flows.csv"), 5);
    ASSERT_EQ(csvFct.size(), 1u);
    EXPECT_NEAR(csvFct[0], fct, 1e-3);
}

// A permutation on the non-blocking fat-tree: flows alone on their path get the ideal FCT;
// where ECMP puts n flows on one link, the last of them needs n times the serialization.
// RoCEv2 (PFC, no CC) and InfiniBand (credits, its static routes).
TEST(RunnerMatrixTest, PermutationFctsFollowTheReportedCollisions)
{
    const fs::path dir = ScratchDir("aif-matrix-perm");
    // gen_permutation.py's shape: every node sends to one and receives from one, all at 0.
    // Hosts 0-3 swap inside their ToRs (2 hosts each): paths of their own.
    const uint32_t dst[16] = {1, 0, 3, 2, 9, 14, 12, 11, 13, 15, 4, 6, 8, 5, 10, 7};
    std::ostringstream cm;
    cm << "Nodes 16\nConnections 16\n";
    for (uint32_t i = 0; i < 16; ++i)
    {
        cm << i << "->" << dst[i] << " id " << i + 1 << " start 0 size 200000\n";
    }
    WriteFile(dir / "perm.cm", cm.str());
    json sc = Scenario("perm.cm");
    sc["compare"] = json::array(
        {json{{"name", "roce"}},
         json{{"name", "ib"}, {"fabric", "infiniband"}, {"congestion_control", "none"}}});
    WriteFile(dir / "s.json", sc.dump());
    const fs::path out = dir / "out";
    const Result r = Runner((dir / "s.json").string() + " -q --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    const json runs = json::parse(ReadFile(out / "summary.json"))["runs"];
    ASSERT_EQ(runs.size(), 2u);
    for (const json& s : runs)
    {
        const std::string name = s["name"];
        const json& f = s["flows"];
        ASSERT_EQ(f["completed"], 16) << name;
        const std::string csv = ReadFile(out / name / "flows.csv");
        const std::vector<double> fct = Column(csv, 5);
        const std::vector<double> slowdown = Column(csv, 7);
        const std::vector<double> linkFlows = Column(csv, 10);
        ASSERT_EQ(linkFlows.size(), 16u) << name;
        const uint32_t most = f["paths"]["max_flows_per_link"];
        uint64_t sharing = 0;
        double maxFct = 0;
        for (size_t i = 0; i < 16; ++i)
        {
            sharing += linkFlows[i] > 1 ? 1 : 0;
            maxFct = std::max(maxFct, fct[i]);
            // Alone on its path, a flow is never slowed: PFC or credits only hold back a link
            // that a congested flow crosses, and on this path there is none.
            if (linkFlows[i] == 1)
            {
                EXPECT_LT(slowdown[i], 1.01) << name << " flow " << i;
            }
        }
        EXPECT_EQ(f["paths"]["flows_sharing_a_link"].get<uint64_t>(), sharing) << name;
        EXPECT_LE(sharing, 12u) << name << ": the 4 swaps inside ToRs share nothing";
        EXPECT_NEAR(f["fct_us"]["max"].get<double>(), maxFct, 1e-3) << name;
        // n flows of 200 KB on one link: the last of them ends no earlier than their
        // serialization back to back, so among the flows on links shared by n or more the
        // slowest needs n times one flow's.
        const double one =
            (name == "ib" ? 1.0 : (kMtu + kOverhead) / kMtu) * 200e3 * 8 / 100e9 * 1e6;
        for (uint32_t n = 1; n <= most; ++n)
        {
            double slowest = 0;
            for (size_t i = 0; i < 16; ++i)
            {
                slowest = linkFlows[i] >= n ? std::max(slowest, fct[i]) : slowest;
            }
            EXPECT_GE(slowest, 0.99 * n * one) << name << ": " << n << " flows on a link";
        }
    }
    // ECMP on RoCEv2 hashes the queue pairs' UDP ports: this permutation collides.
    EXPECT_GE(runs[0]["flows"]["paths"]["max_flows_per_link"].get<uint32_t>(), 2u);
}

// The runner's 3-tier fat-tree is htsim's FatTreeTopology for 128 nodes: k = 8, 4 hosts per
// ToR, 16 per pod, 32 + 32 + 16 switches, every link 1 us with hop_latency_us 1, and the path
// between pods 6 links (htsim's diameter, 2 x tiers).
TEST(RunnerMatrixTest, FatTreeShapeMatchesHtsims)
{
    json sc = Scenario("x.cm");
    sc["topology"]["servers"] = 128;
    sc["topology"]["link_gbps"] = 400;
    sc["workload"] = json{{"kind", "flows"}};
    std::vector<aifabric::RunConfig> runs = aifabric::ResolveScenario(sc);
    ASSERT_EQ(runs.size(), 1u);
    ns3::Ptr<ns3::FabricTopology> topo = aifabric::BuildTopology(runs[0]);
    EXPECT_EQ(topo->GetNHosts(), 128u);
    EXPECT_EQ(topo->GetNSwitches(), 80u); // k^2/2 edge + k^2/2 aggregation + k^2/4 core
    EXPECT_EQ(topo->GetLinks().size(), 3u * 128);
    ns3::FabricPathTimer timer(topo);
    auto path = [&](uint32_t a, uint32_t b) {
        ns3::FabricFrame f;
        f.src = topo->GetHostAddress(a).Get();
        f.dst = topo->GetHostAddress(b).Get();
        f.srcPort = 1000;
        f.dstPort = 4791;
        f.ComputeFlowHash();
        return timer.Path(a, f);
    };
    EXPECT_EQ(path(0, 3).hops.size(), 2u) << "same ToR (k/2 = 4 hosts)";
    EXPECT_EQ(path(0, 4).hops.size(), 4u) << "same pod (16 hosts)";
    const ns3::FabricPathTiming p = path(0, 127);
    ASSERT_EQ(p.hops.size(), 6u);
    for (const auto& h : p.hops)
    {
        EXPECT_EQ(h.propagation, ns3::MicroSeconds(1));
        EXPECT_EQ(h.rate.GetBitRate(), 400000000000u);
    }
    for (size_t i = 0; i + 1 < p.hops.size(); ++i)
    {
        EXPECT_FALSE(p.hops[i].cutThrough) << "switches store and forward, as htsim's queues";
        EXPECT_EQ(p.hops[i].receiveLatency, ns3::Time(0)) << "htsim's switch_latency 0";
    }
    EXPECT_EQ(p.FixedDelay(), ns3::MicroSeconds(6));
    ns3::Simulator::Destroy();
}

struct BadRun
{
    const char* name;
    const char* matrix; //!< file text; null: no file
    const char* set;
    const char* mustSay;
};

void
PrintTo(const BadRun& b, std::ostream* os)
{
    *os << b.name;
}

class RunnerMatrixBadTest : public ::testing::TestWithParam<BadRun>
{
};

TEST_P(RunnerMatrixBadTest, OneLineExitTwoNoResults)
{
    const BadRun b = GetParam();
    const fs::path dir = ScratchDir(std::string("aif-matrix-bad-") + b.name);
    if (b.matrix)
    {
        WriteFile(dir / "m.cm", b.matrix);
    }
    WriteFile(dir / "s.json", Scenario("m.cm").dump());
    const fs::path out = dir / "out";
    const Result r = Runner((dir / "s.json").string() + " " + b.set + " --out " + out.string());
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(b.mustSay), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out));
}

INSTANTIATE_TEST_SUITE_P(
    Files,
    RunnerMatrixBadTest,
    ::testing::Values(
        BadRun{"missing", nullptr, "", "workload.matrix: '"},
        BadRun{"badLine",
               "Nodes 16\nConnections 2\n0->1 start 0 size 10\n1->0 start 0 size ten\n",
               "",
               "m.cm' line 4: size: must be an integer"},
        BadRun{"nodes",
               "Nodes 8\nConnections 1\n0->1 start 0 size 10\n",
               "",
               "workload.matrix: the matrix has Nodes 8 but the topology has 16 hosts"},
        BadRun{"directory",
               nullptr,
               "--set workload.matrix=/tmp",
               "must be a non-empty regular file"},
        BadRun{"procfs",
               nullptr,
               "--set workload.matrix=/proc/self/status",
               "must be a non-empty regular file of at most 64 MiB"},
        BadRun{"empty", "", "", "must be a non-empty regular file"},
        BadRun{"tcp",
               "Nodes 16\nConnections 1\n0->1 start 0 size 10\n",
               "--set fabric=tcp",
               "workload.kind: flow traffic runs on RDMA"},
        BadRun{"tiers",
               "Nodes 16\nConnections 1\n0->1 start 0 size 10\n",
               "--set topology.tiers=1",
               "topology.tiers: fat-tree has 2 (leaf-spine) or 3 tiers"},
        BadRun{"oversubscribed",
               "Nodes 16\nConnections 1\n0->1 start 0 size 10\n",
               "--set topology.oversubscription=2",
               "topology.oversubscription: the 3-tier (k-ary) fat-tree is 1:1"}));

// SPDX-License-Identifier: GPL-2.0-only
// The scenario runner: schema errors, overrides, compare, results directory, determinism.
#include "dashboard.h"
#include "memory-estimate.h"
#include "process-util.h"
#include "runner.h"
#include "scenario.h"
#include "text-util.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace
{

/// Run the runner binary with `args`; capture stdout, stderr and the exit status.
std::string
TempDir(const std::string& name)
{
    const fs::path d =
        fs::path(::testing::TempDir()) / ("aif-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(d);
    return d.string();
}

std::string
WriteScenario(const std::string& name, const std::string& text)
{
    const std::string p =
        ::testing::TempDir() + "aif-" + name + "-" + std::to_string(::getpid()) + ".json";
    std::ofstream(p) << text;
    return p;
}

// A tiny, fast scenario: 8 GPUs on a star.
const char* kSmall =
    R"({"name": "small", "topology": {"kind": "star", "servers": 4, "gpus_per_server": 2},
  "workload": {"steps": 2, "compute_ms": 1, "bytes": 1048576, "algorithm": "ring"}})";

// Nested 100,000 levels deep; a 1 MB string value.
const std::string kDeep = std::string(100000, '[') + std::string(100000, ']');
const std::string kDeepSet =
    "--set 'compare=" + std::string(100, '[') + std::string(100, ']') + "'";
const std::string kHuge = "{\"name\": \"" + std::string(1 << 20, 'x') + "\"}";

json
ReadJson(const fs::path& p)
{
    std::ifstream f(p);
    return json::parse(f);
}

} // namespace

struct BadInput
{
    const char* name;
    const char* scenario;
    const char* extra;
    const char* mustMention;
};

/// ctest lists a case by its name, not by the bytes of the struct.
void
PrintTo(const BadInput& b, std::ostream* os)
{
    *os << b.name;
}

class RunnerBadInputTest : public ::testing::TestWithParam<BadInput>
{
};

TEST_P(RunnerBadInputTest, OneLineExitTwoNoResults)
{
    const BadInput b = GetParam();
    const std::string out = TempDir(std::string("bad-") + b.name);
    std::string args;
    if (b.scenario[0] != '\0')
    {
        args = WriteScenario(b.name, b.scenario);
    }
    args += std::string(" ") + b.extra;
    if (std::string(b.extra).find("--out") == std::string::npos)
    {
        args += " --out " + out;
    }
    Result r = Runner(args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(b.mustMention), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
    EXPECT_LE(r.err.size(), 500u) << "echoed values are cut";
    EXPECT_FALSE(fs::exists(out));
    // No temporary directory left behind either.
    for (const auto& e : fs::directory_iterator(fs::path(out).parent_path()))
    {
        EXPECT_EQ(e.path().filename().string().find(".tmp-aif-bad-"), std::string::npos);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Cases,
    RunnerBadInputTest,
    ::testing::Values(
        BadInput{"unknown", R"({"topolgy": {}})", "", "did you mean 'topology'"},
        BadInput{"tcpStack", R"({"tcp": {"stack": "bsd"}})", "", "tcp.stack"},
        BadInput{"trainingTpPp",
                 R"({"workload": {"kind": "training", "parallelism": {"tp": 3}}})",
                 "",
                 "workload.parallelism: tp x pp (3) must divide the GPUs"},
        BadInput{"trainingEpDense",
                 R"({"workload": {"kind": "training", "parallelism": {"ep": 2}}})",
                 "",
                 "workload.parallelism: ep > 1 needs a MoE model"},
        BadInput{"trainingInterleaved",
                 R"({"workload": {"kind": "training", "parallelism": {"tp": 8, "pp": 4,
                     "schedule": "interleaved", "microbatches": 6}}})",
                 "",
                 "schedule interleaved needs"},
        BadInput{"trainingBatch",
                 R"({"workload": {"kind": "training", "parallelism": {"global_batch": 3}}})",
                 "",
                 "workload.parallelism.global_batch"},
        BadInput{"trainingMemory",
                 R"({"workload": {"kind": "training", "parallelism": {"microbatches": 65536}}})",
                 "",
                 "training operations"},
        BadInput{"trainingModel",
                 R"({"workload": {"kind": "training", "model": "gpt5"}})",
                 "",
                 "workload.model"},
        BadInput{"tcpThreads",
                 R"({"tcp": {"sockets_per_peer": 3, "threads": 2}})",
                 "",
                 "tcp.sockets_per_peer: must be a multiple of tcp.threads"},
        BadInput{"tcpNs3Sockets",
                 R"({"tcp": {"stack": "ns3", "sockets_per_peer": 2}})",
                 "",
                 "needs tcp.stack linux"},
        BadInput{"tcpSockets", R"({"tcp": {"sockets_per_peer": 65}})", "", "tcp.sockets_per_peer"},
        BadInput{"unknownNested",
                 R"({"topology": {"server": 4}})",
                 "",
                 "did you mean 'topology.servers'"},
        BadInput{"type", R"({"pfc": "yes"})", "", "pfc: must be true or false"},
        BadInput{"zeroRate",
                 R"({"topology": {"link_gbps": 0}})",
                 "",
                 "topology.link_gbps: must be a number > 0"},
        BadInput{"negRate", R"({"topology": {"link_gbps": -400}})", "", "topology.link_gbps"},
        BadInput{"gpus",
                 R"({"topology": {"gpus_per_server": 73}})",
                 "",
                 "topology.gpus_per_server: must be an integer >= 1 and <= 72"},
        BadInput{"dropOne",
                 R"({"faults": {"drop_rate": 1.0}})",
                 "",
                 "faults.drop_rate: must be a number >= 0 and < 1"},
        BadInput{"dropNeg", "", "--set faults.drop_rate=-0.1", "faults.drop_rate"},
        BadInput{"enum",
                 R"({"workload": {"collective": "allsum"}})",
                 "",
                 "workload.collective: must be one of allreduce"},
        BadInput{"servers",
                 "",
                 "--set topology.servers=0",
                 "topology.servers: must be an integer >= 1"},
        BadInput{"oversub", "", "--set topology.oversubscription=0.5", "topology.oversubscription"},
        BadInput{"tooBig",
                 "",
                 "--set topology.servers=300 --set topology.tiers=2",
                 "topology.servers"},
        BadInput{"treeRs",
                 "",
                 "--set workload.algorithm=tree --set workload.collective=allgather",
                 "workload.algorithm"},
        BadInput{"nvlsA100",
                 "",
                 "--set workload.algorithm=nvls-tree --set gpu.model=a100-sxm",
                 "workload.algorithm: 'nvls-tree' needs gpu.nvls"},
        BadInput{"nvlsServers", "", "--set workload.algorithm=nvls", "topology.servers must be 1"},
        BadInput{"nvlsValue", "", "--set gpu.nvls=yes", "gpu.nvls: must be one of auto"},
        BadInput{"nvl72Gpus",
                 "",
                 "--set gpu.model=gb200-nvl72",
                 "gpu.model: gb200-nvl72 is 72 GPUs in one NVLink domain"},
        BadInput{"patAllreduce",
                 "",
                 "--set workload.algorithm=pat",
                 "workload.algorithm: 'pat' implements allgather and reducescatter only"},
        BadInput{"protocolValue",
                 "",
                 "--set workload.protocol=fast",
                 "workload.protocol: must be one of auto"},
        BadInput{"nvlsLl",
                 "",
                 "--set workload.algorithm=nvls --set topology.servers=1 "
                 "--set workload.protocol=ll",
                 "workload.protocol: 'nvls' runs the simple protocol only"},
        BadInput{"sharpRoce",
                 "",
                 "--set infiniband.sharp=true",
                 "infiniband.sharp: SHARP reduces in InfiniBand switches: needs fabric infiniband"},
        BadInput{"sharpFatTree",
                 "",
                 "--set fabric=infiniband --set infiniband.sharp=true --set topology.kind=fat-tree",
                 "infiniband.sharp: needs topology.kind rail-fat-tree or star"},
        BadInput{"collnetNoSharp",
                 "",
                 "--set fabric=infiniband --set workload.algorithm=collnet",
                 "workload.algorithm: 'collnet' reduces in the switches: needs infiniband.sharp"},
        BadInput{"collnetAllgather",
                 "",
                 "--set fabric=infiniband --set infiniband.sharp=true "
                 "--set workload.algorithm=collnet --set workload.collective=allgather",
                 "workload.algorithm: 'collnet' implements allreduce only"},
        BadInput{"collnetLl",
                 "",
                 "--set fabric=infiniband --set infiniband.sharp=true "
                 "--set workload.algorithm=collnet --set workload.protocol=ll",
                 "workload.protocol: 'collnet' runs the simple protocol only"},
        BadInput{"collnetOneServer",
                 "",
                 "--set fabric=infiniband --set infiniband.sharp=true "
                 "--set workload.algorithm=collnet --set topology.servers=1",
                 "workload.algorithm: 'collnet' reduces across servers"},
        BadInput{"badJson", "{ \"seed\": 1, }x", "", "not valid JSON"},
        BadInput{"attr",
                 R"({"attributes": {"ns3::NoSuchThing::X": "1"}})",
                 "",
                 "attributes.ns3::NoSuchThing::X"},
        BadInput{"attrValue",
                 "",
                 "--set 'attributes.ns3::SwitchBufferManager::EcnKmin=banana'",
                 "attributes.ns3::SwitchBufferManager::EcnKmin: must be a value of type"},
        BadInput{"attrRange",
                 R"({"attributes": {"ns3::SwitchBufferManager::EcnKmin": -5}})",
                 "",
                 "attributes.ns3::SwitchBufferManager::EcnKmin: must be a value of type"},
        BadInput{"deep", kDeep.c_str(), "", "nested deeper than 64 levels"},
        BadInput{"deepSet", "", kDeepSet.c_str(), "nested deeper than 64 levels"},
        BadInput{"hugeValue", kHuge.c_str(), "", "name: must be a string of at most 100 bytes"},
        BadInput{"longName",
                 "",
                 "--set "
                 "name=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                 "name: must be a string of at most 100 bytes"},
        BadInput{"hugeNumber", R"({"seed": 1e999})", "", "number is out of range"},
        BadInput{"directory", "", "/tmp", "is a directory"},
        BadInput{"radix2", "", "--set topology.leaf_radix=2", "topology.leaf_radix: must be >= "},
        BadInput{"radix3", "", "--set topology.leaf_radix=3", "topology.leaf_radix: must be >= "},
        BadInput{"duplicateKey", R"({"seed": 1, "seed": 2})", "", "key \"seed\" appears twice"},
        BadInput{"duplicateNested",
                 R"({"topology": {"servers": 2, "servers": 4}})",
                 "",
                 "key \"servers\" appears twice"},
        BadInput{"trailingDot", "", "--set workload.=3", "--set: key 'workload.'"},
        BadInput{"invalidUtf8", "", "--set \"$(printf 'name=\\377')\"", "valid UTF-8"},
        BadInput{"compareKey",
                 R"({"compare": [{"fabrc": "rocev2"}]})",
                 "",
                 "did you mean 'fabric'"},
        BadInput{"missingFile", "", "/nonexistent/scenario.json", "cannot be read"},
        BadInput{"unwritable", "", "--out /proc/aif-results", "--out"},
        BadInput{"ibPfc", "", "--set fabric=infiniband --set pfc=false", "pfc: InfiniBand"},
        BadInput{"ibCcOnRoce", "", "--set congestion_control=ib-cc", "congestion_control: 'ib-cc'"},
        BadInput{"ibBuffer",
                 "",
                 "--set fabric=infiniband --set infiniband.rx_buffer_kib=4",
                 "infiniband.rx_buffer_kib: must hold one full packet"},
        BadInput{"uecLoadBalancing",
                 "",
                 "--set fabric=uec --set uec.load_balancing=flowlet",
                 "uec.load_balancing: must be one of bitmap, ecmp, mixed, oblivious, reps"},
        BadInput{"uecCc",
                 "",
                 "--set fabric=uec --set uec.cc=dcqcn",
                 "uec.cc: must be one of nscc, nscc+rccc, rccc"},
        BadInput{"uecTrimBytes", "", "--set fabric=uec --set uec.trim_bytes=10", "uec.trim_bytes"},
        BadInput{"uecPds", "", "--set fabric=uec --set uec.pds=rudi", "uec.pds"},
        BadInput{"uecEcnBand",
                 "",
                 "--set fabric=uec --set uec.ecn_min_bdp=0.9 --set uec.ecn_max_bdp=0.5",
                 "uec.ecn_max_bdp: must be >= uec.ecn_min_bdp"},
        BadInput{
            "fromOnLoss",
            "",
            "--set 'faults.events=[{\"at_ms\":0,\"link\":\"leaf0-spine0\",\"from\":\"leaf0\","
            "\"action\":\"loss\",\"rate\":0.1}]'",
            "faults.events[0].from: only with action pause-storm or degrade (got action loss)"},
        BadInput{"uecCbfcWithPfc",
                 "",
                 "--set fabric=uec --set uec.credit_flow_control=true --set uec.pfc=true",
                 "uec.credit_flow_control: CBFC replaces PFC"},
        BadInput{"uecLinkRetryNotBool",
                 "",
                 "--set fabric=uec --set uec.link_retry=2",
                 "uec.link_retry"},
        BadInput{"uecReceiveGbpsNegative",
                 "",
                 "--set fabric=uec --set uec.receive_gbps=-1",
                 "uec.receive_gbps"},
        BadInput{"uecReceiveGbpsTiny",
                 "",
                 "--set fabric=uec --set uec.receive_gbps=1e-300",
                 "uec.receive_gbps: the receiver's rate into memory must be at least 1000 bit/s"},
        BadInput{"uecPlanes",
                 "",
                 "--set fabric=uec --set topology.planes=2",
                 "topology.planes: fabric uec has one NIC port (planes 1)"},
        BadInput{"setPrefix", "", "--setx topology.servers=2", "--setx: unknown option"},
        BadInput{"outPrefix", "", "--output /tmp/x", "--output: unknown option"},
        BadInput{"outEmpty", "", "--out ''", "--out: needs a non-empty directory path"},
        BadInput{"shortUnknown", "", "-x", "-x: unknown option"},
        BadInput{"memory65k",
                 "",
                 "--set topology.servers=8192 --set topology.leaf_radix=4096 --set "
                 "workload.algorithm=hierarchical",
                 "limits.max_memory_gb: run '"},
        BadInput{"memoryLimit",
                 "",
                 "--set limits.max_memory_gb=0.01",
                 "limits.max_memory_gb: run '"},
        BadInput{"sharpOverThreeTierPods",
                 "",
                 "--set fabric=infiniband --set infiniband.sharp=true --set "
                 "workload.algorithm=collnet --set topology.servers=300",
                 "infiniband.sharp: aggregation trees have two levels (leaf, spine), and a rail "
                 "of this 3-tier fabric spans"},
        BadInput{"ibLids",
                 "",
                 "--set fabric=infiniband --set topology.servers=7000",
                 "topology.servers"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return std::string(info.param.name); });

// `./ai-fabric run -q` runs the default scenario, as `--quiet` does (it used to pass -q to the
// runner as the only argument, which then ran the built-in defaults under the name "run").
TEST(RunnerTest, WrapperShortQuietRunsTheDefaultScenario)
{
    const fs::path build = fs::path(AIFABRIC_RUNNER).parent_path();
    const std::string out = TempDir("wrapper-q");
    const Result r =
        RunCommand("AIFABRIC_BUILD_DIR=" + build.string() + " " + std::string(AIFABRIC_SOURCE_DIR) +
                       "/ai-fabric run -q --set topology.servers=2 --set "
                       "compare=[] --set workload.steps=1 --out " +
                       out,
                   "wrapper-q");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(ReadJson(fs::path(out) / "summary.json")["name"], "default");
    EXPECT_TRUE(r.out.empty()) << "quiet: " << r.out;
}

// TCP runs report what the TCP stack runs (the Linux model: CUBIC with RACK and TLP by default,
// or the attribute's choice; ns-3's: CUBIC with PRR), not the RDMA fields' defaults (they used
// to say dcqcn and go-back-n).
TEST(RunnerTest, TcpRunsReportTheTcpAlgorithmsThatRun)
{
    json j = json::parse(kSmall);
    j["fabric"] = "tcp";
    std::vector<aifabric::RunConfig> runs = aifabric::ResolveScenario(j);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].fabric.tcp.stack, aifabric::TcpStack::LINUX);
    EXPECT_EQ(runs[0].fabric.congestionControl, "cubic");
    EXPECT_EQ(runs[0].fabric.lossRecovery, "rack-tlp");
    EXPECT_EQ(runs[0].resolved["congestion_control"], "cubic");
    j["tcp"]["tlp"] = false;
    j["tcp"]["rack"] = false;
    j["attributes"]["ns3::LinuxTcpStack::CongestionControl"] = "ns3::LinuxTcpDctcp";
    runs = aifabric::ResolveScenario(j);
    EXPECT_EQ(runs[0].fabric.congestionControl, "dctcp");
    EXPECT_EQ(runs[0].fabric.lossRecovery, "sack");
    j = json::parse(kSmall);
    j["fabric"] = "tcp";
    j["tcp"]["stack"] = "ns3";
    runs = aifabric::ResolveScenario(j);
    EXPECT_EQ(runs[0].fabric.congestionControl, "cubic");
    EXPECT_EQ(runs[0].fabric.lossRecovery, "prr");
    EXPECT_FALSE(runs[0].fabric.tcp.tlp) << "ns-3's TCP has no tail loss probe";
    EXPECT_EQ(runs[0].resolved["tcp"]["rack"], false);
    j["attributes"]["ns3::TcpL4Protocol::SocketType"] = "ns3::TcpDctcp";
    j["attributes"]["ns3::TcpL4Protocol::RecoveryType"] = "ns3::TcpClassicRecovery";
    runs = aifabric::ResolveScenario(j);
    EXPECT_EQ(runs[0].fabric.congestionControl, "dctcp");
    EXPECT_EQ(runs[0].fabric.lossRecovery, "classic");
    j["fabric"] = "rocev2";
    runs = aifabric::ResolveScenario(j);
    EXPECT_EQ(runs[0].fabric.congestionControl, "dcqcn-nvidia") << "what ConnectX NICs ship";
    EXPECT_EQ(runs[0].fabric.lossRecovery, "go-back-n");
}

TEST(RunnerTest, ExistingOutputDirectoryIsRefused)
{
    const std::string out = TempDir("exists");
    fs::create_directories(out);
    Result r = Runner(WriteScenario("small", kSmall) + " --out " + out);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("already exists"), std::string::npos);
    EXPECT_TRUE(fs::is_empty(out));
}

TEST(RunnerTest, ResultsDirectoryHoldsParsableSummaryTracesAndFigures)
{
    const std::string out = TempDir("results");
    Result r = Runner(WriteScenario("small", kSmall) + " --out " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    json s = ReadJson(fs::path(out) / "summary.json");
    for (const char* k : {"fabric",
                          "gpus",
                          "drop_rate",
                          "steps",
                          "compute_ms",
                          "step_ms",
                          "collective_ms",
                          "mfu_effective",
                          "idle_cost_usd_per_hr",
                          "network_latency_us",
                          "algbw_gbytes_per_s",
                          "busbw_gbytes_per_s",
                          "counters",
                          "sim",
                          "runs"})
    {
        EXPECT_TRUE(s.contains(k)) << k;
    }
    for (const char* k : {"mean", "p50", "p99", "max"})
    {
        EXPECT_TRUE(s["step_ms"].contains(k));
        EXPECT_TRUE(s["collective_ms"].contains(k));
    }
    for (const char* k : {"data_packets",
                          "drops_buffer",
                          "drops_corrupt",
                          "pfc_pause_frames",
                          "ecn_marks",
                          "cnps",
                          "retransmitted_packets",
                          "timeouts"})
    {
        EXPECT_TRUE(s["counters"].contains(k)) << k;
    }
    for (const char* k : {"events", "wall_s", "sim_time_s", "peak_rss_mb"})
    {
        EXPECT_TRUE(s["sim"].contains(k)) << k;
    }
    EXPECT_EQ(s["gpus"], 8);
    EXPECT_EQ(s["steps"], 2);
    EXPECT_GT(s["mfu_effective"].get<double>(), 0.0);
    EXPECT_LE(s["mfu_effective"].get<double>(), 1.0);
    EXPECT_GT(s["counters"]["data_packets"].get<uint64_t>(), 0u);
    // Step time = compute + collective: 1 ms compute.
    EXPECT_NEAR(s["step_ms"]["mean"].get<double>(),
                1.0 + s["collective_ms"]["mean"].get<double>(),
                1e-6);
    json cfg = ReadJson(fs::path(out) / "config.json");
    EXPECT_TRUE(cfg["runs"][0].contains("ns3_attributes"));
    EXPECT_TRUE(
        cfg["runs"][0]["ns3_attributes"]["RdmaNic(host 0)"].contains("ns3::RdmaNic::PathMtu"));
    const fs::path run = fs::path(out) / "small";
    for (const char* f :
         {"steps.csv", "steps_summary.csv", "latency_cdf.csv", "queue.csv", "rate.csv", "plots.gp"})
    {
        ASSERT_TRUE(fs::exists(run / f)) << f;
    }
    // CSVs parse: a header, then rows with the same number of fields.
    for (const char* f : {"steps.csv", "steps_summary.csv", "latency_cdf.csv", "queue.csv"})
    {
        std::ifstream in(run / f);
        std::string line;
        std::getline(in, line);
        const auto cols = std::count(line.begin(), line.end(), ',');
        size_t rows = 0;
        while (std::getline(in, line))
        {
            EXPECT_EQ(std::count(line.begin(), line.end(), ','), cols) << f << ": " << line;
            ++rows;
        }
        EXPECT_GT(rows, 0u) << f;
    }
    std::ifstream st(run / "steps.csv");
    std::string line;
    size_t rows = 0;
    while (std::getline(st, line))
    {
        ++rows;
    }
    EXPECT_EQ(rows, 1u + 2 * 8) << "one row per step per rank";
    if (std::system("command -v gnuplot >/dev/null 2>&1") == 0)
    {
        EXPECT_TRUE(fs::exists(run / "timeline.png"));
        EXPECT_TRUE(fs::exists(fs::path(out) / "compare.png"));
    }
    fs::remove_all(out);
}

TEST(RunnerTest, OverridesAndCompareRunsSideBySide)
{
    const std::string out = TempDir("compare");
    const std::string scen =
        R"({"name": "cmp", "topology": {"kind": "star", "servers": 4, "gpus_per_server": 1},
      "workload": {"steps": 1, "compute_ms": 0.5, "bytes": 1048576, "algorithm": "ring"},
      "compare": [{"name": "a"}, {"name": "b", "workload": {"bytes": 2097152}}, {"name": "c", "pfc": false},
                  {"name": "d", "fabric": "tcp"}]})";
    Result r = Runner(WriteScenario("cmp", scen) + " --set workload.steps=2 --out " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    json s = ReadJson(fs::path(out) / "summary.json");
    ASSERT_EQ(s["runs"].size(), 4u);
    std::set<std::string> keys;
    for (auto it = s["runs"][0].begin(); it != s["runs"][0].end(); ++it)
    {
        keys.insert(it.key());
    }
    for (const auto& run : s["runs"])
    {
        std::set<std::string> k;
        for (auto it = run.begin(); it != run.end(); ++it)
        {
            k.insert(it.key());
        }
        EXPECT_EQ(k, keys) << "every run has the same keys";
        EXPECT_EQ(run["steps"], 2) << "--set applies to every compare entry";
    }
    EXPECT_EQ(s["runs"][1]["bytes"], 2097152);
    EXPECT_GT(s["runs"][1]["collective_ms"]["mean"].get<double>(),
              s["runs"][0]["collective_ms"]["mean"].get<double>());
    EXPECT_EQ(s["runs"][2]["pfc"], false);
    EXPECT_EQ(s["runs"][3]["fabric"], "tcp");
    EXPECT_GT(s["runs"][3]["tcp_message_breakdown_us"]["messages"].get<uint64_t>(), 0u);
    for (const char* d : {"a", "b", "c", "d"})
    {
        EXPECT_TRUE(fs::exists(fs::path(out) / d / "steps.csv")) << d;
    }
    fs::remove_all(out);
}

TEST(RunnerTest, SameSeedSameSummary)
{
    const std::string scen =
        R"({"name": "det", "topology": {"kind": "rail-fat-tree", "servers": 2, "gpus_per_server": 4, "leaf_radix": 8},
      "faults": {"drop_rate": 0.001}, "workload": {"steps": 2, "compute_ms": 0.2, "bytes": 4194304}})";
    const std::string file = WriteScenario("det", scen);
    // Runs 0 and 1 with the scenario's seed, run 2 with another one.
    json s[3];
    for (int i = 0; i < 3; ++i)
    {
        const std::string out = TempDir("det" + std::to_string(i));
        Result r = Runner(file + (i == 2 ? " --set seed=2" : "") + " --out " + out);
        ASSERT_EQ(r.status, 0) << r.err;
        s[i] = ReadJson(fs::path(out) / "summary.json");
        fs::remove_all(out);
        for (json* j : {&s[i], &s[i]["runs"][0]})
        {
            (*j)["sim"].erase("wall_s");
            (*j)["sim"].erase("peak_rss_mb");
        }
    }
    EXPECT_EQ(s[0].dump(), s[1].dump());
    EXPECT_GT(s[0]["counters"]["retransmitted_packets"].get<uint64_t>(), 0u)
        << "loss was exercised";
    // The seed must reach what randomness drives: which packets are dropped, hence the
    // retransmissions and the time the steps took.
    EXPECT_NE(s[2]["runs"][0]["counters"].dump() + s[2]["runs"][0]["step_ms"].dump(),
              s[0]["runs"][0]["counters"].dump() + s[0]["runs"][0]["step_ms"].dump())
        << "another seed changes the drops";
}

// workload.kind training end to end: a shrunk Llama-3-8B over TP 4 x PP 2 x DP 2 on 16 GPUs.
// Each rank's phases sum to its step, so their means do; MFU is the model's FLOPs over the
// GPUs' peak for the mean step.
TEST(RunnerTest, TrainingRunReportsPhasesAndMfu)
{
    const std::string out = TempDir("e2e-training");
    Result r = Runner(std::string("--set workload.kind=training --set topology.servers=2") +
                      " --set workload.model_shape.layers=4 --set workload.model_shape.seq_len=1024"
                      " --set workload.parallelism.tp=4 --set workload.parallelism.pp=2"
                      " --set workload.parallelism.microbatches=4 --set workload.steps=2 --out " +
                      out);
    ASSERT_EQ(r.status, 0) << r.err;
    json s = ReadJson(fs::path(out) / "summary.json");
    EXPECT_TRUE(s["completed"].get<bool>());
    const json& t = s["training"];
    EXPECT_EQ(t["parallelism"]["dp"], 2);
    double sum = 0;
    for (const auto& [k, v] : t["phases_ms"].items())
    {
        sum += v.get<double>();
    }
    EXPECT_NEAR(sum, s["step_ms"]["mean"].get<double>(), 1e-6 * sum);
    EXPECT_GT(t["phases_ms"]["pp_bubble"].get<double>(), 0.0);
    EXPECT_GT(t["phases_ms"]["tp_exposed"].get<double>(), 0.0);
    EXPECT_NEAR(s["mfu_effective"].get<double>(),
                t["model_tflop_per_step"].get<double>() * 1e12 /
                    (16 * 989.4e12 * s["step_ms"]["mean"].get<double>() * 1e-3),
                1e-9);
    EXPECT_GT(s["counters"]["data_packets"].get<uint64_t>(), 0u);
    std::ifstream dash(fs::path(out) / "dashboard.txt");
    const std::string text((std::istreambuf_iterator<char>(dash)), {});
    EXPECT_NE(text.find("TRAINING STEP"), std::string::npos);
    EXPECT_NE(text.find("PP bubble"), std::string::npos);
    // timeline.csv: the first step, every rank (a small step), one compute stream per rank that
    // ends no later than the step.
    EXPECT_EQ(t["timeline_ranks"], "all");
    std::ifstream tl(fs::path(out) / "run" / "timeline.csv");
    std::string line;
    std::getline(tl, line);
    EXPECT_EQ(line, "rank,op,kind,phase,start_us,end_us");
    std::map<uint32_t, double> computeEnd;
    std::set<uint32_t> ranks;
    double last = 0;
    size_t rows = 0;
    std::vector<std::pair<uint32_t, std::pair<double, double>>> kernels;
    while (std::getline(tl, line))
    {
        std::istringstream is(line);
        std::string f[6];
        for (auto& x : f)
        {
            std::getline(is, x, ',');
        }
        const uint32_t rank = std::stoul(f[0]);
        ranks.insert(rank);
        const double start = std::stod(f[4]);
        const double end = std::stod(f[5]);
        EXPECT_LE(start, end) << line;
        last = std::max(last, end);
        if (f[2] == "compute")
        {
            kernels.push_back({rank, {start, end}});
        }
        ++rows;
    }
    EXPECT_EQ(rows, t["operations_per_step"].get<uint64_t>());
    EXPECT_EQ(ranks.size(), 16u);
    std::sort(kernels.begin(), kernels.end());
    for (size_t i = 1; i < kernels.size(); ++i)
    {
        if (kernels[i].first == kernels[i - 1].first)
        {
            EXPECT_GE(kernels[i].second.first, kernels[i - 1].second.second - 1e-3)
                << "rank " << kernels[i].first << ": kernels overlap";
        }
    }
    EXPECT_LE(last, s["barrier"][0]["step_ms"].get<double>() * 1e3 + 1e-3);
    EXPECT_GT(last, 0.9 * s["barrier"][0]["step_ms"].get<double>() * 1e3);
    fs::remove_all(out);
}

TEST(RunnerTest, EndToEndTcpRun)
{
    const std::string out = TempDir("e2e-tcp");
    Result r = Runner(
        std::string("--set fabric=tcp --set topology.kind=star --set topology.servers=4") +
        " --set topology.gpus_per_server=1 --set workload.steps=2 --set workload.compute_ms=0.1"
        " --set workload.algorithm=ring --set workload.bytes=4194304 --out " +
        out);
    ASSERT_EQ(r.status, 0) << r.err;
    json s = ReadJson(fs::path(out) / "summary.json");
    EXPECT_TRUE(s["completed"].get<bool>());
    EXPECT_EQ(s["fabric"], "tcp");
    EXPECT_GT(s["counters"]["data_packets"].get<uint64_t>(), 0u);
    EXPECT_GT(s["network_latency_us"]["p50"].get<double>(), 0.0);
    fs::remove_all(out);
}

// The Linux TCP model's counters reach summary.json, and the barrier says whether a tail loss
// was repaired by a loss probe or waited for the RTO. 4 hosts, 2% loss: with TLP one step's
// tail loss is probed (one packet out: 2 SRTT + 200 ms, no RTO); without it, RTOs.
TEST(RunnerTest, TcpCountersAndTheBarrierSayProbeOrTimeout)
{
    const std::string base =
        "--set fabric=tcp --set pfc=false --set topology.kind=star --set topology.servers=4"
        " --set topology.gpus_per_server=1 --set workload.steps=6 --set workload.compute_ms=0.1"
        " --set workload.algorithm=ring --set workload.bytes=1048576"
        " --set faults.drop_rate=0.02";
    std::map<bool, json> runs;
    for (bool tlp : {true, false})
    {
        const std::string out = TempDir(std::string("tcp-tlp-") + (tlp ? "on" : "off"));
        Result r = Runner(base + " --set tcp.tlp=" + (tlp ? "true" : "false") + " --out " + out);
        ASSERT_EQ(r.status, 0) << r.err;
        runs[tlp] = ReadJson(fs::path(out) / "summary.json");
        fs::remove_all(out);
    }
    std::map<bool, std::set<std::string>> causes;
    for (auto& [tlp, s] : runs)
    {
        const json& t = s["tcp"];
        EXPECT_EQ(t["stack"], "linux");
        for (const char* k : {"timeouts",
                              "tlp_probes",
                              "rack_losses",
                              "fast_retransmits",
                              "spurious_retransmits",
                              "retransmitted_segments",
                              "segments_sent"})
        {
            EXPECT_TRUE(t.contains(k)) << k;
        }
        EXPECT_GT(t["rack_losses"].get<uint64_t>(), 0u);
        EXPECT_GT(t["fast_retransmits"].get<uint64_t>(), 0u);
        EXPECT_EQ(s["counters"]["retransmitted_packets"], t["retransmitted_segments"]);
        EXPECT_EQ(s["counters"]["timeouts"], t["timeouts"]);
        for (const json& b : s["barrier"])
        {
            causes[tlp].insert(b["cause"].get<std::string>());
        }
    }
    EXPECT_GE(runs[true]["tcp"]["tlp_probes"].get<uint64_t>(), 1u);
    EXPECT_EQ(runs[true]["tcp"]["timeouts"], 0u);
    EXPECT_TRUE(causes[true].count("tail-loss-probe"));
    EXPECT_FALSE(causes[true].count("timeout"));
    EXPECT_EQ(runs[false]["tcp"]["tlp_probes"], 0u);
    EXPECT_GE(runs[false]["tcp"]["timeouts"].get<uint64_t>(), 1u);
    EXPECT_TRUE(causes[false].count("timeout"));
    EXPECT_FALSE(causes[false].count("tail-loss-probe"));
}

// The dashboard's columns are as wide as their widest cell: a long cell ("rank 1023
// (tail-loss-probe)", 27 characters) no longer runs into the next column.
TEST(RunnerTest, DashboardCellsNeverRunTogether)
{
    json j = json::parse(kSmall);
    j["fabric"] = "tcp";
    const std::string out = TempDir("dash-cells");
    const std::string path = WriteScenario("dash-cells", j.dump());
    Result r = Runner(path + " --out " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    aifabric::RunOutput a;
    a.config = aifabric::ResolveScenario(j).at(0);
    a.summary = ReadJson(fs::path(out) / "summary.json");
    fs::remove_all(out);
    a.summary["barrier"][0]["waited_on"] = 1023;
    a.summary["barrier"][0]["cause"] = "tail-loss-probe";
    a.summary["barrier"][0]["step_ms"] = 1e6;
    const std::string d = aifabric::Dashboard({a, a});
    const size_t at = d.find("rank 1023 (tail-loss-probe)");
    ASSERT_NE(at, std::string::npos) << d;
    EXPECT_EQ(d.compare(at + 27, 2, "  "), 0) << d;
    EXPECT_NE(d.find("TCP RACK losses / probes"), std::string::npos) << d;
}

TEST(RunnerTest, DashboardNamesTheCollectiveAndShowsWhatDiffersPerRun)
{
    json j = json::parse(kSmall);
    const std::string out = TempDir("dash-diff");
    const std::string path = WriteScenario("dash-diff", j.dump());
    Result r = Runner(path + " --out " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    aifabric::RunOutput a;
    a.config = aifabric::ResolveScenario(j).at(0);
    a.summary = ReadJson(fs::path(out) / "summary.json");
    fs::remove_all(out);
    // One collective everywhere: its name, and algbw beside busbw.
    const double algbw = a.summary["algbw_gbytes_per_s"].get<double>();
    const std::string same = aifabric::Dashboard({a, a});
    ASSERT_EQ(a.config.workload.collective, ns3::CollectiveSpec::ALLREDUCE);
    EXPECT_NE(same.find("AllReduce duration (mean)"), std::string::npos) << same;
    EXPECT_NE(same.find("algbw / busbw"), std::string::npos) << same;
    EXPECT_NE(same.find(aifabric::Num(algbw, 4) + " / "), std::string::npos) << same;
    EXPECT_NE(same.find(std::to_string(a.config.Gpus()) + " GPUs"), std::string::npos) << same;
    // Another collective and another size in the second run: the header says only what both
    // share, the rest is a row per run.
    aifabric::RunOutput b = a;
    b.config.workload.collective = ns3::CollectiveSpec::ALLGATHER;
    b.config.workload.bytes = 2 * a.config.workload.bytes;
    const std::string diff = aifabric::Dashboard({a, b});
    EXPECT_NE(diff.find("Collective duration (mean)"), std::string::npos) << diff;
    EXPECT_EQ(diff.find("AllReduce duration"), std::string::npos) << diff;
    const size_t header = diff.find("CLUSTER SYNC");
    const std::string headerLine = diff.substr(header, diff.find('\n', header) - header);
    EXPECT_EQ(headerLine.find("allreduce"), std::string::npos) << headerLine;
    EXPECT_NE(headerLine.find("GPUs"), std::string::npos) << headerLine;
    const size_t row = diff.find("\ncollective ");
    ASSERT_NE(row, std::string::npos) << diff;
    const std::string rowLine = diff.substr(row + 1, diff.find('\n', row + 1) - row - 1);
    EXPECT_NE(rowLine.find("allreduce of"), std::string::npos) << rowLine;
    EXPECT_NE(rowLine.find("allgather of"), std::string::npos) << rowLine;
}

TEST(RunnerTest, EndToEndRocev2OnEveryTopologyKind)
{
    for (const char* kind : {"rail-fat-tree", "fat-tree", "star"})
    {
        const std::string out = TempDir(std::string("e2e-") + kind);
        Result r = Runner(
            std::string("--set topology.kind=") + kind +
            " --set topology.servers=2 --set topology.gpus_per_server=4 --set topology.leaf_radix=8"
            " --set workload.steps=1 --set workload.compute_ms=0.1 --set workload.bytes=1048576 "
            "--out " +
            out);
        ASSERT_EQ(r.status, 0) << kind << ": " << r.err;
        json s = ReadJson(fs::path(out) / "summary.json");
        EXPECT_TRUE(s["completed"].get<bool>()) << kind;
        EXPECT_EQ(s["fabric"], "rocev2");
        fs::remove_all(out);
    }
}

TEST(RunnerTest, EndToEndInfinibandRun)
{
    const std::string out = TempDir("e2e-ib");
    Result r = Runner(
        std::string(
            "--set fabric=infiniband --set topology.servers=2 --set topology.gpus_per_server=4") +
        " --set topology.leaf_radix=8 --set workload.steps=1 --set workload.compute_ms=0.1"
        " --set workload.bytes=4194304 --set workload.algorithm=ring --out " +
        out);
    ASSERT_EQ(r.status, 0) << r.err;
    json s = ReadJson(fs::path(out) / "summary.json");
    EXPECT_TRUE(s["completed"].get<bool>());
    EXPECT_EQ(s["fabric"], "infiniband");
    EXPECT_EQ(s["congestion_control"], "ib-cc") << "auto resolves to IB CC on InfiniBand";
    EXPECT_GT(s["counters"]["ib_flow_control_packets"].get<uint64_t>(),
              s["counters"]["data_packets"].get<uint64_t>())
        << "one credit update per packet per hop";
    EXPECT_EQ(s["counters"]["pfc_pause_frames"].get<uint64_t>(), 0u);
    EXPECT_EQ(s["counters"]["drops_buffer"].get<uint64_t>(), 0u);
    fs::remove_all(out);
}

TEST(RunnerTest, DefaultScenarioFileIsValid)
{
    json j =
        aifabric::LoadScenarioFile(std::string(AIFABRIC_SOURCE_DIR) + "/scenarios/default.json");
    std::vector<aifabric::RunConfig> runs = aifabric::ResolveScenario(j);
    EXPECT_GE(runs.size(), 4u);
    EXPECT_EQ(runs[0].Gpus(), 128u);
    std::set<std::string> fabrics;
    for (const auto& r : runs)
    {
        fabrics.insert(r.fabric.name);
    }
    EXPECT_EQ(fabrics, (std::set<std::string>{"tcp", "rocev2", "infiniband"}));
    json seed = aifabric::LoadScenarioFile(std::string(AIFABRIC_SOURCE_DIR) +
                                           "/scenarios/seed-1024-h100.json");
    runs = aifabric::ResolveScenario(seed);
    EXPECT_EQ(runs[0].Gpus(), 1024u);
    EXPECT_DOUBLE_EQ(runs[0].workload.computeMs, 82.0);
}

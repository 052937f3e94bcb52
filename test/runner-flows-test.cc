// SPDX-License-Identifier: GPL-2.0-only
// The runner's flow workloads: workload.kind flows and workload.background end to end (summary
// keys, flows.csv, the slowdown figure), and their bad input (one line naming the key, exit 2,
// no results).
#include "process-util.h"

#include <nlohmann/json.hpp>

using nlohmann::json;
namespace fs = std::filesystem;

namespace
{

/// 8 hosts of 100G under two leaves, fb-hadoop at 30% for 1 ms: a few hundred flows.
const char* kFlows = R"({"name": "flows",
  "topology": {"kind": "fat-tree", "servers": 8, "gpus_per_server": 1, "link_gbps": 100,
               "leaf_radix": 8},
  "workload": {"kind": "flows",
               "flows": {"cdf": "fb-hadoop", "load": 0.3, "duration_ms": 1,
                         "incast": {"fanin": 4, "bytes": 20000, "period_us": 250}}},
  "compare": [{"name": "dcqcn", "congestion_control": "dcqcn"},
              {"name": "hpcc", "congestion_control": "hpcc"}]})";

} // namespace

TEST(RunnerFlowsTest, FlowWorkloadWritesSlowdownsFlowsAndAFigure)
{
    const fs::path dir = ScratchDir("aif-flows");
    const fs::path out = dir / "out";
    const Result r = Runner(WriteFile(dir / "s.json", kFlows).string() + " --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    const json s = json::parse(ReadFile(out / "summary.json"));
    ASSERT_EQ(s["runs"].size(), 2u);
    for (const json& run : s["runs"])
    {
        const json& f = run["flows"];
        EXPECT_EQ(run["workload_kind"], "flows");
        EXPECT_TRUE(run["completed"].get<bool>());
        EXPECT_GT(f["total"].get<uint64_t>(), 100u);
        EXPECT_EQ(f["completed"], f["total"]);
        EXPECT_EQ(f["incast"].get<uint64_t>(), 3u * 4) << "bursts at 250, 500, 750 us";
        // The issue's buckets: upper edges 10 KB, 100 KB, 1 MB, 10 MB, then an open one.
        const json& b = f["slowdown_by_size"];
        ASSERT_EQ(b.size(), 5u);
        EXPECT_EQ(b[0]["max_bytes"], 10000);
        EXPECT_EQ(b[3]["max_bytes"], 10000000);
        EXPECT_TRUE(b[4]["max_bytes"].is_null());
        uint64_t counted = 0;
        for (const json& e : b)
        {
            counted += e["count"].get<uint64_t>();
            if (e["count"].get<uint64_t>() > 0)
            {
                EXPECT_GE(e["p50"].get<double>(), 1.0 - 1e-9);
                EXPECT_LE(e["p50"].get<double>(), e["p95"].get<double>());
                EXPECT_LE(e["p95"].get<double>(), e["p99"].get<double>());
            }
        }
        EXPECT_EQ(counted, f["total"].get<uint64_t>() - f["incast"].get<uint64_t>());
        EXPECT_GE(f["slowdown"]["p50"].get<double>(), 1.0 - 1e-9);
        // One line per flow in flows.csv, with its slowdown.
        const std::string csv = ReadFile(out / run["name"].get<std::string>() / "flows.csv");
        EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), f["total"].get<int64_t>() + 1);
    }
    // HPCC keeps switch queues far below DCQCN's ECN band, and so its short flows' p95
    // slowdown below DCQCN's (the HPCC paper's ordering; 1.5 against 23 here).
    EXPECT_LT(s["runs"][1]["flows"]["queue_p99_bytes"].get<double>(),
              s["runs"][0]["flows"]["queue_p99_bytes"].get<double>());
    EXPECT_LT(s["runs"][1]["flows"]["slowdown_by_size"][0]["p95"].get<double>(),
              s["runs"][0]["flows"]["slowdown_by_size"][0]["p95"].get<double>());
    EXPECT_NE(ReadFile(out / "dashboard.txt").find("FCT slowdown p50/p95/p99"), std::string::npos);
    EXPECT_TRUE(fs::exists(out / "slowdown.gp"));
    EXPECT_FALSE(fs::exists(out / "compare.gp")) << "no training steps to compare";
}

// Background flows beside a training job: the job's steps complete and the flows are reported.
TEST(RunnerFlowsTest, BackgroundFlowsRunBesideTheTrainingJob)
{
    const fs::path dir = ScratchDir("aif-background");
    const fs::path out = dir / "out";
    const Result r =
        Runner(WriteFile(dir / "s.json",
                         R"({"topology": {"kind": "star", "servers": 4, "gpus_per_server": 2},
                      "workload": {"steps": 2, "compute_ms": 0.2, "bytes": 1048576,
                                   "algorithm": "ring",
                                   "background": {"cdf": "websearch", "load": 0.2}}})")
                   .string() +
               " --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    const json s = json::parse(ReadFile(out / "summary.json"))["runs"][0];
    EXPECT_EQ(s["steps_completed"], 2);
    EXPECT_GT(s["flows"]["total"].get<uint64_t>(), 0u);
    EXPECT_GT(s["busbw_gbytes_per_s"].get<double>(), 0.0);
}

struct BadFlows
{
    const char* name;
    const char* set;
    const char* mustSay;
};

void
PrintTo(const BadFlows& b, std::ostream* os)
{
    *os << b.name;
}

class RunnerFlowsBadInputTest : public ::testing::TestWithParam<BadFlows>
{
};

TEST_P(RunnerFlowsBadInputTest, OneLineExitTwoNoResults)
{
    const BadFlows b = GetParam();
    const fs::path dir = ScratchDir(std::string("aif-flows-bad-") + b.name);
    WriteFile(dir / "bad.txt", "0 0\n100 50\n50 100\n");
    const fs::path out = dir / "out";
    std::string set = b.set;
    if (set.find("{dir}") != std::string::npos)
    {
        set.replace(set.find("{dir}"), 5, dir.string());
    }
    const Result r = Runner(WriteFile(dir / "s.json", kFlows).string() + " " + set +
                            " --set compare=[] --out " + out.string());
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(b.mustSay), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out));
}

INSTANTIATE_TEST_SUITE_P(
    Cases,
    RunnerFlowsBadInputTest,
    ::testing::Values(
        BadFlows{"unknownCdf",
                 "--set workload.flows.cdf=webserch",
                 "workload.flows.cdf: 'webserch' is neither websearch, fb-hadoop nor a file"},
        BadFlows{"badCdfFile", "--set workload.flows.cdf={dir}/bad.txt", "bytes must not decrease"},
        BadFlows{"procfs",
                 "--set workload.flows.cdf=/proc/self/status",
                 "workload.flows.cdf: '/proc/self/status' must be a non-empty regular file"},
        BadFlows{"directory", "--set workload.flows.cdf={dir}", "is a directory"},
        BadFlows{"load",
                 "--set workload.flows.load=0",
                 "workload.flows.load: must be a number > 0"},
        BadFlows{"tcp", "--set fabric=tcp", "workload.kind: flow traffic runs on RDMA"},
        BadFlows{"fanin",
                 "--set workload.flows.incast.fanin=8",
                 "workload.flows.incast.fanin: must be below the number of hosts, 8 (got 8)"},
        BadFlows{"incastHalf",
                 "--set workload.flows.incast.period_us=0",
                 "workload.flows.incast: fanin and period_us must both be > 0"},
        BadFlows{"pattern",
                 "--set workload.flows.pattern=all",
                 "workload.flows.pattern: must be one of"},
        BadFlows{"backgroundWithFlows",
                 "--set workload.background.load=0.1",
                 "workload.background: flow traffic beside a training job needs workload.kind "
                 "collective"}),
    [](const ::testing::TestParamInfo<BadFlows>& i) { return std::string(i.param.name); });

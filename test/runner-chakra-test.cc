// SPDX-License-Identifier: GPL-2.0-only
// Chakra traces through the runner: `ai-fabric chakra export` writes a training step, and
// workload.kind chakra runs it with the same step time as the native workload; bad input exits
// 2 with one line.
#include "process-util.h"

#include <fstream>
#include <nlohmann/json.hpp>

using nlohmann::json;
namespace fs = std::filesystem;

namespace
{

/// Llama-3-8B cut to 4 layers of 1,024 tokens on 4 servers x 4 GPUs: TP 4, PP 2, DP 2, ZeRO 1.
const std::string kTraining =
    " --set workload.kind=training --set topology.servers=4 --set topology.gpus_per_server=4"
    " --set workload.model_shape.layers=4 --set workload.model_shape.seq_len=1024"
    " --set workload.parallelism.tp=4 --set workload.parallelism.pp=2"
    " --set workload.parallelism.microbatches=4 --set workload.parallelism.zero=1"
    " --set workload.steps=2";

Result
Chakra(const std::string& args)
{
    return RunCommand(std::string(AIFABRIC_CHAKRA) + " " + args, "chakra");
}

json
ReadSummary(const fs::path& out)
{
    std::ifstream f(out / "summary.json");
    return json::parse(f);
}

} // namespace

TEST(RunnerChakraTest, ExportedTraceRunsAsTheNativeWorkload)
{
    const fs::path dir = ScratchDir("aif-chakra");
    const fs::path trace = dir / "trace";
    const Result ex = Chakra("export" + kTraining + " --out " + trace.string());
    ASSERT_EQ(ex.status, 0) << ex.err;
    EXPECT_TRUE(fs::exists(trace / "trace.0.et"));
    EXPECT_TRUE(fs::exists(trace / "trace.15.et"));
    EXPECT_TRUE(fs::exists(trace / "comm_group.json"));
    const Result show = Chakra("show " + trace.string());
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find("16 ranks"), std::string::npos) << show.out;

    const Result native = Runner(kTraining + " --out " + (dir / "native").string());
    ASSERT_EQ(native.status, 0) << native.err;
    const Result replay =
        Runner("--set workload.kind=chakra --set workload.trace=" + trace.string() +
               " --set topology.servers=4 --set topology.gpus_per_server=4 --set workload.steps=2"
               " --out " +
               (dir / "chakra").string());
    ASSERT_EQ(replay.status, 0) << replay.err;
    const json a = ReadSummary(dir / "native");
    const json b = ReadSummary(dir / "chakra");
    // The same step, to the nanosecond, and the same phases: the trace keeps every operation,
    // dependency, communicator and phase.
    EXPECT_EQ(a["step_ms"], b["step_ms"]);
    EXPECT_EQ(a["barrier"], b["barrier"]);
    EXPECT_EQ(a["training"]["phases_ms"], b["training"]["phases_ms"]);
    EXPECT_EQ(a["training"]["operations_per_step"], b["training"]["operations_per_step"]);
    EXPECT_EQ(a["mfu_effective"], b["mfu_effective"]);
    EXPECT_EQ(b["training"]["model"], "chakra");
    EXPECT_GT(a["training"]["phases_ms"]["dp_exposed"].get<double>(), 0.0);
    fs::remove_all(dir);
}

TEST(RunnerChakraTest, BadInputIsOneLineAndExitTwo)
{
    const fs::path dir = ScratchDir("aif-chakra-bad");
    const fs::path trace = dir / "trace";
    ASSERT_EQ(Chakra("export" + kTraining + " --out " + trace.string()).status, 0);
    fs::create_directories(dir / "empty");
    const std::string cluster = " --set topology.servers=4 --set topology.gpus_per_server=4";

    struct Case
    {
        std::string args;
        bool runner;
        std::string mustSay;
    };

    const std::vector<Case> cases = {
        {"--set workload.kind=chakra" + cluster, true, "workload.trace: missing"},
        {"--set workload.kind=chakra --set workload.trace=" + (dir / "nope").string() + cluster,
         true,
         "workload.trace: "},
        {"--set workload.kind=chakra --set workload.trace=" + (dir / "empty").string() + cluster,
         true,
         "workload.trace: "},
        {"--set workload.kind=chakra --set workload.trace=" + trace.string() +
             " --set topology.servers=2 --set topology.gpus_per_server=4",
         true,
         "workload.trace: the trace has 16 ranks; the cluster has 8 GPUs"},
        {"export" + kTraining, false, "--out: missing"},
        {"export" + kTraining + " --out " + trace.string(), false, "already exists"},
        {"export --out " + (dir / "x").string(), false, "workload.kind: chakra export writes"},
        {"show " + (dir / "empty").string(), false, ""},
        {"bogus", false, "chakra: unknown command 'bogus'"},
    };
    for (const Case& c : cases)
    {
        const fs::path out = dir / "out";
        const Result r = c.runner ? Runner(c.args + " --out " + out.string()) : Chakra(c.args);
        EXPECT_EQ(r.status, 2) << c.args << ": " << r.err;
        EXPECT_NE(r.err.find(c.mustSay), std::string::npos) << c.args << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.args << ": " << r.err;
        EXPECT_FALSE(fs::exists(out));
        EXPECT_FALSE(fs::exists(dir / "x"));
    }
    fs::remove_all(dir);
}

// SPDX-License-Identifier: GPL-2.0-only
// A training run's summary.json says at top level what the training ran (its collectives, their
// bytes, algorithms and protocols), not the scenario's unused default collective workload
// (allreduce of workload.bytes = 64 MiB); the same training replayed as a Chakra trace says the
// same.
#include "process-util.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

using nlohmann::json;
namespace fs = std::filesystem;

namespace
{

json
ReadSummary(const fs::path& out)
{
    std::ifstream f(out / "summary.json");
    return json::parse(f);
}

/// Algorithms, protocols and the most channels of training.collectives' labels
/// ("tp allreduce 8388608 B over 2 GPUs (2 per server): ring/simple, 4 channels").
void
Choices(const json& s, std::string& algorithms, std::string& protocols, uint32_t& channels)
{
    std::set<std::string> a;
    std::set<std::string> p;
    channels = 0;
    const std::regex re(": ([a-z0-9-]+)/([a-z0-9]+), ([0-9]+) channels");
    for (const auto& label : s["training"]["collectives"])
    {
        std::smatch m;
        const std::string l = label.get<std::string>();
        EXPECT_TRUE(std::regex_search(l, m, re)) << l;
        a.insert(m[1]);
        p.insert(m[2]);
        channels = std::max<uint32_t>(channels, std::stoul(m[3]));
    }
    algorithms.clear();
    protocols.clear();
    for (const auto& x : a)
    {
        algorithms += (algorithms.empty() ? "" : "+") + x;
    }
    for (const auto& x : p)
    {
        protocols += (protocols.empty() ? "" : "+") + x;
    }
}

} // namespace

// Llama-3-8B (hidden 4,096, 2-byte activations) cut to 2 layers of 1,024 tokens, TP 2 x PP 2 on
// 4 GPUs, 2 micro-batches. Rank 0 (stage 0, one layer) per step: each micro-batch's layer
// all-reduces its activations (1,024 x 4,096 x 2 B = 8 MiB) after attention and after the MLP,
// forward and backward (4), and sends them once to stage 1: (2 x 4 + 2) x 8 MiB = 80 MiB.
TEST(RunnerTrainingSummaryTest, TopLevelIsWhatTheTrainingRan)
{
    const fs::path dir = ScratchDir("aif-training-summary");
    const std::string shape =
        " --set workload.kind=training --set topology.servers=1 --set topology.gpus_per_server=4"
        " --set workload.model_shape.layers=2 --set workload.model_shape.seq_len=1024"
        " --set workload.parallelism.tp=2 --set workload.parallelism.pp=2"
        " --set workload.parallelism.microbatches=2 --set workload.steps=1"
        " --set workload.algorithm=ring --set workload.protocol=simple"
        " --set workload.channels=2";
    const Result native = Runner(shape + " --out " + (dir / "native").string());
    ASSERT_EQ(native.status, 0) << native.err;
    const json s = ReadSummary(dir / "native");
    const uint64_t act = 1024ULL * 4096 * 2;
    EXPECT_EQ(s["workload_kind"], "training");
    EXPECT_EQ(s["collective"], "allreduce");
    EXPECT_EQ(s["bytes"].get<uint64_t>(), (2 * 4 + 2) * act);
    EXPECT_EQ(s["algorithm"], "ring");
    EXPECT_EQ(s["algorithm_used"], "ring");
    EXPECT_EQ(s["protocol_used"], "simple");
    std::string algorithms;
    std::string protocols;
    uint32_t channels = 0;
    Choices(s, algorithms, protocols, channels);
    EXPECT_EQ(s["channels_used"].get<uint32_t>(), channels);
    EXPECT_EQ(channels, 2u) << "workload.channels applies to the training's collectives";
    // A step of many collectives and messages has no one bandwidth.
    EXPECT_EQ(s["algbw_gbytes_per_s"].get<double>(), 0.0);
    EXPECT_EQ(s["busbw_gbytes_per_s"].get<double>(), 0.0);
    EXPECT_EQ(s["runs"][0]["bytes"], s["bytes"]);

    // The same step exported and replayed as a Chakra trace reports the same.
    const Result ex = RunCommand(std::string(AIFABRIC_CHAKRA) + " export" + shape + " --out " +
                                     (dir / "trace").string(),
                                 "chakra");
    ASSERT_EQ(ex.status, 0) << ex.err;
    const Result replay =
        Runner(" --set workload.kind=chakra --set workload.trace=" + (dir / "trace").string() +
               " --set topology.servers=1 --set topology.gpus_per_server=4"
               " --set workload.steps=1 --set workload.algorithm=ring"
               " --set workload.protocol=simple --set workload.channels=2 --out " +
               (dir / "chakra").string());
    ASSERT_EQ(replay.status, 0) << replay.err;
    const json t = ReadSummary(dir / "chakra");
    for (const char* k :
         {"collective", "bytes", "algorithm", "algorithm_used", "protocol_used", "channels_used"})
    {
        EXPECT_EQ(t[k], s[k]) << k;
    }
    fs::remove_all(dir);
}

// Data parallel with ZeRO 1 and the tuner: gradients reduce-scattered, parameters all-gathered
// (no all-reduce at all); the algorithms and protocols are those training.collectives lists.
TEST(RunnerTrainingSummaryTest, ZeroOneRunsReduceScatterAndAllGather)
{
    const fs::path dir = ScratchDir("aif-training-summary-dp");
    const Result r =
        Runner(" --set workload.kind=training --set topology.servers=2"
               " --set topology.gpus_per_server=1 --set workload.model_shape.layers=2"
               " --set workload.model_shape.seq_len=1024 --set workload.parallelism.tp=1"
               " --set workload.parallelism.zero=1 --set workload.parallelism.microbatches=2"
               " --set workload.steps=1 --out " +
               (dir / "out").string());
    ASSERT_EQ(r.status, 0) << r.err;
    const json s = ReadSummary(dir / "out");
    EXPECT_EQ(s["collective"], "allgather+reducescatter");
    EXPECT_EQ(s["algorithm"], "auto");
    std::string algorithms;
    std::string protocols;
    uint32_t channels = 0;
    Choices(s, algorithms, protocols, channels);
    EXPECT_EQ(s["algorithm_used"], algorithms);
    EXPECT_EQ(s["protocol_used"], protocols);
    EXPECT_EQ(s["channels_used"].get<uint32_t>(), channels);
    EXPECT_EQ(s["busbw_gbytes_per_s"].get<double>(), 0.0);
    // Every gradient (2 B) reduce-scattered once and every parameter all-gathered once per
    // step: 2 x 2 B x the parameters that have gradient buckets, all but the final norm's
    // 4,096 weights (the transformer workload leaves them out: they are not in any layer,
    // embedding or head).
    const auto params = uint64_t(std::llround(s["training"]["params_b"].get<double>() * 1e9));
    EXPECT_EQ(s["bytes"].get<uint64_t>(), 2 * 2 * (params - 4096));
    fs::remove_all(dir);
}

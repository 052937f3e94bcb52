// SPDX-License-Identifier: GPL-2.0-only
// ./ai-fabric nccl-tests: size parsing, the size sweep, nccl-tests' columns and definitions, bad
// input, results.
#include "nccl-tests.h"
#include "process-util.h"
#include "scenario.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <sstream>

namespace fs = std::filesystem;
using namespace aifabric;

namespace
{

Result
NcclTests(const std::string& args)
{
    return RunCommand(std::string(AIFABRIC_NCCL_TESTS) + " " + args, "nccl-tests");
}

/// A small cluster: 2 servers x 4 GPUs at 400G, one leaf per rail.
const std::string kSmall = std::string(AIFABRIC_SOURCE_DIR) +
                           "/scenarios/default.json --set topology.servers=2 --set "
                           "topology.gpus_per_server=4 --set workload.algorithm=ring";

} // namespace

TEST(NcclTestsSizes, ParsesSuffixesAsPowersOf1024AndRefusesTheRest)
{
    EXPECT_EQ(ParseNcclTestsSize("8", "-b"), 8u);
    EXPECT_EQ(ParseNcclTestsSize("1K", "-b"), 1024u);
    EXPECT_EQ(ParseNcclTestsSize("64M", "-b"), 64u << 20);
    EXPECT_EQ(ParseNcclTestsSize("1G", "-e"), 1u << 30);
    EXPECT_EQ(ParseNcclTestsSize("2g", "-e"), 2ull << 30);
    for (const char* bad : {"", "0", "G", "1.5M", "-1", "1X", "1MB", "2P", "99999999999999999"})
    {
        try
        {
            ParseNcclTestsSize(bad, "-e");
            ADD_FAILURE() << "accepted '" << bad << "'";
        }
        catch (const ScenarioError& e)
        {
            EXPECT_NE(std::string(e.what()).find("-e: must be a size from 1 to 1P"),
                      std::string::npos)
                << e.what();
        }
    }
}

TEST(NcclTestsSizes, StepsLikeNcclTests)
{
    NcclTestsOptions o;
    o.minBytes = 8;
    o.maxBytes = 1 << 30;
    const std::vector<uint64_t> v = NcclTestsSizes(o);
    ASSERT_EQ(v.size(), 28u); // 2^3 .. 2^30
    EXPECT_EQ(v.front(), 8u);
    EXPECT_EQ(v.back(), 1u << 30);
    o.minBytes = 1 << 20;
    o.maxBytes = 4 << 20;
    o.increment = 1 << 20;
    EXPECT_EQ(NcclTestsSizes(o), (std::vector<uint64_t>{1 << 20, 2 << 20, 3 << 20, 4 << 20}));
    o.increment = 0;
    o.factor = 3;
    EXPECT_EQ(NcclTestsSizes(o), (std::vector<uint64_t>{1 << 20, 3 << 20}));
    o.minBytes = 8;
    o.maxBytes = 1;
    EXPECT_THROW(NcclTestsSizes(o), ScenarioError);
    o.maxBytes = uint64_t(1) << 40;
    o.factor = 2;
    o.increment = 1;
    EXPECT_THROW(NcclTestsSizes(o), ScenarioError) << "more than 64 sizes";
}

TEST(NcclTestsRows, UseNcclTestsDefinitions)
{
    nlohmann::json s = {{"gpus", 16},
                        {"collective_ms", {{"mean", 2.0}}},
                        {"algbw_gbytes_per_s", 1.0},
                        {"busbw_gbytes_per_s", 1.875},
                        {"steps_completed", 1},
                        {"algorithm_used", "ring"},
                        {"protocol_used", "simple"},
                        {"channels_used", 8}};
    const NcclTestsRow r = NcclTestsRowFromSummary("all_reduce", 64 << 20, 1, s);
    EXPECT_DOUBLE_EQ(r.timeUs, 2000.0);
    EXPECT_NEAR(r.algbw, (64 << 20) / 2e-3 / 1e9, 1e-9);
    EXPECT_NEAR(r.busbw, r.algbw * 2 * 15 / 16, 1e-9) << "AllReduce: 2(n-1)/n";
    EXPECT_EQ(r.count, (64u << 20) / 4);
    EXPECT_EQ(r.redop, "sum");
    EXPECT_EQ(r.wrong, 0u);
    const NcclTestsRow g = NcclTestsRowFromSummary("all_gather", 64 << 20, 2, s);
    EXPECT_EQ(g.count, (64u << 20) / 4 / 16) << "per-rank count";
    EXPECT_EQ(g.wrong, 1u) << "one of two collectives did not complete";
    const std::string line = NcclTestsLine(r);
    std::istringstream in(line);
    std::string size, count, type, redop, root, time, algbw, busbw, wrong, alg, proto, ch;
    in >> size >> count >> type >> redop >> root >> time >> algbw >> busbw >> wrong >> alg >>
        proto >> ch;
    EXPECT_EQ(size, "67108864");
    EXPECT_EQ(type, "float");
    EXPECT_EQ(root, "-1");
    EXPECT_EQ(time, "2000.00");
    EXPECT_EQ(wrong, "0");
    EXPECT_EQ(alg, "ring");
    EXPECT_EQ(proto, "simple");
    EXPECT_EQ(ch, "8");
}

TEST(NcclTestsCommand, PrintsOneRowPerSizeAndWritesCsvAndFigure)
{
    const fs::path out = ScratchDir("aif-nccl-tests") / "r";
    const Result r = NcclTests(kSmall + " -b 1M -e 4M -f 2 --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::string> rows;
    std::istringstream in(r.out);
    std::string line;
    while (std::getline(in, line))
    {
        if (!line.empty() && line[0] != '#' && line.find("results in") == std::string::npos)
        {
            rows.push_back(line);
        }
    }
    ASSERT_EQ(rows.size(), 3u) << r.out;
    double prevBusbw = 0;
    for (size_t i = 0; i < rows.size(); ++i)
    {
        std::istringstream f(rows[i]);
        uint64_t size = 0;
        uint64_t count = 0;
        std::string type, redop;
        int root = 0;
        double time = 0, algbw = 0, busbw = 0;
        f >> size >> count >> type >> redop >> root >> time >> algbw >> busbw;
        EXPECT_EQ(size, (1u << 20) << i);
        EXPECT_NEAR(algbw, size / (time * 1e-6) / 1e9, 0.01 + algbw * 1e-3);
        EXPECT_NEAR(busbw, algbw * 2 * 7 / 8, 0.01 + busbw * 1e-3) << "8 ranks";
        EXPECT_GT(busbw, prevBusbw) << "larger messages amortize the latency";
        prevBusbw = busbw;
    }
    EXPECT_NE(r.out.find("# Avg bus bandwidth"), std::string::npos);
    EXPECT_TRUE(fs::exists(out / "nccl-tests.csv"));
    EXPECT_TRUE(fs::exists(out / "busbw.gp"));
    const std::string csv = ReadFile(out / "nccl-tests.csv");
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4) << csv;
}

TEST(NcclTestsCommand, EveryOpRuns)
{
    for (const char* op : {"all_gather", "reduce_scatter", "alltoall", "broadcast", "sendrecv"})
    {
        const fs::path out = ScratchDir(std::string("aif-nccl-op-") + op) / "r";
        const Result r =
            NcclTests(kSmall + " --op " + op + " -b 1M -e 1M --quiet --out " + out.string());
        EXPECT_EQ(r.status, 0) << op << ": " << r.err;
        const std::string csv = ReadFile(out / "nccl-tests.csv");
        EXPECT_NE(csv.find("\n1048576,"), std::string::npos) << op << ": " << csv;
    }
}

TEST(NcclTestsCommand, BadInputIsOneLineExitTwoAndWritesNothing)
{
    const fs::path dir = ScratchDir("aif-nccl-bad");
    for (const auto& [args, expect] : std::vector<std::pair<std::string, std::string>>{
             {"--op all_reduces", "--op: must be all_reduce"},
             {"-b 0", "-b: must be a size from 1"},
             {"-b 4M -e 1M", "-e: must be >= -b"},
             {"-f 1 -b 1M -e 4M", "-f: must be an integer from 2"},
             {"-n 0", "-n: must be an integer from 1"},
             {"--bogus", "unknown option"},
             {"--set topology.servers=0", "topology.servers"},
         })
    {
        const fs::path out = dir / "r";
        const Result r = NcclTests(kSmall + " " + args + " --out " + out.string());
        EXPECT_EQ(r.status, 2) << args;
        EXPECT_NE(r.err.find(expect), std::string::npos) << args << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(fs::exists(out)) << args;
    }
}

// gpu.model sets NVLink per direction (H100 450, A100 300, B200 900 GB/s); inside one server a
// ring's busbw is that times the NVLink Efficiency (0.82), and an attribute still overrides.
TEST(NcclTestsCommand, GpuPresetsSetTheNvlinkBandwidth)
{
    auto busbw = [](const std::string& set) {
        const fs::path out = ScratchDir("aif-nccl-gpu") / "r";
        const Result r = NcclTests(std::string(AIFABRIC_SOURCE_DIR) +
                                   "/scenarios/default.json --quiet -b 256M -e 256M --set "
                                   "topology.servers=1 --set compare=[] "
                                   "--set workload.algorithm=ring " +
                                   set + " --out " + out.string());
        EXPECT_EQ(r.status, 0) << r.err;
        std::istringstream csv(ReadFile(out / "nccl-tests.csv"));
        std::string header, row;
        std::getline(csv, header);
        std::getline(csv, row);
        std::vector<std::string> f;
        std::istringstream in(row);
        for (std::string x; std::getline(in, x, ',');)
        {
            f.push_back(x);
        }
        return f.size() > 7 ? std::stod(f[7]) : 0.0;
    };
    EXPECT_NEAR(busbw("--set gpu.model=h100-sxm"), 450 * 0.82, 450 * 0.82 * 0.03);
    EXPECT_NEAR(busbw("--set gpu.model=a100-sxm"), 300 * 0.82, 300 * 0.82 * 0.03);
    EXPECT_NEAR(busbw("--set gpu.model=b200"), 900 * 0.82, 900 * 0.82 * 0.03);
    EXPECT_NEAR(busbw("--set gpu.nvlink_gbytes_per_s=100"), 100 * 0.82, 100 * 0.82 * 0.03);
    // GB200 NVL72: 72 GPUs in one NVLink domain (NVLink5, 900 GB/s per direction).
    EXPECT_NEAR(busbw("--set gpu.model=gb200-nvl72 --set topology.gpus_per_server=72 "
                      "--set topology.leaf_radix=128"),
                900 * 0.82,
                900 * 0.82 * 0.03);
    EXPECT_NEAR(busbw("--set gpu.model=b200 --set "
                      "attributes.ns3::NvlinkTransport::Bandwidth=1600Gbps"),
                200 * 0.82,
                200 * 0.82 * 0.03)
        << "an attribute overrides the preset";
    // NVLS (auto on one H100 server): reads and stores of S (G+1)/G per link at 450 x 0.82 x
    // NCCL's Hopper nvlsEfficiency 0.85; measured 476-480 GB/s (nccl-tests #212, #290).
    const double nvls = busbw("--set workload.algorithm=nvls");
    EXPECT_GT(nvls, 430);
    EXPECT_LT(nvls, 490);
}

// SPDX-License-Identifier: GPL-2.0-only
// Regression tests of the second hostile pass (issue 40) on numbers the schema accepts: tiny
// positive rates, periods and timeouts used to abort ns-3 (a DataRate of 0 bit/s divides by
// zero, a Time beyond int64 nanoseconds overflows) or hang it (a period of 0 ns never lets time
// advance). One rule refuses them when the scenario is checked: exit 2, one line naming the key.
#include "process-util.h"
#include "scenario-error-util.h"
#include "scenario.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <string>

using namespace aifabric;
using nlohmann::json;

namespace
{

/// A small cluster (2 servers x 2 GPUs) with `over` merged in.
json
Small(const json& over)
{
    json j = {{"topology", {{"servers", 2}, {"gpus_per_server", 2}}},
              {"workload", {{"steps", 1}, {"bytes", 1 << 20}}}};
    MergeScenario(j, over);
    return j;
}

json
Training(const json& over)
{
    json j = {{"topology", {{"servers", 2}, {"gpus_per_server", 8}}},
              {"workload",
               {{"kind", "training"},
                {"model", "llama3-8b"},
                {"steps", 1},
                {"parallelism", {{"tp", 8}, {"pp", 1}, {"microbatches", 2}}}}}};
    MergeScenario(j, over);
    return j;
}

json
Flows(const json& over)
{
    json j = Small({{"workload", {{"kind", "flows"}, {"flows", {{"duration_ms", 1}}}}}});
    MergeScenario(j, over);
    return j;
}

} // namespace

// Each value is in the schema's range; each used to abort (SIGFPE, SIGABRT), hang, or mean
// something else than written (an incast period of 1e-9 us was no incast). Each is refused,
// naming its key, in one line.
TEST(HardeningLimits, TinyRatesPeriodsAndTimeoutsAreRefusedNamingTheKey)
{
    const std::vector<std::pair<json, std::string>> cases = {
        {Training({{"gpu", {{"peak_tflops", 1e-300}}}}), "gpu.peak_tflops"},
        {Training({{"gpu", {{"compute_efficiency", 1e-300}}}}), "gpu.compute_efficiency"},
        {Training({{"gpu", {{"hbm_tbytes_per_s", 1e-300}}}}), "gpu.hbm_tbytes_per_s"},
        {Small({{"gpu", {{"nvlink_gbytes_per_s", 1e-12}}}}), "gpu.nvlink_gbytes_per_s"},
        {Small({{"pfc_watchdog", {{"enabled", true}, {"poll_ms", 1e-9}}}}), "pfc_watchdog.poll_ms"},
        {Small({{"pfc_deadlock", {{"poll_ms", 1e-12}}}}), "pfc_deadlock.poll_ms"},
        {Small({{"rdma", {{"retransmit_timeout_ms", 1e-9}}}}), "rdma.retransmit_timeout_ms"},
        {Flows({{"workload", {{"flows", {{"load", 1e-300}}}}}}), "workload.flows.load"},
        {Small({{"workload", {{"background", {{"load", 1e-300}}}}}}), "workload.background.load"},
        {Flows({{"workload", {{"flows", {{"incast", {{"fanin", 1}, {"period_us", 1e-9}}}}}}}}),
         "workload.flows.incast.period_us"},
        {Small({{"faults",
                 {{"events",
                   json::array({json{{"at_ms", 0},
                                     {"link", "gpu0"},
                                     {"action", "degrade"},
                                     {"gbps", 1e-12}}})}}}}),
         "faults.events[0].gbps"},
        {Small({{"topology", {{"kind", "rail-fat-tree"}, {"planes", 2}, {"link_gbps", 1e-9}}}}),
         "topology.link_gbps"},
        {Small({{"faults",
                 {{"events",
                   json::array({json{{"at_ms", 0},
                                     {"link", "gpu0"},
                                     {"action", "flap"},
                                     {"period_ms", 1e-9},
                                     {"until_ms", 1}}})}}}}),
         "faults.events[0].period_ms"},
        // The GPU's rates on the plain collective workload (compute_ms given, the rates unused):
        // refused as on a training workload.
        {Small({{"gpu", {{"peak_tflops", 1e-300}}}}), "gpu.peak_tflops"},
        {Small({{"gpu", {{"compute_efficiency", 1e-300}}}}), "gpu.compute_efficiency"},
        {Small({{"gpu", {{"hbm_tbytes_per_s", 1e-300}}}}), "gpu.hbm_tbytes_per_s"},
        {Small({{"faults", {{"random", {{"mtbf_hours", 1e-15}}}}}}), "faults.random.mtbf_hours"},
        {Small({{"faults", {{"random", {{"mtbf_hours", 1e-12}, {"repair_ms", 1e-6}}}}}}),
         "faults.random.mtbf_hours"},
    };
    for (const auto& [scenario, key] : cases)
    {
        const std::string e = ScenarioErrorOf(scenario);
        EXPECT_EQ(e.rfind(key, 0), 0u) << key << ": " << e;
        EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 0) << e;
    }
    // The same values, 1e6 times larger than the limit, still run (the rule is no stricter).
    EXPECT_EQ(ScenarioErrorOf(Small({{"pfc_deadlock", {{"poll_ms", 1e-3}}}})), "no error");
    EXPECT_EQ(ScenarioErrorOf(Small({{"rdma", {{"retransmit_timeout_ms", 1e-3}}}})), "no error");
    // 1000 FLOP/s and 1000 bit/s of HBM are the floor, as for every rate: 1e-9 TFLOP/s x 1 and
    // 1.25e-10 TB/s x 8e12 bit/TB are exactly on it.
    EXPECT_EQ(ScenarioErrorOf(Small({{"gpu", {{"peak_tflops", 1e-9}, {"compute_efficiency", 1}}}})),
              "no error");
    EXPECT_EQ(ScenarioErrorOf(Small({{"gpu", {{"hbm_tbytes_per_s", 1.25e-10}}}})), "no error");
}

// Through the runner: exit 2, one line naming the key, and nothing left behind (no results
// directory, no .tmp-* directory: an abort used to leave one). The GPU's rates on the plain
// collective workload too (they used to be accepted there).
TEST(HardeningLimits, RunnerRefusesATinyRateWithExitTwoAndLeavesNothing)
{
    for (const std::string key :
         {"nvlink_gbytes_per_s", "peak_tflops", "compute_efficiency", "hbm_tbytes_per_s"})
    {
        const auto dir = ScratchDir("tiny-rate-" + key);
        WriteFile(dir / "s.json",
                  R"({"topology": {"servers": 2, "gpus_per_server": 2},
                      "workload": {"steps": 1, "bytes": 1048576},
                      "gpu": {")" +
                      key + R"(": 1e-300}})");
        const Result r = RunCommand(std::string(AIFABRIC_RUNNER) + " " + (dir / "s.json").string() +
                                        " --quiet --out " + (dir / "out").string(),
                                    "tiny-rate");
        EXPECT_EQ(r.status, 2) << key << ": " << r.err;
        EXPECT_NE(r.err.find("gpu." + key + ": "), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        for (const auto& e : std::filesystem::directory_iterator(dir))
        {
            EXPECT_EQ(e.path().filename().string().rfind(".tmp-", 0), std::string::npos)
                << e.path();
            EXPECT_NE(e.path().filename(), "out");
        }
    }
}

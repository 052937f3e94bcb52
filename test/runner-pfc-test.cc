// SPDX-License-Identifier: GPL-2.0-only
// The runner's PFC pathologies: a pause storm (faults.events action pause-storm) stalls another
// job's collective until the PFC watchdog (pfc_watchdog) drops the stormed queue; a reroute that
// breaks the up-down order deadlocks, the detector (pfc_deadlock) names the cycle and ends the
// run, the watchdog breaks it; bad input exits 2 with one line naming the key.
#include "process-util.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

using nlohmann::json;
namespace fs = std::filesystem;

namespace
{

json
RunScenario(const fs::path& dir,
            const std::string& name,
            const std::string& scenario,
            const std::string& sets,
            Result* out = nullptr)
{
    const fs::path o = dir / name;
    const Result r = Runner(WriteFile(dir / (name + ".json"), scenario).string() + " " + sets +
                            " --out " + o.string());
    if (out)
    {
        *out = r;
    }
    std::ifstream f(o / "summary.json");
    return f ? json::parse(f) : json();
}

/// Two 4-GPU ring AllReduce jobs spread over two leaves; gpu1 (job stormy) storms from 7 ms.
const char* kStorm = R"({"name": "storm",
  "topology": {"servers": 8, "gpus_per_server": 1, "leaf_radix": 8},
  "workload": {"algorithm": "ring", "bytes": 16777216, "steps": 3, "compute_ms": 5},
  "jobs": [{"name": "victim", "servers": 4, "placement": "spread"},
           {"name": "stormy", "servers": 4, "placement": "spread"}],
  "jobs_baselines": false,
  "faults": {"events": [{"at_ms": 7, "nic": "gpu1", "action": "pause-storm"}]},
  "pfc_watchdog": {"detection_ms": 20, "restoration_ms": 20, "poll_ms": 10},
  "limits": {"max_sim_seconds": 0.3}})";

const json*
Job(const json& s, const std::string& name)
{
    for (const auto& j : s["jobs"])
    {
        if (j["name"] == name)
        {
            return &j;
        }
    }
    return nullptr;
}

} // namespace

TEST(RunnerPfcTest, PauseStormStallsAnotherJobUntilTheWatchdogDropsTheStormedQueue)
{
    const fs::path dir = ScratchDir("aif-pfc-storm");
    Result without;
    const json a = RunScenario(dir, "without", kStorm, "", &without);
    ASSERT_TRUE(a.is_object()) << without.err;
    ASSERT_NE(Job(a, "victim"), nullptr);
    EXPECT_FALSE(a["completed"].get<bool>());
    EXPECT_FALSE((*Job(a, "victim"))["completed"].get<bool>()) << "the victim job stalls";
    EXPECT_EQ(a["pfc_health"]["pause_storms"], 1);
    EXPECT_EQ(a["pfc_health"]["watchdog"]["storms_detected"], 0);
    EXPECT_GT(a["pfc_health"]["paused_queues_at_end"].get<int>(), 1) << "the pause spread upstream";
    EXPECT_GT(a["pfc_health"]["longest_paused_at_end"][0]["paused_ms"].get<double>(), 250.0);
    // Reported, not hung: the run ends at its limit and says why.
    EXPECT_NE(without.err.find("still paused by PFC"), std::string::npos) << without.err;
    EXPECT_NE(without.err.find("pause storm"), std::string::npos) << without.err;

    Result with;
    const json b = RunScenario(dir, "with", kStorm, "--set pfc_watchdog.enabled=true", &with);
    ASSERT_TRUE(b.is_object()) << with.err;
    const json& victim = *Job(b, "victim");
    EXPECT_TRUE(victim["completed"].get<bool>()) << with.err;
    EXPECT_GE(b["pfc_health"]["watchdog"]["storms_detected"].get<int>(), 1);
    EXPECT_GT(b["pfc_health"]["watchdog"]["dropped_frames"].get<uint64_t>(), 0u);
    EXPECT_EQ(b["pfc_health"]["watchdog"]["stormed_at_end"], 1) << "the storm never ends";
    // The step the storm hit ends within detection + one poll (+ the step itself) of 7 ms.
    const double longest = victim["step_ms"]["max"].get<double>();
    EXPECT_GT(longest, 20.0);
    EXPECT_LT(longest, 5.0 + 20.0 + 10.0 + 5.0);
}

TEST(RunnerPfcTest, AJobWhoseConnectionFailsIsAbortedAndTheRunEndsWhenNoJobIsLeft)
{
    // The same storm with a 5 s limit: queue pairs exhaust their retries (7 x 67 ms) at about
    // 0.5 s. NCCL aborts a communicator on such an error: the job ends there, the others go
    // on, and the run stops once none is left, not at its limit.
    const fs::path dir = ScratchDir("aif-pfc-abort");
    const std::string five = "--set limits.max_sim_seconds=5";
    Result without;
    const json a = RunScenario(dir, "without", kStorm, five, &without);
    ASSERT_TRUE(a.is_object()) << without.err;
    EXPECT_EQ(without.status, 3);
    EXPECT_GT(a["counters"]["qp_errors"].get<uint64_t>(), 0u);
    EXPECT_LT(a["sim"]["sim_time_s"].get<double>(), 1.0) << "stopped at the failures";
    EXPECT_FALSE((*Job(a, "victim"))["completed"].get<bool>());
    EXPECT_FALSE((*Job(a, "stormy"))["completed"].get<bool>());
    EXPECT_NE(without.err.find("jobs 'victim' (1 of 3 steps) and 'stormy' (1 of 3 steps) did not "
                               "complete"),
              std::string::npos)
        << without.err;

    Result with;
    const json b =
        RunScenario(dir, "with", kStorm, five + " --set pfc_watchdog.enabled=true", &with);
    ASSERT_TRUE(b.is_object()) << with.err;
    EXPECT_EQ(with.status, 3);
    EXPECT_TRUE((*Job(b, "victim"))["completed"].get<bool>()) << with.err;
    EXPECT_FALSE((*Job(b, "stormy"))["completed"].get<bool>());
    EXPECT_LT(b["sim"]["sim_time_s"].get<double>(), 1.0) << "the victim done, the stormer failed";
    EXPECT_NE(with.err.find("job 'stormy' (1 of 3 steps) did not complete"), std::string::npos)
        << with.err;
    EXPECT_EQ(with.err.find("victim"), std::string::npos) << with.err;
    fs::remove_all(dir);
}

TEST(RunnerPfcTest, DeadlockIsReportedWithItsCycleAndTheWatchdogBreaksIt)
{
    const fs::path dir = ScratchDir("aif-pfc-deadlock");
    std::ifstream in(std::string(AIFABRIC_SOURCE_DIR) + "/scenarios/pfc-deadlock.json");
    ASSERT_TRUE(in.good());
    json scenario = json::parse(in);
    scenario.erase("compare");
    Result dead;
    const json a = RunScenario(dir, "dead", scenario.dump(), "", &dead);
    ASSERT_TRUE(a.is_object()) << dead.err;
    EXPECT_FALSE(a["completed"].get<bool>());
    ASSERT_GE(a["pfc_health"]["deadlocks"].size(), 1u) << dead.err;
    const json& d = a["pfc_health"]["deadlocks"][0];
    EXPECT_GE(d["queues"].size(), 2u);
    EXPECT_EQ(d["priority"], 3);
    EXPECT_GE(d["paused_ms"].get<double>(), 10.0);
    EXPECT_LT(a["sim"]["sim_time_s"].get<double>(), 1.0) << "stopped at detection";
    EXPECT_NE(dead.err.find("PFC deadlock"), std::string::npos) << dead.err;
    EXPECT_NE(dead.err.find(d["queues"][0].get<std::string>()), std::string::npos) << dead.err;

    Result broken;
    const json b = RunScenario(dir,
                               "broken",
                               scenario.dump(),
                               "--set pfc_watchdog.enabled=true --set pfc_watchdog.detection_ms=20 "
                               "--set pfc_watchdog.restoration_ms=20 --set pfc_watchdog.poll_ms=10",
                               &broken);
    ASSERT_TRUE(b.is_object()) << broken.err;
    EXPECT_TRUE(b["completed"].get<bool>()) << broken.err;
    EXPECT_GE(b["pfc_health"]["watchdog"]["storms_detected"].get<int>(), 1);
    EXPECT_GE(b["pfc_health"]["deadlocks"].size(), 1u) << "still reported";
}

TEST(RunnerPfcTest, BadPfcInputExitsTwoNamingTheKey)
{
    const fs::path dir = ScratchDir("aif-pfc-bad");
    const std::string base = R"({"topology": {"servers": 4, "gpus_per_server": 1},
      "workload": {"bytes": 1048576, "steps": 1, "compute_ms": 1}})";
    const fs::path file = WriteFile(dir / "s.json", base);
    const std::pair<std::string, std::string> cases[] = {
        {"--set pfc_watchdog.detection_ms=0", "pfc_watchdog.detection_ms"},
        {"--set pfc_watchdog.action=reboot", "pfc_watchdog.action"},
        {"--set pfc_deadlock.threshold_ms=-1", "pfc_deadlock.threshold_ms"},
        {R"(--set 'faults.events=[{"at_ms":1,"nic":"gpu0","action":"pause-storm","priority":9}]')",
         "faults.events[0].priority"},
        {R"(--set 'faults.events=[{"at_ms":1,"nic":"gpu0","action":"pause-storm","priority":5}]')",
         "faults.events[0].priority"},
        {R"(--set 'faults.events=[{"at_ms":1,"nic":"gpu0","action":"down","priority":3}]')",
         "faults.events[0].priority"},
        {R"(--set 'faults.events=[{"at_ms":1,"nic":"gpu0","action":"pause-storm","from":"gpu0"}]')",
         "faults.events[0].from"},
        {R"(--set 'faults.events=[{"at_ms":1,"link":"gpu0-leaf0","action":"pause-storm","from":"leaf7"}]')",
         "faults.events[0].from"},
        {R"(--set 'faults.events=[{"at_ms":5,"nic":"gpu0","action":"pause-storm","until_ms":2}]')",
         "faults.events[0].until_ms"},
        {R"(--set fabric=infiniband --set 'faults.events=[{"at_ms":1,"nic":"gpu0","action":"pause-storm"}]')",
         "faults.events[0].action"},
    };
    for (const auto& [sets, key] : cases)
    {
        const fs::path out = dir / "out";
        fs::remove_all(out);
        const Result r = Runner(file.string() + " " + sets + " --out " + out.string());
        EXPECT_EQ(r.status, 2) << sets << ": " << r.err;
        EXPECT_NE(r.err.find(key), std::string::npos) << sets << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(fs::exists(out / "summary.json")) << sets;
    }
}

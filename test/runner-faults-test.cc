// SPDX-License-Identifier: GPL-2.0-only
// The runner's fault timeline (faults.events, routing.*): a switch down and back mid-job, the
// summary's faults counters, and bad input (one line naming the key, exit 2, no results).
#include "process-util.h"

#include <fstream>
#include <nlohmann/json.hpp>

using nlohmann::json;
namespace fs = std::filesystem;

namespace
{

/// 8 one-GPU servers under two leaves and four spines; a 16 MiB ring AllReduce per step.
const char* kFault = R"({"name": "fault",
  "topology": {"servers": 8, "gpus_per_server": 1, "leaf_radix": 8},
  "workload": {"algorithm": "ring", "bytes": 16777216, "steps": 3, "compute_ms": 1},
  "rdma": {"retransmit_timeout_ms": 4}, "routing": {"convergence_ms": 1},
  "faults": {"events": [{"at_ms": 1.2, "switch": "spine0", "action": "down"},
                        {"at_ms": 8, "switch": "spine0", "action": "up"}]}})";

json
Summary(const fs::path& dir, const std::string& name, const std::string& sets)
{
    const fs::path out = dir / name;
    const Result r =
        Runner(WriteFile(dir / "s.json", kFault).string() + " " + sets + " --out " + out.string());
    EXPECT_EQ(r.status, 0) << r.err;
    std::ifstream f(out / "summary.json");
    return json::parse(f);
}

} // namespace

TEST(RunnerFaultsTest, SwitchDownMidJobThenRepairedStepsBackToNormal)
{
    const fs::path dir = ScratchDir("aif-faults");
    const json clean = Summary(dir, "clean", "--set faults.events=[]");
    const json hit = Summary(dir, "hit", "");
    EXPECT_EQ(clean["faults"]["changes"], 0);
    EXPECT_EQ(clean["faults"]["link_down_drops"], 0);
    ASSERT_TRUE(hit["completed"].get<bool>());
    // spine0's two links, down then up: four changes; the two links of each event converge
    // together, one recomputation per event.
    EXPECT_EQ(hit["faults"]["events"], 2);
    EXPECT_EQ(hit["faults"]["changes"], 4);
    EXPECT_EQ(hit["faults"]["reconvergences"], 2);
    EXPECT_EQ(hit["faults"]["links_down_at_end"], 0);
    EXPECT_GT(hit["faults"]["link_down_drops"].get<uint64_t>(), 0u);
    // The step the failure hit waits for a retransmission timeout (4 ms) ...
    const auto& b0 = hit["barrier"][0];
    EXPECT_EQ(b0["cause"], "timeout");
    EXPECT_GT(b0["step_ms"].get<double>(), clean["barrier"][0]["step_ms"].get<double>() + 3.0);
    // ... and once spine0 is back and routes have reconverged, the same paths give the same step
    // within 0.1% (not to the nanosecond: the recovered queue pairs' timers and congestion
    // state keep the episode's phase).
    EXPECT_NEAR(hit["barrier"][2]["step_ms"].get<double>(),
                clean["barrier"][2]["step_ms"].get<double>(),
                1e-3 * clean["barrier"][2]["step_ms"].get<double>());
    std::ifstream dash(dir / "hit" / "dashboard.txt");
    const std::string text((std::istreambuf_iterator<char>(dash)), {});
    EXPECT_NE(text.find("link changes / link-down drops"), std::string::npos) << text;
    fs::remove_all(dir);
}

struct BadFault
{
    const char* name;
    const char* events;
    const char* mustSay;
};

void
PrintTo(const BadFault& b, std::ostream* os)
{
    *os << b.name;
}

class RunnerFaultsBadInputTest : public ::testing::TestWithParam<BadFault>
{
};

TEST_P(RunnerFaultsBadInputTest, OneLineExitTwoNoResults)
{
    const BadFault b = GetParam();
    const fs::path dir = ScratchDir(std::string("aif-faults-bad-") + b.name);
    const fs::path out = dir / "out";
    const Result r = Runner(WriteFile(dir / "s.json", kFault).string() +
                            " --set 'faults.events=" + b.events + "' --out " + out.string());
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(b.mustSay), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out));
}

INSTANTIATE_TEST_SUITE_P(
    Cases,
    RunnerFaultsBadInputTest,
    ::testing::Values(
        BadFault{"unknownLink",
                 R"([{"at_ms": 1, "link": "leaf0-spine9", "action": "down"}])",
                 "faults.events[0].link: 'leaf0-spine9' is not a link of this fabric"},
        BadFault{"gpuAsSwitch",
                 R"([{"at_ms": 1, "switch": "gpu3", "action": "down"}])",
                 "faults.events[0].switch: 'gpu3' is not a switch of this fabric"},
        BadFault{"twoTargets",
                 R"([{"at_ms": 1, "link": "gpu0-leaf0", "nic": "gpu0", "action": "down"}])",
                 "faults.events[0]: give exactly one of link, switch, nic (got 2)"},
        BadFault{"noAction",
                 R"([{"at_ms": 1, "nic": "gpu0"}])",
                 "faults.events[0].action: missing"},
        BadFault{"action",
                 R"([{"at_ms": 1, "nic": "gpu0", "action": "explode"}])",
                 "faults.events[0].action: must be one of"},
        BadFault{"degrade",
                 R"([{"at_ms": 1, "nic": "gpu0", "action": "degrade"}])",
                 "faults.events[0].gbps: missing (action degrade needs it)"},
        BadFault{"lossRate",
                 R"([{"at_ms": 1, "nic": "gpu0", "action": "loss", "rate": 1}])",
                 "faults.events[0].rate: must be a number"},
        BadFault{"flapUntil",
                 R"([{"at_ms": 5, "nic": "gpu0", "action": "flap", "period_ms": 1,
                      "until_ms": 2}])",
                 "faults.events[0].until_ms: action flap needs until_ms > at_ms"},
        BadFault{"misspelt",
                 R"([{"at": 1, "nic": "gpu0", "action": "down"}])",
                 "faults.events[0].at: unknown key (did you mean"},
        BadFault{"framesNotLoss",
                 R"([{"at_ms": 1, "nic": "gpu0", "action": "down", "frames": "all"}])",
                 "faults.events[0].frames: only with action loss"},
        BadFault{"scaleQueueNotDegrade",
                 R"([{"at_ms": 1, "nic": "gpu0", "action": "down", "scale_queue": true}])",
                 "faults.events[0].scale_queue: only with action degrade"},
        BadFault{"scaleQueueNotBool",
                 R"([{"at_ms": 1, "nic": "gpu0", "action": "degrade", "gbps": 100,
                      "scale_queue": 1}])",
                 "faults.events[0].scale_queue: must be"},
        BadFault{"notObject", R"([1])", "faults.events[0]: must be an object"}),
    [](const ::testing::TestParamInfo<BadFault>& i) { return std::string(i.param.name); });

// Alibaba HPN's case for dual-plane, dual-ToR: a leaf fails mid-job. With one plane, its GPUs
// have no other way out and the job fails (its queue pairs exhaust their retries); with two
// planes every NIC has a port in the other plane, the queue pairs of the dead leaf's rail move
// there (summary counters.port_changes), and the job completes without a timeout, that rail's
// rings at half the NIC rate until the end.
TEST(RunnerFaultsTest, DualPlaneRidesOutALeafFailureThatStopsASinglePlaneJob)
{
    const fs::path dir = ScratchDir("aif-planes");
    const char* scenario = R"({"name": "planes",
      "topology": {"servers": 4, "gpus_per_server": 2, "leaf_radix": 8},
      "workload": {"algorithm": "ring", "bytes": 16777216, "steps": 3, "compute_ms": 1},
      "rdma": {"retransmit_timeout_ms": 4},
      "faults": {"events": [{"at_ms": 1.1, "switch": "leaf0", "action": "down"}]}})";
    const std::string file = WriteFile(dir / "s.json", scenario).string();
    const Result one = Runner(file + " --set topology.planes=1 --out " + (dir / "one").string());
    EXPECT_EQ(one.status, 3) << one.err;
    EXPECT_NE(one.err.find("did not complete"), std::string::npos) << one.err;
    std::string dashboard;
    auto summary = [&](const std::string& name, const std::string& sets) {
        const Result r = Runner(file + " " + sets + " --out " + (dir / name).string());
        EXPECT_EQ(r.status, 0) << r.err;
        std::ifstream d(dir / name / "dashboard.txt");
        dashboard.assign(std::istreambuf_iterator<char>(d), std::istreambuf_iterator<char>());
        std::ifstream f(dir / name / "summary.json");
        return json::parse(f);
    };
    const json two = summary("two", "--set topology.planes=2");
    // The faults row's label is longer than the others: its cells stay apart from it.
    EXPECT_NE(dashboard.find("link changes / link-down drops  "), std::string::npos) << dashboard;
    const json clean = summary("clean", "--set topology.planes=2 --set faults.events=[]");
    ASSERT_TRUE(two["completed"].get<bool>());
    EXPECT_GT(two["counters"]["port_changes"].get<uint64_t>(), 0u);
    EXPECT_EQ(two["counters"]["timeouts"], 0);
    EXPECT_EQ(two["counters"]["qp_errors"], 0);
    EXPECT_EQ(clean["counters"]["port_changes"], 0);
    // After the failure rail 0's channels run on one 200G port: slower, at most twice.
    const double healthy = clean["barrier"][2]["step_ms"].get<double>() - 1.0;
    const double degraded = two["barrier"][2]["step_ms"].get<double>() - 1.0;
    EXPECT_GT(degraded, healthy * 1.05);
    EXPECT_LT(degraded, healthy * 2.0);
}

TEST(RunnerFaultsTest, RepsMovesEachConnectionOffADeadLinkWithinItsRetransmissionTimeout)
{
    // An all-to-all on 16 hosts (four leaves of four, four spines), UEC with NSCC and trimming;
    // a leaf-spine link dies 20 us into it and routing would take 100 ms to notice.
    const fs::path dir = ScratchDir("aif-reps-failover");
    const char* scenario = R"({"name": "reps-failover",
      "topology": {"kind": "fat-tree", "servers": 16, "gpus_per_server": 1, "leaf_radix": 8},
      "fabric": "uec",
      "workload": {"steps": 1, "compute_ms": 1, "collective": "alltoall", "algorithm": "ring",
                   "bytes": 8388608},
      "routing": {"convergence_ms": 100},
      "faults": {"events": [{"at_ms": 1.02, "link": "leaf0-spine1", "action": "down"}]}})";
    const std::string file = WriteFile(dir / "s.json", scenario).string();
    auto summary = [&](const std::string& name, const std::string& sets) {
        const Result r = Runner(file + " " + sets + " --out " + (dir / name).string());
        EXPECT_EQ(r.status, 0) << r.err;
        std::ifstream f(dir / name / "summary.json");
        return json::parse(f);
    };
    // A PDC learns of the failure from its first retransmission timeout: REPS then freezes its
    // cache of EVs that came back in ACKs, and stops sending where nothing comes back. So each
    // PDC loses data to the dead link for about one RTO, whatever the RTO: at most the RTO plus
    // the flight of a packet sent just before the timeout (a few us of queues and cables here).
    for (const double rtoUs : {20.0, 80.0})
    {
        const json s = summary("reps" + std::to_string(int(rtoUs)),
                               "--set uec.rto_us=" + std::to_string(rtoUs));
        ASSERT_TRUE(s["completed"].get<bool>());
        const json& w = s["faults"]["connection_loss_window_us"];
        EXPECT_GT(w["connections"].get<uint64_t>(), 0u);
        EXPECT_LE(w["max"].get<double>(), rtoUs + 10.0) << w;
        EXPECT_GE(w["max"].get<double>(), rtoUs / 2) << "the timeout ends it: " << w;
        // One burst each: the run ends long before REPS's 10 ms freeze would let it probe again.
        EXPECT_EQ(s["faults"]["connection_first_burst_us"], w);
        EXPECT_EQ(s["faults"]["reconvergences"], 0);
        if (rtoUs == 20.0)
        {
            // The REPS paper's figure (arXiv 2407.21625: re-routes in under 100 us).
            EXPECT_LT(w["max"].get<double>(), 100.0);
        }
    }
    // Oblivious spraying keeps dealing the dead path's EVs out: its PDCs lose data until they
    // finish, an order of magnitude longer.
    const json obl = summary("oblivious", "--set uec.rto_us=20 --set uec.load_balancing=oblivious");
    ASSERT_TRUE(obl["completed"].get<bool>());
    EXPECT_GT(obl["faults"]["connection_loss_window_us"]["p50"].get<double>(), 200.0)
        << obl["faults"];
    EXPECT_GT(obl["faults"]["loss_window_us"].get<double>(),
              obl["faults"]["connection_loss_window_us"]["max"].get<double>() - 1e-6);
}

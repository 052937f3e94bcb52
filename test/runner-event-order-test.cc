// SPDX-License-Identifier: GPL-2.0-only
// simulation.event_order (issue 45): "partition" orders events of equal times by scheduling node
// (FabricPartitionScheduler), as a run on MPI ranks can. The same events at the same times, ties
// broken otherwise: a lossless flow workload's slowdowns stay within a few percent of ns-3's
// order, twice the same; a value outside the two is refused with one line.
#include "process-util.h"

#include <nlohmann/json.hpp>

using nlohmann::json;
namespace fs = std::filesystem;

namespace
{

/// 8 hosts of 100G under two leaves, fb-hadoop at 30% for 1 ms with incasts, HPCC.
const char* kFlows = R"({"name": "order",
  "topology": {"kind": "fat-tree", "servers": 8, "gpus_per_server": 1, "link_gbps": 100,
               "leaf_radix": 8},
  "congestion_control": "hpcc",
  "workload": {"kind": "flows",
               "flows": {"cdf": "fb-hadoop", "load": 0.3, "duration_ms": 1,
                         "incast": {"fanin": 4, "bytes": 20000, "period_us": 250}}}})";

json
RunFlows(const fs::path& dir, const std::string& name, const std::string& order)
{
    const fs::path out = dir / name;
    const Result r = Runner(WriteFile(dir / "s.json", kFlows).string() +
                            " --set simulation.event_order=" + order + " --out " + out.string());
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(ReadFile(out / "summary.json"));
}

} // namespace

TEST(RunnerEventOrderTest, PartitionOrderIsDeterministicAndCloseToNs3Order)
{
    const fs::path dir = ScratchDir("aif-event-order");
    const json ns3 = RunFlows(dir, "ns3", "ns3");
    const json a = RunFlows(dir, "partition-a", "partition");
    const json b = RunFlows(dir, "partition-b", "partition");
    const json& fa = a["flows"];
    // Twice the same, to the nanosecond.
    EXPECT_EQ(fa, b["flows"]);
    EXPECT_EQ(a["counters"], b["counters"]);
    EXPECT_EQ(a["sim"]["events"], b["sim"]["events"]);
    // The same flows, all completed. Ties broken otherwise decide which of two frames that
    // reach a queue in the same nanosecond goes first (the incasts start four flows at once):
    // the median slowdown moves 1.5% (1.074 against 1.090), the 95th percentile 2.8%; the 99th
    // (the 3rd largest of 272 flows) 18%, one flow's fate, so it is not compared.
    const json& fn = ns3["flows"];
    EXPECT_EQ(fa["total"], fn["total"]);
    EXPECT_EQ(fa["completed"], fa["total"]);
    for (const auto& [q, tolerance] : {std::pair{"p50", 0.03}, std::pair{"p95", 0.06}})
    {
        const double x = fa["slowdown"][q].get<double>();
        const double y = fn["slowdown"][q].get<double>();
        EXPECT_NEAR(x / y, 1.0, tolerance) << q << ": partition " << x << ", ns3 " << y;
    }
}

TEST(RunnerEventOrderTest, AnOrderOutsideTheTwoIsRefusedWithOneLine)
{
    const fs::path dir = ScratchDir("aif-event-order-bad");
    const fs::path out = dir / "out";
    const Result r = Runner(WriteFile(dir / "s.json", kFlows).string() +
                            " --set simulation.event_order=random --out " + out.string());
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("simulation.event_order"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("partition"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out));
}

// --ranks (issue 45): 1 is the sequential run in the partition order (the same results as
// simulation.event_order "partition"); a count outside 1..4096, another synchronizer and, in a
// build without MPI, any count above 1 are refused with one line, nothing written. (Runs on
// several ranks: test/mpi/runner-ranks-test.sh, ctest runner-ranks.)
TEST(RunnerEventOrderTest, RanksOneIsThePartitionOrderAndBadRanksAreRefusedWithOneLine)
{
    const fs::path dir = ScratchDir("aif-ranks");
    const std::string scenario = WriteFile(dir / "s.json", kFlows).string();
    const Result one = Runner(scenario + " --ranks 1 --out " + (dir / "one").string());
    ASSERT_EQ(one.status, 0) << one.err;
    const json partition = RunFlows(dir, "partition", "partition");
    json a = json::parse(ReadFile(dir / "one" / "summary.json"));
    json b = partition;
    for (json* s : {&a, &b})
    {
        (*s)["sim"].erase("wall_s");
        (*s)["sim"].erase("peak_rss_mb");
        (*s)["runs"][0]["sim"].erase("wall_s");
        (*s)["runs"][0]["sim"].erase("peak_rss_mb");
    }
    EXPECT_EQ(a, b);
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"--ranks 0", "--ranks: must be an integer from 1 to 4096"},
        {"--ranks 4097", "--ranks: must be an integer from 1 to 4096"},
        {"--ranks two", "--ranks: must be an integer from 1 to 4096"},
        {"--ranks 2 --sync lockstep", "--sync: must be granted-time-window or null-message"},
#ifndef AIFABRIC_MPI
        {"--ranks 2", "--ranks 2: this build has no MPI"},
#endif
    };
    for (const auto& [args, line] : bad)
    {
        const fs::path out = dir / "bad";
        const Result r = Runner(scenario + " " + args + " --out " + out.string());
        EXPECT_EQ(r.status, 2) << args;
        EXPECT_NE(r.err.find(line), std::string::npos) << args << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(fs::exists(out)) << args;
    }
}

// --check (what ./ai-fabric run --ranks N asks before it starts mpirun): the scenario and
// --ranks checked in one process, nothing run, nothing written; exit 0 or 2 with the one line
// the run would print. A poll of the PFC watchdog or deadlock search no longer than two message
// delays cannot keep its times across ranks: refused in the partition order, one line.
TEST(RunnerEventOrderTest, CheckRunsNothingAndShortPollsAreRefusedInThePartitionOrder)
{
    const fs::path dir = ScratchDir("aif-ranks-check");
    const std::string scenario = WriteFile(dir / "s.json", kFlows).string();
    const fs::path out = dir / "out";
    const Result ok = Runner(scenario + " --check --ranks 1 --out " + out.string());
    EXPECT_EQ(ok.status, 0) << ok.err;
    EXPECT_EQ(ok.out, "");
    EXPECT_FALSE(fs::exists(out));
    const Result bad = Runner(scenario + " --check --set topology.servers=0 --out " + out.string());
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("topology.servers"), std::string::npos) << bad.err;
    EXPECT_FALSE(fs::exists(out));
    for (const std::string key : {"pfc_deadlock.poll_ms", "pfc_watchdog.poll_ms"})
    {
        const std::string watchdog =
            key == "pfc_watchdog.poll_ms" ? " --set pfc_watchdog.enabled=true" : "";
        const Result r =
            Runner(scenario + " --set congestion_control=none --set pfc=true" + watchdog +
                   " --set " + key + "=0.0004 --ranks 1 --out " + out.string());
        EXPECT_EQ(r.status, 2) << key;
        EXPECT_NE(r.err.find(key + ": in the partition event order (--ranks) must exceed two "
                                   "message delays"),
                  std::string::npos)
            << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(fs::exists(out)) << key;
        // ns-3's order polls in one place: any interval.
        const Result ns3 = Runner(scenario + " --set congestion_control=none --set pfc=true" +
                                  watchdog + " --set " + key + "=0.0004 --out " + out.string());
        EXPECT_EQ(ns3.status, 0) << ns3.err;
        fs::remove_all(out);
    }
}

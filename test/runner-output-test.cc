// SPDX-License-Identifier: GPL-2.0-only
// What the runner leaves behind: safe and distinct directory names, --out spellings, signals
// (nothing half-written, exit 128 + signal), runs that did not complete (exit 3), figures.
#include "file-util.h"
#include "process-util.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using nlohmann::json;

namespace
{

fs::path
Scratch(const std::string& name)
{
    return ScratchDir("aif-out-" + name);
}

/// A scenario named `name` with one tiny run (4 GPUs on a star, one 1 MiB step).
std::string
Tiny(const std::string& name, const std::string& extra = "")
{
    json j = json::parse(
        R"({"topology": {"kind": "star", "servers": 2, "gpus_per_server": 2},
            "workload": {"steps": 1, "compute_ms": 1, "bytes": 1048576, "algorithm": "ring"}})");
    j["name"] = name;
    if (!extra.empty())
    {
        j.merge_patch(json::parse(extra));
    }
    return j.dump();
}

/// Every path under `dir` whose name starts with `prefix`.
std::vector<std::string>
Named(const fs::path& dir, const std::string& prefix)
{
    std::vector<std::string> r;
    for (const auto& e : fs::recursive_directory_iterator(dir))
    {
        if (e.path().filename().string().rfind(prefix, 0) == 0)
        {
            r.push_back(e.path().string());
        }
    }
    return r;
}

struct NameCase
{
    const char* label;
    const char* name;

    /// ctest lists the case by its label.
    friend void PrintTo(const NameCase& c, std::ostream* os)
    {
        *os << c.label;
    }
};

using DefaultPathTest = ::testing::TestWithParam<NameCase>;

} // namespace

TEST(RunnerOutputTest, UniqueFileNamesAreSafeAndDistinct)
{
    using aifabric::UniqueFileNames;
    EXPECT_EQ(UniqueFileNames({"a b", "a_b", "a/b", "a_b-2"}),
              (std::vector<std::string>{"a_b", "a_b-2", "a_b-3", "a_b-2-2"}));
    EXPECT_EQ(UniqueFileNames({"", ".", "..", ".hidden"}),
              (std::vector<std::string>{"run", "_", "_.", "_hidden"}));
    EXPECT_EQ(UniqueFileNames({"summary.json"}, {"summary.json"}),
              (std::vector<std::string>{"summary.json-2"}));
    EXPECT_EQ(UniqueFileNames({std::string(300, 'x')}).front(), std::string(120, 'x'));
}

// The default output path is results/<scenario name>-<time> relative to the current directory:
// the name can neither run a command nor leave results/, and "Bob's run" keeps its figures.
TEST_P(DefaultPathTest, StaysOneDirectoryInsideResults)
{
    const fs::path d = Scratch(std::string("default-") + GetParam().label);
    const fs::path work = d / "a" / "b";
    fs::create_directories(work);
    const fs::path scen = WriteFile(d / "s.json", Tiny(GetParam().name));
    Result r =
        RunCommand("cd " + work.string() + " && " + AIFABRIC_RUNNER + " --quiet " + scen.string(),
                   "default-path");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(Named(d, "F").empty()) << "no command ran";
    std::vector<fs::path> made;
    for (const auto& e : fs::directory_iterator(work / "results"))
    {
        made.push_back(e.path());
    }
    ASSERT_EQ(made.size(), 1u) << "one results directory, inside results/";
    EXPECT_TRUE(fs::exists(made[0] / "summary.json"));
    size_t entries = 0;
    for (const auto& e : fs::recursive_directory_iterator(d))
    {
        (void)e;
        ++entries;
    }
    size_t inside = 0;
    for (const auto& e : fs::recursive_directory_iterator(work / "results"))
    {
        (void)e;
        ++inside;
    }
    // s.json, a, a/b, a/b/results, and what is inside results/: nothing escaped.
    EXPECT_EQ(entries, 4 + inside);
    const std::string runDir = aifabric::UniqueFileNames({GetParam().name}).front();
    if (std::system("command -v gnuplot >/dev/null 2>&1") == 0)
    {
        for (const char* png : {"timeline.png", "latency.png", "queue.png"})
        {
            EXPECT_TRUE(fs::exists(made[0] / runDir / png)) << png;
        }
        EXPECT_TRUE(fs::exists(made[0] / "compare.png"));
    }
    EXPECT_EQ(r.err.find("gnuplot failed"), std::string::npos) << r.err;
    fs::remove_all(d);
}

INSTANTIATE_TEST_SUITE_P(Names,
                         DefaultPathTest,
                         ::testing::Values(NameCase{"ShellQuote", "x';touch F;'"},
                                           NameCase{"Slashes", "../../../escape"},
                                           NameCase{"Apostrophe", "Bob's run"},
                                           NameCase{"Dots", ".."}),
                         [](const ::testing::TestParamInfo<NameCase>& info) {
                             return std::string(info.param.label);
                         });

TEST(RunnerOutputTest, OutWithTrailingSlashIsThatDirectory)
{
    const fs::path d = Scratch("slash");
    const fs::path scen = WriteFile(d / "s.json", Tiny("slash"));
    for (const char* spelling : {"out/", "out2/.", "x/../out3//"})
    {
        const fs::path out = d / spelling;
        Result r = Runner(scen.string() + " --out " + out.string());
        EXPECT_EQ(r.status, 0) << spelling << ": " << r.err;
        EXPECT_TRUE(fs::exists(out.lexically_normal() / "summary.json")) << spelling;
    }
    EXPECT_TRUE(Named(d, ".tmp-").empty());
    fs::remove_all(d);
}

TEST(RunnerOutputTest, RunNamesMappedToTheSameNameGetTheirOwnDirectories)
{
    const fs::path d = Scratch("collide");
    const fs::path scen = WriteFile(
        d / "s.json",
        Tiny("collide",
             R"({"compare": [{"name": "a b"}, {"name": "a_b", "workload": {"bytes": 2097152}},
                             {"name": "summary.json"}]})"));
    const fs::path out = d / "out";
    Result r = Runner(scen.string() + " --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char* run : {"a_b", "a_b-2", "summary.json-2"})
    {
        EXPECT_TRUE(fs::exists(out / run / "steps.csv")) << run;
    }
    EXPECT_TRUE(fs::is_regular_file(out / "summary.json"));
    const std::string cmp = ReadFile(out / "compare.csv");
    EXPECT_NE(cmp.find("\na_b,"), std::string::npos) << cmp;
    EXPECT_NE(cmp.find("\na_b-2,"), std::string::npos) << cmp;
    // The second run is the larger one: its own files, not the first run's overwritten.
    EXPECT_NE(ReadFile(out / "a_b" / "steps.csv"), ReadFile(out / "a_b-2" / "steps.csv"));
    fs::remove_all(d);
}

TEST(RunnerOutputTest, SingleServerRunDrawsEveryFigureWithoutGnuplotFailures)
{
    const fs::path d = Scratch("one-server");
    const fs::path scen = WriteFile(
        d / "s.json",
        Tiny("one", R"({"topology": {"servers": 1, "gpus_per_server": 4}, "compare": []})"));
    const fs::path out = d / "out";
    Result r = Runner(scen.string() + " --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("gnuplot failed"), std::string::npos) << r.err;
    fs::remove_all(d);
}

// A run whose queue pairs exhaust their retries never completes: say so, exit 3, keep results.
TEST(RunnerOutputTest, RunThatDidNotCompleteExitsThreeAndSaysWhy)
{
    const fs::path d = Scratch("incomplete");
    const std::string s = std::string(AIFABRIC_RUNNER) + " " + AIFABRIC_SOURCE_DIR +
                          "/scenarios/default.json --quiet --set topology.servers=2 --set "
                          "workload.bytes=1048576 --set workload.steps=1 --set compare=[] ";
    Result r = RunCommand(s +
                              "--set fabric=infiniband --set faults.drop_rate=0.5 --set seed=1 "
                              "--out " +
                              (d / "qp").string(),
                          "incomplete");
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_NE(r.err.find("1 queue pair exhausted its retries (faults.drop_rate 0.5); the job did "
                         "not complete"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    ASSERT_TRUE(fs::exists(d / "qp" / "summary.json"));
    // The run stops at the failed connection (as NCCL aborts), not at limits.max_sim_seconds
    // (60 s), and its time series hold what happened, not a row per 100 us of waiting.
    const nlohmann::json qp = nlohmann::json::parse(ReadFile(d / "qp" / "summary.json"));
    EXPECT_LT(qp["sim"]["sim_time_s"].get<double>(), 2.0);
    EXPECT_EQ(qp["counters"]["qp_errors"].get<uint64_t>(), 1u);
    const std::string queue = ReadFile(d / "qp" / "default" / "queue.csv");
    EXPECT_LT(std::count(queue.begin(), queue.end(), '\n'), 2000) << "8,870 samples";

    r = RunCommand(s + "--set limits.max_sim_seconds=0.0001 --out " + (d / "limit").string(),
                   "incomplete");
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_NE(r.err.find("hit limits.max_sim_seconds"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(fs::exists(d / "limit" / "summary.json"));
    fs::remove_all(d);
}

struct SignalCase
{
    const char* label;
    const char* signalName;
    int signal;
    bool slowFigures; //!< signal during the figure step (a gnuplot that takes 3 s)

    /// ctest lists the case by its label.
    friend void PrintTo(const SignalCase& c, std::ostream* os)
    {
        *os << c.label;
    }
};

using RunnerSignalTest = ::testing::TestWithParam<SignalCase>;

TEST_P(RunnerSignalTest, StopsRemovesTheTemporaryDirectoryAndExits128PlusSignal)
{
    const SignalCase c = GetParam();
    const fs::path d = Scratch(std::string("signal-") + c.label);
    std::string pathPrefix;
    std::string scen;
    if (c.slowFigures)
    {
        fs::create_directories(d / "bin");
        WriteFile(d / "bin" / "gnuplot", "#!/bin/sh\nsleep 3\n");
        fs::permissions(d / "bin" / "gnuplot", fs::perms::owner_all);
        pathPrefix = (d / "bin").string();
        scen = WriteFile(d / "s.json", Tiny("sig")).string();
    }
    else
    {
        // Long enough to be running after 1 s on a loaded machine.
        scen =
            WriteFile(d / "s.json",
                      Tiny("sig", R"({"topology": {"servers": 16}, "workload": {"steps": 2000}})"))
                .string();
    }
    const fs::path out = d / "out";
    const pid_t pid = Spawn({AIFABRIC_RUNNER, "--quiet", scen, "--out", out.string()},
                            (d / "err.txt").string(),
                            pathPrefix);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::seconds(1));
    ::kill(pid, c.signal);
    EXPECT_EQ(WaitExit(pid), 128 + c.signal);
    const std::string err = ReadFile(d / "err.txt");
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find(std::string("interrupted by ") + c.signalName), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(out)) << "no half results";
    EXPECT_TRUE(Named(d, ".tmp-").empty()) << "no temporary directory";
    fs::remove_all(d);
}

INSTANTIATE_TEST_SUITE_P(
    Signals,
    RunnerSignalTest,
    ::testing::Values(SignalCase{"SIGINT", "SIGINT", SIGINT, false},
                      SignalCase{"SIGTERM", "SIGTERM", SIGTERM, false},
                      SignalCase{"SIGHUP", "SIGHUP", SIGHUP, false},
                      SignalCase{"SIGINTDuringFigures", "SIGINT", SIGINT, true}),
    [](const ::testing::TestParamInfo<SignalCase>& info) { return std::string(info.param.label); });

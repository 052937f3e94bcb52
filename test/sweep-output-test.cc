// SPDX-License-Identifier: GPL-2.0-only
// What a sweep reports and keeps: a signal stops the local engine (finished points stay), a
// broken point summary is named by gather, --status shows why an aborted point failed.
#include "process-util.h"
#include "sweep.h"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using namespace aifabric;

namespace
{

fs::path
Scratch(const std::string& name)
{
    return ScratchDir("aif-sweepout-" + name);
}

/// A sweep of 4-GPU star runs over `grid` (a JSON object) and `seeds`.
std::string
Tiny(const std::string& name, const std::string& grid, const std::string& seeds)
{
    return "{\"name\": \"" + name +
           R"(", "base": {"name": "tiny", "topology": {"kind": "star", "servers": 2, "gpus_per_server": 2},
  "workload": {"steps": 1, "compute_ms": 1, "bytes": 1048576, "algorithm": "ring"}}, "grid": )" +
           grid + ", \"seeds\": " + seeds + "}";
}

Result
RunSweep(const std::string& args)
{
    return RunCommand(std::string(AIFABRIC_SWEEP) + " " + args, "sweepout");
}

bool
AnyTemporary(const fs::path& dir)
{
    for (const auto& e : fs::recursive_directory_iterator(dir))
    {
        if (e.path().filename().string().find(".tmp-") != std::string::npos)
        {
            return true;
        }
    }
    return false;
}

} // namespace

TEST(SweepOutputTest, SigintStopsTheLocalEngineAndKeepsFinishedPoints)
{
    const fs::path d = Scratch("signal");
    const fs::path file =
        WriteFile(d / "s.json", Tiny("sig", R"({"workload.steps": [1, 100000]})", "[1]"));
    const Sweep s = LoadSweep(file.string());
    ASSERT_EQ(s.points.size(), 2u);
    const fs::path out = d / "out";
    const pid_t pid = Spawn({AIFABRIC_SWEEP,
                             file.string(),
                             "--engine",
                             "local",
                             "-j",
                             "1",
                             "--quiet",
                             "--out",
                             out.string()},
                            (d / "err.txt").string());
    ASSERT_GT(pid, 0);
    // The short point finishes first; then the long one runs when the signal comes.
    const auto t0 = std::chrono::steady_clock::now();
    while (!fs::exists(out / s.points[0].id / "summary.json") &&
           std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120))
    {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
    ::kill(pid, SIGINT);
    EXPECT_EQ(WaitExit(pid), 130);
    const std::string err = ReadFile(d / "err.txt");
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find("interrupted by SIGINT"), std::string::npos) << err;
    EXPECT_TRUE(fs::exists(out / s.points[0].id / "summary.json")) << "the finished point stays";
    EXPECT_FALSE(fs::exists(out / s.points[1].id)) << "nothing of the stopped point";
    EXPECT_FALSE(AnyTemporary(out));
    fs::remove_all(d);
}

TEST(SweepOutputTest, GatherNamesATruncatedPointSummary)
{
    const fs::path d = Scratch("truncated");
    const fs::path file =
        WriteFile(d / "s.json", Tiny("trunc", R"({"faults.drop_rate": [0]})", "[1, 2]"));
    const fs::path out = d / "out";
    Result r = RunSweep(file.string() + " --quiet -j 2 --out " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    const Sweep s = LoadSweep(file.string());
    const fs::path summary = out / s.points[1].id / "summary.json";
    const std::string text = ReadFile(summary);
    WriteFile(summary, text.substr(0, text.size() / 2));
    r = RunSweep("gather " + out.string());
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(summary.string() + ": not a complete point summary"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    fs::remove_all(d);
}

TEST(SweepOutputTest, StatusShowsTheAbortReasonOfAFailedPoint)
{
    const fs::path d = Scratch("abort");
    // A runner that aborts the way an ns-3 NS_ABORT_MSG_IF does: the reason, then the C++
    // runtime's last words.
    const std::string reason =
        "aborted. cond=\"usage > size\", msg=\"BufferSize too small\", file=x.cc, line=1";
    const fs::path fake = d / "fake-runner.sh";
    WriteFile(
        fake,
        "#!/bin/sh\necho '" + reason +
            "' >&2\necho 'terminate called without an active exception' >&2\nkill -ABRT $$\n");
    fs::permissions(fake, fs::perms::owner_all);
    const fs::path file =
        WriteFile(d / "s.json", Tiny("abort", R"({"faults.drop_rate": [0]})", "[1]"));
    const fs::path out = d / "out";
    Result r =
        RunSweep(file.string() + " --quiet --out " + out.string() + " --runner " + fake.string());
    EXPECT_EQ(r.status, 1) << r.err;
    r = RunSweep("--status " + out.string());
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find(reason), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("terminate called"), std::string::npos) << r.out;
    fs::remove_all(d);
}

// SPDX-License-Identifier: GPL-2.0-only
// What a sweep reports: a broken point summary is named by gather, --status shows why an
// aborted point failed.
#include "process-util.h"
#include "sweep.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

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

} // namespace

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
    const fs::path file =
        WriteFile(d / "s.json", Tiny("abort", R"({"faults.drop_rate": [0]})", "[1]"));
    // A runner that aborts the way an ns-3 NS_ABORT_MSG_IF does.
    const fs::path fake = WriteFile(d / "fake-runner.sh",
                                    "#!/bin/sh\n"
                                    "echo 'aborted. cond=\"usage > size\", msg=\"BufferSize too "
                                    "small\", file=x.cc, line=1' >&2\n"
                                    "echo 'terminate called without an active exception' >&2\n"
                                    "kill -ABRT $$\n");
    fs::permissions(fake, fs::perms::owner_all);
    const fs::path out = d / "out";
    Result r =
        RunSweep(file.string() + " --quiet --out " + out.string() + " --runner " + fake.string());
    EXPECT_EQ(r.status, 1) << r.err;
    r = RunSweep("--status " + out.string());
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("aborted. cond=\"usage > size\", msg=\"BufferSize too small\""),
              std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("terminate called"), std::string::npos) << r.out;
    fs::remove_all(d);
}

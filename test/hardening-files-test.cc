// SPDX-License-Identifier: GPL-2.0-only
// Regression tests of the second hostile pass (issue 40) on files and sweeps: CSV cells that
// shifted rows or ran as spreadsheet formulas, inputs that were FIFOs or devices (read until
// memory ran out, or blocked forever), --out on a dangling symbolic link (the whole simulation
// ran, then was discarded), two sweeps in one directory, a runner orphaned by a killed sweep.
#include "file-util.h"
#include "process-util.h"
#include "sweep-directory.h"
#include "sweep-expand.h"
#include "sweep-lock.h"
#include "text-util.h"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace aifabric;
namespace fs = std::filesystem;

namespace
{

const char* kTinyBase =
    R"({"name": "tiny", "topology": {"kind": "star", "servers": 2, "gpus_per_server": 2},
  "workload": {"steps": 1, "compute_ms": 1, "bytes": 1048576, "algorithm": "ring"}})";

std::string
RunnerCommand(const std::string& args)
{
    return std::string(AIFABRIC_RUNNER) + " " + args;
}

} // namespace

// One CSV writer: RFC 4180 quoting, and a text cell that a spreadsheet would run as a formula
// (= + - @) gets a leading '; numbers (also negative ones) stay numbers.
TEST(HardeningFiles, CsvCellsAreQuotedAndFormulasNeutralized)
{
    EXPECT_EQ(CsvField("plain"), "plain");
    EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
    EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(CsvField("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(CsvField("=HYPERLINK(\"http://x\")"), "\"'=HYPERLINK(\"\"http://x\"\")\"");
    EXPECT_EQ(CsvField("@SUM(A1)"), "'@SUM(A1)");
    EXPECT_EQ(CsvField("+cmd"), "'+cmd");
    EXPECT_EQ(CsvField("-cmd|' /C calc'!A0"), "'-cmd|' /C calc'!A0");
    EXPECT_EQ(CsvField("-1.5"), "-1.5");
    EXPECT_EQ(CsvField("+2e3"), "+2e3");
    EXPECT_EQ(CsvField("=1"), "'=1"); // = is always a formula
}

// Every file we read is a regular file within a size limit: a device or a FIFO is refused at
// once (it used to be read until memory ran out, or to block forever), a directory too.
TEST(HardeningFiles, InputsMustBeRegularFilesWithinALimit)
{
    const fs::path d = ScratchDir("aif-special-files");
    const fs::path fifo = d / "fifo.json";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto reason = [](const fs::path& p, uint64_t limit) {
        try
        {
            ReadInputFile(p, limit);
        }
        catch (const std::runtime_error& e)
        {
            return std::string(e.what());
        }
        return std::string("read");
    };
    EXPECT_EQ(reason("/dev/zero", kMaxInputFileBytes), "is a device, not a regular file");
    EXPECT_EQ(reason(fifo, kMaxInputFileBytes), "is a FIFO, not a regular file");
    EXPECT_EQ(reason(d, kMaxInputFileBytes), "is a directory, not a regular file");
    WriteFile(d / "big.json", std::string(3 << 20, ' '));
    EXPECT_EQ(reason(d / "big.json", 2 << 20), "is larger than 2 MiB");
    EXPECT_EQ(reason(d / "big.json", 4 << 20), "read");
    EXPECT_EQ(reason(d / "missing.json", 1 << 20).rfind("cannot be read: ", 0), 0u);
    // Through the runner and the sweep: exit 2 at once, naming the file.
    for (const std::string& input : {std::string("/dev/zero"), fifo.string()})
    {
        const Result r = RunCommand(
            "timeout 20 " + RunnerCommand(input + " --quiet --out " + (d / "out").string()),
            "special");
        EXPECT_EQ(r.status, 2) << input << ": " << r.err;
        EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
        const Result s = RunCommand("timeout 20 " + std::string(AIFABRIC_SWEEP) + " " + input +
                                        " --out " + (d / "sweep").string(),
                                    "special-sweep");
        EXPECT_EQ(s.status, 2) << input << ": " << s.err;
        EXPECT_NE(s.err.find("not a regular file"), std::string::npos) << s.err;
    }
}

// The Chakra reader's files too: a FIFO or /dev/zero named as one rank's trace file makes the
// runner and `chakra show` exit 2 at once with one line naming that file (the FIFO used to be
// skipped: the trace silently lost its rank, or "a gap in the ranks"), nothing left behind.
TEST(HardeningFiles, TraceFilesMustBeRegularFiles)
{
    const fs::path d = ScratchDir("aif-special-trace");
    const std::string cluster = " --set topology.servers=1 --set topology.gpus_per_server=2";
    const Result ex =
        RunCommand(std::string(AIFABRIC_CHAKRA) + " export --set workload.kind=training" + cluster +
                       " --set workload.parallelism.tp=2"
                       " --set workload.model_shape.layers=1"
                       " --set workload.model_shape.seq_len=128 --out " +
                       (d / "trace").string(),
                   "special-trace-export");
    ASSERT_EQ(ex.status, 0) << ex.err;
    const fs::path rank1 = d / "trace" / "trace.1.et";
    for (const std::string special : {"fifo", "/dev/zero"})
    {
        fs::remove(rank1);
        if (special == "fifo")
        {
            ASSERT_EQ(::mkfifo(rank1.c_str(), 0600), 0);
        }
        else
        {
            fs::create_symlink(special, rank1);
        }
        const std::string why =
            special == "fifo" ? "is a FIFO, not a regular file" : "is a device, not a regular file";
        const Result r =
            RunCommand("timeout 20 " + RunnerCommand("--quiet --set workload.kind=chakra"
                                                     " --set workload.trace=" +
                                                     (d / "trace").string() + cluster + " --out " +
                                                     (d / "out").string()),
                       "special-trace-run");
        EXPECT_EQ(r.status, 2) << special << ": " << r.err;
        EXPECT_NE(r.err.find("workload.trace: chakra trace " + rank1.string() + ": " + why),
                  std::string::npos)
            << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        const Result show = RunCommand("timeout 20 " + std::string(AIFABRIC_CHAKRA) + " show " +
                                           (d / "trace").string(),
                                       "special-trace-show");
        EXPECT_EQ(show.status, 2) << special << ": " << show.err;
        EXPECT_NE(show.err.find(rank1.string() + ": " + why), std::string::npos) << show.err;
        for (const auto& e : fs::directory_iterator(d))
        {
            EXPECT_EQ(e.path().filename().string().rfind(".tmp-", 0), std::string::npos)
                << e.path();
            EXPECT_NE(e.path().filename(), "out");
        }
    }
}

// --out on a dangling symbolic link is refused before anything is simulated.
TEST(HardeningFiles, OutOnADanglingSymlinkIsRefusedFirst)
{
    const fs::path d = ScratchDir("aif-dangling-out");
    fs::create_symlink(d / "nowhere", d / "out");
    WriteFile(d / "s.json", kTinyBase);
    const Result r = RunCommand(
        RunnerCommand((d / "s.json").string() + " --quiet --out " + (d / "out").string()),
        "dangling");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("already exists"), std::string::npos) << r.err;
}

// A sweep directory is locked while a sweep runs in it: a second sweep exits 2 naming the
// holder; once the holder is gone (its lock file stays), the next sweep takes it over. A point
// whose runner still holds its run lock (the sweep that started it was killed) is running, not
// interrupted, and is not started again.
TEST(HardeningFiles, SweepDirectoriesAreLockedAndOrphanedRunnersSeen)
{
    const fs::path d = ScratchDir("aif-sweep-lock");
    const fs::path out = d / "out";
    WriteFile(d / "s.json",
              std::string("{\"name\": \"locked\", \"base\": ") + kTinyBase +
                  ", \"grid\": {\"workload.bytes\": [1048576]}, \"seeds\": [1]}");
    const std::string sweep = std::string(AIFABRIC_SWEEP) + " " + (d / "s.json").string() +
                              " --quiet --out " + out.string();
    {
        const SweepLock held(out.string());
        const Result r = RunCommand(sweep, "sweep-locked");
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_NE(r.err.find("another sweep is running"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("pid=" + std::to_string(::getpid())), std::string::npos) << r.err;
    }
    // The holder is gone: taken over; the point runs.
    const Result ok = RunCommand(sweep, "sweep-takeover");
    EXPECT_EQ(ok.status, 0) << ok.err;
    // A point summary with a field of the wrong type: gather names the file and the field.
    {
        const nlohmann::json m = ReadJsonFile(out / "sweep.json");
        const fs::path summary = out / m["points"][0]["id"].get<std::string>() / "summary.json";
        nlohmann::json s = ReadJsonFile(summary);
        s["runs"][0]["name"] = 5;
        WriteFile(summary, s.dump());
        const Result g =
            RunCommand(std::string(AIFABRIC_SWEEP) + " gather " + out.string(), "gather-types");
        EXPECT_EQ(g.status, 2) << g.err;
        EXPECT_NE(g.err.find("summary.json: runs[0].name: must be a string"), std::string::npos)
            << g.err;
    }
    // Orphans: a point's run lock held (as a runner left by a killed sweep holds it).
    const fs::path o2 = d / "orphan";
    WriteFile(d / "s2.json",
              std::string("{\"name\": \"orphan\", \"base\": ") + kTinyBase +
                  ", \"grid\": {\"workload.bytes\": [1048576]}, \"seeds\": [1]}");
    const std::string sweep2 = std::string(AIFABRIC_SWEEP) + " " + (d / "s2.json").string() +
                               " --quiet --out " + o2.string();
    // Run once (for the directory and the point's id), then undo its results.
    const Result first = RunCommand(sweep2 + " -j 1", "sweep-orphan-1");
    ASSERT_EQ(first.status, 0) << first.err;
    const nlohmann::json m = ReadJsonFile(o2 / "sweep.json");
    const std::string id = m["points"][0]["id"];
    fs::remove_all(o2 / id); // as if it never finished
    const int fd = LockPointForRunner(o2, id);
    ASSERT_GE(fd, 0);
    EXPECT_TRUE(PointRunnerAlive(o2, id));
    const Result again = RunCommand(sweep2, "sweep-orphan-2");
    EXPECT_NE(again.err.find("still being run"), std::string::npos) << again.err;
    EXPECT_FALSE(fs::exists(o2 / id)) << "the point was run a second time";
    const Result status =
        RunCommand(std::string(AIFABRIC_SWEEP) + " --status " + o2.string(), "sweep-orphan-status");
    EXPECT_NE(status.out.find("1 running"), std::string::npos) << status.out;
    ::close(fd);
    EXPECT_FALSE(PointRunnerAlive(o2, id));
}

// A bad seeds list is reported as itself (it used to be "grid: empty").
TEST(HardeningFiles, BadSeedsAreReportedAsSeeds)
{
    for (const char* seeds : {"\"x\"", "[]", "[0]", "[1, 1]"})
    {
        try
        {
            ExpandSweep(std::string("{\"base\": ") + kTinyBase + ", \"seeds\": " + seeds + "}",
                        "x",
                        ".");
            ADD_FAILURE() << seeds;
        }
        catch (const ScenarioError& e)
        {
            EXPECT_EQ(std::string(e.what()).rfind("seeds: ", 0), 0u) << e.what();
        }
    }
}

// A write that fails (disk full; here a file-size limit) says why, not only "cannot write X".
TEST(HardeningFiles, AFailedWriteSaysWhy)
{
    const fs::path d = ScratchDir("aif-write-fails");
    const fs::path msg = d / "message";
    const pid_t pid = ::fork();
    if (pid == 0)
    {
        ::signal(SIGXFSZ, SIG_IGN);
        rlimit lim{4096, 4096};
        ::setrlimit(RLIMIT_FSIZE, &lim);
        std::string what = "no error";
        try
        {
            WriteAtomically(d / "big.csv", std::string(1 << 20, 'x'));
        }
        catch (const std::runtime_error& e)
        {
            what = e.what();
        }
        lim = {RLIM_INFINITY, RLIM_INFINITY};
        ::setrlimit(RLIMIT_FSIZE, &lim);
        std::ofstream(msg) << what;
        ::_exit(0);
    }
    int st = 0;
    ::waitpid(pid, &st, 0);
    const std::string what = ReadFile(msg);
    EXPECT_NE(what.find("cannot write"), std::string::npos) << what;
    EXPECT_NE(what.find("File too large"), std::string::npos) << what;
    EXPECT_FALSE(fs::exists(d / "big.csv"));
}

// SPDX-License-Identifier: GPL-2.0-only
// Parameter sweeps: expansion, point ids, bad sweep files, the local engine (run, resume,
// failures), gathering into a tidy CSV and figures, and the sweep files in scenarios/.
#include "figures.h"
#include "process-util.h"
#include "scenario.h"
#include "sweep.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;
using namespace aifabric;

namespace
{

Result
RunSweep(const std::string& args)
{
    return RunCommand(std::string(AIFABRIC_SWEEP) + " " + args, "sweep");
}

fs::path
Scratch(const std::string& name)
{
    return ScratchDir("aif-sweep-" + name);
}

fs::path
Write(const fs::path& p, const std::string& text)
{
    return WriteFile(p, text);
}

std::vector<std::vector<std::string>>
ReadCsv(const fs::path& p)
{
    std::vector<std::vector<std::string>> rows;
    std::ifstream f(p);
    std::string line;
    while (std::getline(f, line))
    {
        std::vector<std::string> cells;
        std::string cell;
        bool quoted = false;
        for (size_t i = 0; i < line.size(); ++i)
        {
            const char c = line[i];
            if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"')
            {
                cell += '"';
                ++i;
            }
            else if (c == '"')
            {
                quoted = !quoted;
            }
            else if (c == ',' && !quoted)
            {
                cells.push_back(cell);
                cell.clear();
            }
            else
            {
                cell += c;
            }
        }
        cells.push_back(cell);
        rows.push_back(cells);
    }
    return rows;
}

size_t
Column(const std::vector<std::string>& header, const std::string& name)
{
    const auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? SIZE_MAX : size_t(it - header.begin());
}

json
ReadJson(const fs::path& p)
{
    std::ifstream f(p);
    return json::parse(f);
}

// A tiny scenario: 4 GPUs on a star, one step of a 1 MiB ring AllReduce (a fraction of a second).
const char* kTinyBase =
    R"({"name": "tiny", "topology": {"kind": "star", "servers": 2, "gpus_per_server": 2},
  "workload": {"steps": 1, "compute_ms": 1, "bytes": 1048576, "algorithm": "ring"}})";

std::string
TinySweep(const std::string& name, const std::string& grid, const std::string& seeds)
{
    return std::string("{\"name\": \"") + name + "\", \"base\": " + kTinyBase +
           ", \"grid\": " + grid + ", \"seeds\": " + seeds + "}";
}

} // namespace

TEST(SweepTest, Fnv1a64MatchesTheReferenceVectors)
{
    // Test vectors of the FNV reference implementation (Fowler, Noll, Vo).
    EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ULL);
    EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
    EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(SweepTest, ExpandsGridTimesZipTimesSeedsInOrder)
{
    const aifabric::Sweep s = ExpandSweep(
        std::string("{\"base\": ") + kTinyBase +
            R"(, "grid": {"fabric": ["rocev2", "tcp"], "faults.drop_rate": [0, 1e-4, 1e-3]},
                 "zip": {"topology.servers": [2, 4], "workload.bytes": [1048576, 2097152]}, "seeds": [7, 8]})",
        "x",
        ".");
    ASSERT_EQ(s.points.size(), 2u * 3 * 2 * 2);
    EXPECT_EQ(s.Keys(),
              (std::vector<std::string>{"fabric",
                                        "faults.drop_rate",
                                        "topology.servers",
                                        "workload.bytes"}));
    std::set<std::string> ids;
    for (const auto& p : s.points)
    {
        ids.insert(p.id);
        EXPECT_EQ(p.id.size(), 16u);
        // Zipped keys vary together.
        EXPECT_EQ(p.values["workload.bytes"].get<uint64_t>(),
                  524288u * p.values["topology.servers"].get<uint64_t>());
        // The point's scenario carries its values and seed.
        EXPECT_EQ(p.scenario["fabric"], p.values["fabric"]);
        EXPECT_EQ(p.scenario["seed"], p.seed);
        EXPECT_EQ(p.scenario["topology"]["servers"], p.values["topology.servers"]);
    }
    EXPECT_EQ(ids.size(), s.points.size()) << "every point has its own id";
    // Seeds innermost, then zip, then the grid with its last key fastest.
    EXPECT_EQ(s.points[0].seed, 7u);
    EXPECT_EQ(s.points[1].seed, 8u);
    EXPECT_EQ(s.points[2].values["topology.servers"], 4);
    EXPECT_EQ(s.points[4].values["faults.drop_rate"].get<double>(), 1e-4);
    EXPECT_EQ(s.points[12].values["fabric"], "tcp");
}

TEST(SweepTest, PointIdIsTheHashOfTheResolvedRunsAndIgnoresSpelling)
{
    const aifabric::Sweep a = ExpandSweep(
        TinySweep("a", R"({"faults.drop_rate": [0, 0.001], "topology.servers": [2]})", "[1, 2]"),
        "a",
        ".");
    // Same parameters, other key order, 0.0 for 0 and 2.0 for 2: the same ids.
    const aifabric::Sweep b = ExpandSweep(
        std::string(
            R"({"seeds": [1, 2], "grid": {"faults.drop_rate": [0.0, 1e-3], "topology.servers": [2.0]},
                                    "base": )") +
            kTinyBase + ", \"name\": \"b\"}",
        "b",
        ".");
    ASSERT_EQ(a.points.size(), 4u);
    ASSERT_EQ(b.points.size(), 4u);
    for (size_t i = 0; i < a.points.size(); ++i)
    {
        EXPECT_EQ(a.points[i].id, b.points[i].id) << i;
        // The definition: FNV-1a 64 of the canonical JSON list of the resolved runs.
        json runs = json::array();
        for (const auto& r : ResolveScenario(a.points[i].scenario))
        {
            runs.push_back(CanonicalJson(r.resolved));
        }
        char hex[17];
        std::snprintf(hex,
                      sizeof(hex),
                      "%016llx",
                      static_cast<unsigned long long>(Fnv1a64(runs.dump())));
        EXPECT_EQ(a.points[i].id, hex);
    }
    EXPECT_NE(a.points[0].id, a.points[1].id) << "the seed is part of the id";
    // A different base gives different ids.
    const aifabric::Sweep c = ExpandSweep(
        std::string(R"({"base": {"topology": {"kind": "star", "servers": 2, "gpus_per_server": 2},
          "workload": {"steps": 2, "compute_ms": 1, "bytes": 1048576, "algorithm": "ring"}, "name": "tiny"},
          "grid": {"faults.drop_rate": [0, 0.001], "topology.servers": [2]}, "seeds": [1, 2]})"),
        "c",
        ".");
    EXPECT_NE(a.points[0].id, c.points[0].id);
}

struct BadSweep
{
    const char* name;
    const char* text;
    const char* extra;
    const char* mustMention;
};

/// ctest lists a case by its name, not by the bytes of the struct.
void
PrintTo(const BadSweep& b, std::ostream* os)
{
    *os << b.name;
}

class SweepBadInputTest : public ::testing::TestWithParam<BadSweep>
{
};

TEST_P(SweepBadInputTest, OneLineExitTwoNothingWritten)
{
    const BadSweep b = GetParam();
    const fs::path d = Scratch(std::string("bad-") + b.name);
    const fs::path file = Write(d / "bad.json", b.text);
    const fs::path out = d / "out";
    for (const char* engine : {"local", "slurm"})
    {
        Result r = RunSweep(file.string() + " --engine " + engine + " --out " + out.string() + " " +
                            b.extra);
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_EQ(r.err.rfind("ai-fabric: error: ", 0), 0u) << r.err;
        EXPECT_NE(r.err.find(b.mustMention), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_FALSE(fs::exists(out)) << "nothing written";
    }
    // Only the sweep file itself is there: no temporary files either.
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(d))
    {
        (void)e;
        ++n;
    }
    EXPECT_EQ(n, 1u);
    fs::remove_all(d);
}

INSTANTIATE_TEST_SUITE_P(
    Cases,
    SweepBadInputTest,
    ::testing::Values(
        BadSweep{"unknownKey",
                 R"({"grdi": {"fabric": ["tcp"]}})",
                 "",
                 "grdi: unknown sweep key (did you mean 'grid'?)"},
        BadSweep{"emptyGrid", R"({"grid": {}, "seeds": [1]})", "", "grid: empty"},
        BadSweep{"noGrid", R"({"seeds": [1, 2]})", "", "grid: empty"},
        BadSweep{"emptyValues",
                 R"({"grid": {"faults.drop_rate": []}})",
                 "",
                 "grid.faults.drop_rate: must be a non-empty list"},
        BadSweep{"notInScenario",
                 R"({"grid": {"topology.server": [2, 4]}})",
                 "",
                 "grid.topology.server: unknown key (did you mean 'topology.servers'?)"},
        BadSweep{"notInScenarioTop",
                 R"({"grid": {"fabrik": ["tcp"]}})",
                 "",
                 "grid.fabrik: unknown key (did you mean 'fabric'?)"},
        BadSweep{"badValue",
                 R"({"grid": {"faults.drop_rate": [0, 1.5]}})",
                 "",
                 "grid.faults.drop_rate: must be a number >= 0 and < 1"},
        BadSweep{"zipLength",
                 R"({"zip": {"fabric": ["tcp", "rocev2"], "pfc": [false]}})",
                 "",
                 "zip.pfc: has 1 values"},
        BadSweep{"seedInGrid", R"({"grid": {"seed": [1, 2]}})", "", "grid.seed"},
        BadSweep{"seeds",
                 R"({"grid": {"fabric": ["tcp"]}, "seeds": [0]})",
                 "",
                 "seeds: must be a non-empty list"},
        BadSweep{"duplicate", R"({"grid": {"faults.drop_rate": [0, 0.0]}})", "", "listed twice"},
        BadSweep{"baseFile",
                 R"({"base": "missing.json", "grid": {"fabric": ["tcp"]}})",
                 "",
                 "base: scenario file"},
        BadSweep{"baseKey",
                 R"({"base": {"topolgy": {}}, "grid": {"fabric": ["tcp"]}})",
                 "",
                 "base.topolgy: unknown key"},
        BadSweep{"notJson", R"({"grid": )", "", "not valid JSON"},
        BadSweep{"attrValue",
                 R"({"grid": {"attributes.ns3::SwitchBufferManager::EcnKmin": [100, "banana"]}})",
                 "",
                 "attributes.ns3::SwitchBufferManager::EcnKmin: must be a value of type"},
        BadSweep{"duplicateKey",
                 R"({"grid": {"fabric": ["tcp"]}, "grid": {"pfc": [true]}})",
                 "",
                 "key \"grid\" appears twice"},
        BadSweep{
            "deep",
            R"({"grid": {"name": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}})",
            "",
            "nested deeper than 64 levels"},
        BadSweep{"badJobs",
                 R"({"grid": {"fabric": ["tcp"]}})",
                 "-j 0",
                 "-j: must be an integer >= 1"}),
    [](const ::testing::TestParamInfo<BadSweep>& info) { return std::string(info.param.name); });

TEST(SweepTest, DryRunListsPointsAndWritesNothing)
{
    const fs::path d = Scratch("dry");
    const fs::path file =
        Write(d / "s.json", TinySweep("dry", R"({"fabric": ["rocev2", "tcp"]})", "[1, 2, 3]"));
    Result r = RunSweep(file.string() + " --dry-run --out " + (d / "out").string());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("6 points, all valid"), std::string::npos) << r.out;
    const aifabric::Sweep s = LoadSweep(file.string());
    for (const auto& p : s.points)
    {
        EXPECT_NE(r.out.find(p.id), std::string::npos) << p.id;
    }
    EXPECT_FALSE(fs::exists(d / "out"));
    fs::remove_all(d);
}

TEST(SweepTest, LocalEngineRunsResumesOnlyTheRemovedPointAndGathers)
{
    const fs::path d = Scratch("local");
    const fs::path file =
        Write(d / "s.json",
              TinySweep("local",
                        R"({"fabric": ["rocev2", "tcp"], "faults.drop_rate": [0, 0.001]})",
                        "[1, 2]"));
    const fs::path out = d / "out";
    const std::string args = file.string() + " --engine local -j 2 --out " + out.string();
    Result r = RunSweep(args);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("8 points: ran 8 (0 failed), skipped 0"), std::string::npos) << r.out;
    const json manifest = ReadJson(out / "sweep.json");
    ASSERT_EQ(manifest["points"].size(), 8u);
    std::map<std::string, fs::file_time_type> summaries;
    std::map<std::string, fs::file_time_type> logs;
    for (const auto& p : manifest["points"])
    {
        const std::string id = p["id"];
        ASSERT_TRUE(fs::exists(out / id / "summary.json")) << id;
        EXPECT_TRUE(fs::exists(out / "points" / (id + ".json")));
        summaries[id] = fs::last_write_time(out / id / "summary.json");
        logs[id] = fs::last_write_time(out / "logs" / (id + ".log"));
        // The runner saw the point's values and seed.
        const json s = ReadJson(out / id / "summary.json");
        EXPECT_EQ(s["fabric"], p["values"]["fabric"]);
        EXPECT_DOUBLE_EQ(s["drop_rate"].get<double>(),
                         p["values"]["faults.drop_rate"].get<double>());
        const json cfg = ReadJson(out / id / "config.json");
        EXPECT_EQ(cfg["runs"][0]["seed"], p["seed"]);
    }

    // Remove one point's results: only that point runs again.
    const std::string removed = manifest["points"][5]["id"];
    fs::remove_all(out / removed);
    // What a killed runner leaves behind: its temporary directory, cleaned up on the rerun.
    fs::create_directories(out / (".tmp-" + removed + "-99999"));
    r = RunSweep(args);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("8 points: ran 1 (0 failed), skipped 7 already done"), std::string::npos)
        << r.out;
    EXPECT_TRUE(fs::exists(out / removed / "summary.json"));
    EXPECT_FALSE(fs::exists(out / (".tmp-" + removed + "-99999")));
    for (const auto& [id, t] : summaries)
    {
        if (id != removed)
        {
            EXPECT_EQ(fs::last_write_time(out / id / "summary.json"), t) << id << " was not rerun";
            EXPECT_EQ(fs::last_write_time(out / "logs" / (id + ".log")), logs[id]) << id;
        }
    }
    EXPECT_NE(fs::last_write_time(out / "logs" / (removed + ".log")), logs[removed]);
    r = RunSweep(args);
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("all 8 points already done"), std::string::npos) << r.out;

    r = RunSweep("--status " + out.string());
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("8 points: 8 done, 0 running, 0 pending, 0 failed"), std::string::npos)
        << r.out;

    // Gather: one row per run, the swept keys and seed as columns, the summary's metrics.
    r = RunSweep("gather " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    const auto rows = ReadCsv(out / "gathered" / "results.csv");
    ASSERT_EQ(rows.size(), 1u + 8);
    const auto& h = rows[0];
    EXPECT_EQ(std::vector<std::string>(h.begin(), h.begin() + 5),
              (std::vector<std::string>{"point_id", "seed", "fabric", "faults.drop_rate", "run"}));
    for (const char* c : {"step_ms.mean",
                          "step_ms.p99",
                          "collective_ms.mean",
                          "mfu_effective",
                          "busbw_gbytes_per_s",
                          "counters.retransmitted_packets",
                          "network_latency_us.p99",
                          "sim.wall_s",
                          "gpus"})
    {
        EXPECT_NE(Column(h, c), SIZE_MAX) << c;
    }
    EXPECT_EQ(std::count(h.begin(), h.end(), "fabric"), 1)
        << "the swept fabric is the fabric column";
    std::set<std::string> combos;
    for (size_t i = 1; i < rows.size(); ++i)
    {
        ASSERT_EQ(rows[i].size(), h.size()) << i;
        combos.insert(rows[i][2] + "/" + rows[i][3] + "/" + rows[i][1]);
        const json s = ReadJson(out / rows[i][0] / "summary.json")["runs"][0];
        EXPECT_EQ(rows[i][Column(h, "run")], s["name"]);
        EXPECT_EQ(rows[i][Column(h, "fabric")], s["fabric"]);
        EXPECT_DOUBLE_EQ(std::stod(rows[i][Column(h, "mfu_effective")]),
                         s["mfu_effective"].get<double>());
        EXPECT_DOUBLE_EQ(std::stod(rows[i][Column(h, "step_ms.mean")]),
                         s["step_ms"]["mean"].get<double>());
        EXPECT_EQ(rows[i][Column(h, "gpus")], "4");
    }
    EXPECT_EQ(combos.size(), 8u) << "every fabric x drop rate x seed once";
    EXPECT_TRUE(fs::exists(out / "gathered" / "figures.gp"));
    EXPECT_TRUE(fs::exists(out / "gathered" / "step-time-vs-faults.drop_rate.dat"));
    if (std::system("command -v gnuplot >/dev/null 2>&1") == 0)
    {
        EXPECT_TRUE(fs::exists(out / "gathered" / "step-time-vs-faults.drop_rate.png"));
        EXPECT_TRUE(fs::exists(out / "gathered" / "mfu-vs-faults.drop_rate.png"));
    }
    // Gathering again replaces the previous gather.
    r = RunSweep("gather " + out.string());
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(ReadCsv(out / "gathered" / "results.csv").size(), 9u);
    fs::remove_all(d);
}

TEST(SweepTest, FailedPointsAreReportedWithTheirLogAndDoNotStopTheOthers)
{
    const fs::path d = Scratch("fail");
    const fs::path file =
        Write(d / "s.json", TinySweep("fail", R"({"faults.drop_rate": [0, 0.001]})", "[1, 2]"));
    // A runner that fails on seed 2 and runs the real runner otherwise.
    const fs::path fake = Write(d / "fake-runner.sh",
                                std::string("#!/bin/sh\n"
                                            "if grep -Eq '\"seed\": 2,?$' \"$1\"; then\n"
                                            "  echo 'simulated failure' >&2; exit 3\n"
                                            "fi\n"
                                            "exec ") +
                                    AIFABRIC_RUNNER + " \"$@\"\n");
    fs::permissions(fake, fs::perms::owner_all);
    const fs::path out = d / "out";
    Result r =
        RunSweep(file.string() + " -j 2 --out " + out.string() + " --runner " + fake.string());
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.out.find("ran 4 (2 failed)"), std::string::npos) << r.out;
    const aifabric::Sweep s = LoadSweep(file.string());
    for (const auto& p : s.points)
    {
        const fs::path log = out / "logs" / (p.id + ".log");
        if (p.seed == 2)
        {
            EXPECT_FALSE(fs::exists(out / p.id)) << "nothing half-written";
            EXPECT_NE(r.err.find("point " + p.id), std::string::npos) << r.err;
            EXPECT_NE(r.err.find(log.string()), std::string::npos)
                << "the log path is reported: " << r.err;
            std::ifstream f(log);
            std::stringstream ss;
            ss << f.rdbuf();
            EXPECT_NE(ss.str().find("simulated failure"), std::string::npos);
        }
        else
        {
            EXPECT_TRUE(fs::exists(out / p.id / "summary.json")) << "the others ran";
        }
    }
    r = RunSweep("--status " + out.string());
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("2 done, 0 running, 0 pending, 2 failed"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("exit status 3"), std::string::npos) << r.out;
    // Re-running with a working runner reruns exactly the failed points.
    r = RunSweep(file.string() + " -j 2 --out " + out.string());
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("ran 2 (0 failed), skipped 2"), std::string::npos) << r.out;
    r = RunSweep("--status " + out.string());
    EXPECT_EQ(r.status, 0) << r.out;
    fs::remove_all(d);
}

TEST(SweepTest, OutputDirectoryOfAnotherSweepIsRefused)
{
    const fs::path d = Scratch("other");
    fs::create_directories(d / "out");
    Write(d / "out" / "keep.txt", "mine");
    const fs::path file =
        Write(d / "s.json", TinySweep("other", R"({"fabric": ["rocev2"]})", "[1]"));
    Result r = RunSweep(file.string() + " --out " + (d / "out").string());
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--out: "), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(d / "out" / "sweep.json"));
    fs::remove_all(d);
}

TEST(SweepTest, GatherAveragesSeedsAndDrawsZeroOnALogAxis)
{
    // Hand-made summaries with known numbers: gather must average them, not the simulator.
    const fs::path d = Scratch("gather");
    const aifabric::Sweep s = ExpandSweep(
        TinySweep("g", R"({"faults.drop_rate": [0, 1e-5, 1e-3]})", "[1, 2]")
            .insert(1, R"("zip": {"fabric": ["tcp", "rocev2"], "pfc": [false, true]}, )"),
        "g",
        ".");
    ASSERT_EQ(s.points.size(), 12u);
    const fs::path out = d / "out";
    PrepareSweepDirectory(s, out.string(), "/bin/false");
    std::map<std::string, std::vector<double>> expect; // fabric/drop -> step times
    for (const auto& p : s.points)
    {
        const double drop = p.values["faults.drop_rate"].get<double>();
        const double step = (p.values["fabric"] == "tcp" ? 10.0 : 2.0) + 1e3 * drop + p.seed;
        expect[p.values["fabric"].get<std::string>() + "/" + std::to_string(drop)].push_back(step);
        json run = {{"name", "r"},
                    {"fabric", p.values["fabric"]},
                    {"pfc", p.values["pfc"]},
                    {"drop_rate", drop},
                    {"step_ms", {{"mean", step}, {"max", step}}},
                    {"mfu_effective", 1.0 / step},
                    {"barrier", json::array()}};
        fs::create_directories(out / p.id);
        std::ofstream(out / p.id / "summary.json") << json{{"runs", json::array({run})}}.dump();
    }
    std::ostringstream o;
    std::ostringstream e;
    ASSERT_EQ(Gather(out.string(), o, e), 0) << e.str();
    const auto rows = ReadCsv(out / "gathered" / "results.csv");
    ASSERT_EQ(rows.size(), 13u);
    EXPECT_EQ(
        std::vector<std::string>(rows[0].begin(), rows[0].begin() + 6),
        (std::vector<std::string>{"point_id", "seed", "faults.drop_rate", "fabric", "pfc", "run"}));
    // step-time-vs-faults.drop_rate.dat: per fabric, per drop rate: x_plot x mean min max stddev n.
    std::ifstream dat(out / "gathered" / "step-time-vs-faults.drop_rate.dat");
    std::string line;
    std::string series;
    size_t points = 0;
    while (std::getline(dat, line))
    {
        if (line.rfind("# x_plot", 0) == 0 || line.empty())
        {
            continue;
        }
        if (line[0] == '#')
        {
            series = line.substr(2);
            continue;
        }
        std::istringstream is(line);
        double xPlot, x, mean, mn, mx, sd;
        size_t n;
        is >> xPlot >> x >> mean >> mn >> mx >> sd >> n;
        const auto& v = expect[series + "/" + std::to_string(x)];
        ASSERT_EQ(v.size(), 2u) << series << " " << x;
        EXPECT_EQ(n, 2u);
        EXPECT_NEAR(mean, (v[0] + v[1]) / 2, 1e-9);
        EXPECT_NEAR(mn, std::min(v[0], v[1]), 1e-9);
        EXPECT_NEAR(mx, std::max(v[0], v[1]), 1e-9);
        EXPECT_NEAR(sd, std::fabs(v[0] - v[1]) / std::sqrt(2.0), 1e-9);
        // 0 sits one decade below the smallest non-zero drop rate.
        EXPECT_DOUBLE_EQ(xPlot, x == 0 ? 1e-6 : x);
        ++points;
    }
    EXPECT_EQ(points, 6u) << "2 fabrics x 3 drop rates";
    std::ifstream gp(out / "gathered" / "figures.gp");
    std::stringstream ss;
    ss << gp.rdbuf();
    EXPECT_NE(ss.str().find("set logscale x"), std::string::npos);
    EXPECT_NE(ss.str().find("'0' 1e-06"), std::string::npos);
    EXPECT_NE(ss.str().find("title 'tcp'"), std::string::npos)
        << "one line per fabric; pfc is zipped with it";
    EXPECT_NE(ss.str().find("title 'rocev2'"), std::string::npos);
    // One line per fabric: each in its fabric's colour, as in a run's figures.
    EXPECT_NE(ss.str().find("lc rgb " + aifabric::FabricColour("tcp") + " title 'tcp'"),
              std::string::npos)
        << ss.str();
    EXPECT_NE(ss.str().find("lc rgb " + aifabric::FabricColour("rocev2") + " title 'rocev2'"),
              std::string::npos);
    fs::remove_all(d);
}

TEST(SweepTest, EverySweepFileInScenariosIsValid)
{
    size_t files = 0;
    for (const auto& e :
         fs::directory_iterator(std::string(AIFABRIC_SOURCE_DIR) + "/scenarios/sweeps"))
    {
        if (e.path().extension() != ".json")
        {
            continue;
        }
        ++files;
        aifabric::Sweep s;
        ASSERT_NO_THROW(s = LoadSweep(e.path().string())) << e.path();
        EXPECT_FALSE(s.points.empty()) << e.path();
    }
    EXPECT_GE(files, 1u);
    const aifabric::Sweep s =
        LoadSweep(std::string(AIFABRIC_SOURCE_DIR) + "/scenarios/sweeps/seed-figure.json");
    ASSERT_EQ(s.points.size(), 3u * 4 * 3);
    std::set<std::string> fabrics;
    std::set<double> drops;
    std::set<uint32_t> seeds;
    for (const auto& p : s.points)
    {
        const auto runs = ResolveScenario(p.scenario);
        ASSERT_EQ(runs.size(), 1u);
        EXPECT_EQ(runs[0].Gpus(), 128u) << "the default cluster";
        EXPECT_EQ(runs[0].fabric.pfc, runs[0].fabric.name != "tcp");
        fabrics.insert(runs[0].fabric.name);
        drops.insert(runs[0].faults.dropRate);
        seeds.insert(runs[0].seed);
    }
    EXPECT_EQ(fabrics, (std::set<std::string>{"tcp", "rocev2", "infiniband"}));
    EXPECT_EQ(drops, (std::set<double>{0, 1e-5, 1e-4, 1e-3}));
    EXPECT_EQ(seeds, (std::set<uint32_t>{1, 2, 3}));
}

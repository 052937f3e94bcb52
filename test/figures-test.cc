// SPDX-License-Identifier: GPL-2.0-only
// Figures: names from data reach gnuplot only as escaped strings, and gnuplot is run without a
// shell, so a run name can neither break a script nor run a command.
#include "figures.h"
#include "file-util.h"
#include "process-util.h"
#include "process.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace aifabric;

namespace
{

/// A new, empty directory for one test.
fs::path
Fresh(const std::string& tag)
{
    std::string t = ::testing::TempDir() + "aif-fig-" + tag + "-XXXXXX";
    return ::mkdtemp(t.data()) ? fs::path(t) : fs::path();
}

/// Whether a file named F exists anywhere under `dir` (what `touch F` would leave).
bool
Touched(const fs::path& dir)
{
    for (const auto& e : fs::recursive_directory_iterator(dir))
    {
        if (e.path().filename() == "F")
        {
            return true;
        }
    }
    return false;
}

struct NameCase
{
    const char* label;
    const char* name;
    const char* quoted; //!< the name as a gnuplot string literal (without the closing ')
};

const NameCase kNames[] = {
    {"Injection", "x'; system \"touch F\"; y='", "'x''; system \"touch F\"; y=''"},
    {"Apostrophe", "Bob's run", "'Bob''s run"},
    {"Underscore", "lossy_tcp", "'lossy_tcp"},
};

/// Test names and values as ctest lists them: the label, not the bytes.
void
PrintTo(const NameCase& c, std::ostream* os)
{
    *os << c.label;
}

class FigureNameTest : public ::testing::TestWithParam<NameCase>
{
};

} // namespace

TEST(FiguresTest, GnuplotStringDoublesSingleQuotes)
{
    EXPECT_EQ(GnuplotString("plain"), "'plain'");
    EXPECT_EQ(GnuplotString("Bob's run"), "'Bob''s run'");
    EXPECT_EQ(GnuplotString("''"), "''''''");
    EXPECT_EQ(GnuplotString("a_b \"c\" `d` $e"), "'a_b \"c\" `d` $e'");
}

TEST(FiguresTest, RunProgramPassesArgumentsUnchanged)
{
    const fs::path d = Fresh("argv");
    ASSERT_FALSE(d.empty());
    ProcessOptions o;
    o.directory = d.string();
    o.out = Output::CAPTURE;
    std::string out;
    ASSERT_EQ(RunProgram({"printf", "%s|", "a b", "x'; touch F; y='", "$(touch F)"}, o, &out), 0);
    EXPECT_EQ(out, "a b|x'; touch F; y='|$(touch F)|");
    EXPECT_FALSE(Touched(d));
    EXPECT_EQ(RunProgram({"ai-fabric-no-such-program"}, o, &out), 127);
    EXPECT_TRUE(OnPath("sh"));
    EXPECT_FALSE(OnPath("ai-fabric-no-such-program"));
    fs::remove_all(d);
}

TEST_P(FigureNameTest, PlotEscapesTheNameAndRunsNoCommand)
{
    const NameCase& c = GetParam();
    const fs::path d = Fresh(std::string("plot-") + c.label);
    ASSERT_FALSE(d.empty());
    const std::string script = "set terminal pngcairo noenhanced size 300,200\nset output " +
                               GnuplotString("f.png") + "\nset title " + GnuplotString(c.name) +
                               "\nplot x title " + GnuplotString(c.name) + "\n";
    EXPECT_NE(script.find(std::string("set title ") + c.quoted + "'\n"), std::string::npos)
        << script;
    EXPECT_TRUE(Plot(d.string(), "t.gp", script));
    EXPECT_EQ(ReadText(d / "t.gp"), script);
    EXPECT_FALSE(Touched(d));
    if (HaveGnuplot())
    {
        EXPECT_TRUE(fs::exists(d / "f.png")) << "gnuplot parsed the script";
    }
    fs::remove_all(d);
}

TEST_P(FigureNameTest, RunnerPlotsQuoteTheRunName)
{
    const NameCase& c = GetParam();
    const fs::path d = Fresh(std::string("runner-") + c.label);
    ASSERT_FALSE(d.empty());
    const fs::path scenario = d / "scenario.json";
    nlohmann::json j = nlohmann::json::parse(
        R"({"topology": {"kind": "star", "servers": 2, "gpus_per_server": 1},
            "workload": {"steps": 1, "compute_ms": 0.1, "bytes": 65536, "algorithm": "ring"}})");
    j["name"] = c.name;
    std::ofstream(scenario) << j.dump();
    const fs::path out = d / "out";
    const Result r = RunCommand(std::string(AIFABRIC_RUNNER) + " --quiet " + scenario.string() +
                                    " --out " + out.string(),
                                "figures");
    ASSERT_EQ(r.status, 0) << r.err;
    fs::path run;
    for (const auto& e : fs::directory_iterator(out))
    {
        if (e.is_directory())
        {
            run = e.path();
        }
    }
    ASSERT_FALSE(run.empty());
    const std::string gp = ReadText(run / "plots.gp");
    EXPECT_NE(gp.find("set terminal pngcairo noenhanced"), std::string::npos) << gp;
    EXPECT_NE(gp.find(std::string("set title ") + c.quoted + ": per-rank step timeline"),
              std::string::npos)
        << gp;
    EXPECT_NE(ReadText(out / "compare.gp").find("noenhanced"), std::string::npos);
    EXPECT_FALSE(Touched(d)) << "a command in the run name was executed";
    if (HaveGnuplot())
    {
        EXPECT_TRUE(fs::exists(run / "timeline.png")) << "gnuplot parsed plots.gp";
        EXPECT_TRUE(fs::exists(out / "compare.png"));
    }
    fs::remove_all(d);
}

// The flow workload's slowdown figure: run names enter as escaped titles, data files by the
// runs' safe directory names, and the key sits below the panels (inside, it covered a curve).
TEST_P(FigureNameTest, SlowdownFigureQuotesTheRunName)
{
    const NameCase& c = GetParam();
    const fs::path d = Fresh(std::string("slowdown-") + c.label);
    ASSERT_FALSE(d.empty());
    nlohmann::json j = nlohmann::json::parse(
        R"({"topology": {"kind": "star", "servers": 4, "gpus_per_server": 1},
            "workload": {"kind": "flows",
                         "flows": {"cdf": "fb-hadoop", "load": 0.3, "duration_ms": 0.5}}})");
    j["name"] = c.name;
    std::ofstream(d / "scenario.json") << j.dump();
    const fs::path out = d / "out";
    const Result r = RunCommand(std::string(AIFABRIC_RUNNER) + " --quiet " +
                                    (d / "scenario.json").string() + " --out " + out.string(),
                                "figures-slowdown");
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string gp = ReadText(out / "slowdown.gp");
    EXPECT_NE(gp.find("set terminal pngcairo noenhanced"), std::string::npos) << gp;
    EXPECT_NE(gp.find(std::string("title ") + c.quoted + "'"), std::string::npos) << gp;
    EXPECT_NE(gp.find("set key outside below"), std::string::npos) << gp;
    EXPECT_FALSE(Touched(d)) << "a command in the run name was executed";
    if (HaveGnuplot())
    {
        EXPECT_TRUE(fs::exists(out / "slowdown.png")) << "gnuplot parsed slowdown.gp";
    }
    fs::remove_all(d);
}

INSTANTIATE_TEST_SUITE_P(Names,
                         FigureNameTest,
                         ::testing::ValuesIn(kNames),
                         [](const ::testing::TestParamInfo<NameCase>& info) {
                             return std::string(info.param.label);
                         });

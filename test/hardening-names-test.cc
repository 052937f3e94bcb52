// SPDX-License-Identifier: GPL-2.0-only
// Regression tests of the second hostile pass (issue 40) on names: a name reaches file names,
// CSV rows and gnuplot scripts, so a control character in it is refused when the scenario is
// checked, and every string written into a gnuplot script stays on one line.
#include "figures.h"
#include "process-util.h"
#include "scenario-error-util.h"
#include "scenario.h"
#include "text-util.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <string>

using namespace aifabric;
using nlohmann::json;

namespace
{

bool
HasControl(const std::string& s)
{
    return std::any_of(s.begin(), s.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
    });
}

} // namespace

// A newline inside a name used to end the gnuplot string and run the next line as a command
// (`system("...")`). Whatever the text, GnuplotString is one line, and reading it back as
// gnuplot does ('' is one ') gives the text with its control characters escaped.
TEST(HardeningNames, GnuplotStringsNeverHoldALineBreakOrControlCharacter)
{
    const std::string hostile = "run'\nsystem('touch /tmp/pwned')\n#\r\x01\x1b[2J\x7f";
    const std::string g = GnuplotString(hostile);
    EXPECT_FALSE(HasControl(g)) << g;
    EXPECT_EQ(g.front(), '\'');
    EXPECT_EQ(g.back(), '\'');
    // Between the outer quotes, every ' is doubled: the string never ends early.
    const std::string inner = g.substr(1, g.size() - 2);
    for (size_t i = 0; i < inner.size(); ++i)
    {
        if (inner[i] == '\'')
        {
            ASSERT_LT(i + 1, inner.size());
            EXPECT_EQ(inner[i + 1], '\'');
            ++i;
        }
    }
    EXPECT_EQ(OneLine("a\nb\tc\x01"), "a\\nb\\tc\\u0001");
    EXPECT_EQ(GnuplotString("Bob's run"), "'Bob''s run'");
}

// Every name of a scenario (the run's, a compare run's, a job's, a fault's link) with a
// control character is refused with one line naming the key.
TEST(HardeningNames, ControlCharactersInNamesAreRefusedNamingTheKey)
{
    json a = {{"name", "ok\nsystem('id')"}};
    EXPECT_NE(ScenarioErrorOf(a).find("name: must not contain control characters"),
              std::string::npos)
        << ScenarioErrorOf(a);
    json b = {{"compare", json::array({json{{"name", "x\ry"}}})}};
    EXPECT_NE(ScenarioErrorOf(b).find("name: must not contain control characters"),
              std::string::npos)
        << ScenarioErrorOf(b);
    json c = {{"jobs",
               json::array({json{{"name", std::string("j\x1b[31m")}, {"servers", 1}},
                            json{{"name", "k"}, {"servers", 1}}})}};
    EXPECT_NE(ScenarioErrorOf(c).find("jobs[0].name: must not contain control characters"),
              std::string::npos)
        << ScenarioErrorOf(c);
    json d = {{"workload", {{"trace", "dir\tx"}}}};
    EXPECT_NE(ScenarioErrorOf(d).find("workload.trace: must not contain control characters"),
              std::string::npos)
        << ScenarioErrorOf(d);
    for (const json& j : {a, b, c, d})
    {
        const std::string e = ScenarioErrorOf(j);
        EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 0) << e;
    }
    // The runner: exit 2, one line, no results directory.
    const auto dir = ScratchDir("control-name");
    WriteFile(dir / "s.json",
              R"J({"name": "a\nsystem('touch pwned')", "workload": {"steps": 1}})J");
    const Result r = RunCommand(std::string(AIFABRIC_RUNNER) + " " + (dir / "s.json").string() +
                                    " --quiet --out " + (dir / "out").string(),
                                "control-name");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("name: must not contain control characters"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

// SPDX-License-Identifier: GPL-2.0-only
// htsim's connection-matrix format (ConnectionMatrix): what its generators write parses to the
// right flows, and every bad line is refused naming the line and the field.
#include "ns3/connection-matrix.h"

#include <gtest/gtest.h>

using ns3::ConnectionMatrix;

namespace
{

std::string
ErrorOf(const std::string& text)
{
    try
    {
        ConnectionMatrix::FromText(text, "'m.cm'");
    }
    catch (const ConnectionMatrix::Error& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

// As gen_permutation.py and gen_incast.py write them (start: microseconds x 10^6, i.e.
// picoseconds), with a comment, a blank line, tabs and CRLF line ends.
TEST(ConnectionMatrixTest, ParsesWhatHtsimsGeneratorsWrite)
{
    const ConnectionMatrix m = ConnectionMatrix::FromText("Nodes 16\r\n"
                                                          "Connections 3\n"
                                                          "# permutation\n"
                                                          "\n"
                                                          "3->12 id 1 start 0 size 2000000\n"
                                                          "12->3\tstart 1500000 size 4096 id 7\n"
                                                          "0->15 start 2.5e6 size 1\r\n",
                                                          "'m.cm'");
    EXPECT_EQ(m.GetNodes(), 16u);
    ASSERT_EQ(m.GetConnections().size(), 3u);
    const auto& c = m.GetConnections();
    EXPECT_EQ(c[0].src, 3u);
    EXPECT_EQ(c[0].dst, 12u);
    EXPECT_EQ(c[0].bytes, 2000000u);
    EXPECT_EQ(c[0].id, 1u);
    EXPECT_EQ(c[0].start, ns3::Time(0));
    EXPECT_EQ(c[0].line, 5u);
    EXPECT_EQ(c[1].start, ns3::NanoSeconds(1500)) << "1,500,000 ps";
    EXPECT_EQ(c[1].bytes, 4096u);
    EXPECT_EQ(c[1].id, 7u);
    EXPECT_EQ(c[2].start, ns3::NanoSeconds(2500));
    EXPECT_EQ(c[2].id, 0u) << "no id given";
    EXPECT_EQ(c[2].line, 7u);
}

struct BadMatrix
{
    const char* name;
    const char* text;
    const char* mustSay;
};

void
PrintTo(const BadMatrix& b, std::ostream* os)
{
    *os << b.name;
}

class ConnectionMatrixBadTest : public ::testing::TestWithParam<BadMatrix>
{
};

TEST_P(ConnectionMatrixBadTest, RefusedNamingLineAndField)
{
    const BadMatrix b = GetParam();
    const std::string e = ErrorOf(b.text);
    EXPECT_NE(e.find(b.mustSay), std::string::npos) << e;
    EXPECT_EQ(e.rfind("'m.cm'", 0), 0u) << "starts with the file: " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << "one line: " << e;
}

INSTANTIATE_TEST_SUITE_P(
    Lines,
    ConnectionMatrixBadTest,
    ::testing::Values(
        BadMatrix{"noNodes", "Connections 1\n0->1 start 0 size 1\n", "line 2: Nodes: missing"},
        BadMatrix{"nodesNotANumber", "Nodes x\n", "line 1: Nodes: must be an integer 2..1048576"},
        BadMatrix{"oneNode", "Nodes 1\n", "line 1: Nodes: must be an integer 2..1048576 (got '1')"},
        BadMatrix{"srcOutOfRange",
                  "Nodes 4\nConnections 1\n4->1 start 0 size 10\n",
                  "line 3: src: must be a node 0..3 (got '4')"},
        BadMatrix{"dstNotANumber",
                  "Nodes 4\nConnections 1\n1->x start 0 size 10\n",
                  "line 3: dst: must be a node 0..3 (got 'x')"},
        BadMatrix{"toItself",
                  "Nodes 4\nConnections 1\n2->2 start 0 size 10\n",
                  "line 3: dst: must differ from src"},
        BadMatrix{"sizeZero",
                  "Nodes 4\nConnections 1\n0->1 start 0 size 0\n",
                  "line 3: size: must be an integer 1..1099511627776 bytes (got '0')"},
        BadMatrix{"sizeNegative",
                  "Nodes 4\nConnections 1\n0->1 start 0 size -5\n",
                  "line 3: size: must be an integer"},
        BadMatrix{"startNegative",
                  "Nodes 4\nConnections 1\n0->1 start -1 size 5\n",
                  "line 3: start: must be a number of picoseconds 0..1e15 (got '-1')"},
        BadMatrix{"startNan",
                  "Nodes 4\nConnections 1\n0->1 start nan size 5\n",
                  "line 3: start: must be a number of picoseconds"},
        BadMatrix{"noStart", "Nodes 4\nConnections 1\n0->1 size 5\n", "line 3: start: missing"},
        BadMatrix{"noValue",
                  "Nodes 4\nConnections 1\n0->1 start 0 size\n",
                  "line 3: size: missing its value"},
        BadMatrix{"unknownKey",
                  "Nodes 4\nConnections 1\n0->1 start 0 sise 5\n",
                  "line 3: sise: unknown key (allowed: start, size, id)"},
        BadMatrix{"trigger",
                  "Nodes 4\nConnections 1\n0->1 id 1 trigger 1 size 5\n",
                  "line 3: trigger: htsim's trigger is not supported here"},
        BadMatrix{"failureLine",
                  "Nodes 4\nConnections 1\nfailure switch_type AGG switch_id 0 link_id 0\n",
                  "line 3: line: htsim's failure lines are not supported here"},
        BadMatrix{"triggers", "Nodes 4\nTriggers 2\n", "line 2: Triggers: must be 0"},
        BadMatrix{"garbage", "Nodes 4\nhello\n", "line 2: line: expected Nodes, Connections"},
        BadMatrix{"headerLate",
                  "Nodes 4\nConnections 1\n0->1 start 0 size 5\nNodes 8\n",
                  "line 4: Nodes: header lines come before the first connection"},
        BadMatrix{"tooMany",
                  "Nodes 4\nConnections 1\n0->1 start 0 size 5\n1->0 start 0 size 5\n",
                  "line 4: Connections: more connection lines than the 1 declared"},
        BadMatrix{"tooFew",
                  "Nodes 4\nConnections 3\n0->1 start 0 size 5\n",
                  "Connections: 3 declared, 1 connection lines"},
        BadMatrix{"idZero",
                  "Nodes 4\nConnections 1\n0->1 id 0 start 0 size 5\n",
                  "line 3: id: must be an integer 1..4294967295"}));

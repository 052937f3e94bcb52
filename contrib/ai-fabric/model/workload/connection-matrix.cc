// SPDX-License-Identifier: GPL-2.0-only
#include "connection-matrix.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace ns3
{

namespace
{

/// At most 40 bytes of a token, for error messages (printable ASCII only).
std::string
Echo(const std::string& s)
{
    std::string out;
    for (char ch : s.substr(0, 40))
    {
        out += (ch >= 32 && ch < 127) ? ch : '?';
    }
    return out + (s.size() > 40 ? "..." : "");
}

std::vector<std::string>
Tokens(const std::string& line)
{
    std::vector<std::string> t;
    std::string cur;
    for (char ch : line)
    {
        if (ch == ' ' || ch == '\t' || ch == '\r')
        {
            if (!cur.empty())
            {
                t.push_back(cur);
                cur.clear();
            }
        }
        else
        {
            cur += ch;
        }
    }
    if (!cur.empty())
    {
        t.push_back(cur);
    }
    return t;
}

/// A decimal unsigned integer in [lo, hi], all of `s`; false otherwise.
bool
ParseUint(const std::string& s, uint64_t lo, uint64_t hi, uint64_t& v)
{
    if (s.empty() || s.size() > 20)
    {
        return false;
    }
    uint64_t x = 0;
    for (char ch : s)
    {
        if (ch < '0' || ch > '9')
        {
            return false;
        }
        const uint64_t d = uint64_t(ch - '0');
        if (x > (UINT64_MAX - d) / 10)
        {
            return false;
        }
        x = x * 10 + d;
    }
    if (x < lo || x > hi)
    {
        return false;
    }
    v = x;
    return true;
}

} // namespace

ConnectionMatrix
ConnectionMatrix::FromText(const std::string& text, const std::string& origin)
{
    ConnectionMatrix m;
    std::istringstream in(text);
    std::string line;
    uint32_t lineNo = 0;
    bool haveNodes = false;
    bool haveConns = false;
    uint64_t declared = 0;
    auto fail = [&](const std::string& field, const std::string& why, const std::string& got) {
        throw Error(origin + " line " + std::to_string(lineNo) + ": " + field + ": " + why +
                    " (got '" + Echo(got) + "')");
    };
    while (std::getline(in, line))
    {
        ++lineNo;
        const std::vector<std::string> t = Tokens(line);
        if (t.empty() || t[0][0] == '#')
        {
            continue;
        }
        const size_t arrow = t[0].find("->");
        if (arrow == std::string::npos)
        {
            const std::string& key = t[0];
            const bool header =
                key == "Nodes" || key == "Connections" || key == "Triggers" || key == "Failures";
            if (!header)
            {
                fail("line",
                     key == "trigger" || key == "failure"
                         ? "htsim's " + key + " lines are not supported here"
                         : "expected Nodes, Connections or a connection 'a->b ...'",
                     key);
            }
            if (!m.m_conns.empty())
            {
                fail(key, "header lines come before the first connection", key);
            }
            uint64_t v = 0;
            const std::string arg = t.size() > 1 ? t[1] : "";
            if (t.size() != 2)
            {
                fail(key, "expects one number", line);
            }
            if (key == "Nodes")
            {
                if (!ParseUint(arg, 2, MAX_NODES, v))
                {
                    fail(key, "must be an integer 2.." + std::to_string(MAX_NODES), arg);
                }
                m.m_nodes = static_cast<uint32_t>(v);
                haveNodes = true;
            }
            else if (key == "Connections")
            {
                if (!ParseUint(arg, 1, 100000000, v))
                {
                    fail(key, "must be an integer 1..100000000", arg);
                }
                declared = v;
                haveConns = true;
            }
            else if (!ParseUint(arg, 0, 0, v))
            {
                fail(key, "must be 0 (htsim's triggers and failures are not supported here)", arg);
            }
            continue;
        }
        if (!haveNodes || !haveConns)
        {
            fail(haveNodes ? "Connections" : "Nodes", "missing before the first connection", t[0]);
        }
        MatrixConnection c;
        c.line = lineNo;
        uint64_t v = 0;
        const std::string src = t[0].substr(0, arrow);
        const std::string dst = t[0].substr(arrow + 2);
        const std::string range = "must be a node 0.." + std::to_string(m.m_nodes - 1);
        if (!ParseUint(src, 0, m.m_nodes - 1, v))
        {
            fail("src", range, src);
        }
        c.src = static_cast<uint32_t>(v);
        if (!ParseUint(dst, 0, m.m_nodes - 1, v))
        {
            fail("dst", range, dst);
        }
        c.dst = static_cast<uint32_t>(v);
        if (c.src == c.dst)
        {
            fail("dst", "must differ from src", t[0]);
        }
        bool haveStart = false;
        for (size_t i = 1; i < t.size(); i += 2)
        {
            const std::string& key = t[i];
            const bool known = key == "start" || key == "size" || key == "id";
            if (!known)
            {
                fail(key,
                     key == "trigger" || key == "send_done_trigger" || key == "recv_done_trigger" ||
                             key == "msg" || key == "prio"
                         ? "htsim's " + key + " is not supported here"
                         : "unknown key (allowed: start, size, id)",
                     key);
            }
            if (i + 1 >= t.size())
            {
                fail(key, "missing its value", line);
            }
            const std::string& val = t[i + 1];
            if (key == "size")
            {
                if (!ParseUint(val, 1, MAX_BYTES, v))
                {
                    fail("size",
                         "must be an integer 1.." + std::to_string(MAX_BYTES) + " bytes",
                         val);
                }
                c.bytes = v;
            }
            else if (key == "id")
            {
                if (!ParseUint(val, 1, UINT32_MAX, v))
                {
                    fail("id", "must be an integer 1..4294967295", val);
                }
                c.id = static_cast<uint32_t>(v);
            }
            else
            {
                char* end = nullptr;
                errno = 0;
                const double ps = std::strtod(val.c_str(), &end);
                if (val.empty() || *end != '\0' || errno != 0 || !std::isfinite(ps) || ps < 0 ||
                    ps > MAX_START_PS)
                {
                    fail("start", "must be a number of picoseconds 0..1e15", val);
                }
                c.start = PicoSeconds(int64_t(std::llround(ps)));
                haveStart = true;
            }
        }
        if (!haveStart || c.bytes == 0)
        {
            fail(haveStart ? "size" : "start", "missing", line);
        }
        if (m.m_conns.size() >= declared)
        {
            fail("Connections",
                 "more connection lines than the " + std::to_string(declared) + " declared",
                 t[0]);
        }
        m.m_conns.push_back(c);
    }
    if (!haveNodes || !haveConns)
    {
        throw Error(origin + ": " + (haveNodes ? "Connections" : "Nodes") + ": missing");
    }
    if (m.m_conns.size() != declared)
    {
        throw Error(origin + ": Connections: " + std::to_string(declared) + " declared, " +
                    std::to_string(m.m_conns.size()) + " connection lines");
    }
    return m;
}

uint32_t
ConnectionMatrix::GetNodes() const
{
    return m_nodes;
}

const std::vector<MatrixConnection>&
ConnectionMatrix::GetConnections() const
{
    return m_conns;
}

} // namespace ns3

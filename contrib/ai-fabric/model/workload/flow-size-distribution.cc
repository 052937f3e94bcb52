// SPDX-License-Identifier: GPL-2.0-only
#include "flow-size-distribution.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace ns3
{

namespace
{

/// The web-search distribution of DCTCP (Alizadeh et al., SIGCOMM 2010), as in the HPCC
/// simulator's traffic generator (data/websearch.txt).
const std::vector<std::pair<double, double>> kWebSearch = {
    {0, 0},
    {10000, 15},
    {20000, 20},
    {30000, 30},
    {50000, 40},
    {80000, 53},
    {200000, 60},
    {1000000, 70},
    {2000000, 80},
    {5000000, 90},
    {10000000, 97},
    {30000000, 100},
};

/// Facebook's Hadoop cluster (Roy et al., SIGCOMM 2015), as in the HPCC simulator's traffic
/// generator (data/fb-hadoop.txt).
const std::vector<std::pair<double, double>> kFbHadoop = {
    {0, 0},       {100, 1},     {200, 2},        {300, 5},      {350, 15},
    {400, 20},    {500, 30},    {600, 40},       {700, 50},     {1000, 60},
    {2000, 67},   {7000, 70},   {30000, 72},     {50000, 82},   {80000, 87},
    {120000, 90}, {300000, 95}, {1000000, 97.5}, {2000000, 99}, {10000000, 100},
};

std::string
Num(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

} // namespace

FlowSizeDistribution::FlowSizeDistribution(std::vector<std::pair<double, double>> points)
    : m_points(std::move(points))
{
    if (m_points.size() < 2)
    {
        throw Error("needs at least two points (got " + std::to_string(m_points.size()) + ")");
    }
    for (size_t i = 0; i < m_points.size(); ++i)
    {
        const auto& [bytes, pct] = m_points[i];
        const std::string where =
            "point " + std::to_string(i + 1) + " (" + Num(bytes) + " " + Num(pct) + "): ";
        if (!std::isfinite(bytes) || !std::isfinite(pct) || bytes < 0 || pct < 0 || pct > 100)
        {
            throw Error(where + "bytes must be >= 0 and the percent in [0, 100]");
        }
        if (i > 0 && (bytes < m_points[i - 1].first || pct <= m_points[i - 1].second))
        {
            throw Error(where + "bytes must not decrease and the percent must increase");
        }
    }
    if (m_points.front().second != 0 || m_points.back().second != 100)
    {
        throw Error("the cumulative percent must start at 0 and end at 100 (got " +
                    Num(m_points.front().second) + " .. " + Num(m_points.back().second) + ")");
    }
    if (m_points.back().first < 1)
    {
        throw Error("the largest size must be >= 1 byte");
    }
    // Uniform within each segment: its mean is the midpoint, weighted by its probability.
    for (size_t i = 1; i < m_points.size(); ++i)
    {
        m_mean += (m_points[i].first + m_points[i - 1].first) / 2 *
                  (m_points[i].second - m_points[i - 1].second) / 100;
    }
}

FlowSizeDistribution
FlowSizeDistribution::Named(const std::string& name)
{
    if (name == "websearch")
    {
        return FlowSizeDistribution(kWebSearch);
    }
    if (name == "fb-hadoop")
    {
        return FlowSizeDistribution(kFbHadoop);
    }
    throw Error("unknown distribution '" + name + "' (built in: websearch, fb-hadoop)");
}

std::vector<std::string>
FlowSizeDistribution::Names()
{
    return {"websearch", "fb-hadoop"};
}

FlowSizeDistribution
FlowSizeDistribution::FromFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw Error(path + ": cannot be read");
    }
    std::ostringstream text;
    text << in.rdbuf();
    return FromText(text.str(), path);
}

FlowSizeDistribution
FlowSizeDistribution::FromText(const std::string& text, const std::string& origin)
{
    std::vector<std::pair<double, double>> points;
    std::istringstream in(text);
    std::string line;
    size_t lineNo = 0;
    while (std::getline(in, line))
    {
        ++lineNo;
        line = line.substr(0, line.find('#'));
        if (line.find_first_not_of(" \t\r") == std::string::npos)
        {
            continue;
        }
        std::istringstream is(line);
        double bytes = 0;
        double pct = 0;
        std::string rest;
        if (!(is >> bytes >> pct) || (is >> rest))
        {
            throw Error(origin + ":" + std::to_string(lineNo) +
                        ": expected two numbers, 'bytes cumulative-percent'");
        }
        points.emplace_back(bytes, pct);
    }
    try
    {
        return FlowSizeDistribution(std::move(points));
    }
    catch (const Error& e)
    {
        throw Error(origin + ": " + e.what());
    }
}

uint64_t
FlowSizeDistribution::Sample(double u) const
{
    const double pct = std::clamp(u, 0.0, 1.0) * 100;
    // The first point whose percent is above pct ends the segment pct falls in.
    auto it = std::upper_bound(
        m_points.begin(),
        m_points.end(),
        pct,
        [](double p, const std::pair<double, double>& pt) { return p < pt.second; });
    if (it == m_points.end())
    {
        return static_cast<uint64_t>(std::max(1.0, std::round(m_points.back().first)));
    }
    const auto& hi = *it;
    const auto& lo = *(it - 1);
    const double bytes =
        lo.first + (hi.first - lo.first) * (pct - lo.second) / (hi.second - lo.second);
    return static_cast<uint64_t>(std::max(1.0, std::round(bytes)));
}

double
FlowSizeDistribution::GetMean() const
{
    return m_mean;
}

double
FlowSizeDistribution::GetMax() const
{
    return m_points.empty() ? 0 : m_points.back().first;
}

const std::vector<std::pair<double, double>>&
FlowSizeDistribution::GetPoints() const
{
    return m_points;
}

} // namespace ns3

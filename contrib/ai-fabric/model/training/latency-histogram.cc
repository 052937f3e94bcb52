// SPDX-License-Identifier: GPL-2.0-only
#include "latency-histogram.h"

#include "ns3/abort.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

namespace
{
const double kLogBase = std::log(1.01);
constexpr size_t kBins = 4200; // 1.01^4200 ~ 1.5e18 steps
} // namespace

LatencyHistogram::LatencyHistogram()
    : m_bins(kBins, 0)
{
}

void
LatencyHistogram::Add(int64_t steps)
{
    if (steps < 0)
    {
        steps = 0;
    }
    size_t bin = steps <= 1 ? 0 : static_cast<size_t>(std::log(double(steps)) / kLogBase);
    bin = std::min(bin, kBins - 1);
    ++m_bins[bin];
    if (m_count == 0)
    {
        m_min = m_max = steps;
    }
    m_min = std::min(m_min, steps);
    m_max = std::max(m_max, steps);
    ++m_count;
    m_sum += double(steps);
}

double
LatencyHistogram::Quantile(double q) const
{
    if (m_count == 0)
    {
        return 0;
    }
    if (q >= 1.0)
    {
        return double(m_max);
    }
    if (q <= 0.0)
    {
        return double(m_min);
    }
    const uint64_t rank = static_cast<uint64_t>(std::ceil(q * double(m_count)));
    uint64_t seen = 0;
    for (size_t i = 0; i < kBins; ++i)
    {
        seen += m_bins[i];
        if (seen >= rank && m_bins[i] > 0)
        {
            // Geometric middle of the bin, clamped to the exact extremes.
            const double lo = std::exp(double(i) * kLogBase);
            const double mid = lo * std::sqrt(1.01);
            return std::min(std::max(mid, double(m_min)), double(m_max));
        }
    }
    return double(m_max);
}

uint64_t
LatencyHistogram::GetCount() const
{
    return m_count;
}

int64_t
LatencyHistogram::GetMin() const
{
    return m_min;
}

int64_t
LatencyHistogram::GetMax() const
{
    return m_max;
}

double
LatencyHistogram::GetMean() const
{
    return m_count ? m_sum / double(m_count) : 0.0;
}

const std::vector<uint64_t>&
LatencyHistogram::GetBins() const
{
    return m_bins;
}

double
LatencyHistogram::GetSum() const
{
    return m_sum;
}

void
LatencyHistogram::Assign(std::vector<uint64_t> bins,
                         uint64_t count,
                         int64_t min,
                         int64_t max,
                         double sum)
{
    NS_ABORT_MSG_IF(bins.size() != kBins,
                    "LatencyHistogram::Assign: " << bins.size() << " bins, not " << kBins);
    m_bins = std::move(bins);
    m_count = count;
    m_min = count ? min : 0;
    m_max = count ? max : 0;
    m_sum = sum;
}

void
LatencyHistogram::Reset()
{
    std::fill(m_bins.begin(), m_bins.end(), 0);
    m_count = 0;
    m_min = m_max = 0;
    m_sum = 0;
}

} // namespace ns3

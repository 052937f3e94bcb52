// SPDX-License-Identifier: GPL-2.0-only
#ifndef LATENCY_HISTOGRAM_H
#define LATENCY_HISTOGRAM_H

#include "ns3/simple-ref-count.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Quantiles of many latency samples in bounded memory: logarithmic bins 1% wide (bin i holds
 * [1.01^i, 1.01^(i+1)) time steps), so any quantile is reported within 1% relative error; the
 * minimum, maximum, count and mean are exact. Adding a sample is O(1) with no allocation.
 */
class LatencyHistogram : public SimpleRefCount<LatencyHistogram>
{
  public:
    LatencyHistogram();

    /// Add one sample, in time steps (>= 0).
    void Add(int64_t steps);
    /// \return the q-quantile (0 <= q <= 1) in time steps, within 1%
    double Quantile(double q) const;
    uint64_t GetCount() const;
    int64_t GetMin() const;
    int64_t GetMax() const;
    double GetMean() const;
    void Reset();

    /**
     * Histograms kept apart (e.g. on MPI ranks) as one: the bins' counts (fixed in number),
     * and the exact sum of the samples. Assign replaces the contents with such parts, e.g. their
     * bin-by-bin sums, the smallest minimum and largest maximum of the non-empty ones.
     */
    const std::vector<uint64_t>& GetBins() const;
    double GetSum() const;
    void Assign(std::vector<uint64_t> bins, uint64_t count, int64_t min, int64_t max, double sum);

  private:
    std::vector<uint64_t> m_bins;
    uint64_t m_count{0};
    int64_t m_min{0};
    int64_t m_max{0};
    double m_sum{0};
};

} // namespace ns3

#endif // LATENCY_HISTOGRAM_H

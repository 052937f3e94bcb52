// SPDX-License-Identifier: GPL-2.0-only
#ifndef FLOW_SIZE_DISTRIBUTION_H
#define FLOW_SIZE_DISTRIBUTION_H

#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A flow-size distribution given as a piecewise-linear cumulative distribution: points
 * (bytes, cumulative percent), bytes non-decreasing, percents increasing from 0 to 100 — the
 * format of the HPCC simulator's traffic generator and of the files in the module's `data/`
 * folder (one `bytes percent` pair a line). A size is drawn by inverting the CDF: a uniform
 * u in [0, 100) falls in one segment and is interpolated linearly within it, so sizes between
 * two points are spread evenly, as that generator draws them.
 *
 * The two standard distributions of congestion-control evaluations are built in
 * (Named("websearch"), Named("fb-hadoop")); the same points are shipped as data files.
 */
class FlowSizeDistribution
{
  public:
    /// Bad points or an unreadable file: what() says which line and why.
    class Error : public std::exception
    {
      public:
        explicit Error(std::string what)
            : m_what(std::move(what))
        {
        }

        const char* what() const noexcept override
        {
            return m_what.c_str();
        }

      private:
        std::string m_what;
    };

    FlowSizeDistribution() = default;
    /// From (bytes, cumulative percent) points. Throws Error if they are not a CDF.
    explicit FlowSizeDistribution(std::vector<std::pair<double, double>> points);

    /**
     * A built-in distribution: "websearch" (DCTCP's web search, SIGCOMM 2010) or "fb-hadoop"
     * (Facebook Hadoop, Roy et al., SIGCOMM 2015), as the HPCC simulator distributes them.
     * Throws Error for another name.
     */
    static FlowSizeDistribution Named(const std::string& name);
    /// The names Named() knows.
    static std::vector<std::string> Names();
    /// Read `bytes percent` lines ('#' starts a comment). Throws Error naming the line.
    static FlowSizeDistribution FromFile(const std::string& path);
    /// Parse the text of such a file; `origin` names it in errors.
    static FlowSizeDistribution FromText(const std::string& text, const std::string& origin);

    /// The size (bytes, >= 1) at `u` in [0, 1): the inverse CDF.
    uint64_t Sample(double u) const;
    /// The mean size (bytes) of the piecewise-linear distribution, exactly.
    double GetMean() const;
    /// The largest size (bytes).
    double GetMax() const;
    const std::vector<std::pair<double, double>>& GetPoints() const;

  private:
    std::vector<std::pair<double, double>> m_points;
    double m_mean{0};
};

} // namespace ns3

#endif // FLOW_SIZE_DISTRIBUTION_H

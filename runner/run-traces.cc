// SPDX-License-Identifier: GPL-2.0-only
#include "run-traces.h"

#include "text-util.h"

#include <sstream>

namespace aifabric
{

using namespace ns3;

std::string
StepsCsv(const std::vector<TrainingStepRecord>& done)
{
    std::ostringstream steps;
    steps << "step,rank,start_ms,compute_end_ms,collective_end_ms,barrier_ms,last\n";
    for (const auto& r : done)
    {
        for (uint32_t k = 0; k < r.computeEnd.size(); ++k)
        {
            steps << r.step << "," << k << "," << Num(r.start.GetSeconds() * 1e3, 12) << ","
                  << Num(r.computeEnd[k].GetSeconds() * 1e3, 12) << ","
                  << Num(r.collectiveEnd[k].GetSeconds() * 1e3, 12) << ","
                  << Num(r.barrier.GetSeconds() * 1e3, 12) << "," << (k == r.lastRank ? 1 : 0)
                  << "\n";
        }
    }
    return steps.str();
}

std::string
StepsSummaryCsv(const std::vector<TrainingStepRecord>& done)
{
    std::ostringstream stepSum;
    stepSum << "step,start_ms,step_ms,collective_ms,last_rank,waited_on,cause,retransmissions,"
               "timeouts\n";
    for (const auto& r : done)
    {
        stepSum << r.step << "," << Num(r.start.GetSeconds() * 1e3, 12) << ","
                << Num(r.StepTime().GetSeconds() * 1e3, 12) << ","
                << Num(r.CollectiveTime().GetSeconds() * 1e3, 12) << "," << r.lastRank << ","
                << r.waitedOn << "," << r.cause << "," << r.retransmissions << "," << r.timeouts
                << "\n";
    }
    return stepSum.str();
}

std::string
LatencyCsv(const LatencyHistogram& latency)
{
    std::ostringstream lat;
    lat << "quantile,latency_us\n";
    if (latency.GetCount() > 0)
    {
        for (int i = 0; i <= 1000; ++i)
        {
            const double q = i / 1000.0;
            lat << Num(q) << "," << Num(latency.Quantile(q) / 1000.0) << "\n";
        }
    }
    return lat.str();
}

} // namespace aifabric

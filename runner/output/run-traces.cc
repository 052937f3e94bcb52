// SPDX-License-Identifier: GPL-2.0-only
#include "run-traces.h"

#include "text-util.h"

#include <algorithm>
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
FlowsCsv(const std::vector<FlowRecord>& flows, const std::vector<uint32_t>* linkFlows)
{
    std::ostringstream os;
    os << "flow,src,dst,bytes,start_us,fct_us,ideal_fct_us,slowdown,incast,status"
       << (linkFlows ? ",link_flows\n" : "\n");
    for (size_t i = 0; i < flows.size(); ++i)
    {
        const FlowRecord& r = flows[i];
        os << i << "," << r.src << "," << r.dst << "," << r.bytes << ","
           << Num(r.start.GetSeconds() * 1e6, 12) << ",";
        if (r.completed)
        {
            os << Num((r.end - r.start).GetSeconds() * 1e6, 12) << ","
               << Num(r.ideal.GetSeconds() * 1e6, 12) << "," << Num(r.Slowdown(), 8);
        }
        else
        {
            os << ",," << Num(r.ideal.GetSeconds() * 1e6, 12) << ",";
        }
        os << "," << (r.incast ? 1 : 0) << ","
           << (r.completed ? "completed"
               : r.failed  ? "failed"
                           : "running");
        if (linkFlows)
        {
            os << "," << (*linkFlows)[i];
        }
        os << "\n";
    }
    return os.str();
}

std::string
SlowdownCsv(const std::vector<FlowRecord>& flows)
{
    static const std::vector<uint64_t> edges =
        {1000, 3000, 10000, 30000, 100000, 300000, 1000000, 3000000, 10000000};
    uint64_t largest = 0;
    for (const FlowRecord& r : flows)
    {
        largest = std::max(largest, r.bytes);
    }
    std::ostringstream os;
    os << "max_bytes,count,p50,p95,p99\n";
    for (const FlowSlowdownBucket& b : FlowWorkload::SlowdownBySize(flows, edges, false))
    {
        if (b.count == 0)
        {
            continue;
        }
        os << (b.maxBytes == UINT64_MAX ? largest : b.maxBytes) << "," << b.count << ","
           << Num(b.p50, 8) << "," << Num(b.p95, 8) << "," << Num(b.p99, 8) << "\n";
    }
    return os.str();
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

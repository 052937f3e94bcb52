// SPDX-License-Identifier: GPL-2.0-only
#include "run-timeline.h"

#include "ns3/callback.h"

#include <iomanip>
#include <sstream>

namespace aifabric
{

using namespace ns3;

std::shared_ptr<TimelineRecorder>
TimelineRecorder::Attach(Ptr<ParallelTrainingJob> job, const ParallelismConfig* p)
{
    auto t = std::make_shared<TimelineRecorder>();
    t->m_graph = job->GetGraph();
    const uint32_t n = t->m_graph->ranks;
    const bool all = t->m_graph->OpCount() <= kTimelineMaxOps;
    t->m_keep.assign(n, all);
    t->m_replica = p != nullptr;
    uint64_t ops = 0;
    for (uint32_t r = 0; r < n; ++r)
    {
        if (!all && p && TransformerWorkload::CoordOf(*p, r).dp == 0)
        {
            t->m_keep[r] = true;
        }
        if (!all && !p && ops + t->m_graph->ops[r].size() <= kTimelineMaxOps)
        {
            t->m_keep[r] = true; // a trace of unknown layout: the first ranks that fit
            ops += t->m_graph->ops[r].size();
        }
        t->m_kept += t->m_keep[r] ? 1 : 0;
    }
    job->TraceConnectWithoutContext("OpDone", MakeBoundCallback(&OpDone, t.get()));
    job->TraceConnectWithoutContext("StepDone", MakeBoundCallback(&StepDone, t.get()));
    return t;
}

void
TimelineRecorder::OpDone(TimelineRecorder* t, uint32_t rank, uint32_t op, Time s, Time e)
{
    if (t->m_open && t->m_keep[rank])
    {
        t->m_entries.push_back(Entry{rank, op, s.GetTimeStep(), e.GetTimeStep()});
    }
}

void
TimelineRecorder::StepDone(TimelineRecorder* t, const TrainingStepRecord&)
{
    t->m_open = false;
}

std::string
TimelineRecorder::Csv() const
{
    static const char* kinds[] = {"compute", "collective", "send", "recv"};
    std::ostringstream os;
    os << "rank,op,kind,phase,start_us,end_us\n" << std::fixed << std::setprecision(3);
    for (const Entry& e : m_entries)
    {
        const WorkloadOp& o = m_graph->ops[e.rank][e.op];
        os << e.rank << "," << e.op << "," << kinds[o.kind] << ","
           << WorkloadGraph::PhaseName(o.phase) << "," << Time(e.start).GetSeconds() * 1e6 << ","
           << Time(e.end).GetSeconds() * 1e6 << "\n";
    }
    return os.str();
}

std::string
TimelineRecorder::Ranks() const
{
    if (m_kept == m_keep.size())
    {
        return "all";
    }
    return m_replica ? "dp replica 0 (" + std::to_string(m_kept) + " ranks)"
                     : "ranks 0-" + std::to_string(m_kept - 1);
}

} // namespace aifabric

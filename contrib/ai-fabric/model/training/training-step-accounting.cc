// SPDX-License-Identifier: GPL-2.0-only
#include "training-step-accounting.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

void
TrainingStepAccounting::Setup(std::shared_ptr<const WorkloadGraph> graph,
                              Ptr<CollectiveTransport> network)
{
    m_graph = std::move(graph);
    m_network = network;
    m_lossProbes.Connect(network);
}

void
TrainingStepAccounting::Dispose()
{
    m_lossProbes.Disconnect();
    m_network = nullptr;
}

void
TrainingStepAccounting::BeginStep(uint32_t k)
{
    const uint32_t n = m_graph->ranks;
    TrainingStepRecord rec;
    rec.step = k;
    rec.start = Simulator::Now();
    rec.computeEnd.assign(n, rec.start);
    m_records.push_back(rec);
    m_phases.emplace_back(n, RankPhaseTimes());
    m_bytes.emplace_back(n, std::array<uint64_t, WorkloadOp::PHASES>{});
    m_kernel.emplace_back(n, std::array<int64_t, WorkloadOp::PHASES>{});
    m_retx0 = m_network ? m_network->GetRetransmissions() : 0;
    m_timeouts0 = m_network ? m_network->GetTimeouts() : 0;
    m_probes0 = m_lossProbes.GetCount();
}

void
TrainingStepAccounting::Charge(uint32_t r, Time gap, uint32_t byRank, uint32_t byOp)
{
    if (gap.IsZero())
    {
        return;
    }
    RankPhaseTimes& p = m_phases.back()[r];
    if (byRank == UINT32_MAX)
    {
        p.barrier += gap;
        return;
    }
    const WorkloadOp& o = m_graph->ops[byRank][byOp];
    if (o.kind == WorkloadOp::SEND || o.kind == WorkloadOp::RECV)
    {
        p.ppBubble += gap;
        return;
    }
    if (o.kind != WorkloadOp::COLLECTIVE)
    {
        p.barrier += gap;
        return;
    }
    switch (o.phase)
    {
    case WorkloadOp::TP:
        p.tpExposed += gap;
        break;
    case WorkloadOp::EP:
        p.epExposed += gap;
        break;
    case WorkloadOp::FSDP:
        p.fsdpExposed += gap;
        break;
    case WorkloadOp::PP:
        p.ppBubble += gap;
        break;
    default:
        p.dpExposed += gap;
        break;
    }
}

const TrainingStepRecord&
TrainingStepAccounting::EndStep(const std::vector<Time>& rankEnd,
                                const std::vector<std::vector<TrainingOpState>>& state)
{
    TrainingStepRecord& rec = m_records.back();
    rec.barrier = Simulator::Now();
    rec.collectiveEnd = rankEnd; // marks the step complete
    rec.lastComputeEnd = rec.start;
    for (uint32_t r = 0; r < m_graph->ranks; ++r)
    {
        rec.lastComputeEnd = std::max(rec.lastComputeEnd, rec.computeEnd[r]);
        RankPhaseTimes& p = m_phases.back()[r];
        p.barrier += rec.barrier - rec.collectiveEnd[r];
        for (uint32_t q = 0; q < WorkloadOp::PHASES; ++q)
        {
            p.compute += TimeStep(m_kernel.back()[r][q]);
        }
    }
    Blame(rec, state);
    return rec;
}

void
TrainingStepAccounting::Blame(TrainingStepRecord& rec,
                              const std::vector<std::vector<TrainingOpState>>& state)
{
    const WorkloadGraph& g = *m_graph;
    const uint32_t n = g.ranks;
    // The critical path: from the last completion back through what made each finish.
    uint32_t r = UINT32_MAX;
    uint32_t i = 0;
    int64_t latest = -1;
    for (uint32_t x = 0; x < n; ++x)
    {
        for (uint32_t y = 0; y < g.ops[x].size(); ++y)
        {
            if (state[x][y].end > latest)
            {
                latest = state[x][y].end;
                r = x;
                i = y;
            }
        }
    }
    std::vector<int64_t> onPath(n, 0);
    rec.lastRank = r == UINT32_MAX ? 0 : r;
    bool first = true;
    for (uint64_t guard = 0; r != UINT32_MAX && guard <= g.OpCount(); ++guard)
    {
        const TrainingOpState& s = state[r][i];
        if (g.ops[r][i].kind == WorkloadOp::COMPUTE)
        {
            onPath[r] += s.end - s.start;
            if (first && s.end > s.start && g.ops[r][i].phase != WorkloadOp::OPTIMIZER)
            {
                rec.lastRank = r; // the rank whose work ended last (before the optimizer)
                first = false;
            }
        }
        const uint32_t nr = s.byRank;
        i = s.byOp;
        r = nr;
    }
    uint32_t w = 0;
    for (uint32_t x = 1; x < n; ++x)
    {
        if (onPath[x] > onPath[w])
        {
            w = x;
        }
    }
    rec.waitedOn = w;
    rec.slowestComputeRank = w;
    // Kernel time per rank against the median rank's.
    std::vector<int64_t> total(n, 0);
    std::vector<int64_t> expert(n, 0);
    for (uint32_t x = 0; x < n; ++x)
    {
        for (uint32_t p = 0; p < WorkloadOp::PHASES; ++p)
        {
            total[x] += m_kernel.back()[x][p];
        }
        expert[x] = m_kernel.back()[x][WorkloadOp::EP];
    }
    auto median = [](std::vector<int64_t> v) {
        std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
        return v[v.size() / 2];
    };
    const double step = double(rec.StepTime().GetTimeStep());
    const uint64_t retx = m_network ? m_network->GetRetransmissions() - m_retx0 : 0;
    const uint64_t timeouts = m_network ? m_network->GetTimeouts() - m_timeouts0 : 0;
    const uint64_t probes = m_lossProbes.GetCount() - m_probes0;
    rec.retransmissions = retx;
    rec.timeouts = timeouts;
    rec.lossProbes = probes;
    if (double(expert[w] - median(expert)) > 0.05 * step)
    {
        rec.cause = "expert-imbalance";
    }
    else if (double(total[w] - median(total)) > 0.05 * step)
    {
        rec.cause = "straggler";
    }
    else
    {
        rec.cause = NetworkCause(rec);
        if (timeouts > 0 && m_network->GetLastTimeoutReceiver() >= 0)
        {
            rec.timeoutVictim = m_network->GetLastTimeoutReceiver();
            rec.timeoutAt = m_network->GetLastTimeoutTime().GetTimeStep();
            rec.waitedOn = static_cast<uint32_t>(rec.timeoutVictim);
        }
    }
}

const char*
TrainingStepAccounting::NetworkCause(const TrainingStepRecord& rec)
{
    return rec.timeouts > 0          ? "timeout"
           : rec.lossProbes > 0      ? "tail-loss-probe"
           : rec.retransmissions > 0 ? "retransmission"
                                     : "network";
}

void
TrainingStepAccounting::Merge(const std::function<void(TrainingStepRecord&)>& merge,
                              const std::function<void(std::vector<uint64_t>&)>& sum)
{
    std::vector<uint64_t> flat;
    for (const auto& step : m_bytes)
    {
        for (const auto& rank : step)
        {
            flat.insert(flat.end(), rank.begin(), rank.end());
        }
    }
    sum(flat);
    size_t at = 0;
    for (auto& step : m_bytes)
    {
        for (auto& rank : step)
        {
            for (uint64_t& b : rank)
            {
                b = flat[at++];
            }
        }
    }
    for (TrainingStepRecord& rec : m_records)
    {
        merge(rec);
        // Everyone waited on the last timeout's receiver (kernel TCP: `merge` took the latest
        // over the ranks), else on the critical path's rank (Blame).
        if (!rec.cause.empty() && rec.cause != "expert-imbalance" && rec.cause != "straggler")
        {
            rec.cause = NetworkCause(rec);
            rec.waitedOn = rec.timeouts > 0 && rec.timeoutVictim >= 0
                               ? static_cast<uint32_t>(rec.timeoutVictim)
                               : rec.slowestComputeRank;
        }
    }
}

const std::vector<TrainingStepRecord>&
TrainingStepAccounting::GetSteps() const
{
    return m_records;
}

const RankPhaseTimes&
TrainingStepAccounting::GetPhaseTimes(uint32_t step, uint32_t rank) const
{
    return m_phases.at(step).at(rank);
}

uint64_t
TrainingStepAccounting::GetBytesSent(uint32_t step, uint32_t rank, WorkloadOp::Phase phase) const
{
    return m_bytes.at(step).at(rank).at(phase);
}

Time
TrainingStepAccounting::GetKernelTime(uint32_t step, uint32_t rank, WorkloadOp::Phase phase) const
{
    return TimeStep(m_kernel.at(step).at(rank).at(phase));
}

double
TrainingStepAccounting::GetMfu(double peakFlops) const
{
    double sum = 0;
    uint32_t done = 0;
    for (const auto& r : m_records)
    {
        if (!r.collectiveEnd.empty())
        {
            sum += r.StepTime().GetSeconds();
            ++done;
        }
    }
    if (done == 0 || !m_graph || sum <= 0)
    {
        return 0;
    }
    return m_graph->modelFlops / (double(m_graph->ranks) * peakFlops * (sum / done));
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
// CollectiveExecutor split across MPI ranks (its network transport partitioned): the schedule's
// connections prepared in its order, the arrivals this rank's GPUs will see counted, each rank's
// report of its last arrival, dependencies released across servers through FabricRankMailbox,
// and the collective's last arrival. The schedule's execution itself is in
// collective-executor.cc.
#include "collective-executor.h"

#include "ns3/abort.h"
#include "ns3/fabric-rank-mailbox.h"

#include <cstring>

namespace ns3
{

void
CollectiveExecutor::PrepareSplit()
{
    const std::vector<CollectiveTransfer>& tr = m_schedule->transfers;
    m_localTotal = 0;
    for (uint32_t t = 0; t < tr.size(); ++t)
    {
        const CollectiveTransfer& x = tr[t];
        if (x.kind == CollectiveTransfer::RING_DONE)
        {
            continue; // arrives with its ring's last transfer (counted below)
        }
        if (x.kind == CollectiveTransfer::P2P && !SameServer(x.src, x.dst))
        {
            m_network->Prepare(Global(x.src + x.nicDelta),
                               Global(x.dst),
                               x.channel + m_channelBase);
        }
        NS_ABORT_MSG_IF(x.kind == CollectiveTransfer::P2P && x.src < m_gpuRanks &&
                            x.dst < m_gpuRanks && ServerOf(x.src) == ServerOf(x.dst) &&
                            LocalRank(x.src) != LocalRank(x.dst),
                        "CollectiveExecutor: a server's GPUs must run on one MPI rank ("
                            << m_gpusPerServer << " per server)");
        m_localTotal += LocalRank(x.dst) ? 1 : 0;
    }
    for (uint32_t i = 0; i < m_schedule->rings.size(); ++i)
    {
        const CollectiveRing& r = m_schedule->rings[i];
        if (r.steps == 0)
        {
            continue;
        }
        for (uint32_t p = 0; p < r.Size(); ++p)
        {
            for (uint32_t hop = 0; hop < (r.HasPxnHop(p) ? 2u : 1u); ++hop)
            {
                const Send x = Describe(RingToken::Make(i, 0, p, 0, hop));
                if (!SameServer(x.src, x.dst))
                {
                    m_network->Prepare(Global(x.nic), Global(x.dst), x.channel + m_channelBase);
                }
                m_localTotal += LocalRank(x.dst) ? uint64_t(r.steps) * r.chunks : 0;
            }
            if (r.done != UINT32_MAX && LocalRank(r.order[p]))
            {
                m_localTotal += r.chunks; // its RING_DONE marks
            }
        }
    }
    NS_ABORT_MSG_IF(FabricRankMailbox::GetNRanks() == 1 && m_localTotal != m_total,
                    "CollectiveExecutor: " << m_localTotal << " arrivals counted of " << m_total);
}

void
CollectiveExecutor::Report()
{
    m_reported = true;
    const auto [end, rank] = LatestArrival(true);
    const Message m{Message::kReport, rank, 0, end.GetTimeStep()};
    // From the node of its last arrival (an NVLink arrival runs outside any node's context);
    // an MPI rank with no arrivals reports at Start, never last.
    FabricRankMailbox::Broadcast(m_handler,
                                 &m,
                                 sizeof(m),
                                 m_network->GetMessageDelay(),
                                 m_localTotal > 0 ? m_network->GetNodeId(Global(rank))
                                                  : Simulator::NO_CONTEXT);
}

void
CollectiveExecutor::ReleaseAfter(uint64_t d, uint32_t node)
{
    if (ServerOf(Source(d)) == ServerOf(node))
    {
        Satisfy(d);
        return;
    }
    const Message m{Message::kRelease, 0, d, 0};
    FabricRankMailbox::Broadcast(m_handler,
                                 &m,
                                 sizeof(m),
                                 m_network->GetMessageDelay(),
                                 node < m_gpuRanks ? m_network->GetNodeId(Global(node))
                                                   : Simulator::NO_CONTEXT);
}

void
CollectiveExecutor::Received(const uint8_t* data, uint32_t size)
{
    NS_ABORT_MSG_IF(size != sizeof(Message), "CollectiveExecutor: bad message");
    Message m;
    std::memcpy(&m, data, sizeof(m));
    if (m.kind == Message::kRelease)
    {
        if (LocalRank(Source(m.token)))
        {
            Satisfy(m.token);
        }
        return;
    }
    const Time at = TimeStep(m.at);
    if (at > m_lastEnd || (at == m_lastEnd && m.rank >= m_lastEndRank))
    {
        m_lastEnd = at;
        m_lastEndRank = m.rank;
    }
    NS_ABORT_MSG_IF(m_reportsLeft == 0, "CollectiveExecutor: a report too many");
    if (--m_reportsLeft == 0 && !m_done.IsNull())
    {
        // Every rank's last arrival, a message delay after the last of them: on every MPI rank
        // at the same time, whatever the partition.
        Callback<void> done = m_done;
        m_done = Callback<void>();
        done();
    }
}

std::pair<Time, uint32_t>
CollectiveExecutor::LatestArrival(bool localOnly) const
{
    // The latest rank end, the largest GPU rank on a tie.
    std::pair<Time, uint32_t> latest{Time(0), 0};
    for (uint32_t r = 0; r < m_gpuRanks; ++r)
    {
        if ((!localOnly || LocalRank(r)) && m_rankEnd[r] >= latest.first)
        {
            latest = {m_rankEnd[r], r};
        }
    }
    return latest;
}

Time
CollectiveExecutor::GetLastEnd() const
{
    return m_split ? m_lastEnd : LatestArrival(false).first;
}

uint32_t
CollectiveExecutor::GetLastEndRank() const
{
    return m_split ? m_lastEndRank : LatestArrival(false).second;
}

} // namespace ns3

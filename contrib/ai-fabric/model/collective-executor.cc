// SPDX-License-Identifier: GPL-2.0-only
#include "collective-executor.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CollectiveExecutor);

TypeId
CollectiveExecutor::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CollectiveExecutor")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<CollectiveExecutor>();
    return tid;
}

CollectiveExecutor::CollectiveExecutor() = default;
CollectiveExecutor::~CollectiveExecutor() = default;

void
CollectiveExecutor::DoDispose()
{
    m_network = nullptr;
    m_nvlink = nullptr;
    m_schedule.reset();
    m_s = nullptr;
    m_done = Callback<void>();
    Object::DoDispose();
}

void
CollectiveExecutor::SetNetworkTransport(Ptr<CollectiveTransport> t)
{
    m_network = t;
}

void
CollectiveExecutor::SetNvlinkTransport(Ptr<CollectiveTransport> t, uint32_t gpusPerServer)
{
    m_nvlink = t;
    m_gpusPerServer = gpusPerServer ? gpusPerServer : 1;
}

void
CollectiveExecutor::Start(std::shared_ptr<const CollectiveSchedule> s, uint32_t ranks, Callback<void> done)
{
    NS_ABORT_MSG_IF(!m_network, "CollectiveExecutor: no network transport");
    const bool same = m_schedule == s && m_bySrcBegin.size() == size_t(ranks) + 1;
    m_schedule = s;
    m_s = m_schedule.get();
    m_done = done;
    m_arrived = 0;
    const uint32_t n = static_cast<uint32_t>(m_s->transfers.size());
    m_remaining.resize(n);
    for (uint32_t t = 0; t < n; ++t)
    {
        m_remaining[t] = m_s->transfers[t].depCount;
    }
    if (!same)
    {
        // Dependents and per-source lists, as compressed rows (built once per schedule).
        m_dependentBegin.assign(n + 1, 0);
        m_bySrcBegin.assign(ranks + 1, 0);
        for (uint32_t t = 0; t < n; ++t)
        {
            const CollectiveTransfer& tr = m_s->transfers[t];
            for (uint32_t k = 0; k < tr.depCount; ++k)
            {
                ++m_dependentBegin[m_s->deps[tr.depBegin + k] + 1];
            }
            ++m_bySrcBegin[tr.src + 1];
        }
        for (uint32_t t = 0; t < n; ++t)
        {
            m_dependentBegin[t + 1] += m_dependentBegin[t];
        }
        for (uint32_t r = 0; r < ranks; ++r)
        {
            m_bySrcBegin[r + 1] += m_bySrcBegin[r];
        }
        m_dependents.assign(m_dependentBegin[n], 0);
        m_bySrc.assign(n, 0);
        std::vector<uint32_t> fillDep(m_dependentBegin.begin(), m_dependentBegin.end() - 1);
        std::vector<uint32_t> fillSrc(m_bySrcBegin.begin(), m_bySrcBegin.end() - 1);
        for (uint32_t t = 0; t < n; ++t)
        {
            const CollectiveTransfer& tr = m_s->transfers[t];
            for (uint32_t k = 0; k < tr.depCount; ++k)
            {
                m_dependents[fillDep[m_s->deps[tr.depBegin + k]]++] = t;
            }
            m_bySrc[fillSrc[tr.src]++] = t;
        }
    }
    m_ready.assign(ranks, 0);
    m_rankEnd.assign(ranks, Time(0));
    m_lastSender.assign(ranks, 0);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        m_lastSender[r] = r;
    }
    m_bytesSent.assign(ranks, 0);
    m_networkBytes = 0;
    m_nvlinkBytes = 0;
    if (n == 0)
    {
        Simulator::ScheduleNow(&CollectiveExecutor::Arrived, this, UINT32_MAX);
    }
}

void
CollectiveExecutor::MarkReady(uint32_t r)
{
    if (m_ready[r])
    {
        return;
    }
    m_ready[r] = 1;
    if (m_rankEnd[r] < Simulator::Now())
    {
        m_rankEnd[r] = Simulator::Now();
    }
    for (uint32_t i = m_bySrcBegin[r]; i < m_bySrcBegin[r + 1]; ++i)
    {
        const uint32_t t = m_bySrc[i];
        if (m_remaining[t] == 0)
        {
            Issue(t);
        }
    }
}

void
CollectiveExecutor::Issue(uint32_t t)
{
    const CollectiveTransfer& tr = m_s->transfers[t];
    m_remaining[t] = UINT32_MAX; // issued
    m_bytesSent[tr.src] += tr.bytes;
    const bool local = m_nvlink && tr.src / m_gpusPerServer == tr.dst / m_gpusPerServer;
    if (local)
    {
        m_nvlinkBytes += tr.bytes;
        m_nvlink->Send(tr.src, tr.dst, tr.bytes, this, t, tr.channel);
    }
    else
    {
        m_networkBytes += tr.bytes;
        m_network->Send(tr.src, tr.dst, tr.bytes, this, t, tr.channel);
    }
}

void
CollectiveExecutor::MessageArrived(uint64_t token)
{
    Arrived(static_cast<uint32_t>(token));
}

void
CollectiveExecutor::Arrived(uint32_t t)
{
    if (t != UINT32_MAX)
    {
        const CollectiveTransfer& tr = m_s->transfers[t];
        m_rankEnd[tr.dst] = Simulator::Now();
        m_lastSender[tr.dst] = tr.src;
        ++m_arrived;
        for (uint32_t i = m_dependentBegin[t]; i < m_dependentBegin[t + 1]; ++i)
        {
            const uint32_t d = m_dependents[i];
            if (m_remaining[d] != UINT32_MAX && --m_remaining[d] == 0 && m_ready[m_s->transfers[d].src])
            {
                Issue(d);
            }
        }
    }
    if (m_arrived == m_s->transfers.size() && !m_done.IsNull())
    {
        Callback<void> done = m_done;
        m_done = Callback<void>();
        done();
    }
}

bool
CollectiveExecutor::IsDone() const
{
    return m_arrived == m_s->transfers.size();
}

Time
CollectiveExecutor::GetRankEnd(uint32_t r) const
{
    return m_rankEnd.at(r);
}

uint32_t
CollectiveExecutor::GetLastSender(uint32_t r) const
{
    return m_lastSender.at(r);
}

uint64_t
CollectiveExecutor::GetBytesSent(uint32_t r) const
{
    return m_bytesSent.at(r);
}

uint64_t
CollectiveExecutor::GetNetworkBytes() const
{
    return m_networkBytes;
}

uint64_t
CollectiveExecutor::GetNvlinkBytes() const
{
    return m_nvlinkBytes;
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-partition-scheduler.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricPartitionScheduler);

TypeId
FabricPartitionScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricPartitionScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricPartitionScheduler>();
    return tid;
}

FabricPartitionScheduler::FabricPartitionScheduler()
{
    s_instance = this;
}

FabricPartitionScheduler::~FabricPartitionScheduler()
{
    if (s_instance == this)
    {
        s_instance = nullptr;
    }
}

FabricEventOrderKey
FabricPartitionScheduler::NewKey(uint32_t target)
{
    const uint32_t running = Simulator::GetContext();
    return FabricEventOrderKey{running == Simulator::NO_CONTEXT ? target : running, ++m_seq};
}

FabricEventOrderKey
FabricPartitionScheduler::TakeKey(uint32_t target)
{
    NS_ABORT_MSG_IF(s_instance == nullptr, "FabricPartitionScheduler::TakeKey: not in use");
    return s_instance->NewKey(target);
}

void
FabricPartitionScheduler::SetNextKey(const FabricEventOrderKey& key)
{
    NS_ABORT_MSG_IF(s_instance == nullptr, "FabricPartitionScheduler::SetNextKey: not in use");
    s_instance->m_hasNextKey = true;
    s_instance->m_nextKey = key;
}

void
FabricPartitionScheduler::Insert(const Event& ev)
{
    FabricEventOrderKey key;
    if (m_hasNextKey)
    {
        key = m_nextKey;
        m_hasNextKey = false;
    }
    else
    {
        key = NewKey(ev.key.m_context);
    }
    m_heap.push_back(Entry{ev.key.m_ts, key.context, key.seq, ev});
    std::push_heap(m_heap.begin(), m_heap.end(), &RunsLater);
}

void
FabricPartitionScheduler::Purge() const
{
    while (!m_removed.empty() && !m_heap.empty())
    {
        const Event& top = m_heap.front().ev;
        auto it = m_removed.find({top.key.m_uid, top.key.m_ts});
        if (it == m_removed.end())
        {
            return;
        }
        m_removed.erase(it);
        std::pop_heap(m_heap.begin(), m_heap.end(), &RunsLater);
        m_heap.pop_back();
    }
}

bool
FabricPartitionScheduler::IsEmpty() const
{
    Purge();
    return m_heap.empty();
}

Scheduler::Event
FabricPartitionScheduler::PeekNext() const
{
    Purge();
    NS_ASSERT(!m_heap.empty());
    return m_heap.front().ev;
}

Scheduler::Event
FabricPartitionScheduler::RemoveNext()
{
    Purge();
    NS_ASSERT(!m_heap.empty());
    std::pop_heap(m_heap.begin(), m_heap.end(), &RunsLater);
    const Event ev = m_heap.back().ev;
    m_heap.pop_back();
    return ev;
}

void
FabricPartitionScheduler::Remove(const Event& ev)
{
    // The simulator cancels and releases the event; its entry stays in the heap, unread, until
    // it reaches the top.
    m_removed.insert({ev.key.m_uid, ev.key.m_ts});
}

} // namespace ns3

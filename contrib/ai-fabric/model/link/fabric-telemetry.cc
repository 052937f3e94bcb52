// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-telemetry.h"

#include <memory>
#include <vector>

namespace ns3
{

namespace
{

/// The stacks of the process: owned here, recycled through a free list (never freed mid-run).
struct IntPool
{
    std::vector<std::unique_ptr<FabricIntStack[]>> chunks;
    std::vector<FabricIntStack*> free;
};

IntPool&
Pool()
{
    // Never destroyed: a frame released during static destruction still finds its pool.
    static IntPool* pool = new IntPool;
    return *pool;
}

constexpr size_t kChunk = 256;

} // namespace

FabricIntStack*
FabricIntStack::Allocate()
{
    IntPool& p = Pool();
    if (p.free.empty())
    {
        p.chunks.emplace_back(std::make_unique<FabricIntStack[]>(kChunk));
        FabricIntStack* c = p.chunks.back().get();
        for (size_t i = kChunk; i-- > 0;)
        {
            p.free.push_back(c + i);
        }
    }
    FabricIntStack* s = p.free.back();
    p.free.pop_back();
    s->m_nHops = 0;
    s->m_collecting = true;
    return s;
}

void
FabricIntStack::Release()
{
    Pool().free.push_back(this);
}

void
FabricIntRef::Push(const FabricIntHop& hop)
{
    if (m_s->m_refs > 1)
    {
        FabricIntRef copy = Create();
        copy.m_s->m_nHops = m_s->m_nHops;
        for (uint32_t i = 0; i < m_s->m_nHops; ++i)
        {
            copy.m_s->m_hops[i] = m_s->m_hops[i];
        }
        *this = std::move(copy);
    }
    m_s->Push(hop);
}

} // namespace ns3

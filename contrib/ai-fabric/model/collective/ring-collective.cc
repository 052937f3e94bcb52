// SPDX-License-Identifier: GPL-2.0-only
#include "ring-collective.h"

#include "collective-algorithm-registry.h"

#include "ns3/boolean.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RingCollective);

TypeId
RingCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingCollective")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RingCollective>()
                            .AddAttribute("RailLocal",
                                          "Lay each channel's ring over the servers rail by "
                                          "rail (NCCL's rings on a rail-optimized cluster); "
                                          "false: ranks in order on every channel.",
                                          BooleanValue(true),
                                          MakeBooleanAccessor(&RingCollective::m_railLocal),
                                          MakeBooleanChecker())
                            .AddAttribute("Pxn",
                                          "With RailLocal: the exit GPU of a server sends over "
                                          "NVLink to the GPU beside the rail's NIC, which sends "
                                          "it on (NCCL's PXN); false: the rail's NIC reads the "
                                          "exit GPU's memory directly.",
                                          BooleanValue(false),
                                          MakeBooleanAccessor(&RingCollective::m_pxn),
                                          MakeBooleanChecker());
    return tid;
}

std::string
RingCollective::GetName() const
{
    return "ring";
}

void
RingCollective::Order(const CollectiveSpec& spec,
                      uint32_t channel,
                      std::vector<uint32_t>& order,
                      std::vector<uint32_t>& nic) const
{
    const uint32_t n = spec.ranks;
    const uint32_t g = spec.gpusPerServer;
    order.resize(n);
    nic.assign(n, UINT32_MAX);
    if (!m_railLocal || g < 2 || n % g != 0)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            order[i] = i;
        }
        return;
    }
    const uint32_t rail = channel % g;
    for (uint32_t srv = 0; srv < n / g; ++srv)
    {
        for (uint32_t i = 0; i < g; ++i)
        {
            order[srv * g + i] = srv * g + (rail + i) % g;
        }
        if (n > g)
        {
            // The server's exit GPU sends through the NIC of the channel's rail.
            nic[srv * g + g - 1] = srv * g + rail;
        }
    }
}

void
RingCollective::DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const
{
    std::vector<uint32_t> order;
    std::vector<uint32_t> nic;
    Order(spec, s.channel, order, nic);
    const uint32_t steps =
        spec.op == CollectiveSpec::ALLREDUCE ? 2 * (spec.ranks - 1) : spec.ranks - 1;
    // Run lazily by the executor (CollectiveRing): the same DAG AppendRing would write out.
    CollectiveRing r;
    r.channel = static_cast<uint16_t>(s.channel);
    r.steps = steps;
    r.total = spec.bytes;
    r.chunks = spec.chunks;
    r.pxn = m_pxn;
    r.order = std::move(order);
    r.nic = std::move(nic);
    s.rings.push_back(std::move(r));
}

namespace
{

const bool g_ringRegistered = CollectiveAlgorithmRegistry::Add([] {
    CollectiveAlgorithmInfo e;
    e.name = "ring";
    e.typeId = "ns3::RingCollective";
    e.help = "NCCL's ring, one per channel, rail-local between servers";
    e.lazyState = [](const CollectiveFootprintInput& in) {
        // Laid lazily: per channel and rank its order, NIC and first-step tokens.
        CollectiveLazyState s;
        if (in.collective == "allreduce" || in.collective == "reducescatter" ||
            in.collective == "allgather")
        {
            s.bytesPerRank = 8.0 + 8.0 * in.chunks;
            s.replacesTransfers = true;
        }
        return s;
    };
    return e;
}());

} // namespace

} // namespace ns3

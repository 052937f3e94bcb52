// SPDX-License-Identifier: GPL-2.0-only
#include "ring-collective.h"

#include "collective-algorithm-registry.h"
#include "collective-tuner.h"

#include "ns3/boolean.h"

#include <cmath>

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

/// NCCL's ring row (src/graph/tuning.cc); algorithms NCCL does not have are charged as rings.
constexpr NcclLatencyRow kRingNccl = {{6.6, 14.0, 8.4}, {0.6, 1.9, 3.4}, {2.7, 4.0, 14.0}, false};

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
    e.nccl = &kRingNccl;
    e.ncclFallback = true;
    e.channelsPerNic = true;
    e.tunerOrder = 0;
    e.cost = [](const CollectiveCostInput& in) -> double {
        const double n = in.n;
        const double g = in.g;
        const double m = in.m;
        const double s = in.s;
        const bool whole = in.whole;
        const double bNic = in.bNic;
        const double bNv = in.bNv;
        const double aNet = in.aNet;
        const double aNv = in.aNv;
        const CollectiveSpec& spec = in.spec;

        if (spec.op != CollectiveSpec::ALLREDUCE && spec.op != CollectiveSpec::REDUCESCATTER &&
            spec.op != CollectiveSpec::ALLGATHER)
        {
            return -1;
        }
        const double steps = spec.op == CollectiveSpec::ALLREDUCE ? 2 * (n - 1) : n - 1;
        const double c = CollectiveAlgorithm::EffectiveChannels(spec);
        const double b = std::max(1.0, s / (c * n));
        // One network hop per server boundary (none on one server), the rest NVLink.
        const double netHops = whole && m > 1 ? m : (g > 1 ? 0 : n);
        const double nvHops = n - netHops;
        const double mean = (netHops * (aNet + b / bNic) + nvHops * (aNv + b / bNv)) / n;
        // A NIC carries the channels of its rail: one, or C/G when there are more than G.
        const double nicPort = netHops > 0 ? std::max(1.0, c / g) * b / bNic : 0;
        // A GPU sends every channel over NVLink but the one it leaves its server in.
        const double nvPort = nvHops > 0 ? (m > 1 ? c - c / g : c) * b / bNv : 0;
        return steps * std::max({mean, nicPort, nvPort});
    };
    return e;
}());

} // namespace

} // namespace ns3

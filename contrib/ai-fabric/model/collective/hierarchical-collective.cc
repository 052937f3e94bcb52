// SPDX-License-Identifier: GPL-2.0-only
#include "hierarchical-collective.h"

#include "collective-algorithm-registry.h"
#include "collective-tuner.h"

#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(HierarchicalCollective);

TypeId
HierarchicalCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HierarchicalCollective")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<HierarchicalCollective>();
    return tid;
}

std::string
HierarchicalCollective::GetName() const
{
    return "hierarchical";
}

std::string
HierarchicalCollective::Check(const CollectiveSpec& spec) const
{
    std::string e = CollectiveAlgorithm::Check(spec);
    if (!e.empty())
    {
        return e;
    }
    if (IsBuiltByBase(spec.op))
    {
        return "";
    }
    if (spec.op != CollectiveSpec::ALLREDUCE)
    {
        return "the hierarchical algorithm implements AllReduce only";
    }
    if (spec.gpusPerServer < 1 || spec.ranks % spec.gpusPerServer != 0)
    {
        return "ranks must be a multiple of GPUs per server";
    }
    return "";
}

void
HierarchicalCollective::DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const
{
    const uint32_t g = spec.gpusPerServer;
    const uint32_t m = spec.ranks / g;
    const uint32_t c = spec.chunks;
    std::vector<std::vector<uint32_t>> none(g, std::vector<uint32_t>(c, UINT32_MAX));
    // arrived[rank][k]: last transfer of chunk k that arrived at the rank.
    std::vector<std::vector<uint32_t>> arrived(spec.ranks, std::vector<uint32_t>(c, UINT32_MAX));
    std::vector<std::vector<uint32_t>> last;
    // (1) intra-server reduce-scatter
    for (uint32_t srv = 0; srv < m && g > 1; ++srv)
    {
        std::vector<uint32_t> order(g);
        for (uint32_t i = 0; i < g; ++i)
        {
            order[i] = srv * g + i;
        }
        AppendRing(s, order, g - 1, spec.bytes, c, none, last);
        for (uint32_t i = 0; i < g; ++i)
        {
            arrived[order[i]] = last[i];
        }
    }
    // (2) one inter-server ring per rail on the S/G slice, run lazily: 2(M-1)·M transfers a
    // rail (67 M at 2,048 servers of 8 GPUs) are never written out
    for (uint32_t rail = 0; rail < g && m > 1; ++rail)
    {
        std::vector<uint32_t> order(m);
        std::vector<std::vector<uint32_t>> first(m);
        for (uint32_t j = 0; j < m; ++j)
        {
            order[j] = j * g + rail;
            first[j] = arrived[order[j]];
        }
        AppendLazyRing(s, order, 2 * (m - 1), Part(spec.bytes, g, rail), c, first, last);
        for (uint32_t j = 0; j < m; ++j)
        {
            arrived[order[j]] = last[j];
        }
    }
    // (3) intra-server all-gather
    for (uint32_t srv = 0; srv < m && g > 1; ++srv)
    {
        std::vector<uint32_t> order(g);
        std::vector<std::vector<uint32_t>> first(g);
        for (uint32_t i = 0; i < g; ++i)
        {
            order[i] = srv * g + i;
            first[i] = arrived[order[i]];
        }
        AppendRing(s, order, g - 1, spec.bytes, c, first, last);
    }
}

namespace
{

const bool g_hierarchicalRegistered = CollectiveAlgorithmRegistry::Add([] {
    CollectiveAlgorithmInfo e;
    e.name = "hierarchical";
    e.typeId = "ns3::HierarchicalCollective";
    e.help = "reduce-scatter inside servers, rail rings across, all-gather inside";
    e.collectives = {"allreduce"};
    e.otherwise = "ring";
    e.transfersPerChannel = [](const CollectiveFootprintInput& in) {
        if (in.g > 1)
        {
            // The intra-server phases as transfers; the rail rings run lazily, leaving a
            // RING_DONE mark per rank (their state is in lazyState).
            const double m = in.n / in.g;
            return 2 * m * in.g * (in.g - 1) + (m > 1 ? in.n : 0);
        }
        const double steps = in.collective == "allreduce" ? 2 * (in.n - 1) : in.n - 1;
        return steps * in.n;
    };
    e.connections = [](const CollectiveFootprintInput& in) { return in.g * in.m; };
    e.lazyState = [](const CollectiveFootprintInput& in) {
        // The rail rings' order, tokens, what their first step waits for (4 B) and its entry
        // in the executor's sorted list (16 B) per chunk.
        CollectiveLazyState s;
        if (in.collective == "allreduce" && in.g > 1 && in.n > in.g)
        {
            s.bytesPerRank = 8.0 + 28.0 * in.chunks;
        }
        return s;
    };
    e.tunerOrder = 6;
    e.cost = [](const CollectiveCostInput& in) -> double {
        const double g = in.g;
        const double m = in.m;
        const double s = in.s;
        const bool whole = in.whole;
        const double bNic = in.bNic;
        const double bNv = in.bNv;
        const double aNet = in.aNet;
        const double aNv = in.aNv;
        const CollectiveSpec& spec = in.spec;

        if (spec.op != CollectiveSpec::ALLREDUCE || !whole || g < 2)
        {
            return -1;
        }
        const double intra = 2 * (g - 1) * (aNv + s / (g * bNv));
        const double inter = m > 1 ? 2 * (m - 1) * (aNet + s / (g * m * bNic)) : 0;
        return intra + inter;
    };
    return e;
}());

} // namespace

} // namespace ns3

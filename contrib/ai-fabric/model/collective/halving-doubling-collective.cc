// SPDX-License-Identifier: GPL-2.0-only
#include "halving-doubling-collective.h"

#include "collective-algorithm-registry.h"

#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(HalvingDoublingCollective);

TypeId
HalvingDoublingCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HalvingDoublingCollective")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<HalvingDoublingCollective>();
    return tid;
}

std::string
HalvingDoublingCollective::GetName() const
{
    return "halving-doubling";
}

std::string
HalvingDoublingCollective::Check(const CollectiveSpec& spec) const
{
    std::string e = CollectiveAlgorithm::Check(spec);
    if (!e.empty())
    {
        return e;
    }
    if ((spec.ranks & (spec.ranks - 1)) != 0)
    {
        return "halving-doubling needs a power-of-two number of ranks (got " +
               std::to_string(spec.ranks) + ")";
    }
    return "";
}

void
HalvingDoublingCollective::DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const
{
    const uint32_t n = spec.ranks;
    uint32_t logn = 0;
    while ((1u << logn) < n)
    {
        ++logn;
    }
    const uint32_t c = spec.chunks;
    // arrived[i][k]: transfer of chunk k that last arrived at rank i.
    std::vector<std::vector<uint32_t>> arrived(n, std::vector<uint32_t>(c, UINT32_MAX));
    std::vector<std::vector<uint32_t>> next = arrived;
    auto step = [&](uint32_t distance, uint64_t bytes) {
        for (uint32_t i = 0; i < n; ++i)
        {
            const uint32_t partner = i ^ distance;
            for (uint32_t k = 0; k < c; ++k)
            {
                const uint32_t dep = arrived[i][k];
                next[partner][k] = s.Add(i, partner, Part(bytes, c, k), &dep, 1);
            }
        }
        std::swap(arrived, next);
    };
    const bool rs =
        spec.op == CollectiveSpec::ALLREDUCE || spec.op == CollectiveSpec::REDUCESCATTER;
    const bool ag = spec.op == CollectiveSpec::ALLREDUCE || spec.op == CollectiveSpec::ALLGATHER;
    if (rs)
    {
        for (uint32_t j = 0; j < logn; ++j)
        {
            step(n >> (j + 1), spec.bytes >> (j + 1));
        }
    }
    if (ag)
    {
        for (uint32_t j = 0; j < logn; ++j)
        {
            step(1u << j, spec.bytes >> (logn - j));
        }
    }
}

namespace
{

const bool g_halvingDoublingRegistered = CollectiveAlgorithmRegistry::Add([] {
    CollectiveAlgorithmInfo e;
    e.name = "halving-doubling";
    e.typeId = "ns3::HalvingDoublingCollective";
    e.help = "recursive halving and doubling over all GPUs (a power of two)";
    e.transfersPerChannel = [](const CollectiveFootprintInput& in) {
        return 2 * std::log2(in.n) * in.n;
    };
    e.connections = [](const CollectiveFootprintInput& in) {
        return in.n * std::ceil(std::log2(in.n));
    };
    e.check = [](const CollectiveScenario& s) -> std::string {
        const uint64_t n = uint64_t(s.servers) * s.gpusPerServer;
        if ((n & (n - 1)) != 0)
        {
            return "workload.algorithm: halving-doubling needs a power-of-two number of GPUs "
                   "(got " +
                   std::to_string(n) + ")";
        }
        return "";
    };
    return e;
}());

} // namespace

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "pat-collective.h"

#include "collective-algorithm-registry.h"
#include "collective-tuner.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PatCollective);

TypeId
PatCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PatCollective")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<PatCollective>();
    return tid;
}

std::string
PatCollective::GetName() const
{
    return "pat";
}

std::string
PatCollective::Check(const CollectiveSpec& spec) const
{
    std::string e = CollectiveAlgorithm::Check(spec);
    // The collectives it implements, as registered below.
    if (e.empty() && !IsBuiltByBase(spec.op) &&
        !CollectiveAlgorithmRegistry::Find(GetName())->Implements(CollectiveSpec::OpName(spec.op)))
    {
        e = "pat implements allgather and reducescatter only (as NCCL's; use ring or tree for " +
            std::string(CollectiveSpec::OpName(spec.op)) + ")";
    }
    return e;
}

void
PatCollective::DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const
{
    const uint32_t n = spec.ranks;
    const uint32_t c = spec.chunks;
    std::vector<uint32_t> distances;
    for (uint64_t d = 1; d < n; d *= 2)
    {
        distances.push_back(static_cast<uint32_t>(d));
    }
    const bool gather = spec.op == CollectiveSpec::ALLGATHER;
    if (!gather)
    {
        std::reverse(distances.begin(), distances.end());
    }
    // arrived[i][k]: the transfer of chunk k that last arrived at rank i.
    std::vector<std::vector<uint32_t>> arrived(n, std::vector<uint32_t>(c, UINT32_MAX));
    std::vector<std::vector<uint32_t>> next = arrived;
    for (uint32_t d : distances)
    {
        const uint32_t blocks = std::min(d, n - d);
        for (uint32_t i = 0; i < n; ++i)
        {
            const uint32_t peer = gather ? (i + n - d) % n : (i + d) % n;
            uint64_t bytes = 0;
            for (uint32_t b = 0; b < blocks; ++b)
            {
                // The blocks of ranks i, i+1, ... (gather) or of the peer's side (reduce).
                bytes += Part(spec.bytes, n, (gather ? i + b : peer + b) % n);
            }
            for (uint32_t k = 0; k < c; ++k)
            {
                const uint32_t dep = arrived[i][k];
                next[peer][k] = s.Add(i, peer, Part(bytes, c, k), &dep, 1);
            }
        }
        std::swap(arrived, next);
    }
}

namespace
{

/// PAT (Simple only).
constexpr NcclLatencyRow kPatNccl = {{8.0, 8.0, 8.0}, {0, 0, 4.0}, {0, 0, 14.0}, false};

const bool g_patRegistered = CollectiveAlgorithmRegistry::Add([] {
    CollectiveAlgorithmInfo e;
    e.name = "pat";
    e.typeId = "ns3::PatCollective";
    e.help = "NCCL's parallel aggregated trees (one GPU per server at scale)";
    e.collectives = {"allgather", "reducescatter"};
    e.otherwise = "ring or tree";
    e.simpleOnly = true;
    e.transfersPerChannel = [](const CollectiveFootprintInput& in) {
        return std::ceil(std::log2(in.n)) * in.n;
    };
    e.connections = [](const CollectiveFootprintInput& in) {
        return in.n * std::ceil(std::log2(in.n));
    };
    e.nccl = &kPatNccl;
    e.tunerOrder = 4;
    e.cost = [](const CollectiveCostInput& in) -> double {
        const double n = in.n;
        const double g = in.g;
        const double s = in.s;
        const double bNic = in.bNic;
        const double bNv = in.bNv;
        const double aNet = in.aNet;
        const double aNv = in.aNv;
        const CollectiveSpec& spec = in.spec;

        // The collectives PAT implements, as pat-collective.cc registers them.
        if (!CollectiveAlgorithmRegistry::Find("pat")->Implements(CollectiveSpec::OpName(spec.op)))
        {
            return -1;
        }
        // ⌈log2 N⌉ steps of min(d, N − d) blocks of S/N; across servers some rank of every
        // step crosses the network, which sets the step's time.
        const bool network = n > g || g < 2;
        const double a = network ? aNet : aNv;
        const double rate = network ? bNic : bNv;
        double t = 0;
        for (double d = 1; d < n; d *= 2)
        {
            t += a + std::min(d, n - d) * (s / n) / rate;
        }
        return t;
    };
    return e;
}());

} // namespace

} // namespace ns3

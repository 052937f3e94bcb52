// SPDX-License-Identifier: GPL-2.0-only
#include "nvls-collective.h"

#include "collective-algorithm-registry.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(NvlsCollective);

TypeId
NvlsCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NvlsCollective")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<NvlsCollective>();
    return tid;
}

std::string
NvlsCollective::GetName() const
{
    return "nvls";
}

std::string
NvlsCollective::Check(const CollectiveSpec& spec) const
{
    std::string e = CollectiveAlgorithm::Check(spec);
    if (!e.empty() || IsBuiltByBase(spec.op))
    {
        return e;
    }
    if (spec.gpusPerServer < 2 || spec.ranks != spec.gpusPerServer)
    {
        return "nvls reduces inside one NVLink domain: all ranks on one server (got " +
               std::to_string(spec.ranks) + " ranks, " + std::to_string(spec.gpusPerServer) +
               " per server; use nvls-tree across servers)";
    }
    return "";
}

uint32_t
NvlsCollective::Chunks(uint64_t bytes, uint32_t specChunks)
{
    return PipelineChunks(bytes, kChunkBytes, specChunks, kMaxChunks);
}

void
NvlsCollective::DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const
{
    const uint32_t g = spec.gpusPerServer;
    const bool reduce = spec.op != CollectiveSpec::ALLGATHER;
    const bool store = spec.op != CollectiveSpec::REDUCESCATTER;
    const uint32_t chunks = Chunks(Part(spec.bytes, g, 0), spec.chunks);
    // last[i][slot]: GPU i's operation on chunk k - kSlots, which freed the slot chunk k uses
    // (NCCL_STEPS buffer slots: GPU i is at most kSlots chunks ahead of itself).
    std::vector<std::vector<uint32_t>> last(g, std::vector<uint32_t>(kSlots, UINT32_MAX));
    for (uint32_t k = 0; k < chunks; ++k)
    {
        s.follower = k > 0;
        for (uint32_t i = 0; i < g; ++i)
        {
            const uint64_t b = Part(Part(spec.bytes, g, i), chunks, k);
            uint32_t& slot = last[i][k % kSlots];
            uint32_t dep = slot;
            if (reduce)
            {
                dep = s.AddNvls(CollectiveTransfer::NVLS_REDUCE, i, b, &dep, 1);
            }
            if (store)
            {
                dep = s.AddNvls(CollectiveTransfer::NVLS_MULTICAST, i, b, &dep, 1);
            }
            slot = dep;
        }
    }
    s.follower = false;
}

namespace
{

const bool g_nvlsRegistered = CollectiveAlgorithmRegistry::Add([] {
    CollectiveAlgorithmInfo e;
    e.name = "nvls";
    e.typeId = "ns3::NvlsCollective";
    e.help = "NVLink SHARP inside one server (gpu.nvls)";
    e.simpleOnly = true;
    e.pipelinedTransfers = [](const CollectiveFootprintInput& in) {
        // K x G reductions and stores.
        const double k = NvlsCollective::Chunks(uint64_t(in.perChannelBytes / in.g), in.chunks);
        return k * in.g * (in.collective == "allreduce" ? 2 : 1);
    };
    e.check = [](const CollectiveScenario& s) -> std::string {
        if (!s.nvls)
        {
            return "workload.algorithm: 'nvls' needs gpu.nvls (" + s.gpuModel +
                   " has no NVLink SHARP; use ring or tree)";
        }
        if (s.gpusPerServer < 2)
        {
            return "workload.algorithm: 'nvls' needs topology.gpus_per_server >= 2 (got " +
                   std::to_string(s.gpusPerServer) + ")";
        }
        if (s.servers > 1 && !s.builtByBase)
        {
            return "workload.algorithm: 'nvls' reduces inside one server's NVLink domain: "
                   "topology.servers must be "
                   "1 (got " +
                   std::to_string(s.servers) + "; use nvls-tree across servers)";
        }
        return "";
    };
    return e;
}());

} // namespace

} // namespace ns3

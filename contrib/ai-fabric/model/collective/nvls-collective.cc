// SPDX-License-Identifier: GPL-2.0-only
#include "nvls-collective.h"

#include "collective-algorithm-registry.h"
#include "collective-tuner.h"

#include <algorithm>
#include <cmath>

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

double
NvlsTunerCost(const CollectiveCostInput& in, bool tree)
{
    const double g = in.g;
    const double m = in.m;
    const double s = in.s;
    const bool whole = in.whole;
    const double depth = in.depth;
    const double bNic = in.bNic;
    const double bNv = in.bNv;
    const double aNet = in.aNet;
    const double aNv = in.aNv;
    const CollectiveSpec& spec = in.spec;

    if (!in.nvls || !whole || g < 2)
    {
        return -1;
    }
    const double bNvls = bNv * in.nvlsEfficiency;
    if (tree ? spec.op != CollectiveSpec::ALLREDUCE
             : (m > 1 ||
                (spec.op != CollectiveSpec::ALLREDUCE && spec.op != CollectiveSpec::REDUCESCATTER &&
                 spec.op != CollectiveSpec::ALLGATHER)))
    {
        return -1;
    }
    const double c = CollectiveAlgorithm::EffectiveChannels(spec);
    const double shard = s / (c * g);
    if (!tree || m < 2)
    {
        // Per chunk and channel, every GPU's egress serves G reads and one store
        // (AllReduce), ReduceScatter and AllGather one side each.
        const double k = NvlsCollective::Chunks(uint64_t(shard), spec.chunks);
        const double b = std::max(1.0, shard / k);
        const bool ar = spec.op == CollectiveSpec::ALLREDUCE;
        const double round = (ar ? g + 1 : g) * b / bNvls;
        const double fill = spec.op == CollectiveSpec::ALLGATHER ? b / bNvls + aNv
                            : ar                                 ? 2 * b / bNvls + 3 * aNv
                                                                 : b / bNvls + 2 * aNv;
        return std::max(fill + (c * k - 1) * round, c * k * round + 3 * aNv) +
               CollectiveTuner::SlotBubble(spec.op, c * k, g, b / bNvls, NvlsCollective::kSlots);
    }
    const double k = NvlsCollective::Chunks(uint64_t(shard / 2), spec.chunks);
    const double b = std::max(1.0, shard / (2 * k));
    // Per round, every GPU's egress: G reads and a store per half; its NIC the chunks of
    // its server's edges in both trees.
    const double nv = 2 * (g + 1) * b / bNvls;
    const double nic =
        CollectiveTuner::MaxTreeDegree(uint32_t(m)) * b / (m > 2 ? bNic * in.treeIncast : bNic);
    const double fill = 2 * b / bNvls + 3 * aNv + 2 * depth * (aNet + b / bNic);
    return std::max(fill + (c * k - 1) * std::max(nv, nic), c * k * std::max(nv, nic)) +
           CollectiveTuner::SlotBubble(spec.op,
                                       2 * c * k,
                                       g,
                                       b / bNvls,
                                       2 * NvlsCollective::kSlots);
}

namespace
{

/// NVLS (Simple only): NCCL charges its 25 us NVLink latency once per collective (intraLat).
constexpr NcclLatencyRow kNvlsNccl = {{0, 0, 0}, {0, 0, 25.0}, {0, 0, 18.0}, true};

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
    e.nccl = &kNvlsNccl;
    e.tunerOrder = 2;
    e.cost = [](const CollectiveCostInput& in) { return NvlsTunerCost(in, false); };
    return e;
}());

} // namespace

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "nvls-tree-collective.h"

#include "collective-algorithm-registry.h"
#include "collective-tuner.h"
#include "double-binary-tree-collective.h"
#include "nvls-collective.h"

#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(NvlsTreeCollective);

TypeId
NvlsTreeCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NvlsTreeCollective")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<NvlsTreeCollective>();
    return tid;
}

std::string
NvlsTreeCollective::GetName() const
{
    return "nvls-tree";
}

std::string
NvlsTreeCollective::Check(const CollectiveSpec& spec) const
{
    std::string e = CollectiveAlgorithm::Check(spec);
    if (!e.empty() || IsBuiltByBase(spec.op))
    {
        return e;
    }
    if (spec.op != CollectiveSpec::ALLREDUCE)
    {
        return "the nvls-tree algorithm implements AllReduce only (use ring or nvls for " +
               std::string(CollectiveSpec::OpName(spec.op)) + ")";
    }
    if (spec.gpusPerServer < 2 || spec.ranks % spec.gpusPerServer != 0)
    {
        return "nvls-tree needs whole servers of at least 2 GPUs (got " +
               std::to_string(spec.ranks) + " ranks, " + std::to_string(spec.gpusPerServer) +
               " per server)";
    }
    return "";
}

void
NvlsTreeCollective::DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const
{
    using Deps = DoubleBinaryTreeCollective::Deps;
    const uint32_t g = spec.gpusPerServer;
    const uint32_t m = spec.ranks / g;
    const std::vector<uint32_t> orders[2] = {DoubleBinaryTreeCollective::TreeOrder(m, 0),
                                             DoubleBinaryTreeCollective::TreeOrder(m, 1)};
    // Chunks per half-shard (the largest shard sets the count for all).
    const uint32_t chunks = NvlsCollective::Chunks(Part(Part(spec.bytes, g, 0), 2, 0), spec.chunks);
    // Per rail, its GPUs of every server as one-rank chains, and a builder per tree.
    std::vector<std::vector<std::vector<uint32_t>>> chains(
        g,
        std::vector<std::vector<uint32_t>>(m, std::vector<uint32_t>(1)));
    std::vector<DoubleBinaryTreeCollective::Builder> trees;
    trees.reserve(2 * g);
    for (uint32_t rail = 0; rail < g; ++rail)
    {
        for (uint32_t srv = 0; srv < m; ++srv)
        {
            chains[rail][srv][0] = srv * g + rail;
        }
        trees.emplace_back(chains[rail], orders[0], spec.ranks);
        trees.emplace_back(chains[rail], orders[1], spec.ranks);
    }
    // stores[rank][j]: its store of sequence number j mod 2 kSlots. Between a GPU's reduction of
    // a chunk and its store of the result the chunk holds a slot of the send buffer towards the
    // tree (until passed on) and then one of the receive buffer (until stored): at most
    // 2 kSlots chunks.
    constexpr uint32_t kWindow = 2 * DoubleBinaryTreeCollective::kSlots;
    std::vector<std::vector<uint32_t>> stores(spec.ranks,
                                              std::vector<uint32_t>(kWindow, UINT32_MAX));
    std::vector<uint32_t> ready(m);
    std::vector<Deps> done;
    for (uint32_t k = 0; k < chunks; ++k)
    {
        s.follower = k > 0;
        for (uint32_t rail = 0; rail < g; ++rail)
        {
            for (uint32_t t = 0; t < 2; ++t)
            {
                const uint64_t b = Part(Part(Part(spec.bytes, g, rail), 2, t), chunks, k);
                // A reduction lands in the GPU's buffer towards the tree: it waits for the slot
                // its chunk k - kSlots freed when the GPU passed that one on, and for the window.
                DoubleBinaryTreeCollective::Builder& tree = trees[2 * rail + t];
                for (uint32_t srv = 0; srv < m; ++srv)
                {
                    const uint32_t r = chains[rail][srv][0];
                    const uint32_t deps[2] = {tree.PassedOnUp(r), stores[r][(2 * k + t) % kWindow]};
                    ready[srv] = s.AddNvls(CollectiveTransfer::NVLS_REDUCE, r, b, deps, 2);
                }
                tree.AppendChunk(s, b, &ready, &done);
                for (uint32_t srv = 0; srv < m; ++srv)
                {
                    const uint32_t r = chains[rail][srv][0];
                    const uint32_t st =
                        s.AddNvls(CollectiveTransfer::NVLS_MULTICAST, r, b, done[srv].data(), 3);
                    tree.Consumed(r, st);
                    stores[r][(2 * k + t) % kWindow] = st;
                }
            }
        }
    }
    s.follower = false;
}

namespace
{

/// NVLS-Tree (Simple only): 25 us once per collective, 20.9 us per network hop.
constexpr NcclLatencyRow kNvlsTreeNccl = {{0, 0, 0}, {0, 0, 25.0}, {0, 0, 20.9}, true};

const bool g_nvlsTreeRegistered = CollectiveAlgorithmRegistry::Add([] {
    CollectiveAlgorithmInfo e;
    e.name = "nvls-tree";
    e.typeId = "ns3::NvlsTreeCollective";
    e.help = "NVLink SHARP inside servers, a tree across them (gpu.nvls)";
    e.collectives = {"allreduce"};
    e.otherwise = "ring";
    e.simpleOnly = true;
    e.pipelinedTransfers = [](const CollectiveFootprintInput& in) {
        // Per rail, half and chunk M reductions, 2(M-1) tree edges, M stores.
        const double m = in.n / in.g;
        const double k = NvlsCollective::Chunks(uint64_t(in.perChannelBytes / in.g / 2), in.chunks);
        return in.g * 2 * k * (4 * m - 2);
    };
    e.connections = [](const CollectiveFootprintInput& in) { return in.g * 4 * (in.m - 1); };
    e.check = [](const CollectiveScenario& s) -> std::string {
        if (!s.nvls)
        {
            return "workload.algorithm: 'nvls-tree' needs gpu.nvls (" + s.gpuModel +
                   " has no NVLink SHARP; use ring or tree)";
        }
        if (s.gpusPerServer < 2)
        {
            return "workload.algorithm: 'nvls-tree' needs topology.gpus_per_server >= 2 (got " +
                   std::to_string(s.gpusPerServer) + ")";
        }
        return "";
    };
    e.nccl = &kNvlsTreeNccl;
    e.tunerOrder = 3;
    e.cost = [](const CollectiveCostInput& in) { return NvlsTunerCost(in, true); };
    return e;
}());

} // namespace

} // namespace ns3

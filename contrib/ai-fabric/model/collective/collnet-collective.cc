// SPDX-License-Identifier: GPL-2.0-only
#include "collnet-collective.h"

#include "collective-algorithm-registry.h"
#include "collective-tuner.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CollNetCollective);

TypeId
CollNetCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CollNetCollective")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<CollNetCollective>();
    return tid;
}

std::string
CollNetCollective::GetName() const
{
    return "collnet";
}

std::string
CollNetCollective::Check(const CollectiveSpec& spec) const
{
    std::string e = CollectiveAlgorithm::Check(spec);
    if (!e.empty() || IsBuiltByBase(spec.op))
    {
        return e;
    }
    if (spec.op != CollectiveSpec::ALLREDUCE)
    {
        return "collnet runs AllReduce only";
    }
    if (!spec.inNetwork)
    {
        return "collnet reduces in the switches: the fabric needs in-network aggregation "
               "(SHARP)";
    }
    if (spec.ranks % spec.gpusPerServer != 0 || spec.ranks / spec.gpusPerServer < 2)
    {
        return "collnet needs whole servers, two at least (got " + std::to_string(spec.ranks) +
               " ranks, " + std::to_string(spec.gpusPerServer) + " per server)";
    }
    return spec.inNetwork->Check(spec.ranks, spec.gpusPerServer);
}

uint32_t
CollNetCollective::Chunks(uint64_t bytes, uint32_t specChunks)
{
    return PipelineChunks(bytes, kChunkBytes, specChunks, kMaxChunks);
}

Time
CollNetCollective::ArityLatency(uint32_t gpusPerServer)
{
    return NanoSeconds(400) * int64_t(gpusPerServer > 0 ? gpusPerServer - 1 : 0);
}

void
CollNetCollective::DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const
{
    const InNetworkTree& tree = *spec.inNetwork;
    const uint32_t g = spec.gpusPerServer;
    const uint32_t m = spec.ranks / g;
    s.aggregators = tree.Aggregators();
    if (!s.costs.nvlinkHop.IsZero())
    {
        s.costs.nvlinkHop += ArityLatency(g);
    }
    // Per rail: its root, and its leaves with the servers below each.
    std::vector<uint32_t> root(g);
    std::vector<std::map<uint32_t, std::vector<uint32_t>>> leaves(g);
    for (uint32_t h = 0; h < g; ++h)
    {
        root[h] = tree.RootOf(h);
        for (uint32_t srv = 0; srv < m; ++srv)
        {
            leaves[h][tree.leafOf[srv * g + h]].push_back(srv);
        }
    }
    const uint32_t channels = EffectiveChannels(spec);
    const uint32_t ranks = spec.ranks;
    std::vector<std::vector<uint32_t>> in(ranks); // per head: what its send up waits for
    std::vector<uint32_t> up(ranks);
    std::vector<uint32_t> down(ranks);
    std::vector<uint32_t> deps;
    std::vector<uint32_t> leafUps;
    for (uint32_t c = 0; c < channels; ++c)
    {
        s.channel = c;
        const uint64_t channelBytes = Part(spec.bytes, channels, c);
        const uint32_t chunks = Chunks(Part(channelBytes, g, 0), spec.chunks);
        // Per head, its up and down transfers of the last kSlots chunks.
        std::vector<uint32_t> upAt(size_t(ranks) * kSlots, UINT32_MAX);
        std::vector<uint32_t> downAt(size_t(ranks) * kSlots, UINT32_MAX);
        for (uint32_t k = 0; k < chunks; ++k)
        {
            s.follower = k > 0;
            const uint32_t slot = k % kSlots;
            auto bytes = [&](uint32_t head) {
                return Part(Part(channelBytes, g, head % g), chunks, k);
            };
            // Scatter: GPU i sends head (i + d) mod G its share, d = 1 .. G-1 (NCCL's shift),
            // once that head has freed the slot (sent chunk k - kSlots up).
            for (uint32_t r = 0; r < ranks; ++r)
            {
                in[r].clear();
            }
            // Shift-major: with every GPU sending its d-th share at once, each head receives
            // one share at a time (NvlinkTransport queues a port's messages in call order).
            for (uint32_t d = 1; d < g; ++d)
            {
                for (uint32_t srv = 0; srv < m; ++srv)
                {
                    for (uint32_t i = 0; i < g; ++i)
                    {
                        const uint32_t head = srv * g + (i + d) % g;
                        in[head].push_back(s.Add(srv * g + i,
                                                 head,
                                                 bytes(head),
                                                 &upAt[size_t(head) * kSlots + slot],
                                                 1));
                    }
                }
            }
            // Each head sends its server's sum to its leaf, once its network connection has a
            // slot (chunk k - kSlots came back).
            for (uint32_t head = 0; head < ranks; ++head)
            {
                in[head].push_back(downAt[size_t(head) * kSlots + slot]);
                up[head] = s.Add(head,
                                 tree.leafOf[head],
                                 bytes(head),
                                 in[head].data(),
                                 static_cast<uint32_t>(in[head].size()));
                upAt[size_t(head) * kSlots + slot] = up[head];
            }
            for (uint32_t h = 0; h < g; ++h)
            {
                const uint64_t b = bytes(h);
                // Leaves below a root pass their partial sums up and get the total back.
                leafUps.clear();
                for (const auto& [leaf, below] : leaves[h])
                {
                    if (leaf == root[h])
                    {
                        continue;
                    }
                    deps.clear();
                    for (uint32_t srv : below)
                    {
                        deps.push_back(up[srv * g + h]);
                    }
                    leafUps.push_back(
                        s.Add(leaf, root[h], b, deps.data(), static_cast<uint32_t>(deps.size())));
                }
                for (const auto& [leaf, below] : leaves[h])
                {
                    deps.clear();
                    if (leaf == root[h])
                    {
                        for (uint32_t srv : below)
                        {
                            deps.push_back(up[srv * g + h]);
                        }
                    }
                    else
                    {
                        deps.push_back(s.Add(root[h],
                                             leaf,
                                             b,
                                             leafUps.data(),
                                             static_cast<uint32_t>(leafUps.size())));
                    }
                    for (uint32_t srv : below)
                    {
                        const uint32_t head = srv * g + h;
                        down[head] =
                            s.Add(leaf, head, b, deps.data(), static_cast<uint32_t>(deps.size()));
                        downAt[size_t(head) * kSlots + slot] = down[head];
                    }
                }
            }
            // Gather: each head writes the total to the server's other GPUs, in NCCL's shift.
            for (uint32_t d = 1; d < g; ++d)
            {
                for (uint32_t head = 0; head < ranks; ++head)
                {
                    const uint32_t first = head / g * g;
                    s.Add(head, first + (head - first + d) % g, bytes(head), &down[head], 1);
                }
            }
        }
    }
    s.channel = 0;
    s.follower = false;
}

namespace
{

/// CollNet Direct (Simple only): 3.7 us per NVLink step (plus CollNetCollective::ArityLatency), 31
/// us for the round trip through the SHARP tree, charged on the head's send.
constexpr NcclLatencyRow kCollNetNccl = {{0, 0, 0}, {0, 0, 3.7}, {0, 0, 31.0}, false};

const bool g_collnetRegistered = CollectiveAlgorithmRegistry::Add([] {
    CollectiveAlgorithmInfo e;
    e.name = "collnet";
    e.typeId = "ns3::CollNetCollective";
    e.help = "SHARP: the switches reduce (infiniband.sharp)";
    e.collectives = {"allreduce"};
    e.otherwise = "ring";
    e.simpleOnly = true;
    e.pipelinedTransfers = [](const CollectiveFootprintInput& in) {
        // Per head and chunk: G-1 scatters, its send up, the total down, G-1 gathers.
        const double k = CollNetCollective::Chunks(uint64_t(in.perChannelBytes / in.g), in.chunks);
        return in.n * k * 2 * in.g;
    };
    e.connections = [](const CollectiveFootprintInput& in) {
        return 2 * in.n + 4 * in.g; // each head up and down; leaves to their roots
    };
    e.check = [](const CollectiveScenario& s) -> std::string {
        if (!s.sharp)
        {
            return "workload.algorithm: 'collnet' reduces in the switches: needs infiniband.sharp "
                   "true (on fabric "
                   "infiniband)";
        }
        if (s.servers < 2 && !s.builtByBase)
        {
            return "workload.algorithm: 'collnet' reduces across servers: topology.servers must be "
                   ">= 2 (got " +
                   std::to_string(s.servers) + ")";
        }
        return "";
    };
    e.nccl = &kCollNetNccl;
    e.tunerOrder = 5;
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

        if (in.aggregationLevels == 0 || spec.op != CollectiveSpec::ALLREDUCE || !whole || m < 2)
        {
            return -1;
        }
        // Per head (C channels x G heads, K chunks of b): every GPU's NVLink carries, per
        // chunk, the other heads' G-1 scatters and its own G-1 gathers; its NIC one chunk each
        // way. The NVLink work sets the pace unless the NIC's does, or the kSlots window
        // (a chunk's whole trip per kSlots chunks); the last chunk's trip ends it: all the
        // scatters before it, its network round trip (the head's send with NCCL's CollNet
        // latency, 2(L-1) hops between leaf and root, the leaf's send back) and its gather.
        const double c = CollectiveAlgorithm::EffectiveChannels(spec);
        const double shard = s / (c * g);
        const double k = CollNetCollective::Chunks(uint64_t(shard), spec.chunks);
        const double b = std::max(1.0, shard / k);
        const double aNvc = aNv + (in.nvlinkHop.IsZero()
                                       ? 0.0
                                       : CollNetCollective::ArityLatency(uint32_t(g)).GetSeconds());
        const double a0 = in.networkLatency.GetSeconds();
        const double share = (g - 1) * b / bNv; // a head's G-1 scatters, or its gathers
        const double hop = in.aggregationHop.GetSeconds();
        const double net = aNet + a0 + 2 * b / bNic + (in.aggregationLevels > 1 ? 2 * hop : 0);
        const double trip = 2 * (share + aNvc) + net;
        const double round = std::max({2 * share, b / bNic, trip / CollNetCollective::kSlots / c});
        return std::max(c * k * round + 2 * aNvc, c * k * share + net + share + 2 * aNvc);
    };
    return e;
}());

} // namespace

} // namespace ns3

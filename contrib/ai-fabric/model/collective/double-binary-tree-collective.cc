// SPDX-License-Identifier: GPL-2.0-only
#include "double-binary-tree-collective.h"

#include "collective-algorithm-registry.h"
#include "collective-tuner.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(DoubleBinaryTreeCollective);

TypeId
DoubleBinaryTreeCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DoubleBinaryTreeCollective")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<DoubleBinaryTreeCollective>();
    return tid;
}

std::string
DoubleBinaryTreeCollective::GetName() const
{
    return "tree";
}

std::string
DoubleBinaryTreeCollective::Check(const CollectiveSpec& spec) const
{
    std::string e = CollectiveAlgorithm::Check(spec);
    if (e.empty() && spec.op != CollectiveSpec::ALLREDUCE && !IsBuiltByBase(spec.op))
    {
        e = "the tree algorithm implements AllReduce only (use ring for " +
            std::string(CollectiveSpec::OpName(spec.op)) + ")";
    }
    return e;
}

uint32_t
DoubleBinaryTreeCollective::Chunks(uint64_t channelBytes,
                                   uint32_t specChunks,
                                   CollectiveProtocol::Kind protocol)
{
    return PipelineChunks((channelBytes + 1) / 2,
                          CollectiveProtocol::StepBytes(protocol),
                          specChunks,
                          kMaxChunks);
}

std::vector<uint32_t>
DoubleBinaryTreeCollective::TreeOrder(uint32_t m, uint32_t t)
{
    std::vector<uint32_t> at(m);
    for (uint32_t pos = 0; pos < m; ++pos)
    {
        at[pos] = t == 0 ? pos : m - 1 - pos;
    }
    return at;
}

DoubleBinaryTreeCollective::Builder::Builder(const std::vector<std::vector<uint32_t>>& chains,
                                             const std::vector<uint32_t>& nodeAt,
                                             uint32_t ranks)
    : m_chains(chains),
      m_nodeAt(nodeAt),
      m_up(uint64_t(ranks) * kSlots, UINT64_MAX),
      m_down(uint64_t(ranks) * kSlots, UINT64_MAX),
      m_headIn(chains.size(), UINT32_MAX),
      m_upT(nodeAt.size(), UINT32_MAX),
      m_downT(nodeAt.size(), UINT32_MAX)
{
}

uint32_t
DoubleBinaryTreeCollective::Builder::Slot(const std::vector<uint64_t>& ring, uint32_t rank) const
{
    if (m_chunk < kSlots)
    {
        return UINT32_MAX;
    }
    const uint64_t e = ring[uint64_t(rank) * kSlots + m_chunk % kSlots];
    return e != UINT64_MAX && (e >> 32) == m_chunk - kSlots ? static_cast<uint32_t>(e) : UINT32_MAX;
}

void
DoubleBinaryTreeCollective::Builder::Record(std::vector<uint64_t>& ring, uint32_t rank, uint32_t t)
{
    uint64_t& e = ring[uint64_t(rank) * kSlots + m_chunk % kSlots];
    if (e == UINT64_MAX || (e >> 32) != m_chunk)
    {
        e = (uint64_t(m_chunk) << 32) | t;
    }
}

uint32_t
DoubleBinaryTreeCollective::Builder::PassedOnUp(uint32_t rank) const
{
    return Slot(m_up, rank);
}

void
DoubleBinaryTreeCollective::Builder::Consumed(uint32_t rank, uint32_t t)
{
    // Called after AppendChunk, which advanced the chunk counter.
    --m_chunk;
    Record(m_up, rank, t);
    Record(m_down, rank, t);
    ++m_chunk;
}

void
DoubleBinaryTreeCollective::Builder::AppendChunk(CollectiveSchedule& s,
                                                 uint64_t b,
                                                 const std::vector<uint32_t>* ready,
                                                 std::vector<Deps>* done)
{
    constexpr uint32_t NONE = UINT32_MAX;
    const uint32_t m = static_cast<uint32_t>(m_nodeAt.size());
    auto head = [&](uint32_t pos) { return m_chains[m_nodeAt[pos]][0]; };
    const bool follower = s.follower;
    s.follower = follower || m_chunk > 0;
    if (done)
    {
        done->assign(m_chains.size(), Deps{NONE, NONE, NONE});
    }
    // Reduce along each chain, tail to head.
    for (uint32_t pos = 0; pos < m; ++pos)
    {
        const uint32_t node = m_nodeAt[pos];
        const std::vector<uint32_t>& chain = m_chains[node];
        uint32_t dep = ready ? (*ready)[node] : NONE;
        for (uint32_t i = static_cast<uint32_t>(chain.size()) - 1; i >= 1; --i)
        {
            const uint32_t deps[2] = {dep, Slot(m_up, chain[i - 1])};
            dep = s.Add(chain[i], chain[i - 1], b, deps, 2);
            Record(m_up, chain[i], dep);
        }
        m_headIn[node] = dep;
    }
    // Reduce up the tree: children before parents.
    for (uint32_t pos = m - 1; pos >= 1; --pos)
    {
        const uint32_t child1 = 2 * pos + 1;
        const uint32_t child2 = 2 * pos + 2;
        const uint32_t parent = head((pos - 1) / 2);
        const uint32_t deps[4] = {m_headIn[m_nodeAt[pos]],
                                  child1 < m ? m_upT[child1] : NONE,
                                  child2 < m ? m_upT[child2] : NONE,
                                  Slot(m_up, parent)};
        m_upT[pos] = s.Add(head(pos), parent, b, deps, 4);
        Record(m_up, head(pos), m_upT[pos]);
    }
    // The root has the reduced chunk once its chain and its children delivered.
    const Deps atRoot = {m_headIn[m_nodeAt[0]], m > 1 ? m_upT[1] : NONE, m > 2 ? m_upT[2] : NONE};
    // Broadcast down the tree: parents before children. A head's first send down passes on
    // both what it received from above and (the root) what it reduced.
    for (uint32_t pos = 1; pos < m; ++pos)
    {
        const uint32_t parent = (pos - 1) / 2;
        uint32_t deps[4] = {NONE, NONE, NONE, Slot(m_down, head(pos))};
        if (parent == 0)
        {
            deps[0] = atRoot[0];
            deps[1] = atRoot[1];
            deps[2] = atRoot[2];
        }
        else
        {
            deps[0] = m_downT[parent];
        }
        m_downT[pos] = s.Add(head(parent), head(pos), b, deps, 4);
        Record(m_down, head(parent), m_downT[pos]);
        if (parent == 0)
        {
            Record(m_up, head(0), m_downT[pos]);
        }
    }
    // And down each chain, head to tail.
    for (uint32_t pos = 0; pos < m; ++pos)
    {
        const uint32_t node = m_nodeAt[pos];
        const Deps have = pos == 0 ? atRoot : Deps{m_downT[pos], NONE, NONE};
        if (done)
        {
            (*done)[node] = have;
        }
        const std::vector<uint32_t>& chain = m_chains[node];
        uint32_t dep = NONE;
        for (uint32_t i = 0; i + 1 < chain.size(); ++i)
        {
            if (i == 0)
            {
                const uint32_t deps[4] = {have[0], have[1], have[2], Slot(m_down, chain[1])};
                dep = s.Add(chain[0], chain[1], b, deps, 4);
                if (pos == 0)
                {
                    Record(m_up, chain[0], dep);
                }
            }
            else
            {
                const uint32_t deps[2] = {dep, Slot(m_down, chain[i + 1])};
                dep = s.Add(chain[i], chain[i + 1], b, deps, 2);
            }
            Record(m_down, chain[i], dep);
        }
    }
    ++m_chunk;
    s.follower = follower;
}

void
DoubleBinaryTreeCollective::DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const
{
    // Servers of G GPUs (one rank per node if the ranks do not fill whole servers).
    const uint32_t g =
        spec.gpusPerServer > 1 && spec.ranks % spec.gpusPerServer == 0 ? spec.gpusPerServer : 1;
    const uint32_t m = spec.ranks / g;
    const uint32_t rail = s.channel % g;
    std::vector<std::vector<uint32_t>> chains(m, std::vector<uint32_t>(g));
    for (uint32_t srv = 0; srv < m; ++srv)
    {
        for (uint32_t i = 0; i < g; ++i)
        {
            chains[srv][i] = srv * g + (rail + i) % g;
        }
    }
    const uint32_t chunks = Chunks(spec.bytes, spec.chunks, spec.protocol);
    // Chunk by chunk, alternating the two trees, so both trees' edges run from the start.
    const std::vector<uint32_t> orders[2] = {TreeOrder(m, 0), TreeOrder(m, 1)};
    Builder trees[2] = {Builder(chains, orders[0], spec.ranks),
                        Builder(chains, orders[1], spec.ranks)};
    const uint64_t halves[2] = {Part(spec.bytes, 2, 0), Part(spec.bytes, 2, 1)};
    for (uint32_t k = 0; k < chunks; ++k)
    {
        for (uint32_t t = 0; t < 2; ++t)
        {
            if (halves[t] > 0)
            {
                trees[t].AppendChunk(s, Part(halves[t], chunks, k), nullptr, nullptr);
            }
        }
    }
}

namespace
{

/// NCCL's tree row (src/graph/tuning.cc).
constexpr NcclLatencyRow kTreeNccl = {{6.8, 14.0, 8.4}, {0.6, 1.25, 4.0}, {5.0, 8.5, 14.0}, false};

const bool g_treeRegistered = CollectiveAlgorithmRegistry::Add([] {
    CollectiveAlgorithmInfo e;
    e.name = "tree";
    e.typeId = "ns3::DoubleBinaryTreeCollective";
    e.help = "NCCL's double binary tree across servers, a chain inside";
    e.collectives = {"allreduce"};
    e.otherwise = "ring";
    e.pipelinedTransfers = [](const CollectiveFootprintInput& in) {
        // 2 halves x K chunks x 2(N-1) edges.
        const double k = DoubleBinaryTreeCollective::Chunks(in.perChannelBytes, in.chunks);
        return 2 * k * 2 * (in.n - 1);
    };
    e.connections = [](const CollectiveFootprintInput& in) {
        return in.channels * 4 * (in.m - 1); // two trees, an edge each way
    };
    e.nccl = &kTreeNccl;
    e.channelsPerNic = true;
    e.tunerOrder = 1;
    e.cost = [](const CollectiveCostInput& in) -> double {
        const double n = in.n;
        const double g = in.g;
        const double s = in.s;
        const bool whole = in.whole;
        const double bNic = in.bNic;
        const double bNv = in.bNv;
        const double aNet = in.aNet;
        const double aNv = in.aNv;
        const CollectiveSpec& spec = in.spec;

        if (spec.op != CollectiveSpec::ALLREDUCE)
        {
            return -1;
        }
        // Servers of g GPUs, or one rank per node (as DoubleBinaryTreeCollective lays them).
        const double gt = whole ? g : 1;
        const double mt = n / gt;
        const double dt = mt > 1 ? std::floor(std::log2(mt)) : 0;
        const double c = CollectiveAlgorithm::EffectiveChannels(spec);
        const double k =
            DoubleBinaryTreeCollective::Chunks(uint64_t(s / c), spec.chunks, spec.protocol);
        const double b = std::max(1.0, s / (2 * c * k)); // one chunk of one half
        // Per round (every channel and half moves one chunk a hop): a GPU's NVLink egress
        // sends 2(G-1)/G chunks per channel and half along the chains; the NIC of a channel's
        // rail the chunks of its tree edges, for max(1, C/G) channels.
        const double nv = gt > 1 ? 2 * c * 2 * (gt - 1) / gt * b / bNv : 0;
        const double bTree = mt > 2 ? bNic * in.treeIncast : bNic;
        const double nic = mt > 1 ? std::max(1.0, c / gt) *
                                        CollectiveTuner::MaxTreeDegree(uint32_t(mt)) * b / bTree
                                  : 0;
        const double fill = 2 * ((gt - 1) * (aNv + b / bNv) + dt * (mt > 1 ? aNet + b / bNic : 0));
        // Pipelined: fill then a round per chunk, or, with few chunks, the busiest port's
        // rounds and the network hops of the last chunk.
        const double net = 2 * dt * (mt > 1 ? aNet + b / bNic : 0);
        return std::max(fill + (k - 1) * std::max(nv, nic), k * std::max(nv, nic) + net);
    };
    return e;
}());

} // namespace

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "collective-tuner.h"

#include "collective-algorithm-registry.h"
#include "collnet-collective.h"
#include "double-binary-tree-collective.h"
#include "nvls-collective.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CollectiveTuner);

TypeId
CollectiveTuner::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveTuner")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<CollectiveTuner>()
            .AddAttribute("NetworkLatency",
                          "One small message NIC to NIC through a leaf (the default is the "
                          "model's own: 400G RoCEv2 on a rail leaf, measured from the 8-byte "
                          "ring, 1.64 us).",
                          TimeValue(NanoSeconds(1640)),
                          MakeTimeAccessor(&CollectiveTuner::m_networkLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("NvlinkLatency",
                          "One message over NVLink (NvlinkTransport's Latency).",
                          TimeValue(NanoSeconds(600)),
                          MakeTimeAccessor(&CollectiveTuner::m_nvlinkLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("NicRate",
                          "A NIC's goodput (400 Gb/s x 4096/4182 on RoCEv2).",
                          DataRateValue(DataRate(uint64_t(400e9 * 4096 / 4182))),
                          MakeDataRateAccessor(&CollectiveTuner::m_nicRate),
                          MakeDataRateChecker())
            .AddAttribute("NvlinkRate",
                          "A GPU's NVLink rate per direction as collectives get it "
                          "(450 GB/s x 0.82).",
                          DataRateValue(DataRate(uint64_t(450e9 * 8 * 0.82))),
                          MakeDataRateAccessor(&CollectiveTuner::m_nvlinkRate),
                          MakeDataRateChecker())
            .AddAttribute("Nvls",
                          "Whether the NVSwitch reduces (NVLS, NVLS-Tree are candidates).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&CollectiveTuner::m_nvls),
                          MakeBooleanChecker())
            .AddAttribute("ProtocolLatency",
                          "Add NCCL's protocol latencies (CollectiveProtocol), as TrainingJob's "
                          "ProtocolLatency does.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&CollectiveTuner::m_protocolLatency),
                          MakeBooleanChecker())
            .AddAttribute("TreeIncastEfficiency",
                          "Share of NicRate a tree's network edges get beyond 2 servers, where a "
                          "parent's NIC receives from several senders at once (incast, then "
                          "PFC/credit back-pressure and congestion control). Measured on this "
                          "model's 16 x 8 H100 rail fabric at 1 GiB: 0.3 (tree, RoCEv2 DCQCN) "
                          "to 0.7 (tree, InfiniBand); NVLS-Tree 0.5-0.6.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&CollectiveTuner::m_treeIncast),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("AggregationLevels",
                          "SHARP in the switches for CollNet: 0 = none (collnet is no "
                          "candidate), 1 = a rail's servers reduce at one leaf, 2 = at their "
                          "leaves and a root above them.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&CollectiveTuner::m_aggregationLevels),
                          MakeUintegerChecker<uint32_t>(0, 2))
            .AddAttribute("AggregationHopLatency",
                          "One message between a leaf's and a spine's aggregation nodes (SHARP's "
                          "second level; the default is the model's own on the 400G InfiniBand "
                          "rail fabric with 50 m switch cables, measured from 64 KiB CollNet "
                          "runs, 2.49 us).",
                          TimeValue(NanoSeconds(2490)),
                          MakeTimeAccessor(&CollectiveTuner::m_aggregationHop),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("NvlsEfficiency",
                          "NVLS operations' share of NvlinkRate (NvlinkTransport's "
                          "NvlsEfficiency).",
                          DoubleValue(0.85),
                          MakeDoubleAccessor(&CollectiveTuner::m_nvlsEfficiency),
                          MakeDoubleChecker<double>(0.01, 1.0));
    return tid;
}

std::vector<std::string>
CollectiveTuner::Candidates()
{
    return {"ring", "tree", "nvls", "nvls-tree", "pat", "collnet", "hierarchical"};
}

uint32_t
CollectiveTuner::DefaultChannels(const std::string& algorithm, uint32_t gpusPerServer)
{
    if (algorithm == "ring" || algorithm == "tree")
    {
        return std::min<uint32_t>(64, 2 * std::max<uint32_t>(1, gpusPerServer));
    }
    return 1;
}

double
CollectiveTuner::SlotBubble(CollectiveSpec::Op op,
                            double chunks,
                            double g,
                            double chunkTime,
                            double slots)
{
    // An NVLS AllReduce starts with every GPU's `slots` reductions (G reads each on every
    // egress) before the first stores: meanwhile each ingress takes `slots` results instead of
    // G·slots chunks, slots·(G−1) chunk times lost once.
    return op == CollectiveSpec::ALLREDUCE && chunks > slots ? slots * (g - 1) * chunkTime : 0;
}

uint32_t
CollectiveTuner::MaxTreeDegree(uint32_t m)
{
    // Per node, both trees: one edge to its parent (unless root), one per child.
    uint32_t best = 0;
    for (uint32_t node = 0; node < m; ++node)
    {
        uint32_t deg = 0;
        for (uint32_t t = 0; t < 2; ++t)
        {
            const uint32_t pos = t == 0 ? node : m - 1 - node;
            deg += (pos > 0 ? 1 : 0) + (2 * pos + 1 < m ? 1 : 0) + (2 * pos + 2 < m ? 1 : 0);
        }
        best = std::max(best, deg);
    }
    return best;
}

double
CollectiveTuner::EstimateSeconds(const std::string& algorithm, const CollectiveSpec& spec) const
{
    if (!CollectiveProtocol::Supports(algorithm, spec.protocol))
    {
        return -1;
    }
    const double t = PhysicalSeconds(algorithm, spec);
    return t <= 0 ? t : t + Costs(algorithm, spec.protocol).start.GetSeconds();
}

CollectiveProtocol::Costs
CollectiveTuner::Costs(const std::string& algorithm, CollectiveProtocol::Kind protocol) const
{
    CollectiveProtocol::Costs c = CollectiveProtocol::CostsOf(algorithm, protocol);
    if (!m_protocolLatency)
    {
        c.ClearLatencies();
    }
    return c;
}

double
CollectiveTuner::PhysicalSeconds(const std::string& algorithm, const CollectiveSpec& spec) const
{
    const double n = spec.ranks;
    const double g = std::max<uint32_t>(1, spec.gpusPerServer);
    const double m = n / g;
    const double s = double(spec.bytes);
    // The protocol's wire bytes divide the rates; its per-hop latencies add to the α's.
    const CollectiveProtocol::Costs costs = Costs(algorithm, spec.protocol);
    const double wire = double(costs.wireNum) / costs.wireDen;
    const double bNic = m_nicRate.GetBitRate() / 8.0 / wire;
    const double bNv = m_nvlinkRate.GetBitRate() / 8.0 / wire;
    const double aNet = m_networkLatency.GetSeconds() + costs.networkHop.GetSeconds();
    const double aNv = m_nvlinkLatency.GetSeconds() + costs.nvlinkHop.GetSeconds();
    if (spec.ranks < 2)
    {
        return 0.0;
    }
    const bool whole = spec.ranks % spec.gpusPerServer == 0;
    if (algorithm == "ring")
    {
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
    }
    const double depth = m > 1 ? std::floor(std::log2(m)) : 0;
    if (algorithm == "tree")
    {
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
        const double bTree = mt > 2 ? bNic * m_treeIncast : bNic;
        const double nic =
            mt > 1 ? std::max(1.0, c / gt) * MaxTreeDegree(uint32_t(mt)) * b / bTree : 0;
        const double fill = 2 * ((gt - 1) * (aNv + b / bNv) + dt * (mt > 1 ? aNet + b / bNic : 0));
        // Pipelined: fill then a round per chunk, or, with few chunks, the busiest port's
        // rounds and the network hops of the last chunk.
        const double net = 2 * dt * (mt > 1 ? aNet + b / bNic : 0);
        return std::max(fill + (k - 1) * std::max(nv, nic), k * std::max(nv, nic) + net);
    }
    if (algorithm == "nvls" || algorithm == "nvls-tree")
    {
        if (!m_nvls || !whole || g < 2)
        {
            return -1;
        }
        const double bNvls = bNv * m_nvlsEfficiency;
        const bool tree = algorithm == "nvls-tree";
        if (tree ? spec.op != CollectiveSpec::ALLREDUCE
                 : (m > 1 || (spec.op != CollectiveSpec::ALLREDUCE &&
                              spec.op != CollectiveSpec::REDUCESCATTER &&
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
                   SlotBubble(spec.op, c * k, g, b / bNvls, NvlsCollective::kSlots);
        }
        const double k = NvlsCollective::Chunks(uint64_t(shard / 2), spec.chunks);
        const double b = std::max(1.0, shard / (2 * k));
        // Per round, every GPU's egress: G reads and a store per half; its NIC the chunks of
        // its server's edges in both trees.
        const double nv = 2 * (g + 1) * b / bNvls;
        const double nic = MaxTreeDegree(uint32_t(m)) * b / (m > 2 ? bNic * m_treeIncast : bNic);
        const double fill = 2 * b / bNvls + 3 * aNv + 2 * depth * (aNet + b / bNic);
        return std::max(fill + (c * k - 1) * std::max(nv, nic), c * k * std::max(nv, nic)) +
               SlotBubble(spec.op, 2 * c * k, g, b / bNvls, 2 * NvlsCollective::kSlots);
    }
    if (algorithm == "collnet")
    {
        if (m_aggregationLevels == 0 || spec.op != CollectiveSpec::ALLREDUCE || !whole || m < 2)
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
        const double aNvc = aNv + (costs.nvlinkHop.IsZero()
                                       ? 0.0
                                       : CollNetCollective::ArityLatency(uint32_t(g)).GetSeconds());
        const double a0 = m_networkLatency.GetSeconds();
        const double share = (g - 1) * b / bNv; // a head's G-1 scatters, or its gathers
        const double hop = m_aggregationHop.GetSeconds();
        const double net = aNet + a0 + 2 * b / bNic + (m_aggregationLevels > 1 ? 2 * hop : 0);
        const double trip = 2 * (share + aNvc) + net;
        const double round = std::max({2 * share, b / bNic, trip / CollNetCollective::kSlots / c});
        return std::max(c * k * round + 2 * aNvc, c * k * share + net + share + 2 * aNvc);
    }
    if (algorithm == "pat")
    {
        // The collectives PAT implements, as pat-collective.cc registers them.
        if (!CollectiveAlgorithmRegistry::Find(algorithm)->Implements(
                CollectiveSpec::OpName(spec.op)))
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
    }
    if (algorithm == "hierarchical")
    {
        if (spec.op != CollectiveSpec::ALLREDUCE || !whole || g < 2)
        {
            return -1;
        }
        const double intra = 2 * (g - 1) * (aNv + s / (g * bNv));
        const double inter = m > 1 ? 2 * (m - 1) * (aNet + s / (g * m * bNic)) : 0;
        return intra + inter;
    }
    return -1;
}

CollectiveTuner::Choice
CollectiveTuner::Choose(const CollectiveSpec& spec,
                        const std::vector<std::string>& algorithms,
                        const std::vector<CollectiveProtocol::Kind>& protocols,
                        const std::function<uint32_t(const std::string&)>& channels) const
{
    Choice best{algorithms.empty() ? "ring" : algorithms.front(),
                protocols.empty() ? CollectiveProtocol::SIMPLE : protocols.front(),
                -1};
    for (const std::string& a : algorithms)
    {
        for (CollectiveProtocol::Kind p : protocols)
        {
            CollectiveSpec x = spec;
            x.protocol = p;
            if (channels)
            {
                x.channels = channels(a);
            }
            const double t = EstimateSeconds(a, x);
            if (t >= 0 && (best.seconds < 0 || t < best.seconds))
            {
                best = Choice{a, p, t};
            }
        }
    }
    return best;
}

std::vector<CollectiveProtocol::Kind>
CollectiveTuner::Protocols()
{
    return {CollectiveProtocol::SIMPLE, CollectiveProtocol::LL128, CollectiveProtocol::LL};
}

} // namespace ns3

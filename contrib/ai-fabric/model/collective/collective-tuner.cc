// SPDX-License-Identifier: GPL-2.0-only
#include "collective-tuner.h"

#include "collective-algorithm-registry.h"

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
    // Every registered algorithm with a cost model, in their tunerOrder.
    std::vector<const CollectiveAlgorithmInfo*> v;
    for (const auto& e : CollectiveAlgorithmRegistry::All())
    {
        if (e.cost)
        {
            v.push_back(&e);
        }
    }
    std::stable_sort(v.begin(), v.end(), [](const auto* a, const auto* b) {
        return a->tunerOrder < b->tunerOrder;
    });
    std::vector<std::string> names;
    for (const auto* e : v)
    {
        names.push_back(e->name);
    }
    return names;
}

uint32_t
CollectiveTuner::DefaultChannels(const std::string& algorithm, uint32_t gpusPerServer)
{
    const CollectiveAlgorithmInfo* e = CollectiveAlgorithmRegistry::Find(algorithm);
    if (e && e->channelsPerNic)
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
    // The protocol's wire bytes divide the rates; its per-hop latencies add to the α's.
    const CollectiveProtocol::Costs costs = Costs(algorithm, spec.protocol);
    const double wire = double(costs.wireNum) / costs.wireDen;
    if (spec.ranks < 2)
    {
        return 0.0;
    }
    // The algorithm's own α-β model, registered beside its class.
    const CollectiveAlgorithmInfo* e = CollectiveAlgorithmRegistry::Find(algorithm);
    if (!e || !e->cost)
    {
        return -1;
    }
    const CollectiveCostInput in{spec,
                                 n,
                                 g,
                                 m,
                                 double(spec.bytes),
                                 spec.ranks % spec.gpusPerServer == 0,
                                 m > 1 ? std::floor(std::log2(m)) : 0,
                                 m_nicRate.GetBitRate() / 8.0 / wire,
                                 m_nvlinkRate.GetBitRate() / 8.0 / wire,
                                 m_networkLatency.GetSeconds() + costs.networkHop.GetSeconds(),
                                 m_nvlinkLatency.GetSeconds() + costs.nvlinkHop.GetSeconds(),
                                 costs.nvlinkHop,
                                 m_networkLatency,
                                 m_treeIncast,
                                 m_nvls,
                                 m_nvlsEfficiency,
                                 m_aggregationLevels,
                                 m_aggregationHop};
    return e->cost(in);
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

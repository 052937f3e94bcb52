// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_TUNER_H
#define COLLECTIVE_TUNER_H

#include "collective-algorithm.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Picks a collective algorithm per message size from an α-β model of the cluster, the way
 * NCCL's tuner (src/graph/tuning.cc) predicts each algorithm's time from a latency and a
 * bandwidth per link type and takes the smallest. Link types: NVLink (NvlinkLatency,
 * NvlinkRate = the NvlinkTransport's Bandwidth × Efficiency) and the network (NetworkLatency:
 * one message NIC to NIC through a leaf, NicRate: the NIC's goodput, line rate × payload /
 * wire bytes).
 *
 * Ring (rail-local, C channels, N ranks, G per server, b = S/(C·N) per step): each of the
 * 2(N−1) steps moves every channel one hop, so a step lasts the mean hop time around the ring
 * (one network hop per server, G−1 NVLink hops: α + b/B each) unless a port is the bottleneck
 * (a NIC carries max(1, C/G) channels' b per step; a GPU's NVLink egress the (C − C/G)
 * channels it does not leave the server in):
 * T = 2(N−1) · max(mean hop, max(1, C/G)·b/NicRate, (C − C/G)·b/NvlinkRate).
 * Hierarchical (M servers): NVLink reduce-scatter, an inter-server ring per rail on S/G, NVLink
 * all-gather, one after the other: T = 2(G−1)(α_nv + S/(G·B_nv)) + 2(M−1)(α_net + S/(G·M·B_nic)).
 *
 * Tree (DoubleBinaryTreeCollective: C channels, each half of a channel's S/C in K chunks of b):
 * a chunk fills the pipeline in 2((G−1)(α_nv + b/B_nv) + D(α_net + b/B_nic)) (D = ⌊log2 M⌋),
 * then a round per chunk lasts the busiest port: a GPU's NVLink egress 4C(G−1)/G·b, a NIC
 * max(1, C/G)·d·b with d the largest number of tree edges of a server in both trees:
 * T = fill + (K−1)·max(4C(G−1)b/(G·B_nv), max(1,C/G)·d·b/B_nic).
 * NVLS (one server, B_nvls = NvlinkRate × NvlsEfficiency): per chunk of a shard every egress
 * serves G reads and one store: T = fill + (C·K−1)(G+1)·b/B_nvls, fill = 2b/B_nvls + 3α_nv,
 * plus the first 8 reductions' bubble 8(G−1)·b/B_nvls (16 for NVLS-Tree).
 * NVLS-Tree: T = fill + (C·K−1)·max(2(G+1)b/B_nvls, d·b/B_nic), fill adding 2D(α_net + b/B_nic).
 *
 * Beyond 2 servers a tree's NIC term runs at NicRate × TreeIncastEfficiency: a parent's NIC
 * receives from up to three senders at once, which α-β does not see and the packet-level model
 * does (back-pressure, congestion control); the factor is measured, not derived (NCCL's
 * treeCorrectionFactor plays the same part in src/graph/tuning.cc).
 *
 * Protocols (CollectiveProtocol): the wire factor divides every rate, the per-hop latencies add
 * to α_nv and α_net, the start latency is added once; the tree's chunks are the protocol's step.
 *
 * CollNet (CollNetCollective, AllReduce; AggregationLevels L of SHARP; K chunks of b per head and
 * channel; s = (G−1)·b/B_nv, a head's scatters or gathers of one chunk): the network round trip
 * is net = α_net + α + 2b/B_nic + 2(L−1)α_agg (the head's send carries NCCL's CollNet latency,
 * the aggregators' none; α_agg = AggregationHopLatency between a leaf's and a spine's); a round per
 * chunk lasts the busiest port (a GPU's NVLink 2s, a NIC b/B_nic) or the kSlots window (a chunk's
 * trip 2(s + α_nv) + net per kSlots·C chunks): T = max(C·K·round, C·K·s + net + s) + 2α_nv (α_nv
 * with NCCL's arity latency). PAT (AllGather, ReduceScatter): Σ over its ⌈log2 N⌉ steps of α +
 * min(d, N−d)·(S/N)/B, on the network when the ranks span servers.
 *
 * Not modelled yet: CollNet.
 */
class CollectiveTuner : public Object
{
  public:
    static TypeId GetTypeId();

    /// The α-β time of `algorithm` ("ring", "tree", "nvls", "nvls-tree", "pat", "hierarchical") on
    /// `spec` under spec.protocol; negative if it cannot run it.
    double EstimateSeconds(const std::string& algorithm, const CollectiveSpec& spec) const;

    /// An algorithm and a protocol, and their estimate.
    struct Choice
    {
        std::string algorithm;
        CollectiveProtocol::Kind protocol;
        double seconds;
    };

    /**
     * The pair of `algorithms` × `protocols` with the smallest estimate for `spec` (the first
     * of each if none runs), each algorithm on `channels(algorithm)` channels when that is
     * given, else on spec.channels.
     */
    Choice Choose(const CollectiveSpec& spec,
                  const std::vector<std::string>& algorithms = Candidates(),
                  const std::vector<CollectiveProtocol::Kind>& protocols = Protocols(),
                  const std::function<uint32_t(const std::string&)>& channels = {}) const;
    /// The protocols Choose considers.
    static std::vector<CollectiveProtocol::Kind> Protocols();
    /// The algorithms Choose considers.
    static std::vector<std::string> Candidates();
    /// The channels NCCL gives `algorithm` on servers of `gpusPerServer` GPUs: for ring and
    /// tree two per NIC, one NIC per GPU (its graph search finds a ring per NIC, then doubles
    /// them, src/graph/connect.cc, at most MAXCHANNELS 64); one for the others.
    static uint32_t DefaultChannels(const std::string& algorithm, uint32_t gpusPerServer);
    /// Time an NVLS AllReduce of `chunks` per GPU loses to its first `slots` reductions (NVLS:
    /// kSlots; NVLS-Tree: 2 kSlots, a send and a receive buffer).
    static double SlotBubble(CollectiveSpec::Op op,
                             double chunks,
                             double g,
                             double chunkTime,
                             double slots);
    /// The most tree edges a node has in both trees of a double binary tree over m nodes.
    static uint32_t MaxTreeDegree(uint32_t m);

  private:
    /// EstimateSeconds without the protocol's start latency.
    double PhysicalSeconds(const std::string& algorithm, const CollectiveSpec& spec) const;
    /// The protocol's costs as this tuner charges them (none with ProtocolLatency false).
    CollectiveProtocol::Costs Costs(const std::string& algorithm,
                                    CollectiveProtocol::Kind protocol) const;

    Time m_networkLatency;
    Time m_nvlinkLatency;
    DataRate m_nicRate;
    DataRate m_nvlinkRate;
    bool m_nvls{true};
    double m_nvlsEfficiency{0.85};
    double m_treeIncast{0.5};
    uint32_t m_aggregationLevels{0};
    Time m_aggregationHop;
    bool m_protocolLatency{true};
};

} // namespace ns3

#endif // COLLECTIVE_TUNER_H

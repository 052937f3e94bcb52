// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_TUNER_H
#define COLLECTIVE_TUNER_H

#include "collective-algorithm.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

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
 * Not modelled yet: protocols (LL, LL128: every estimate is Simple's), Tree, NVLS, CollNet, PAT.
 */
class CollectiveTuner : public Object
{
  public:
    static TypeId GetTypeId();

    /// The α-β time of `algorithm` ("ring", "hierarchical") on `spec`; negative if it cannot
    /// run it.
    double EstimateSeconds(const std::string& algorithm, const CollectiveSpec& spec) const;
    /// The candidate with the smallest estimate for `spec` ("ring" when nothing else runs).
    std::string Choose(const CollectiveSpec& spec) const;
    /// The algorithms Choose considers.
    static std::vector<std::string> Candidates();

  private:
    Time m_networkLatency;
    Time m_nvlinkLatency;
    DataRate m_nicRate;
    DataRate m_nvlinkRate;
};

} // namespace ns3

#endif // COLLECTIVE_TUNER_H

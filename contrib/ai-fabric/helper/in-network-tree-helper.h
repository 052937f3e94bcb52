// SPDX-License-Identifier: GPL-2.0-only
#ifndef IN_NETWORK_TREE_HELPER_H
#define IN_NETWORK_TREE_HELPER_H

#include "fabric-topology.h"

#include "ns3/in-network-tree.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Derives the SHARP reduction trees of a topology built with InNetworkAggregation on: a GPU
 * reduces first at the aggregator of the switch it attaches to (its leaf); a rail whose GPUs
 * attach to several leaves gets one root, the aggregator of a switch cabled to all of them (the
 * spine g mod the common spines, for rail g, so rails spread over spines).
 */
class InNetworkTreeHelper
{
  public:
    /// \throws FabricConfigError("InNetworkAggregation", ...) if the topology has no
    /// aggregation nodes or a rail's leaves share no switch above them
    static InNetworkTree Build(Ptr<FabricTopology> topo);
};

} // namespace ns3

#endif // IN_NETWORK_TREE_HELPER_H

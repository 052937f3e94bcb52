// SPDX-License-Identifier: GPL-2.0-only
#ifndef IN_NETWORK_TREE_H
#define IN_NETWORK_TREE_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Where a fabric reduces in its switches (SHARP): the in-network aggregation nodes, numbered as
 * ranks after the N GPUs (rank N + k is the aggregation engine of switch k, see FabricTopology),
 * and the reduction trees over them. Each rail (GPU index within its server) has one tree of
 * at most two levels: the aggregators of the switches the rail's GPUs attach to, and, when that
 * is more than one switch, one root above them all. InNetworkTreeHelper derives it from a built
 * topology; CollNetCollective runs on it.
 */
struct InNetworkTree
{
    uint32_t gpus{0};             //!< N: aggregators are ranks N .. N + Aggregators() - 1
    std::vector<uint32_t> leafOf; //!< per GPU rank: the rank of its switch's aggregator
    std::vector<uint32_t> parent; //!< per aggregator k: its parent's rank, or UINT32_MAX (root)

    uint32_t Aggregators() const
    {
        return static_cast<uint32_t>(parent.size());
    }

    /// The root of the tree GPU rank r's reductions climb.
    uint32_t RootOf(uint32_t r) const
    {
        const uint32_t leaf = leafOf[r];
        const uint32_t up = parent[leaf - gpus];
        return up == UINT32_MAX ? leaf : up;
    }

    /**
     * \return why this tree cannot serve `ranks` GPUs of `gpusPerServer` per server (one
     * root per rail, two levels at most, ranks in range), or "" if it can
     */
    std::string Check(uint32_t ranks, uint32_t gpusPerServer) const
    {
        if (gpus != ranks || leafOf.size() != ranks)
        {
            return "the in-network tree is for " + std::to_string(gpus) + " GPUs, not " +
                   std::to_string(ranks);
        }
        for (uint32_t r = 0; r < ranks; ++r)
        {
            const uint32_t leaf = leafOf[r];
            if (leaf < gpus || leaf - gpus >= Aggregators())
            {
                return "GPU " + std::to_string(r) + " has no aggregator";
            }
            const uint32_t up = parent[leaf - gpus];
            if (up != UINT32_MAX &&
                (up < gpus || up - gpus >= Aggregators() || parent[up - gpus] != UINT32_MAX))
            {
                return "aggregation trees have two levels at most";
            }
            if (RootOf(r) != RootOf(r % gpusPerServer))
            {
                return "rail " + std::to_string(r % gpusPerServer) +
                       " has more than one aggregation root";
            }
        }
        return "";
    }
};

} // namespace ns3

#endif // IN_NETWORK_TREE_H

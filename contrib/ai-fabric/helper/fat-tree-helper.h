// SPDX-License-Identifier: GPL-2.0-only
#ifndef FAT_TREE_HELPER_H
#define FAT_TREE_HELPER_H

#include "fabric-topology-helper.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A conventional (non-rail) fat-tree for comparison with the rail-optimized one. The GPUs of a
 * server are consecutive hosts and sit under the same leaf where they fit.
 *
 * - Tiers = 2: a leaf-spine Clos. Leaves of LeafRadix ports with down = floor(radix·r/(r+1))
 *   host ports at oversubscription r; ceil(hosts / down) leaves; each leaf has
 *   u = min(up, ceil(hosts per leaf / r)) uplinks, one to each of u spines.
 * - Tiers = 3: the k-ary fat-tree of Al-Fares et al. (SIGCOMM'08): k pods of k/2 edge and k/2
 *   aggregation switches, (k/2)^2 cores, up to k^3/4 hosts; K = 0 picks the smallest even k
 *   that holds all hosts. Always 1:1.
 */
class FatTreeHelper : public FabricTopologyHelper
{
  public:
    static TypeId GetTypeId();
    FatTreeHelper();

    /// The k used for 3 tiers with the current parameters.
    uint32_t GetK() const;
    /// Leaves with their hosts (2 tiers), or pods (3 tiers).
    uint32_t GetPartitionGroups() const override;

  protected:
    void DoValidate() const override;
    void DoBuild(Ptr<FabricTopology> topo) override;
    std::string GetKind() const override;
    bool GetPartitionGroup(const std::string& role, uint32_t index, uint32_t& group) const override;

  private:
    /// Hosts per leaf (2 tiers).
    uint32_t GetLeafDown() const;
    void BuildTwoTier(Ptr<FabricTopology> topo);
    void BuildThreeTier(Ptr<FabricTopology> topo);

    uint32_t m_tiers{2};
    uint32_t m_leafRadix{64};
    uint32_t m_k{0};
    double m_oversubscription{1.0};
};

} // namespace ns3

#endif // FAT_TREE_HELPER_H

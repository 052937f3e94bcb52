// SPDX-License-Identifier: GPL-2.0-only
#ifndef RAIL_OPTIMIZED_FAT_TREE_HELPER_H
#define RAIL_OPTIMIZED_FAT_TREE_HELPER_H

#include "fabric-topology-helper.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A rail-optimized two-tier fat-tree, as in NVIDIA DGX SuperPOD-style GPU clusters.
 *
 * Each of Servers servers has GpusPerServer GPUs, each GPU its own NIC (a host node). NIC g of
 * every server connects to a leaf of rail g; a rail has ceil(Servers / down) leaves, where a leaf
 * of LeafRadix ports has down = floor(radix·r/(r+1)) host ports for oversubscription r (1:1 =
 * half down, half up). Every leaf has the same number of uplinks, u = min(up, ceil(hosts per
 * leaf / r)), spread round-robin over the spines (Spines = 0: u spines, one link from every leaf
 * to every spine). Same-rail traffic under one leaf turns at the leaf; cross-rail traffic goes
 * through a spine (no NVLink/PXN forwarding inside servers here).
 */
class RailOptimizedFatTreeHelper : public FabricTopologyHelper
{
  public:
    static TypeId GetTypeId();
    RailOptimizedFatTreeHelper();

    /// Leaves per rail for the current parameters.
    uint32_t GetLeavesPerRail() const;
    /// Uplinks per leaf for the current parameters.
    uint32_t GetUplinksPerLeaf() const;
    /// Spine switches for the current parameters.
    uint32_t GetNSpines() const;

  protected:
    void DoValidate() const override;
    void DoBuild(Ptr<FabricTopology> topo) override;
    std::string GetKind() const override;
    uint32_t PlannedSwitches() const override;

  private:
    uint32_t m_leafRadix{64};
    uint32_t m_spineRadix{0};
    uint32_t m_spines{0};
    double m_oversubscription{1.0};
};

} // namespace ns3

#endif // RAIL_OPTIMIZED_FAT_TREE_HELPER_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef RAIL_OPTIMIZED_FAT_TREE_HELPER_H
#define RAIL_OPTIMIZED_FAT_TREE_HELPER_H

#include "fabric-topology-helper.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A rail-optimized fat-tree of two or three tiers, as in NVIDIA DGX SuperPOD-style GPU clusters.
 *
 * Each of Servers servers has GpusPerServer GPUs, each GPU its own NIC (a host node, one port).
 * NIC g of every server connects to a leaf of rail g; a rail has ceil(Servers / down) leaves,
 * where a leaf of LeafRadix ports has down = floor(radix·r/(r+1)) host ports for
 * oversubscription r (1:1 = half down, half up). Every leaf has the same number of uplinks,
 * u = min(up, ceil(hosts per leaf / r)), spread round-robin over the spines of its pod
 * (Spines = 0: u spines per pod, one link from every leaf to every spine).
 *
 * Two tiers: the whole fabric is one pod; a spine uses all SpineRadix ports towards leaves, so
 * 2 tiers hold at most SpineRadix leaves (256 servers of 8 GPUs at radix 64).
 *
 * Three tiers (Tiers 3, or Tiers 0 when two do not fit): pods of leaves under their own spines,
 * spines under "core" super-spines. A spine splits SpineRadix into down:up by
 * SpineOversubscription; a pod holds as many leaves as a spine has down ports (per link to a
 * leaf): whole server blocks of every rail, or, when a pod cannot take one leaf of every rail
 * (72 rails of an NVL72 domain), a block of servers on a group of rails. Spine j of every pod
 * connects to core group j (the spine planes of SuperPOD / Meta's RoCE clusters); a group has
 * the fewest cores whose SpineRadix ports take every pod's spine-j uplinks (round-robin). At
 * radix 64, 1:1 this is the k=64 fat-tree: up to 64 pods of 128 servers (65,536 GPUs).
 *
 * Planes (Alibaba HPN's dual plane, NVIDIA's multi-plane ConnectX-8 / Quantum-X800): with
 * Planes P > 1 every GPU's NIC has P ports of LinkRate / P (HPN: 2 x 200G for a 400G NIC), port
 * p cabled to its rail's leaf in plane p. Each plane is a whole rail-optimized fat-tree of its
 * own (every rail, leaves, spines, cores) at the port rate (FabricLinkRate 0: the port rate),
 * and no switch is shared between planes: a frame that enters plane p stays in it, and every
 * host is reached in every plane (one address, one route per plane to the host's port there).
 * The NIC spreads its queue pairs over its ports (RdmaNic); NCCL's merged multi-port NIC splits
 * each message over one queue pair per port (RdmaCollectiveTransport).
 *
 * Same-rail traffic under one leaf turns at the leaf; cross-rail traffic goes through a spine
 * or a core (no NVLink/PXN forwarding inside servers here).
 */
class RailOptimizedFatTreeHelper : public FabricTopologyHelper
{
  public:
    static TypeId GetTypeId();
    RailOptimizedFatTreeHelper();

    /// The shape the current parameters give (counts are totals over all planes and pods).
    struct Shape
    {
        uint32_t tiers{2};         //!< 2 or 3 (1 leaf per plane: no upper tier is built)
        uint32_t railsPerPlane{0}; //!< GpusPerServer: every plane has every rail
        uint32_t leafDown{0};      //!< host ports per leaf
        uint32_t leavesPerRail{0}; //!< ceil(Servers / leafDown)
        uint32_t leafUplinks{0};   //!< u, uplinks per leaf
        uint32_t spinesPerPod{0};  //!< Spines, or u
        uint32_t railGroups{1};    //!< pods across the rails of a plane (1 unless G is large)
        uint32_t railsPerGroup{0}; //!< rails in a pod
        uint32_t blocksPerPod{0};  //!< leaves of one rail in a pod
        uint32_t podsPerPlane{1};  //!< pods of one plane
        uint32_t spineUplinks{0};  //!< uplinks per spine (3 tiers)
        uint32_t coresPerGroup{0}; //!< cores per spine plane (3 tiers)
        uint32_t leaves{0};
        uint32_t spines{0};
        uint32_t cores{0};
    };

    Shape GetShape() const;
    /// Blocks of servers, each with its leaf on every rail and plane.
    uint32_t GetPartitionGroups() const override;
    /// Leaves per rail for the current parameters.
    uint32_t GetLeavesPerRail() const;
    /// Uplinks per leaf for the current parameters.
    uint32_t GetUplinksPerLeaf() const;
    /// Spine switches (all pods and planes) for the current parameters.
    uint32_t GetNSpines() const;
    /// Core (super-spine) switches; 0 for two tiers.
    uint32_t GetNCores() const;
    /// Tiers of switches the current parameters build (2 or 3).
    uint32_t GetTiers() const;
    /// The rate of a host's NIC port: LinkRate / Planes.
    DataRate GetPortRate() const;

  protected:
    bool GetPartitionGroup(const std::string& role, uint32_t index, uint32_t& group) const override;
    void DoValidate() const override;
    void DoBuild(Ptr<FabricTopology> topo) override;
    std::string GetKind() const override;
    uint32_t PlannedSwitches() const override;

  private:
    /// The shape for `tiers` (2 or 3); `fits` says whether its top tier has the ports.
    Shape ComputeShape(uint32_t tiers, bool& fits) const;
    /// Switch-to-switch rate: FabricLinkRate, or the port rate.
    DataRate GetSwitchLinkRate() const;

    uint32_t m_leafRadix{64};
    uint32_t m_spineRadix{0};
    uint32_t m_spines{0};
    double m_oversubscription{1.0};
    double m_spineOversubscription{1.0};
    uint32_t m_tiers{0};
    uint32_t m_planes{1};
};

} // namespace ns3

#endif // RAIL_OPTIMIZED_FAT_TREE_HELPER_H

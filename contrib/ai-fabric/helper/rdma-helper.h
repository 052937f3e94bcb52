// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_HELPER_H
#define RDMA_HELPER_H

#include "ns3/object-factory.h"
#include "ns3/ptr.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class FabricTopology;
class Node;
class RdmaNic;
class RdmaQueuePair;

/**
 * \ingroup ai-fabric
 * Installs RDMA NICs (RdmaNic) on hosts and connects queue pairs, with one ObjectFactory per
 * pluggable part: the NIC itself, its congestion control (default ns3::RdmaDcqcn) and its loss
 * recovery (default ns3::RdmaGoBackN).
 *
 *   RdmaHelper rdma;
 *   rdma.SetCongestionControl("ns3::RdmaDcqcn", "Preset", StringValue("paper"));
 *   rdma.SetLossRecovery("ns3::RdmaSelectiveRepeat");
 *   rdma.Install(topo);
 *   auto [a, b] = rdma.Connect(topo->GetHostNode(0), topo->GetHostNode(1));
 *   a->PostWrite(1 << 20);
 */
class RdmaHelper
{
  public:
    RdmaHelper();

    void SetNicAttribute(std::string name, const AttributeValue& value);
    void SetCongestionControl(std::string typeId);
    void SetCongestionControlAttribute(std::string name, const AttributeValue& value);
    void SetLossRecovery(std::string typeId);
    void SetLossRecoveryAttribute(std::string name, const AttributeValue& value);

    /// Install a NIC on a host node, with a port on each of its FabricNetDevices (in the order
    /// they were added: one, or one per plane). \return the NIC
    Ptr<RdmaNic> Install(Ptr<Node> host) const;
    /// Install a NIC on every host of a topology.
    std::vector<Ptr<RdmaNic>> Install(Ptr<FabricTopology> topo) const;
    /**
     * Install a NIC on every in-network aggregation node of a topology (SHARP's aggregation
     * engines terminate their connections like host channel adapters): this helper's NIC and
     * loss-recovery settings, but no congestion control (RdmaNoCc), since the engine is switch
     * hardware and runs no host's rate control.
     */
    std::vector<Ptr<RdmaNic>> InstallAggregators(Ptr<FabricTopology> topo) const;

    /**
     * Create a connected pair of queue pairs between two hosts with NICs installed.
     * \param dscp DSCP of the pair's data and ACKs (0 = the NIC's DataDscp)
     * \param portA, portB the NICs' ports the queue pairs send on (UINT32_MAX, RdmaNic::kAnyPort:
     *        the NIC's PortSelection)
     * \return (queue pair on a, queue pair on b)
     */
    static std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>> Connect(Ptr<Node> a,
                                                                     Ptr<Node> b,
                                                                     uint8_t dscp = 0,
                                                                     uint32_t portA = UINT32_MAX,
                                                                     uint32_t portB = UINT32_MAX);

  private:
    ObjectFactory m_nicFactory;
    ObjectFactory m_ccFactory;
    ObjectFactory m_recoveryFactory;
};

} // namespace ns3

#endif // RDMA_HELPER_H

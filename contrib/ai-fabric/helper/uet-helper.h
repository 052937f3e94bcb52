// SPDX-License-Identifier: GPL-2.0-only
#ifndef UET_HELPER_H
#define UET_HELPER_H

#include "ns3/fabric-topology.h"
#include "ns3/object-factory.h"
#include "ns3/uet-nic.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Installs Ultra Ethernet NICs (UetNic) on hosts, with one ObjectFactory per pluggable part:
 *
 *   UetHelper uet;
 *   uet.SetCongestionControl("ns3::UetNscc");
 *   uet.SetLoadBalancer("ns3::UetReps");
 *   uet.SetNicAttribute("RetransmitTimeout", TimeValue(MicroSeconds(50)));
 *   uet.Install(topo);
 *
 * A host's first FabricNetDevice becomes the NIC's port (several ports: not modelled).
 */
class UetHelper
{
  public:
    UetHelper();
    void SetNicAttribute(std::string name, const AttributeValue& value);
    void SetCongestionControl(std::string typeId);
    void SetCongestionControlAttribute(std::string name, const AttributeValue& value);
    void SetLoadBalancer(std::string typeId);
    void SetLoadBalancerAttribute(std::string name, const AttributeValue& value);

    /// Install a NIC on a host node (aggregated to it).
    Ptr<UetNic> Install(Ptr<Node> host) const;
    /// Install a NIC on every host (GPU endpoint) of a topology.
    std::vector<Ptr<UetNic>> Install(Ptr<FabricTopology> topo) const;

  private:
    ObjectFactory m_nicFactory;
    ObjectFactory m_ccFactory;
    ObjectFactory m_lbFactory;
};

} // namespace ns3

#endif // UET_HELPER_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef LINUX_TCP_HELPER_H
#define LINUX_TCP_HELPER_H

#include "ns3/attribute.h"
#include "ns3/object-factory.h"
#include "ns3/ptr.h"

#include <string>
#include <vector>

namespace ns3
{

class FabricTopology;
class LinuxTcpStack;
class HostStackCostModel;

/**
 * \ingroup ai-fabric
 * Puts the Linux TCP model (LinuxTcpStack) on every host of a FabricTopology: one stack per host
 * aggregated to its node and attached to its fabric port, whose MTU becomes `mtu` (9000 by
 * default, MSS 8,948). With host costs, each host also gets a HostStackCostModel first, so the
 * stack's receive path takes interrupts and GRO. No ns-3 internet stack is needed; hosts may
 * also have an RDMA engine (RoCEv2 and TCP share the port).
 */
class LinuxTcpHelper
{
  public:
    LinuxTcpHelper();
    void SetStackAttribute(const std::string& name, const AttributeValue& value);
    void SetCostModelAttribute(const std::string& name, const AttributeValue& value);
    /// Also install a HostStackCostModel on every host (default: no).
    void SetHostCosts(bool on);
    std::vector<Ptr<LinuxTcpStack>> Install(Ptr<FabricTopology> topo, uint16_t mtu = 9000) const;

  private:
    ObjectFactory m_stack;
    ObjectFactory m_cost;
    bool m_hostCosts{false};
};

} // namespace ns3

#endif // LINUX_TCP_HELPER_H

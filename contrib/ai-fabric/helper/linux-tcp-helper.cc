// SPDX-License-Identifier: GPL-2.0-only
#include "linux-tcp-helper.h"

#include "fabric-topology.h"

#include "ns3/fabric-net-device.h"
#include "ns3/host-stack-cost-model.h"
#include "ns3/linux-tcp-stack.h"
#include "ns3/node.h"

namespace ns3
{

LinuxTcpHelper::LinuxTcpHelper()
{
    m_stack.SetTypeId("ns3::LinuxTcpStack");
    m_cost.SetTypeId("ns3::HostStackCostModel");
}

void
LinuxTcpHelper::SetStackAttribute(const std::string& name, const AttributeValue& value)
{
    m_stack.Set(name, value);
}

void
LinuxTcpHelper::SetCostModelAttribute(const std::string& name, const AttributeValue& value)
{
    m_cost.Set(name, value);
}

void
LinuxTcpHelper::SetHostCosts(bool on)
{
    m_hostCosts = on;
}

std::vector<Ptr<LinuxTcpStack>>
LinuxTcpHelper::Install(Ptr<FabricTopology> topo, uint16_t mtu) const
{
    std::vector<Ptr<LinuxTcpStack>> stacks;
    for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
    {
        Ptr<Node> node = topo->GetHostNode(h);
        Ptr<FabricNetDevice> dev = topo->GetHostDevice(h);
        dev->SetMtu(mtu);
        if (m_hostCosts && !node->GetObject<HostStackCostModel>())
        {
            node->AggregateObject(m_cost.Create<HostStackCostModel>());
        }
        Ptr<LinuxTcpStack> s = m_stack.Create<LinuxTcpStack>();
        node->AggregateObject(s);
        s->Attach(dev);
        stacks.push_back(s);
    }
    return stacks;
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "uet-helper.h"

#include "ns3/abort.h"
#include "ns3/node.h"

namespace ns3
{

UetHelper::UetHelper()
{
    m_nicFactory.SetTypeId("ns3::UetNic");
    m_ccFactory.SetTypeId("ns3::UetNscc");
    m_lbFactory.SetTypeId("ns3::UetReps");
}

void
UetHelper::SetNicAttribute(std::string name, const AttributeValue& value)
{
    m_nicFactory.Set(name, value);
}

void
UetHelper::SetCongestionControl(std::string typeId)
{
    m_ccFactory.SetTypeId(typeId);
}

void
UetHelper::SetCongestionControlAttribute(std::string name, const AttributeValue& value)
{
    m_ccFactory.Set(name, value);
}

void
UetHelper::SetLoadBalancer(std::string typeId)
{
    m_lbFactory.SetTypeId(typeId);
}

void
UetHelper::SetLoadBalancerAttribute(std::string name, const AttributeValue& value)
{
    m_lbFactory.Set(name, value);
}

Ptr<UetNic>
UetHelper::Install(Ptr<Node> host) const
{
    Ptr<FabricNetDevice> port;
    for (uint32_t i = 0; i < host->GetNDevices() && !port; ++i)
    {
        port = DynamicCast<FabricNetDevice>(host->GetDevice(i));
    }
    NS_ABORT_MSG_IF(!port, "UetHelper: node " << host->GetId() << " has no FabricNetDevice");
    NS_ABORT_MSG_IF(host->GetObject<UetNic>(), "UetHelper: node already has a UetNic");
    Ptr<UetNic> nic = m_nicFactory.Create<UetNic>();
    nic->SetCongestionControl(m_ccFactory);
    nic->SetLoadBalancer(m_lbFactory);
    host->AggregateObject(nic);
    nic->Attach(port);
    return nic;
}

std::vector<Ptr<UetNic>>
UetHelper::Install(Ptr<FabricTopology> topo) const
{
    std::vector<Ptr<UetNic>> nics;
    for (uint32_t i = 0; i < topo->GetNHosts(); ++i)
    {
        nics.push_back(Install(topo->GetHostNode(i)));
    }
    return nics;
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-helper.h"

#include "fabric-topology.h"

#include "ns3/abort.h"
#include "ns3/fabric-net-device.h"
#include "ns3/node.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"

namespace ns3
{

RdmaHelper::RdmaHelper()
{
    m_nicFactory.SetTypeId("ns3::RdmaNic");
    m_ccFactory.SetTypeId("ns3::RdmaDcqcn");
    m_recoveryFactory.SetTypeId("ns3::RdmaGoBackN");
}

void
RdmaHelper::SetNicAttribute(std::string name, const AttributeValue& value)
{
    m_nicFactory.Set(name, value);
}

void
RdmaHelper::SetCongestionControl(std::string typeId)
{
    m_ccFactory = ObjectFactory();
    m_ccFactory.SetTypeId(typeId);
}

void
RdmaHelper::SetCongestionControlAttribute(std::string name, const AttributeValue& value)
{
    m_ccFactory.Set(name, value);
}

void
RdmaHelper::SetLossRecovery(std::string typeId)
{
    m_recoveryFactory = ObjectFactory();
    m_recoveryFactory.SetTypeId(typeId);
}

void
RdmaHelper::SetLossRecoveryAttribute(std::string name, const AttributeValue& value)
{
    m_recoveryFactory.Set(name, value);
}

Ptr<RdmaNic>
RdmaHelper::Install(Ptr<Node> host) const
{
    // A host's fabric ports in the order they were cabled: port p of a multi-plane NIC is in
    // plane p.
    std::vector<Ptr<FabricNetDevice>> ports;
    for (uint32_t i = 0; i < host->GetNDevices(); ++i)
    {
        if (Ptr<FabricNetDevice> dev = DynamicCast<FabricNetDevice>(host->GetDevice(i)))
        {
            ports.push_back(dev);
        }
    }
    NS_ABORT_MSG_IF(ports.empty(),
                    "RdmaHelper: node " << host->GetId() << " has no FabricNetDevice");
    NS_ABORT_MSG_IF(host->GetObject<RdmaNic>(), "RdmaHelper: node already has an RdmaNic");
    Ptr<RdmaNic> nic = m_nicFactory.Create<RdmaNic>();
    nic->SetCongestionControl(m_ccFactory);
    nic->SetLossRecovery(m_recoveryFactory);
    host->AggregateObject(nic);
    for (const auto& dev : ports)
    {
        nic->Attach(dev);
    }
    return nic;
}

std::vector<Ptr<RdmaNic>>
RdmaHelper::Install(Ptr<FabricTopology> topo) const
{
    std::vector<Ptr<RdmaNic>> nics;
    for (uint32_t i = 0; i < topo->GetNHosts(); ++i)
    {
        nics.push_back(Install(topo->GetHostNode(i)));
    }
    return nics;
}

std::vector<Ptr<RdmaNic>>
RdmaHelper::InstallAggregators(Ptr<FabricTopology> topo) const
{
    RdmaHelper engine = *this;
    engine.SetCongestionControl("ns3::RdmaNoCc");
    std::vector<Ptr<RdmaNic>> nics;
    for (uint32_t k = 0; k < topo->GetNAggregators(); ++k)
    {
        nics.push_back(engine.Install(topo->GetHostNode(topo->GetAggregatorOf(k))));
    }
    return nics;
}

std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>
RdmaHelper::Connect(Ptr<Node> a, Ptr<Node> b, uint8_t dscp, uint32_t portA, uint32_t portB)
{
    Ptr<RdmaNic> na = a->GetObject<RdmaNic>();
    Ptr<RdmaNic> nb = b->GetObject<RdmaNic>();
    NS_ABORT_MSG_IF(!na || !nb, "RdmaHelper::Connect: install NICs on both nodes first");
    Ptr<RdmaQueuePair> qa = na->CreateQueuePair(nb->GetDevice()->GetIpv4Address(), dscp, portA);
    Ptr<RdmaQueuePair> qb = nb->CreateQueuePair(na->GetDevice()->GetIpv4Address(), dscp, portB);
    RdmaNic::Connect(qa, qb);
    return {qa, qb};
}

} // namespace ns3

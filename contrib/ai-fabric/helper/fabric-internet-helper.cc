// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-internet-helper.h"

#include "fabric-topology.h"

#include "ns3/abort.h"
#include "ns3/fabric-net-device.h"
#include "ns3/host-stack-cost-model.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4.h"
#include "ns3/node.h"
#include "ns3/uinteger.h"

namespace ns3
{

void
FabricInternetHelper::Install(Ptr<FabricTopology> topo, uint16_t mtu, uint32_t nicQueueBytes)
{
    InternetStackHelper stack;
    stack.SetIpv6StackInstall(false);
    for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
    {
        Ptr<Node> node = topo->GetHostNode(h);
        NS_ABORT_MSG_IF(node->GetObject<Ipv4>(),
                        "FabricInternetHelper: host " << h << " already has IPv4");
        stack.Install(node);
        Ptr<FabricNetDevice> dev = topo->GetHostDevice(h);
        dev->SetMtu(mtu);
        dev->SetAttribute("TxQueueLimit", UintegerValue(nicQueueBytes));
        Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
        const int32_t ifIndex = ipv4->AddInterface(dev);
        ipv4->AddAddress(ifIndex,
                         Ipv4InterfaceAddress(dev->GetIpv4Address(), Ipv4Mask("255.0.0.0")));
        ipv4->SetMetric(ifIndex, 1);
        ipv4->SetUp(ifIndex);
    }
}

void
FabricInternetHelper::InstallHostCosts(Ptr<FabricTopology> topo, const ObjectFactory& costModel)
{
    for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
    {
        Ptr<HostStackCostModel> m = costModel.Create<HostStackCostModel>();
        topo->GetHostNode(h)->AggregateObject(m);
        m->Attach(topo->GetHostDevice(h));
    }
}

} // namespace ns3

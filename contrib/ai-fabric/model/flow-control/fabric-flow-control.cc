// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-flow-control.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricFlowControl");
NS_OBJECT_ENSURE_REGISTERED(FabricFlowControl);

TypeId
FabricFlowControl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricFlowControl")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricFlowControl>();
    return tid;
}

FabricFlowControl::FabricFlowControl() = default;
FabricFlowControl::~FabricFlowControl() = default;

void
FabricFlowControl::SetDevice(FabricNetDevice* device)
{
    m_device = device;
}

FabricNetDevice*
FabricFlowControl::GetDevice() const
{
    return m_device;
}

bool
FabricFlowControl::IsLossless(uint8_t) const
{
    return false;
}

void
FabricFlowControl::NotifyTransmit(uint8_t, uint32_t)
{
}

bool
FabricFlowControl::CountsTraffic() const
{
    return true;
}

void
FabricFlowControl::ReceiveControl(const FabricFrame&)
{
}

void
FabricFlowControl::NotifyReceive(uint8_t, uint32_t)
{
}

void
FabricFlowControl::NotifyRelease(uint8_t, uint32_t)
{
}

void
FabricFlowControl::NotifyLost(uint8_t, uint32_t)
{
}

void
FabricFlowControl::SetIngressCongested(uint8_t, bool)
{
}

void
FabricFlowControl::DoDispose()
{
    m_device = nullptr;
    Object::DoDispose();
}

} // namespace ns3

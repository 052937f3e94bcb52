// SPDX-License-Identifier: GPL-2.0-only
#include "uet-load-balancer.h"

#include "ns3/fabric-frame.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(UetLoadBalancer);

TypeId
UetLoadBalancer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UetLoadBalancer").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

UetLoadBalancer::~UetLoadBalancer() = default;

void
UetLoadBalancer::Init(uint16_t paths, uint32_t seed)
{
    m_paths = paths == 0 ? 1 : paths;
    m_rng = FabricMix32(seed) | 1U;
    const uint16_t mask = static_cast<uint16_t>(m_paths - 1);
    m_upper = static_cast<uint16_t>(Random() & ~uint32_t(mask) & 0xffff);
}

void
UetLoadBalancer::Feedback(uint16_t /* ev */, UetPathFeedback /* fb */)
{
}

uint32_t
UetLoadBalancer::Random()
{
    uint32_t x = m_rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    m_rng = x;
    return x;
}

uint16_t
UetLoadBalancer::ToEv(uint32_t index) const
{
    return static_cast<uint16_t>(m_upper | (index & (m_paths - 1U)));
}

} // namespace ns3

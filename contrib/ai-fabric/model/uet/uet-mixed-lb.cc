// SPDX-License-Identifier: GPL-2.0-only
#include "uet-mixed-lb.h"

#include "uet-registry.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(UetMixedLb);

TypeId
UetMixedLb::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UetMixedLb")
                            .SetParent<UetBitmapLb>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<UetMixedLb>();
    return tid;
}

std::string
UetMixedLb::GetName() const
{
    return "mixed";
}

void
UetMixedLb::Init(uint16_t paths, uint32_t seed)
{
    UetBitmapLb::Init(paths, seed);
    m_recycled.clear();
}

void
UetMixedLb::Feedback(uint16_t ev, UetPathFeedback fb)
{
    if (fb == UetPathFeedback::NACK_LAST_HOP)
    {
        fb = UetPathFeedback::GOOD;
    }
    UetBitmapLb::Feedback(ev, fb);
    if (fb == UetPathFeedback::GOOD)
    {
        m_recycled.push_back(ev);
    }
}

uint16_t
UetMixedLb::NextEv()
{
    if (!m_recycled.empty())
    {
        const uint16_t ev = m_recycled.front();
        m_recycled.pop_front();
        return ev;
    }
    return UetBitmapLb::NextEv();
}

uint32_t
UetMixedLb::GetRecycledCount() const
{
    return static_cast<uint32_t>(m_recycled.size());
}

namespace
{

const bool g_mixedLbRegistered = UetLoadBalancerRegistry::Add([] {
    UetLoadBalancerInfo e;
    e.name = "mixed";
    e.typeId = "ns3::UetMixedLb";
    e.help = "htsim's default, recycled EVs else bitmap";
    return e;
}());

} // namespace

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "uet-bitmap-lb.h"

#include "uet-registry.h"

#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(UetBitmapLb);

TypeId
UetBitmapLb::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::UetBitmapLb")
            .SetParent<UetObliviousLb>()
            .SetGroupName("AiFabric")
            .AddConstructor<UetBitmapLb>()
            .AddAttribute("EcnPenalty",
                          "Penalty of an EV per ECN echo (htsim 1).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&UetBitmapLb::m_ecnPenalty),
                          MakeUintegerChecker<uint8_t>())
            .AddAttribute("NackPenalty",
                          "Penalty of an EV per NACK (htsim 4).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&UetBitmapLb::m_nackPenalty),
                          MakeUintegerChecker<uint8_t>())
            .AddAttribute("MaxPenalty",
                          "Penalty cap, and an EV's penalty after a timeout (htsim 15).",
                          UintegerValue(15),
                          MakeUintegerAccessor(&UetBitmapLb::m_maxPenalty),
                          MakeUintegerChecker<uint8_t>(1));
    return tid;
}

std::string
UetBitmapLb::GetName() const
{
    return "bitmap";
}

void
UetBitmapLb::Init(uint16_t paths, uint32_t seed)
{
    UetObliviousLb::Init(paths, seed);
    m_penalty.assign(m_paths, 0);
}

uint8_t
UetBitmapLb::GetPenalty(uint16_t ev) const
{
    return m_penalty[ev & (m_paths - 1U)];
}

void
UetBitmapLb::Feedback(uint16_t ev, UetPathFeedback fb)
{
    uint8_t& p = m_penalty[ev & (m_paths - 1U)];
    uint32_t add = 0;
    switch (fb)
    {
    case UetPathFeedback::ECN:
        add = m_ecnPenalty;
        break;
    case UetPathFeedback::NACK:
    case UetPathFeedback::NACK_LAST_HOP:
        add = m_nackPenalty;
        break;
    case UetPathFeedback::TIMEOUT:
        add = m_maxPenalty;
        break;
    default:
        return;
    }
    p = static_cast<uint8_t>(std::min<uint32_t>(p + add, m_maxPenalty));
}

uint16_t
UetBitmapLb::NextEv()
{
    uint32_t i = NextIndex();
    bool first = true;
    for (uint32_t tries = 0; m_penalty[i] > 0 && tries < m_paths; ++tries)
    {
        if (first)
        {
            --m_penalty[i]; // only the first penalised EV met pays a point (htsim)
            first = false;
        }
        i = NextIndex();
    }
    return ToEv(i);
}

namespace
{

const bool g_bitmapLbRegistered = UetLoadBalancerRegistry::Add([] {
    UetLoadBalancerInfo e;
    e.name = "bitmap";
    e.typeId = "ns3::UetBitmapLb";
    e.help = "skips penalised EVs";
    return e;
}());

} // namespace

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "uet-ecmp-lb.h"

#include "uet-registry.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(UetEcmpLb);

TypeId
UetEcmpLb::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UetEcmpLb")
                            .SetParent<UetLoadBalancer>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<UetEcmpLb>();
    return tid;
}

std::string
UetEcmpLb::GetName() const
{
    return "ecmp";
}

void
UetEcmpLb::Init(uint16_t paths, uint32_t seed)
{
    UetLoadBalancer::Init(paths, seed);
    m_ev = ToEv(Random());
}

uint16_t
UetEcmpLb::NextEv()
{
    return m_ev;
}

namespace
{

const bool g_ecmpLbRegistered = UetLoadBalancerRegistry::Add([] {
    UetLoadBalancerInfo e;
    e.name = "ecmp";
    e.typeId = "ns3::UetEcmpLb";
    e.help = "one EV per connection";
    return e;
}());

} // namespace

} // namespace ns3

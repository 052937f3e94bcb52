// SPDX-License-Identifier: GPL-2.0-only
#include "uet-oblivious-lb.h"

#include "uet-registry.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(UetObliviousLb);

TypeId
UetObliviousLb::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UetObliviousLb")
                            .SetParent<UetLoadBalancer>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<UetObliviousLb>();
    return tid;
}

std::string
UetObliviousLb::GetName() const
{
    return "oblivious";
}

void
UetObliviousLb::Init(uint16_t paths, uint32_t seed)
{
    UetLoadBalancer::Init(paths, seed);
    m_index = 0;
    m_xor = Random() & (m_paths - 1U);
}

uint32_t
UetObliviousLb::NextIndex()
{
    const uint32_t i = (m_index ^ m_xor) & (m_paths - 1U);
    if (++m_index == m_paths)
    {
        m_index = 0;
        m_xor = Random() & (m_paths - 1U);
    }
    return i;
}

uint16_t
UetObliviousLb::NextEv()
{
    return ToEv(NextIndex());
}

namespace
{

const bool g_obliviousLbRegistered = UetLoadBalancerRegistry::Add([] {
    UetLoadBalancerInfo e;
    e.name = "oblivious";
    e.typeId = "ns3::UetObliviousLb";
    e.help = "oblivious spraying";
    return e;
}());

} // namespace

} // namespace ns3

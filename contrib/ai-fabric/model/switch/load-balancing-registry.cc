// SPDX-License-Identifier: GPL-2.0-only
#include "load-balancing-registry.h"

#include "ns3/abort.h"

namespace ns3
{

template <>
std::vector<LoadBalancingInfo>&
LoadBalancingRegistry::Entries()
{
    static std::vector<LoadBalancingInfo> entries;
    return entries;
}

const std::string&
DefaultLoadBalancing()
{
    for (const auto& e : LoadBalancingRegistry::All())
    {
        if (e.isDefault)
        {
            return e.name;
        }
    }
    NS_ABORT_MSG("no load balancing registered as the default");
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "uet-registry.h"

#include "ns3/abort.h"

namespace ns3
{

template <>
std::vector<UetCongestionInfo>&
UetCongestionRegistry::Entries()
{
    static std::vector<UetCongestionInfo> entries;
    return entries;
}

template <>
std::vector<UetLoadBalancerInfo>&
UetLoadBalancerRegistry::Entries()
{
    static std::vector<UetLoadBalancerInfo> entries;
    return entries;
}

namespace
{

template <class Registry>
const std::string&
DefaultOf(const char* family)
{
    for (const auto& e : Registry::All())
    {
        if (e.isDefault)
        {
            return e.name;
        }
    }
    NS_ABORT_MSG("no " << family << " registered as the default");
}

} // namespace

const std::string&
DefaultUetCongestion()
{
    return DefaultOf<UetCongestionRegistry>("UET congestion control");
}

const std::string&
DefaultUetLoadBalancer()
{
    return DefaultOf<UetLoadBalancerRegistry>("UET load balancer");
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "load-balancing-registry.h"

#include "fabric-switch.h"

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

namespace
{

// routing.load_balancing: each path selection FabricSwitch implements, by its scenario name.
const bool g_ecmpRegistered = LoadBalancingRegistry::Add([] {
    LoadBalancingInfo e;
    e.name = "ecmp";
    e.help = "5-tuple hash per flow, on InfiniBand the subnet manager's LFT";
    e.onInfiniband = true;
    e.isDefault = true;
    return e;
}());

const bool g_qpEcmpRegistered = LoadBalancingRegistry::Add([] {
    LoadBalancingInfo e;
    e.name = "qp-ecmp";
    e.help = "ECMP over routing.qps_per_connection queue pairs per connection, auto 4";
    e.qpsPerConnection = 4;
    e.queuePairs = true;
    return e;
}());

const bool g_flowletRegistered = LoadBalancingRegistry::Add([] {
    LoadBalancingInfo e;
    e.name = "flowlet";
    e.help = "a random port per flowlet, LetFlow, gap routing.flowlet_gap_us";
    e.pathSelection = FabricSwitch::FLOWLET;
    return e;
}());

const bool g_adaptiveRegistered = LoadBalancingRegistry::Add([] {
    LoadBalancingInfo e;
    e.name = "adaptive";
    e.help = "the least-queued port per packet, reorders: use loss_recovery selective-repeat";
    e.pathSelection = FabricSwitch::ADAPTIVE;
    e.onInfiniband = true;
    return e;
}());

const bool g_sprayRegistered = LoadBalancingRegistry::Add([] {
    LoadBalancingInfo e;
    e.name = "spray";
    e.help = "a random port per packet, reorders: use loss_recovery selective-repeat";
    e.pathSelection = FabricSwitch::SPRAY;
    return e;
}());

} // namespace

} // namespace ns3

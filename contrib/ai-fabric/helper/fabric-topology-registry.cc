// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-topology-registry.h"

#include <cmath>

namespace ns3
{

template <>
std::vector<FabricTopologyInfo>&
FabricTopologyRegistry::Entries()
{
    static std::vector<FabricTopologyInfo> entries;
    return entries;
}

TopologySize
LeafSpineSize(uint64_t hosts, double over, uint32_t leafRadix)
{
    // Every host link ends on a leaf port; leaves have hosts / oversubscription up-ports, each
    // the end of a link to a spine port (a star has one switch with a port per host).
    TopologySize s;
    s.switchPorts = hosts + (over > 0 ? static_cast<uint64_t>(std::ceil(2 * hosts / over)) : 0);
    // Every switch has a forwarding entry per host (an upper bound).
    const double radix = leafRadix > 0 ? leafRadix : 64;
    const double switches = over > 0 ? std::ceil(double(s.switchPorts) / radix) : 1;
    s.routes = static_cast<uint64_t>(switches * double(hosts));
    return s;
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_INTERNET_HELPER_H
#define FABRIC_INTERNET_HELPER_H

#include "ns3/object-factory.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

class FabricTopology;

/**
 * \ingroup ai-fabric
 * Puts ns-3's own internet stack (IPv4, TCP) on the hosts of a FabricTopology, beside the RDMA
 * engine, so kernel-TCP traffic shares the fabric with RoCEv2: each host's FabricNetDevice
 * becomes an IPv4 interface with the host's address in a /8 (one connected network: switches
 * forward on the IPv4 destination, so hosts need no other route and no ns-3 routing runs on
 * switches), no ARP (the fabric delivers by address), no queue disc (the NIC's egress queues
 * are the queues), and a jumbo MTU (9000 B by default) so TCP segments carry 8,948 bytes.
 * Switches are not given an internet stack.
 */
class FabricInternetHelper
{
  public:
    /// Install on every host of `topo`. `mtu`: the hosts' IP MTU; `nicQueueBytes`: the NIC's
    /// egress queue limit per priority for IP traffic (a NIC ring; frames beyond it drop as
    /// tx-queue-full, which TCP recovers).
    static void Install(Ptr<FabricTopology> topo,
                        uint16_t mtu = 9000,
                        uint32_t nicQueueBytes = 4 << 20);

    /// Aggregate a HostStackCostModel made by `costModel` to every host of `topo` and attach
    /// it to the host's NIC, where ns-3's IPv4 stack then takes its frames through the model's
    /// interrupt moderation. (The Linux TCP model's LinuxTcpHelper does this itself.)
    static void InstallHostCosts(Ptr<FabricTopology> topo, const ObjectFactory& costModel);
};

} // namespace ns3

#endif // FABRIC_INTERNET_HELPER_H

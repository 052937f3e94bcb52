// SPDX-License-Identifier: GPL-2.0-only
// fabric: rocev2 -- RDMA NICs (RoCEv2) on Ethernet switches, PFC and ECN: the default.
#include "fabric-registry.h"
#include "run-transports.h"

#include "ns3/core-module.h"

namespace aifabric
{

using namespace ns3;

static const bool g_rocev2FabricRegistered = FabricRegistry::Add([] {
    FabricInfo f;
    f.name = "rocev2";
    f.help = "RDMA NICs on Ethernet switches with PFC and ECN, keys rdma.*";
    f.isDefault = true;
    f.linkLayer = "ethernet";
    f.headerBytes = 86; // the tuner's goodput per full 4096-byte packet: 86 B of headers
    f.packetLabel = "RDMA data packets";
    f.colour = "'#2b6cb0'";
    f.configure = [](const RunConfig& c, FabricTopologyHelper& helper) {
        if (!c.fabric.pfc)
        {
            helper.GetLinkHelper().SetFlowControlAttribute("EnabledPriorities", UintegerValue(0));
        }
    };
    f.install = InstallRdma;
    return f;
}());

} // namespace aifabric

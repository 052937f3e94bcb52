// SPDX-License-Identifier: GPL-2.0-only
// fabric: infiniband -- RDMA HCAs on InfiniBand ports and switches, lossless by credits.
#include "fabric-registry.h"
#include "run-transports.h"
#include "scenario-plugins.h"

#include "ns3/core-module.h"
#include "ns3/fabric-net-device.h"
#include "ns3/load-balancing-registry.h"

#include <cmath>
#include <sstream>

namespace aifabric
{

using namespace ns3;
using nlohmann::json;

namespace
{

const char* const kInfiniband = "infiniband";

std::vector<KeySpec>
InfinibandSchemaKeys()
{
    return {
        ObjectKey(kInfiniband, "InfiniBand fabric"),
        NumKey("infiniband.rx_buffer_kib",
               AtLeast(1),
               AtMost(65536),
               "receive buffer per port and VL (credits), KiB")
            .Default(128),
        NumKey("infiniband.fecn_threshold_kib",
               AtLeast(0),
               AtMost(65536),
               "egress queue that marks FECN, KiB (0 = off)")
            .Default(16),
        BoolKey("infiniband.sharp",
                "SHARP: an aggregation node in every switch (rail-fat-tree or star), for collnet")
            .Default(false),
    };
}

/// infiniband.*, whatever the fabric: SHARP only on InfiniBand.
void
ResolveInfiniband(const json& j, RunConfig& r)
{
    const json& ib = j[kInfiniband];
    r.fabric.infiniband.sharp = ib["sharp"];
    if (r.fabric.infiniband.sharp && r.fabric.name != kInfiniband)
    {
        throw ScenarioError("infiniband.sharp: SHARP reduces in InfiniBand switches: needs "
                            "fabric infiniband (got " +
                            r.fabric.name + ")");
    }
    r.fabric.infiniband.rxBufferKib = ib["rx_buffer_kib"];
    r.fabric.infiniband.fecnThresholdKib = ib["fecn_threshold_kib"];
}

/// What fabric infiniband cannot combine with.
void
FinishInfiniband(RunConfig& r)
{
    if (!r.fabric.pfc)
    {
        throw ScenarioError(
            "pfc: InfiniBand is lossless by credit flow control; pfc must stay true "
            "with fabric infiniband (pfc: false applies to rocev2 and tcp)");
    }
    if (!LoadBalancingRegistry::Find(r.routing.loadBalancing)->onInfiniband)
    {
        const std::string allowed = NamesWhere<LoadBalancingRegistry>(
            [](const LoadBalancingInfo& e) { return e.onInfiniband; },
            " or ");
        throw ScenarioError("routing.load_balancing: with fabric infiniband must be " + allowed +
                            " (what the subnet manager's LFT or adaptive routing does; got " +
                            r.routing.loadBalancing + ")");
    }
    // A full IB packet (4096 + LRH/BTH/RETH/ICRC/VCRC = 4138 B) must fit the buffer.
    const double minKib = std::ceil((4096.0 + 8 + 12 + 16 + 4 + 2) / 64) * 64 / 1024;
    if (r.fabric.infiniband.rxBufferKib < minKib)
    {
        std::ostringstream msg;
        msg << "infiniband.rx_buffer_kib: must hold one full packet: >= " << minKib << " KiB (got "
            << r.fabric.infiniband.rxBufferKib << ")";
        throw ScenarioError(msg.str());
    }
}

} // namespace

static const bool g_infinibandFabricRegistered = FabricRegistry::Add([] {
    FabricInfo f;
    f.name = kInfiniband;
    f.help = "HCAs on InfiniBand switches, lossless by credits, keys infiniband.*";
    f.linkLayer = kInfiniband;
    f.linkLayerWhy = "InfiniBand and Ethernet are different link layers; Ethernet fabrics carry "
                     "rocev2 and tcp jobs side by side";
    f.headerBytes = 26; // the tuner's goodput per full 4096-byte packet: 26 B of headers
    f.pauseFrames = false;
    f.flowControlLabel = "credits";
    f.packetLabel = "RDMA data packets";
    f.colour = "'#6a3d9a'";
    f.section = kInfiniband;
    f.schemaKeys = InfinibandSchemaKeys;
    f.resolve = ResolveInfiniband;
    f.finish = FinishInfiniband;
    f.configure = [](const RunConfig& c, FabricTopologyHelper& helper) {
        // IB ports with credit flow control (and the subnet manager's LFT in the switches).
        helper.SetAttribute("LinkLayer", EnumValue(FabricNetDevice::INFINIBAND));
        helper.GetLinkHelper().SetFlowControlAttribute(
            "RxBufferBytes",
            UintegerValue(uint32_t(c.fabric.infiniband.rxBufferKib * 1024)));
        helper.GetLinkHelper().SetFlowControlAttribute(
            "FecnThreshold",
            UintegerValue(uint32_t(c.fabric.infiniband.fecnThresholdKib * 1024)));
    };
    f.install = InstallRdma;
    return f;
}());

} // namespace aifabric

// SPDX-License-Identifier: GPL-2.0-only
#include "run-transports.h"

#include "json-input.h"
#include "scenario-plugins.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

namespace aifabric
{

using namespace ns3;

Ptr<CollectiveTransport>
InstallRdma(const RunConfig& c,
            Ptr<FabricTopology> topo,
            Ptr<LatencyHistogram> latency,
            std::vector<Ptr<RdmaNic>>& nics)
{
    RdmaHelper rdma;
    // The congestion control as registered beside its class: its TypeId and preset, its own
    // keys' attributes and what it needs of the NICs (an ACK per packet, a CNP interval).
    if (const RdmaCongestionControlInfo* cc =
            RdmaCongestionRegistry::Find(c.fabric.congestionControl))
    {
        rdma.SetCongestionControl(cc->typeId);
        for (const auto& [name, value] : cc->attributes)
        {
            rdma.SetCongestionControlAttribute(name, StringValue(value));
        }
        for (const auto& k : cc->keys)
        {
            if (!k.attribute.empty())
            {
                rdma.SetCongestionControlAttribute(
                    k.attribute,
                    StringValue(PluginValueText(c.fabric.congestionControlKeys.at(k.name))));
            }
        }
        for (const auto& [name, value] : cc->nicAttributes)
        {
            rdma.SetNicAttribute(name, StringValue(value));
        }
    }
    // The loss recovery as registered beside its class (loss_recovery, validated).
    if (const RdmaLossRecoveryInfo* lr = RdmaLossRecoveryRegistry::Find(c.fabric.lossRecovery))
    {
        rdma.SetLossRecovery(lr->typeId);
    }
    if (c.fabric.rdma.reorderThreshold > 0)
    {
        rdma.SetLossRecoveryAttribute("ReorderThreshold",
                                      UintegerValue(c.fabric.rdma.reorderThreshold));
    }
    rdma.SetNicAttribute("RetransmitTimeout",
                         TimeValue(ScenarioMs(c.fabric.rdma.retransmitTimeoutMs)));
    rdma.SetNicAttribute("PathMtu", UintegerValue(c.fabric.rdma.pathMtu));
    nics = rdma.Install(topo);
    for (auto& n : nics)
    {
        n->SetLatencyHistogram(latency);
    }
    for (Ptr<RdmaNic> n : rdma.InstallAggregators(topo))
    {
        nics.push_back(n);
    }
    Ptr<RdmaCollectiveTransport> r = CreateObject<RdmaCollectiveTransport>();
    r->SetAttribute("QpsPerConnection", UintegerValue(c.routing.qpsPerConnection));
    r->SetRanks(topo->GetEndpoints());
    return r;
}

} // namespace aifabric

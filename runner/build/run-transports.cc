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
InstallTcp(const RunConfig& c, Ptr<FabricTopology> topo, Ptr<LatencyHistogram> latency)
{
    Ptr<CollectiveTransport> network;
    if (c.tcpStack == "linux")
    {
        // --- the Linux TCP model on every host's NIC, NCCL's socket transport over it
        LinuxTcpHelper lt;
        lt.SetHostCosts(c.tcpHostCosts);
        lt.SetCostModelAttribute("Cores", UintegerValue(c.tcpCores));
        lt.SetStackAttribute("Tlp", BooleanValue(c.tcpTlp));
        lt.SetStackAttribute("Rack", BooleanValue(c.tcpRack));
        lt.Install(topo);
        Ptr<LinuxTcpCollectiveTransport> t = CreateObject<LinuxTcpCollectiveTransport>();
        t->SetAttribute("Threads", UintegerValue(c.tcpThreads));
        t->SetAttribute("SocketsPerThread", UintegerValue(c.tcpSocketsPerPeer / c.tcpThreads));
        t->SetRanks(topo->GetHosts());
        network = t;
    }
    else
    {
        // --- kernel TCP (ns-3's TCP) on every host's NIC
        FabricInternetHelper::Install(topo);
        if (c.tcpHostCosts)
        {
            ObjectFactory cost("ns3::HostStackCostModel");
            cost.Set("Cores", UintegerValue(c.tcpCores));
            FabricInternetHelper::InstallHostCosts(topo, cost);
        }
        Ptr<TcpCollectiveTransport> t = CreateObject<TcpCollectiveTransport>();
        t->SetRanks(topo->GetHosts());
        network = t;
    }
    for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
    {
        for (uint32_t p = 0; p < topo->GetNHostPorts(h); ++p)
        {
            topo->GetHostDevice(h, p)->TraceConnectWithoutContext(
                "MacRx",
                MakeBoundCallback(
                    +[](Ptr<LatencyHistogram> hist, const FabricFrame& f) {
                        if (f.protocol == 6 && f.payloadBytes > 0)
                        {
                            hist->Add(Simulator::Now().GetTimeStep() - f.txTimeStep);
                        }
                    },
                    latency));
        }
    }
    return network;
}

Ptr<CollectiveTransport>
InstallRdma(const RunConfig& c,
            Ptr<FabricTopology> topo,
            Ptr<LatencyHistogram> latency,
            std::vector<Ptr<RdmaNic>>& nics)
{
    RdmaHelper rdma;
    // The congestion control as registered beside its class: its TypeId and preset, its own
    // keys' attributes and what it needs of the NICs (an ACK per packet, a CNP interval).
    if (const RdmaCongestionControlInfo* cc = RdmaCongestionRegistry::Find(c.congestionControl))
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
                    StringValue(PluginValueText(c.congestionControlKeys.at(k.name))));
            }
        }
        for (const auto& [name, value] : cc->nicAttributes)
        {
            rdma.SetNicAttribute(name, StringValue(value));
        }
    }
    rdma.SetLossRecovery(c.lossRecovery == "selective-repeat" ? "ns3::RdmaSelectiveRepeat"
                                                              : "ns3::RdmaGoBackN");
    if (c.reorderThreshold > 0)
    {
        rdma.SetLossRecoveryAttribute("ReorderThreshold", UintegerValue(c.reorderThreshold));
    }
    rdma.SetNicAttribute("RetransmitTimeout", TimeValue(ScenarioMs(c.retransmitTimeoutMs)));
    rdma.SetNicAttribute("PathMtu", UintegerValue(c.pathMtu));
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
    r->SetAttribute("QpsPerConnection", UintegerValue(c.qpsPerConnection));
    r->SetRanks(topo->GetEndpoints());
    return r;
}

} // namespace aifabric

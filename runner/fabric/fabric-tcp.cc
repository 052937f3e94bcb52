// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-registry.h"
#include "run-ranks.h"
#include "scenario-tuning.h"
#include "simulation-builder.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <cctype>

namespace aifabric
{

using namespace ns3;
using nlohmann::json;

namespace
{

const char* const kTcp = "tcp";

/// A TCP algorithm's short name from the TypeId an attribute names ("ns3::TcpDctcp" -> dctcp,
/// "ns3::LinuxTcpCubic" -> cubic, "ns3::TcpPrrRecovery" -> prr with suffix "Recovery").
std::string
TcpAlgorithmName(const std::vector<std::pair<std::string, std::string>>& attributes,
                 const std::string& typeId,
                 const std::string& attribute,
                 const std::string& suffix)
{
    std::string name = AttributeText(attributes, typeId, attribute);
    for (const std::string prefix : {"ns3::", "LinuxTcp", "Tcp"})
    {
        if (name.rfind(prefix, 0) == 0)
        {
            name.erase(0, prefix.size());
        }
    }
    if (!suffix.empty() && name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
    {
        name.erase(name.size() - suffix.size());
    }
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) {
        return static_cast<char>(std::tolower(ch));
    });
    return name;
}

/// tcp.*: read, checked, and on fabric tcp what the stack runs in place of the RDMA fields.
void
ResolveTcp(const json& j, RunConfig& r)
{
    const json& t = j[kTcp];
    r.fabric.tcp.hostCosts = t["host_costs"];
    r.fabric.tcp.cores = t["cores"];
    r.fabric.tcp.stack = t["stack"];
    r.fabric.tcp.tlp = t["tlp"];
    r.fabric.tcp.rack = t["rack"];
    r.fabric.tcp.socketsPerPeer = t["sockets_per_peer"];
    r.fabric.tcp.threads = t["threads"];
    if (r.fabric.tcp.socketsPerPeer % r.fabric.tcp.threads != 0)
    {
        throw ScenarioError("tcp.sockets_per_peer: must be a multiple of tcp.threads (got " +
                            std::to_string(r.fabric.tcp.socketsPerPeer) + " sockets over " +
                            std::to_string(r.fabric.tcp.threads) + " threads)");
    }
    if (r.fabric.tcp.stack == TcpStack::NS3)
    {
        if (r.fabric.tcp.socketsPerPeer != 1 || r.fabric.tcp.threads != 1)
        {
            throw ScenarioError("tcp.sockets_per_peer: NCCL's multi-socket transport needs "
                                "tcp.stack linux (tcp.stack ns3 opens one socket per "
                                "connection: sockets_per_peer and threads must be 1)");
        }
        // ns-3's TCP has neither (its documentation, through ns-3.48).
        r.fabric.tcp.tlp = false;
        r.fabric.tcp.rack = false;
        r.resolved[kTcp]["tlp"] = false;
        r.resolved[kTcp]["rack"] = false;
    }
    if (r.fabric.name != kTcp)
    {
        return;
    }
    // The RDMA fields do not apply: report what the TCP stack runs instead.
    if (r.fabric.tcp.stack == TcpStack::NS3)
    {
        r.fabric.congestionControl =
            TcpAlgorithmName(r.attributes, "ns3::TcpL4Protocol", "SocketType", "");
        r.fabric.lossRecovery =
            TcpAlgorithmName(r.attributes, "ns3::TcpL4Protocol", "RecoveryType", "Recovery");
    }
    else
    {
        r.fabric.congestionControl =
            TcpAlgorithmName(r.attributes, "ns3::LinuxTcpStack", "CongestionControl", "");
        r.fabric.lossRecovery =
            std::string(r.fabric.tcp.rack ? "rack" : "sack") + (r.fabric.tcp.tlp ? "-tlp" : "");
    }
    r.resolved["congestion_control"] = r.fabric.congestionControl;
    r.resolved["loss_recovery"] = r.fabric.lossRecovery;
}

/// Kernel TCP on every host (the Linux model with NCCL's socket transport, or ns-3's TCP);
/// data segments' one-way latency into `latency`.
Ptr<CollectiveTransport>
InstallTcp(const RunConfig& c,
           Ptr<FabricTopology> topo,
           Ptr<LatencyHistogram> latency,
           std::vector<Ptr<RdmaNic>>&)
{
    Ptr<CollectiveTransport> network;
    if (c.fabric.tcp.stack == TcpStack::LINUX)
    {
        // --- the Linux TCP model on every host's NIC, NCCL's socket transport over it
        LinuxTcpHelper lt;
        lt.SetHostCosts(c.fabric.tcp.hostCosts);
        lt.SetCostModelAttribute("Cores", UintegerValue(c.fabric.tcp.cores));
        lt.SetStackAttribute("Tlp", BooleanValue(c.fabric.tcp.tlp));
        lt.SetStackAttribute("Rack", BooleanValue(c.fabric.tcp.rack));
        lt.Install(topo);
        Ptr<LinuxTcpCollectiveTransport> t = CreateObject<LinuxTcpCollectiveTransport>();
        t->SetAttribute("Threads", UintegerValue(c.fabric.tcp.threads));
        t->SetAttribute("SocketsPerThread",
                        UintegerValue(c.fabric.tcp.socketsPerPeer / c.fabric.tcp.threads));
        t->SetRanks(topo->GetHosts());
        network = t;
    }
    else
    {
        // --- kernel TCP (ns-3's TCP) on every host's NIC
        FabricInternetHelper::Install(topo);
        if (c.fabric.tcp.hostCosts)
        {
            ObjectFactory cost("ns3::HostStackCostModel");
            cost.Set("Cores", UintegerValue(c.fabric.tcp.cores));
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

/// TCP's segments: its hosts' ports count them (there are no RDMA NICs).
uint64_t
TcpDataPackets(const RunConfig& c, const Simulation& sim)
{
    uint64_t n = 0;
    if (c.fabric.name != kTcp)
    {
        return n;
    }
    const auto& topo = sim.topo;
    for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
    {
        for (uint32_t p = 0; p < topo->GetNHostPorts(h); ++p)
        {
            n += topo->GetHostDevice(h, p)->GetCounters().txDataFrames;
        }
    }
    return n;
}

/// summary.json's `tcp` and `tcp_message_breakdown_us`, in every run (zeros without TCP).
void
TcpSummary(const RunConfig& c, const Simulation& sim, json& s)
{
    const bool tcp = c.fabric.name == kTcp;
    // Same keys in every run: RDMA runs report zero TCP messages.
    s["tcp_message_breakdown_us"] = json{{"messages", 0},
                                         {"gpu_to_host", 0.0},
                                         {"send_cpu", 0.0},
                                         {"network", 0.0},
                                         {"recv_cpu", 0.0},
                                         {"host_to_gpu", 0.0}};
    // Same keys in every run: RDMA runs report zeros. ns-3's TCP counts no probes or RACK.
    json tcpCounters = json{{"stack", tcp ? NameOf(c.fabric.tcp.stack) : ""},
                            {"segments_sent", 0},
                            {"retransmitted_segments", 0},
                            {"timeouts", 0},
                            {"tlp_probes", 0},
                            {"tlp_recoveries", 0},
                            {"rack_losses", 0},
                            {"lost_retransmits", 0},
                            {"fast_retransmits", 0},
                            {"spurious_retransmits", 0},
                            {"acks_sent", 0},
                            {"gro_units", 0},
                            {"interrupts", 0}};
    const HostStackBreakdown* b = nullptr;
    uint64_t messages = 0;
    if (Ptr<TcpCollectiveTransport> t = DynamicCast<TcpCollectiveTransport>(sim.network))
    {
        b = &t->GetBreakdownTotals();
        messages = t->GetMessagesArrived();
        tcpCounters["retransmitted_segments"] = t->GetRetransmissions();
        tcpCounters["timeouts"] = t->GetTimeouts();
        tcpCounters["fast_retransmits"] = t->GetFastRecoveries();
    }
    else if (Ptr<LinuxTcpCollectiveTransport> l =
                 DynamicCast<LinuxTcpCollectiveTransport>(sim.network))
    {
        b = &l->GetBreakdownTotals();
        messages = l->GetMessagesArrived();
        const LinuxTcpStackCounters k = l->GetCounters();
        tcpCounters["segments_sent"] = k.segmentsSent;
        tcpCounters["retransmitted_segments"] = k.retransmits;
        tcpCounters["timeouts"] = k.timeouts;
        tcpCounters["tlp_probes"] = k.tlpProbes;
        tcpCounters["tlp_recoveries"] = k.tlpRecoveries;
        tcpCounters["rack_losses"] = k.rackLosses;
        tcpCounters["lost_retransmits"] = k.lostRetransmits;
        tcpCounters["fast_retransmits"] = k.fastRetransmits;
        tcpCounters["spurious_retransmits"] = k.spuriousRetransmits;
        tcpCounters["acks_sent"] = k.acksSent;
        tcpCounters["gro_units"] = k.groUnits;
        tcpCounters["interrupts"] = k.interrupts;
    }
    // Across MPI ranks, each rank's stacks and received messages are its own hosts': added.
    RunRanks::SumJson(tcpCounters);
    s[kTcp] = tcpCounters;
    if (b)
    {
        // Whole time steps, added over the ranks before the one division.
        std::vector<uint64_t> t{messages,
                                uint64_t(b->pcieTx.GetTimeStep()),
                                uint64_t(b->cpuTx.GetTimeStep()),
                                uint64_t(b->network.GetTimeStep()),
                                uint64_t(b->cpuRx.GetTimeStep()),
                                uint64_t(b->pcieRx.GetTimeStep())};
        RunRanks::Sum(t);
        const double n = std::max<double>(1.0, double(t[0]));
        auto us = [n](uint64_t steps) { return TimeStep(int64_t(steps)).GetSeconds() * 1e6 / n; };
        s["tcp_message_breakdown_us"] = json{{"messages", t[0]},
                                             {"gpu_to_host", us(t[1])},
                                             {"send_cpu", us(t[2])},
                                             {"network", us(t[3])},
                                             {"recv_cpu", us(t[4])},
                                             {"host_to_gpu", us(t[5])}};
    }
}

std::vector<KeySpec>
TcpSchemaKeys()
{
    return {
        ObjectKey(kTcp, "kernel TCP hosts"),
        ChoiceKey(
            "tcp.stack",
            NamesOf<TcpStack>(),
            "linux: the Linux TCP model on the fabric (RACK-TLP, GRO); ns3: ns-3's TCP over IPv4")
            .Default(TcpStack::LINUX),
        BoolKey("tcp.tlp", "tail loss probes (Linux default; stack linux only)").Default(true),
        BoolKey("tcp.rack",
                "RACK loss detection (Linux default; false: RFC 6675 dup-threshold; stack linux "
                "only)")
            .Default(true),
        IntKey("tcp.sockets_per_peer",
               AtLeast(1),
               AtMost(64),
               "NCCL sockets per connection (NCCL_NSOCKS_PERTHREAD x NCCL_SOCKET_NTHREADS)")
            .Default(1),
        IntKey(
            "tcp.threads",
            AtLeast(1),
            AtMost(16),
            "NCCL helper threads per connection (NCCL_SOCKET_NTHREADS); divides sockets_per_peer")
            .Default(1),
        BoolKey("tcp.host_costs", "model copies, syscalls, interrupts, cores").Default(true),
        IntKey("tcp.cores", AtLeast(1), AtMost(1024), "CPU cores per host for the network stack")
            .Default(4),
    };
}

/// What fabric tcp cannot combine with (after the rest of the run is resolved).
void
FinishTcp(RunConfig& r)
{
    if (r.IsFlowWorkload() || r.workload.background)
    {
        throw ScenarioError(
            std::string(r.workload.background ? "workload.background" : "workload.kind") +
            ": flow traffic runs on RDMA queue pairs: needs fabric rocev2 or "
            "infiniband (got tcp)");
    }
    if (r.topology.planes > 1)
    {
        throw ScenarioError("topology.planes: " + std::to_string(r.topology.planes) +
                            " planes need an RDMA fabric (rocev2 or infiniband): the kernel TCP "
                            "models send on one NIC port (a bonded interface is not modelled; "
                            "got fabric tcp)");
    }
    if (LoadBalancingRegistry::Find(r.routing.loadBalancing)->queuePairs)
    {
        throw ScenarioError("routing.load_balancing: " + r.routing.loadBalancing +
                            " needs RDMA queue pairs (fabric rocev2); kernel TCP spreads over "
                            "tcp.sockets_per_peer connections");
    }
}

} // namespace

static const bool g_tcpFabricRegistered = FabricRegistry::Add([] {
    FabricInfo f;
    f.name = kTcp;
    f.help = "kernel TCP and NCCL's socket transport on Ethernet switches, keys tcp.*";
    f.linkLayer = "ethernet";
    f.headerBytes = 86; // counted as RoCEv2's (rough)
    f.rdmaKeys = false; // its loss recovery is the stack's (RACK, TLP)
    f.packetLabel = "TCP segments";
    f.colour = "'#e08214'";
    f.section = kTcp;
    f.schemaKeys = TcpSchemaKeys;
    f.resolve = ResolveTcp;
    f.finish = FinishTcp;
    f.checkJob = [](const JobConfig& job) {
        return job.run.fabric.tcp.stack == TcpStack::LINUX
                   ? std::string()
                   : std::string(
                         "fabric: a tcp job beside other jobs needs tcp.stack 'linux' (got '") +
                         NameOf(job.run.fabric.tcp.stack) + "')";
    };
    f.configure = [](const RunConfig& c, FabricTopologyHelper& helper) {
        // Lossless TCP: PFC on TCP's class (priority 0, DSCP 0) as well as RoCE's.
        helper.GetLinkHelper().SetFlowControlAttribute("EnabledPriorities",
                                                       UintegerValue(c.fabric.pfc ? 0x09 : 0));
    };
    f.install = InstallTcp;
    f.dataPackets = TcpDataPackets;
    f.summarize = TcpSummary;
    f.dashboardRows = [](const std::vector<const RunConfig*>& runs, const DashboardRowAdder& row) {
        bool linuxTcp = false;
        for (const RunConfig* r : runs)
        {
            linuxTcp =
                linuxTcp || (r->fabric.name == kTcp && r->fabric.tcp.stack == TcpStack::LINUX);
        }
        if (!linuxTcp)
        {
            return;
        }
        // What repaired kernel TCP's losses: RACK, loss probes, or the RTO (row above).
        row("TCP RACK losses / probes", [](const json& s) {
            if (s[kTcp]["stack"] != "linux")
            {
                return std::string("-");
            }
            return std::to_string(s[kTcp]["rack_losses"].get<uint64_t>()) + " / " +
                   std::to_string(s[kTcp]["tlp_probes"].get<uint64_t>());
        });
    };
    return f;
}());

} // namespace aifabric

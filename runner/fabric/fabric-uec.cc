// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-uec.h"

#include "fabric-registry.h"
#include "run-ranks.h"
#include "scenario-plugins.h"
#include "scenario-schema.h"
#include "scenario-times.h"
#include "scenario.h"
#include "simulation-builder.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/uet-registry.h"

namespace aifabric
{

using namespace ns3;
using json = nlohmann::json;

namespace
{

const char* const kUec = "uec";

} // namespace

std::vector<KeySpec>
UecSchemaKeys()
{
    // KeySpec holds C strings: the texts live for the process.
    static const std::string lbText = "sender load balancing over entropy values (" +
                                      HelpClauses<UetLoadBalancerRegistry>() + ")";
    static const std::string ccText =
        "UET congestion control (" + HelpClauses<UetCongestionRegistry>() + ")";
    return {
        ObjectKey(kUec, "Ultra Ethernet fabric (fabric: uec)"),
        ChoiceKey("uec.cc", UetCongestionRegistry::Names(), ccText.c_str())
            .Default(DefaultUetCongestion()),
        ChoiceKey("uec.load_balancing", UetLoadBalancerRegistry::Names(), lbText.c_str())
            .Default(DefaultUetLoadBalancer()),
        BoolKey("uec.trimming",
                "switches trim overflowing UET packets to their headers (else drop them)")
            .Default(true),
        IntKey("uec.trim_bytes",
               AtLeast(28),
               AtMost(9000),
               "IPv4 bytes a trimmed packet keeps (84: IPv4+UDP+PDS+SES; Spectrum-4: 256)")
            .Default(84),
        ChoiceKey("uec.pds",
                  NamesOf<UecPds>(),
                  "packet delivery: reliable unordered or reliable ordered")
            .Default(UecPds::RUD),
        BoolKey("uec.pfc", "PFC on UET's data class (lossless UEC)").Default(false),
        NumKey("uec.ecn_min_bdp",
               AtLeast(0),
               AtMost(100),
               "ECN marking starts at this fraction of the BDP (marked on dequeue)")
            .Default(0.2),
        NumKey("uec.ecn_max_bdp",
               Above(0),
               AtMost(100),
               "every packet is marked above this fraction of the BDP")
            .Default(0.8),
        NumKey("uec.rto_us",
               AtLeast(0),
               AtMost(1e6),
               "retransmission timeout, us (0 = htsim's 15 us + 6 drain times of a one-BDP queue)")
            .Default(0),
        NumKey("uec.network_rtt_us",
               AtLeast(0),
               AtMost(1e6),
               "RTT NSCC sizes its window for, us (0 = the longest path's unloaded RTT)")
            .Default(0.0),
        ChoiceKey("uec.entropy_values",
                  {"1", "2", "4", "8", "16", "32", "64", "128", "256", "1024", "4096"},
                  "EVs a connection sprays over")
            .Default("64"),
        IntKey("uec.ack_bytes",
               AtLeast(1),
               AtMost(1 << 24),
               "the target acknowledges every this many bytes (and at once on CE, ack requests)")
            .Default(16384),
        NumKey("uec.receive_gbps",
               AtLeast(0),
               AtMost(100000),
               "the target moves received payload into memory at this rate, Gb/s (PCIe, host "
               "memory; 0 = as fast as it arrives); below the link rate a backlog builds and ACKs "
               "carry back-pressure on UEC's 0..127 scale")
            .Default(0.0),
        ChoiceKey("uec.mtu", {"1024", "2048", "4096", "8192"}, "payload bytes per packet")
            .Default("4096"),
        BoolKey(
            "uec.link_retry",
            "link-level retry on every link: a corrupted frame is replayed by the link (UEC LLR)")
            .Default(false),
        BoolKey("uec.credit_flow_control",
                "credit-based flow control on UET's data class instead of PFC (UEC CBFC; lossless, "
                "no PAUSE)")
            .Default(false),
    };
}

void
ResolveUec(const json& j, RunConfig& r)
{
    const json& u = j[kUec];
    UecConfig& c = r.fabric.uec;
    c.cc = u["cc"];
    c.loadBalancing = u["load_balancing"];
    c.trimming = u["trimming"];
    c.trimBytes = u["trim_bytes"];
    c.pds = u["pds"];
    c.pfc = u["pfc"];
    c.ecnMinBdp = u["ecn_min_bdp"];
    c.ecnMaxBdp = u["ecn_max_bdp"];
    c.rtoUs = u["rto_us"];
    c.networkRttUs = u["network_rtt_us"];
    c.entropyValues = static_cast<uint32_t>(std::stoul(u["entropy_values"].get<std::string>()));
    c.ackBytes = u["ack_bytes"];
    c.receiveGbps = u["receive_gbps"];
    if (c.receiveGbps > 0)
    {
        CheckRate("uec.receive_gbps",
                  c.receiveGbps,
                  c.receiveGbps * 1e9,
                  "the receiver's rate into memory");
    }
    c.mtu = static_cast<uint32_t>(std::stoul(u["mtu"].get<std::string>()));
    c.linkRetry = u["link_retry"];
    c.creditFlowControl = u["credit_flow_control"];
}

void
FinishUec(RunConfig& r)
{
    const UecConfig& c = r.fabric.uec;
    if (c.creditFlowControl && c.pfc)
    {
        throw ScenarioError("uec.credit_flow_control: CBFC replaces PFC on UET's data class; "
                            "set uec.pfc to false (or credit_flow_control to false)");
    }
    if (c.ecnMaxBdp < c.ecnMinBdp)
    {
        throw ScenarioError("uec.ecn_max_bdp: must be >= uec.ecn_min_bdp (" +
                            std::to_string(c.ecnMinBdp) + ")");
    }
    if (r.topology.planes > 1)
    {
        throw ScenarioError("topology.planes: fabric uec has one NIC port (planes 1)");
    }
    // The RDMA congestion control does not apply: record what runs.
    r.fabric.congestionControl = c.cc;
    r.resolved["congestion_control"] = c.cc;
}

uint32_t
UecPfcPriorities(const RunConfig& c)
{
    // UET data on traffic class 2 (UetNic DataPriority): lossless only with uec.pfc.
    return c.fabric.uec.pfc ? (1U << 2) : 0;
}

void
ConfigureUecLinks(const RunConfig& c, FabricLinkHelper& link)
{
    if (c.fabric.uec.creditFlowControl)
    {
        // Credits on UET data's class (2); its ACKs and trimmed headers stay lossy. Each credited
        // VC gets the IB default of 128 KiB, or twice the credit loop's bytes if more: a frame
        // to the far end (cable, a switch's forwarding latency, at most 1 us unless set) and
        // the credit update back, plus two largest frames.
        const double cableS = c.topology.hopLatencyUs > 0
                                  ? c.topology.hopLatencyUs * 1e-6
                                  : std::max(c.topology.hostCableM, c.topology.fabricCableM) * 5e-9;
        const double switchS =
            c.topology.hopLatencyUs > 0 ? c.topology.switchLatencyUs * 1e-6 : 1e-6;
        const double frameS = (c.fabric.uec.mtu + 200) * 8 / (c.topology.linkGbps * 1e9);
        const double loopBytes =
            c.topology.linkGbps * 1e9 / 8 * (2 * cableS + switchS + 2 * frameS);
        const uint32_t rx =
            std::max<uint32_t>(131072, uint32_t(std::ceil(2 * loopBytes / 64)) * 64);
        link.SetFlowControl("ns3::CbfcFlowControl");
        link.SetFlowControlAttribute("LosslessVcs", UintegerValue(1U << 2));
        link.SetFlowControlAttribute("RxBufferBytes", UintegerValue(rx));
    }
    else
    {
        link.SetFlowControlAttribute("EnabledPriorities", UintegerValue(UecPfcPriorities(c)));
    }
    if (c.fabric.uec.linkRetry)
    {
        link.SetLinkRetry("ns3::LinkLevelRetry");
    }
}

Ptr<CollectiveTransport>
InstallUec(const RunConfig& c, Ptr<FabricTopology> topo, Ptr<LatencyHistogram> latency)
{
    const UecConfig& u = c.fabric.uec;
    // The unloaded RTT of the longest path: host 0 to the last host and back.
    Time rtt = MicroSeconds(u.networkRttUs);
    if (u.networkRttUs <= 0)
    {
        const uint32_t last = topo->GetNHosts() - 1;
        FabricPathTimer timer(topo);
        FabricFrame data;
        data.src = topo->GetHostAddress(0).Get();
        data.dst = topo->GetHostAddress(last).Get();
        data.l3Bytes = uetwire::kDataHeaders + u.mtu;
        data.ComputeFlowHash();
        FabricFrame ack = data;
        std::swap(ack.src, ack.dst);
        ack.l3Bytes = uetwire::kAck;
        const uint32_t wd = topo->GetHostDevice(0)->WireBytes(data);
        const uint32_t wa = topo->GetHostDevice(0)->WireBytes(ack);
        rtt = timer.Path(0, data).TrainDelay(wd, wd, wd) +
              timer.Path(last, ack).TrainDelay(wa, wa, wa);
    }
    const double bdp = c.topology.linkGbps * 1e9 / 8 * rtt.GetSeconds();
    // A queue holds about one BDP before the buffer refuses (and trims), as htsim's UEC queues
    // do: the egress dynamic threshold alpha x free bytes, with alpha = BDP / the shared pool.
    // The retransmission timeout follows: htsim's 15 us + 6 drain times of such a queue.
    const Time rto = u.rtoUs > 0 ? NanoSeconds(int64_t(u.rtoUs * 1e3)) : MicroSeconds(15) + rtt * 6;
    for (uint32_t j = 0; j < topo->GetNSwitches(); ++j)
    {
        Ptr<SwitchBufferManager> bm = topo->GetSwitch(j)->GetBufferManager();
        UintegerValue perPort;
        UintegerValue size;
        bm->GetAttribute("BufferPerPort", perPort);
        bm->GetAttribute("BufferSize", size);
        const double pool = size.Get() > 0
                                ? double(size.Get())
                                : double(perPort.Get()) * topo->GetSwitch(j)->GetNPorts();
        bm->SetAttribute("EgressAlpha", DoubleValue(std::min(1.0, bdp / pool)));
        bm->SetAttribute("TrimEnabled", BooleanValue(u.trimming));
        bm->SetAttribute("TrimBytes", UintegerValue(u.trimBytes));
        bm->SetAttribute("EcnOnDequeue", BooleanValue(true));
        bm->SetAttribute("EcnKmin", UintegerValue(uint32_t(u.ecnMinBdp * bdp)));
        bm->SetAttribute("EcnKmax", UintegerValue(uint32_t(u.ecnMaxBdp * bdp)));
    }
    UetHelper uet;
    // The congestion control and load balancer as registered beside their classes.
    const UetCongestionInfo* cc = UetCongestionRegistry::Find(u.cc);
    uet.SetCongestionControl(cc->typeId);
    if (!cc->senderCc.empty())
    {
        uet.SetCongestionControlAttribute("SenderCc", StringValue(cc->senderCc));
    }
    uet.SetLoadBalancer(UetLoadBalancerRegistry::Find(u.loadBalancing)->typeId);
    uet.SetNicAttribute("Mtu", UintegerValue(u.mtu));
    uet.SetNicAttribute("Ordered", BooleanValue(u.pds == UecPds::ROD));
    uet.SetNicAttribute("Trimming", BooleanValue(u.trimming));
    uet.SetNicAttribute("RetransmitTimeout", TimeValue(rto));
    uet.SetNicAttribute("NetworkRtt", TimeValue(rtt));
    uet.SetNicAttribute("EntropyValues", UintegerValue(u.entropyValues));
    uet.SetNicAttribute("AckBytes", UintegerValue(u.ackBytes));
    if (u.receiveGbps > 0)
    {
        uet.SetNicAttribute("ReceiveRate", DataRateValue(DataRate(uint64_t(u.receiveGbps * 1e9))));
    }
    uet.Install(topo);
    for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
    {
        topo->GetHostDevice(h)->TraceConnectWithoutContext(
            "MacRx",
            MakeBoundCallback(
                +[](Ptr<LatencyHistogram> hist, const FabricFrame& f) {
                    if (f.l4Format == uetwire::kL4Uet && f.payloadBytes > 0)
                    {
                        hist->Add(Simulator::Now().GetTimeStep() - f.txTimeStep);
                    }
                },
                latency));
    }
    Ptr<UetCollectiveTransport> t = CreateObject<UetCollectiveTransport>();
    t->SetRanks(topo->GetHosts());
    return t;
}

json
UecSummary(Ptr<FabricTopology> topo)
{
    UetNicCounters s;
    bool receiveRate = false;
    for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
    {
        Ptr<UetNic> n = topo->GetHostNode(h)->GetObject<UetNic>();
        if (!n)
        {
            continue;
        }
        DataRateValue rx;
        n->GetAttribute("ReceiveRate", rx);
        receiveRate = receiveRate || rx.Get().GetBitRate() > 0;
        const UetNicCounters& x = n->GetCounters();
        s.dataPackets += x.dataPackets;
        s.retransmissions += x.retransmissions;
        s.timeouts += x.timeouts;
        s.acksSent += x.acksSent;
        s.nacksSent += x.nacksSent;
        s.trimmedReceived += x.trimmedReceived;
        s.trimNacks += x.trimNacks;
        s.rodNacks += x.rodNacks;
        s.evChanges += x.evChanges;
        s.duplicates += x.duplicates;
        s.messagesDelivered += x.messagesDelivered;
        s.failedPdcs += x.failedPdcs;
        s.creditsSent += x.creditsSent;
        s.creditRequestsSent += x.creditRequestsSent;
        s.peakReceiveBacklog = std::max(s.peakReceiveBacklog, x.peakReceiveBacklog);
        s.pressuredAcks += x.pressuredAcks;
    }
    uint64_t trims = 0;
    // Every port of the fabric: the host NICs' and the switches'.
    std::vector<Ptr<FabricNetDevice>> ports;
    for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
    {
        ports.push_back(topo->GetHostDevice(h));
    }
    for (uint32_t j = 0; j < topo->GetNSwitches(); ++j)
    {
        trims += topo->GetSwitch(j)->GetCounters().trims;
        for (uint16_t p = 0; p < topo->GetSwitch(j)->GetNPorts(); ++p)
        {
            ports.push_back(topo->GetSwitch(j)->GetPort(p));
        }
    }
    LinkRetryCounters llr;
    bool hasLlr = false;
    uint64_t cbfcStalls = 0;
    uint64_t cbfcUpdates = 0;
    bool hasCbfc = false;
    for (const auto& d : ports)
    {
        if (Ptr<LinkLevelRetry> r = d->GetLinkRetry())
        {
            hasLlr = true;
            const LinkRetryCounters& x = r->GetCounters();
            llr.replays += x.replays;
            llr.timerReplays += x.timerReplays;
            llr.framesReplayed += x.framesReplayed;
            llr.framesBad += x.framesBad;
            llr.nacksSent += x.nacksSent;
            llr.acksSent += x.acksSent;
            llr.fullStalls += x.fullStalls;
        }
        if (Ptr<CbfcFlowControl> f = DynamicCast<CbfcFlowControl>(d->GetFlowControl()))
        {
            hasCbfc = true;
            cbfcUpdates += f->GetFcpsSent();
            for (uint8_t vc = 0; vc < 8; ++vc)
            {
                cbfcStalls += f->GetStalls(vc);
            }
        }
    }
    json out{{"data_packets", s.dataPackets},
             {"retransmissions", s.retransmissions},
             {"timeouts", s.timeouts},
             {"trims", trims},
             {"trim_nacks", s.trimNacks},
             {"rod_nacks", s.rodNacks},
             {"nacks_sent", s.nacksSent},
             {"acks_sent", s.acksSent},
             {"ev_changes", s.evChanges},
             {"duplicates", s.duplicates},
             {"messages", s.messagesDelivered},
             {"failed_pdcs", s.failedPdcs},
             {"credits", s.creditsSent},
             {"credit_requests", s.creditRequestsSent}};
    if (receiveRate)
    {
        out["receive_backlog_peak_bytes"] = s.peakReceiveBacklog;
        out["pressured_acks"] = s.pressuredAcks;
    }
    if (hasLlr)
    {
        out["link_retry"] = json{{"replays", llr.replays},
                                 {"timer_replays", llr.timerReplays},
                                 {"frames_replayed", llr.framesReplayed},
                                 {"corrupt_frames", llr.framesBad},
                                 {"nacks", llr.nacksSent},
                                 {"acks", llr.acksSent},
                                 {"buffer_full_stalls", llr.fullStalls}};
    }
    if (hasCbfc)
    {
        out["credit_flow_control"] = json{{"stalls", cbfcStalls}, {"credit_updates", cbfcUpdates}};
    }
    return out;
}

static const bool g_uecFabricRegistered = FabricRegistry::Add([] {
    FabricInfo f;
    f.name = kUec;
    f.help = "Ultra Ethernet, UET NICs on lossy trimming Ethernet switches, keys uec.*";
    f.linkLayer = kUec;
    f.linkLayerWhy = "UEC's lossy, trimming switches and RDMA's or TCP's are configured "
                     "differently: a uec fabric runs uec jobs only";
    f.packetLabel = "UET data packets";
    f.section = kUec;
    f.schemaKeys = UecSchemaKeys;
    f.resolve = ResolveUec;
    f.finish = FinishUec;
    f.configure = [](const RunConfig& c, FabricTopologyHelper& helper) {
        ConfigureUecLinks(c, helper.GetLinkHelper());
    };
    f.install = [](const RunConfig& c,
                   Ptr<FabricTopology> topo,
                   Ptr<LatencyHistogram> latency,
                   std::vector<Ptr<RdmaNic>>&) { return InstallUec(c, topo, latency); };
    f.dataPackets = [](const RunConfig& c, const Simulation& sim) {
        return c.fabric.name == kUec ? UecSummary(sim.topo)["data_packets"].get<uint64_t>()
                                     : uint64_t(0);
    };
    f.failedConnections = [](const json& s) {
        return s.contains(kUec) ? s[kUec]["failed_pdcs"].get<uint64_t>() : uint64_t(0);
    };
    f.summarize = [](const RunConfig& c, const Simulation& sim, json& s) {
        if (c.fabric.name == kUec)
        {
            s[kUec] = UecSummary(sim.topo);
            // Sums over the NICs and ports this process ran (across MPI ranks: every rank's).
            RunRanks::SumJson(s[kUec], {"receive_backlog_peak_bytes"});
        }
    };
    return f;
}());

} // namespace aifabric

// SPDX-License-Identifier: GPL-2.0-only
// FabricSwitch: its attributes, ports and forwarding (ECMP, flowlets, adaptive and sprayed
// choice), the per-frame receive-to-egress path, and the switch side of UEC (trimmed frames,
// dequeue-time ECN). About 650 lines in one translation unit so that the per-frame calls from
// receive to the egress queue stay inlinable.
#include "fabric-switch.h"

#include "switch-buffer-manager.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-clock.h"
#include "ns3/fabric-enum-accessor.h"
#include "ns3/fabric-flow-control.h"
#include "ns3/ib-credit-flow-control.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pfc-flow-control.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uet-header-sizes.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricSwitch");
NS_OBJECT_ENSURE_REGISTERED(FabricSwitch);

TypeId
FabricSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricSwitch")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<FabricSwitch>()
            .AddAttribute("EcmpSeed",
                          "Per-switch ECMP hash seed; 0 = derived from the node id.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricSwitch::m_seed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PortToPortLatency",
                          "Forwarding latency from ingress to egress, first bit in to first "
                          "bit out when cut-through (Tomahawk-class ~500 ns L3; UNCONFIRMED for "
                          "Spectrum-4 / Tomahawk 5).",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&FabricSwitch::m_latency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("CutThrough",
                          "Forward after the header arrives (true) or after the whole frame "
                          "(store-and-forward). Cut-through assumes egress rate <= ingress.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FabricSwitch::m_cutThrough),
                          MakeBooleanChecker())
            .AddAttribute(
                "PathSelection",
                "Choice among equal-cost egress ports: Ecmp (5-tuple hash, static "
                "per flow), Lft (InfiniBand linear forwarding table by destination "
                "LID), Adaptive (least bytes queued on the packet's VL, per packet), "
                "Flowlet (a random port per flowlet, LetFlow), Spray (a random port per "
                "packet).",
                EnumValue(FabricSwitch::ECMP),
                MakeFabricEnumAccessor<FabricSwitch::PathSelection>(&FabricSwitch::m_pathSelection),
                MakeEnumChecker(FabricSwitch::ECMP,
                                "Ecmp",
                                FabricSwitch::LFT,
                                "Lft",
                                FabricSwitch::ADAPTIVE,
                                "Adaptive",
                                FabricSwitch::FLOWLET,
                                "Flowlet",
                                FabricSwitch::SPRAY,
                                "Spray"))
            .AddAttribute("FlowletGap",
                          "Flowlet: a flow idle this long may take another port (our default: "
                          "above the few-microsecond queueing difference between the paths of "
                          "a 400G Clos, so a new flowlet cannot overtake the previous one).",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&FabricSwitch::m_flowletGap),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("FlowletTableSize",
                          "Flowlet: slots of the flowlet table (flows hashed into it; a slot "
                          "taken by another flow starts a new flowlet).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&FabricSwitch::m_flowletSlots),
                          MakeUintegerChecker<uint32_t>(1, 1U << 24))
            .AddAttribute("BufferManager",
                          "The shared-buffer manager.",
                          PointerValue(),
                          MakePointerAccessor(&FabricSwitch::SetBufferManager,
                                              &FabricSwitch::GetBufferManager),
                          MakePointerChecker<SwitchBufferManager>())
            .AddTraceSource("Drop",
                            "A frame was dropped by the switch, with the reason.",
                            MakeTraceSourceAccessor(&FabricSwitch::m_dropTrace),
                            "ns3::FabricSwitch::DropTracedCallback")
            .AddTraceSource("EcnMark",
                            "A frame was marked CE (frame, egress port).",
                            MakeTraceSourceAccessor(&FabricSwitch::m_ecnTrace),
                            "ns3::FabricSwitch::EcnMarkTracedCallback")
            .AddTraceSource("Trim",
                            "A UET data frame was trimmed to its headers (frame, egress port).",
                            MakeTraceSourceAccessor(&FabricSwitch::m_trimTrace),
                            "ns3::FabricSwitch::EcnMarkTracedCallback");
    return tid;
}

FabricSwitch::FabricSwitch()
{
    m_buffer = CreateObject<SwitchBufferManager>();
}

FabricSwitch::~FabricSwitch() = default;

void
FabricSwitch::NotifyNewAggregate()
{
    if (m_seed == 0)
    {
        Ptr<Node> node = GetObject<Node>();
        if (node)
        {
            m_seed = FabricMix32(0x5eed0000U + node->GetId());
        }
    }
    Object::NotifyNewAggregate();
}

void
FabricSwitch::DoInitialize()
{
    if (!m_buffer->IsConfigured())
    {
        ConfigureBuffer();
    }
    Object::DoInitialize();
}

void
FabricSwitch::DoDispose()
{
    for (auto& p : m_ports)
    {
        p->SetFrameReceiver(nullptr);
    }
    m_ports.clear();
    m_port.clear();
    m_buffer = nullptr;
    Object::DoDispose();
}

uint16_t
FabricSwitch::AddPort(Ptr<FabricNetDevice> device)
{
    NS_ABORT_MSG_IF(m_ports.size() >= 0xffff, "FabricSwitch: too many ports");
    const uint16_t idx = static_cast<uint16_t>(m_ports.size());
    device->SetPortIndex(idx);
    device->SetFrameReceiver(this);
    device->SetAttribute("ReceiveLatency", TimeValue(m_latency));
    device->SetAttribute("CutThrough", BooleanValue(m_cutThrough));
    device->SetAttribute("TxQueueLimit", UintegerValue(0));
    m_ports.push_back(device);
    m_port.push_back(PortInfo{PeekPointer(device)});
    UpdatePortFlowControl(idx);
    return idx;
}

void
FabricSwitch::UpdatePortFlowControl(uint16_t i)
{
    PortInfo& port = m_port[i];
    port.fc = PeekPointer(m_ports[i]->GetFlowControl());
    port.ib = dynamic_cast<IbCreditFlowControl*>(port.fc);
    port.creditMask = port.ib ? port.ib->GetCreditedMask() : 0;
    port.fcCounts = port.fc->CountsTraffic();
    uint8_t mask = 0;
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (port.fc->IsLossless(p))
        {
            mask |= static_cast<uint8_t>(1U << p);
        }
    }
    port.losslessMask = mask;
}

uint16_t
FabricSwitch::GetNPorts() const
{
    return static_cast<uint16_t>(m_ports.size());
}

Ptr<FabricNetDevice>
FabricSwitch::GetPort(uint16_t i) const
{
    return m_ports.at(i);
}

FabricRoutingTable&
FabricSwitch::GetRoutingTable()
{
    return m_routes;
}

const FabricRoutingTable&
FabricSwitch::GetRoutingTable() const
{
    return m_routes;
}

Ptr<SwitchBufferManager>
FabricSwitch::GetBufferManager() const
{
    return m_buffer;
}

void
FabricSwitch::SetBufferManager(Ptr<SwitchBufferManager> bm)
{
    m_buffer = bm ? bm : CreateObject<SwitchBufferManager>();
}

uint32_t
FabricSwitch::GetEcmpSeed() const
{
    return m_seed;
}

const FabricSwitchCounters&
FabricSwitch::GetCounters() const
{
    return m_counters;
}

int64_t
FabricSwitch::AssignStreams(int64_t stream)
{
    return m_buffer->AssignStreams(stream);
}

void
FabricSwitch::GetPortHeadroom(std::vector<uint64_t>& headroom, std::vector<uint8_t>& lossless)
{
    headroom.assign(m_ports.size(), 0);
    lossless.assign(m_ports.size(), 0);
    for (size_t i = 0; i < m_ports.size(); ++i)
    {
        // Refresh the port's flow-control view (attributes may have changed since AddPort).
        UpdatePortFlowControl(static_cast<uint16_t>(i));
        if (m_port[i].losslessMask == 0 || m_port[i].ib)
        {
            continue; // lossy, or InfiniBand: credits, not PFC headroom
        }
        lossless[i] = m_port[i].losslessMask; // one headroom bucket per lossless priority
        Ptr<FabricChannel> ch = DynamicCast<FabricChannel>(m_ports[i]->GetChannel());
        double meters = ch ? ch->GetDelay().GetNanoSeconds() / 5.0 : 0.0;
        FabricNetDevice* peer = m_ports[i]->GetPeer();
        uint32_t mtu = std::max<uint32_t>(m_ports[i]->GetMtu(), peer ? peer->GetMtu() : 0);
        uint32_t frame = mtu + m_ports[i]->GetL2OverheadBytes() + m_ports[i]->GetPhyOverheadBytes();
        headroom[i] = PfcFlowControl::ComputeHeadroom(m_ports[i]->GetDataRate(), meters, frame);
    }
}

SwitchBufferManager::ConfigProblem
FabricSwitch::CheckBufferConfig()
{
    std::vector<uint64_t> headroom;
    std::vector<uint8_t> lossless;
    GetPortHeadroom(headroom, lossless);
    return m_buffer->CheckConfig(static_cast<uint32_t>(m_ports.size()), headroom, lossless);
}

void
FabricSwitch::ConfigureBuffer()
{
    std::vector<uint64_t> headroom;
    std::vector<uint8_t> lossless;
    GetPortHeadroom(headroom, lossless);
    m_buffer->Configure(static_cast<uint32_t>(m_ports.size()), headroom, lossless);
}

uint16_t
FabricSwitch::Choose(const FabricFrame& frame, const uint16_t* ports, uint32_t n) const
{
    if (n == 1)
    {
        return ports[0];
    }
    switch (m_pathSelection)
    {
    case LFT: {
        const uint32_t off = frame.dst - m_lftBase;
        if (off < m_lft.size() && m_lft[off] != 0xffff)
        {
            return m_lft[off];
        }
        return ports[frame.dst % n]; // D-mod-K
    }
    case ADAPTIVE: {
        const uint8_t prio = frame.priority & 7;
        uint16_t best = ports[frame.dst % n];
        uint32_t bestBytes = m_port[best].dev->GetQueueBytes(prio);
        for (uint32_t i = 0; i < n && bestBytes > 0; ++i)
        {
            const uint32_t q = m_port[ports[i]].dev->GetQueueBytes(prio);
            if (q < bestBytes)
            {
                best = ports[i];
                bestBytes = q;
            }
        }
        return best;
    }
    case FLOWLET:
        return ChooseFlowlet(frame, ports, n);
    case SPRAY:
        return ports[NextRandom() % n];
    default:
        return ports[FabricMix32(frame.flowHash ^ m_seed) % n];
    }
}

uint32_t
FabricSwitch::NextRandom() const
{
    uint32_t x = m_rng ? m_rng : (m_seed | 1U);
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    m_rng = x;
    return x;
}

uint16_t
FabricSwitch::ChooseFlowlet(const FabricFrame& frame, const uint16_t* ports, uint32_t n) const
{
    if (m_flowlets.empty())
    {
        m_flowlets.resize(m_flowletSlots);
    }
    Flowlet& f = m_flowlets[FabricMix32(frame.flowHash ^ m_seed) % m_flowlets.size()];
    const int64_t now = FabricClock::NowStep();
    if (f.port != 0xffff && f.tag == frame.flowHash &&
        now - f.lastStep <= m_flowletGap.GetTimeStep())
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            if (ports[i] == f.port) // still one of this destination's ports
            {
                f.lastStep = now;
                return f.port;
            }
        }
    }
    f.tag = frame.flowHash;
    f.port = ports[NextRandom() % n];
    f.lastStep = now;
    return f.port;
}

int32_t
FabricSwitch::SelectEgressPort(const FabricFrame& frame) const
{
    uint32_t n = 0;
    const uint16_t* ports = m_routes.Lookup(frame.dst, n);
    if (n == 0)
    {
        return -1;
    }
    return Choose(frame, ports, n);
}

void
FabricSwitch::BuildLinearForwardingTable(uint32_t firstLid, uint32_t lastLid)
{
    m_lft.assign(lastLid >= firstLid ? lastLid - firstLid + 1 : 0, 0xffff);
    m_lftBase = firstLid;
    std::vector<std::pair<const uint16_t*, uint32_t>> next; // group -> routes assigned so far
    for (uint32_t lid = firstLid; lid <= lastLid && lid >= firstLid; ++lid)
    {
        uint32_t n = 0;
        const uint16_t* ports = m_routes.Lookup(lid, n);
        if (n == 0)
        {
            continue;
        }
        size_t g = 0;
        while (g < next.size() && next[g].first != ports)
        {
            ++g;
        }
        if (g == next.size())
        {
            next.emplace_back(ports, 0);
        }
        m_lft[lid - firstLid] = ports[next[g].second++ % n];
    }
}

int32_t
FabricSwitch::GetLftPort(uint32_t lid) const
{
    const uint32_t off = lid - m_lftBase;
    return off < m_lft.size() && m_lft[off] != 0xffff ? m_lft[off] : -1;
}

void
FabricSwitch::Drop(const FabricFrame& frame, FabricDropReason reason)
{
    ++m_counters.drops[static_cast<size_t>(reason)];
    m_dropTrace(frame, reason);
}

void
FabricSwitch::DropOnIngress(FabricNetDevice* ingress,
                            const FabricFrame& frame,
                            FabricDropReason reason)
{
    // Never admitted: the ingress flow control gives back what the sender reserved (IB credits).
    m_port[ingress->GetPortIndex()].fc->NotifyLost(frame.priority & 7, ingress->BufferBytes(frame));
    Drop(frame, reason);
}

void
FabricSwitch::ReceiveFrame(FabricNetDevice* device, FabricFrame& frame)
{
    if (!m_buffer->IsConfigured())
    {
        ConfigureBuffer();
    }
    if (frame.ttl <= 1)
    {
        DropOnIngress(device, frame, FabricDropReason::TTL_EXPIRED);
        return;
    }
    --frame.ttl;
    frame.ipModified = 1;
    uint32_t n = 0;
    const uint16_t* ports = m_routes.Lookup(frame.dst, n);
    if (n == 0)
    {
        DropOnIngress(device, frame, FabricDropReason::NO_ROUTE);
        return;
    }
    const uint16_t out = n == 1 ? ports[0] : Choose(frame, ports, n); // one way down: no call
    FabricNetDevice* outDev = m_port[out].dev;
    if (!outDev->IsUp())
    {
        DropOnIngress(device, frame, FabricDropReason::LINK_DOWN);
        return;
    }
    const uint16_t in = device->GetPortIndex();
    if (m_port[in].ib && ((m_port[in].creditMask >> (frame.priority & 7)) & 1U))
    {
        ReceiveCredited(outDev, in, out, frame);
        return;
    }
    const uint8_t prio = frame.priority & 7;
    const bool lossless = (m_port[in].losslessMask >> prio) & 1U;
    const uint32_t bytes = outDev->BufferBytes(frame);
    SwitchBufferManager::Admission a =
        m_buffer->Admit(in,
                        out,
                        prio,
                        bytes,
                        lossless,
                        frame.ecn == FabricFrame::ECN_ECT0 || frame.ecn == FabricFrame::ECN_ECT1);
    if (!a.admitted)
    {
        if (frame.l4Format == uetwire::kL4Uet && frame.payloadBytes > 0 && m_buffer->TrimsFrames())
        {
            Trim(in, out, outDev, frame);
            return;
        }
        Drop(frame, a.reason);
        return;
    }
    if (m_port[in].fcCounts)
    {
        m_port[in].fc->NotifyReceive(prio, bytes);
    }
    if (a.pause)
    {
        m_port[in].fc->SetIngressCongested(prio, true);
    }
    if (a.ecnMark)
    {
        frame.ecn = FabricFrame::ECN_CE;
        ++m_counters.ecnMarks;
        if (!m_ecnTrace.IsEmpty())
        {
            m_ecnTrace(frame, out);
        }
    }
    frame.ingressPort = in;
    frame.bufShared = a.shared;
    frame.bufHeadroom = a.headroom;
    ++m_counters.forwarded;
    outDev->Enqueue(std::move(frame));
}

// Out of line: the admitted frames' path stays as it was.
[[gnu::noinline]] void
FabricSwitch::Trim(uint16_t in, uint16_t out, FabricNetDevice* outDev, FabricFrame& frame)
{
    // The last hop is the switch whose egress port faces the target host (not a switch).
    FabricNetDevice* peer = outDev->GetPeer();
    const bool lastHop = peer && !dynamic_cast<FabricSwitch*>(peer->GetFrameReceiver());
    frame.aux[0] |= lastHop ? uetwire::kTrimmedLastHop : uetwire::kTrimmed;
    frame.l3Bytes = std::min(frame.l3Bytes, m_buffer->GetTrimBytes());
    frame.payloadBytes = 0;
    frame.priority = m_buffer->GetTrimPriority();
    frame.dscp = static_cast<uint8_t>(frame.priority * 8);
    const uint8_t prio = frame.priority & 7;
    const bool lossless = (m_port[in].losslessMask >> prio) & 1U;
    const uint32_t bytes = outDev->BufferBytes(frame);
    SwitchBufferManager::Admission a = m_buffer->Admit(in, out, prio, bytes, lossless, false);
    if (!a.admitted)
    {
        Drop(frame, a.reason);
        return;
    }
    ++m_counters.trims;
    m_trimTrace(frame, out);
    if (m_port[in].fcCounts)
    {
        m_port[in].fc->NotifyReceive(prio, bytes);
    }
    if (a.pause)
    {
        m_port[in].fc->SetIngressCongested(prio, true);
    }
    frame.ingressPort = in;
    frame.bufShared = a.shared;
    frame.bufHeadroom = a.headroom;
    ++m_counters.forwarded;
    outDev->Enqueue(std::move(frame));
}

void
FabricSwitch::ReceiveCredited(FabricNetDevice* outDev,
                              uint16_t in,
                              uint16_t out,
                              FabricFrame& frame)
{
    // The sender had credits for this packet, so the ingress VL has room: no admission test.
    const uint8_t vl = frame.priority & 7;
    const uint32_t bytes = outDev->BufferBytes(frame);
    m_port[in].fc->NotifyReceive(vl, bytes);
    IbCreditFlowControl* egress = m_port[out].ib;
    if (egress && frame.ecn != FabricFrame::ECN_NOT_ECT && frame.ecn != FabricFrame::ECN_CE &&
        egress->ShouldMarkFecn(vl, outDev->GetQueueBytes(vl), bytes))
    {
        frame.ecn = FabricFrame::ECN_CE; // BTH FECN
        ++m_counters.ecnMarks;
        if (!m_ecnTrace.IsEmpty())
        {
            m_ecnTrace(frame, out);
        }
    }
    frame.ingressPort = in;
    frame.bufShared = 0;
    frame.bufHeadroom = 0;
    ++m_counters.forwarded;
    outDev->Enqueue(std::move(frame));
}

void
FabricSwitch::PushTelemetry(FabricNetDevice* device, FabricFrame& frame) const
{
    // HPCC's INT at dequeue: the port's transmitted bytes with this packet, the bytes still
    // queued on the port and the time it leaves (the HPCC simulator's SwitchNotifyDequeue).
    FabricIntHop hop;
    hop.timeStep = Simulator::Now().GetTimeStep();
    hop.txBytes = device->GetCounters().txBytes + device->WireBytes(frame);
    hop.rateBps = device->GetDataRate().GetBitRate();
    uint32_t queued = 0;
    for (uint8_t p = 0; p < 8; ++p)
    {
        queued += device->GetQueueBytes(p);
    }
    hop.qlenBytes = queued;
    frame.telemetry.Push(hop);
}

void
FabricSwitch::NotifyDequeue(FabricNetDevice* device, FabricFrame& frame)
{
    if (frame.telemetry && frame.telemetry.Get()->IsCollecting())
    {
        PushTelemetry(device, frame);
    }
    const uint16_t in = frame.ingressPort;
    const uint8_t prio = frame.priority & 7;
    if (m_port[in].ib && ((m_port[in].creditMask >> prio) & 1U))
    {
        const uint32_t bytes = device->BufferBytes(frame);
        // CBFC on Ethernet: UEC's ECN on dequeue, from this credited queue's length (the frame
        // included), which the buffer manager does not account.
        if (m_buffer->MarksOnDequeue() &&
            (frame.ecn == FabricFrame::ECN_ECT0 || frame.ecn == FabricFrame::ECN_ECT1) &&
            m_buffer->MarkQueueOnDequeue(uint64_t(device->GetQueueBytes(prio)) + bytes))
        {
            frame.ecn = FabricFrame::ECN_CE;
            frame.ipModified = 1;
            ++m_counters.ecnMarks;
            if (!m_ecnTrace.IsEmpty())
            {
                m_ecnTrace(frame, device->GetPortIndex());
            }
        }
        m_port[in].fc->NotifyRelease(prio, bytes);
        return;
    }
    const bool lossless = (m_port[in].losslessMask >> prio) & 1U;
    const uint32_t bytes = device->BufferBytes(frame);
    // Read from the buffer manager at every dequeue: EcnOnDequeue and EcnEnabled may be set
    // after the switch is built (the runner sizes UEC's marking band from the built fabric).
    if (m_buffer->MarksOnDequeue() &&
        (frame.ecn == FabricFrame::ECN_ECT0 || frame.ecn == FabricFrame::ECN_ECT1) &&
        m_buffer->MarkOnDequeue(device->GetPortIndex(), prio))
    {
        frame.ecn = FabricFrame::ECN_CE;
        frame.ipModified = 1;
        ++m_counters.ecnMarks;
        if (!m_ecnTrace.IsEmpty())
        {
            m_ecnTrace(frame, device->GetPortIndex());
        }
    }
    if (m_buffer->Release(in,
                          device->GetPortIndex(),
                          prio,
                          bytes,
                          frame.bufShared,
                          frame.bufHeadroom,
                          lossless))
    {
        m_port[in].fc->SetIngressCongested(prio, false);
    }
    if (m_port[in].fcCounts)
    {
        m_port[in].fc->NotifyRelease(prio, bytes);
    }
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
// FabricNetDevice's configuration (attributes, framing of each link layer, flow control,
// scheduler, clients, link state, link-level retry) and ns-3's NetDevice interface. About 720 lines
// because the attribute table and the NetDevice accessors are long; the per-frame path is in
// fabric-net-device-datapath.cc and captures in fabric-net-device-capture.cc.
#include "fabric-net-device.h"

#include "fabric-channel.h"
#include "fabric-egress-scheduler.h"
#include "fabric-ethernet-header.h"
#include "strict-priority-egress-scheduler.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/fabric-enum-accessor.h"
#include "ns3/fabric-flow-control.h"
#include "ns3/ib-lrh-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/link-level-retry.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pfc-header.h"
#include "ns3/pointer.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/tcp-header.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricNetDevice");
NS_OBJECT_ENSURE_REGISTERED(FabricNetDevice);

void
FabricFrameReceiver::NotifyDequeue(FabricNetDevice*, FabricFrame&)
{
}

TypeId
FabricNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("AiFabric")
            .AddConstructor<FabricNetDevice>()
            .AddAttribute(
                "DataRate",
                "Line rate of the port (bit/s).",
                DataRateValue(DataRate("400Gbps")),
                MakeDataRateAccessor(&FabricNetDevice::SetDataRate, &FabricNetDevice::GetDataRate),
                MakeDataRateChecker())
            .AddAttribute("Mtu",
                          "IP MTU in bytes (largest IPv4 packet). 4200 fits a 4096-byte RoCE "
                          "path MTU with its headers.",
                          UintegerValue(4200),
                          MakeUintegerAccessor(&FabricNetDevice::SetMtu, &FabricNetDevice::GetMtu),
                          MakeUintegerChecker<uint16_t>(68))
            .AddAttribute("VlanTagged",
                          "Frames carry an 802.1Q tag (4 bytes) whose PCP is the priority.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FabricNetDevice::SetVlanTagged,
                                              &FabricNetDevice::IsVlanTagged),
                          MakeBooleanChecker())
            .AddAttribute(
                "LinkLayer",
                "Link layer of the port: Ethernet (RoCEv2, TCP) or InfiniBand (LRH 8 + "
                "VCRC 2 bytes per packet, no minimum frame, no preamble/IFG; flow "
                "control and forwarding come from IbCreditFlowControl and the switch).",
                EnumValue(FabricNetDevice::ETHERNET),
                MakeFabricEnumAccessor<FabricNetDevice::LinkLayer>(&FabricNetDevice::SetLinkLayer),
                MakeEnumChecker(FabricNetDevice::ETHERNET,
                                "Ethernet",
                                FabricNetDevice::INFINIBAND,
                                "InfiniBand"))
            .AddAttribute("IbFramingBytes",
                          "InfiniBand only: physical-layer bytes per packet (start/end "
                          "delimiters, idles). 0 by default: 64b/66b encoding is already "
                          "outside the data rate and the delimiter cost is UNCONFIRMED.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricNetDevice::SetIbFramingBytes,
                                               &FabricNetDevice::GetIbFramingBytes),
                          MakeUintegerChecker<uint32_t>(0, 64))
            .AddAttribute("TxQueueLimit",
                          "Egress queue limit per priority in bytes for hosts (0 = unlimited). "
                          "Switch ports are governed by the switch buffer manager instead.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricNetDevice::m_txQueueLimit),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute(
                "ReceiveErrorRate",
                "Probability in [0,1) that a received data frame is corrupt and "
                "dropped (reason 'corrupt').",
                DoubleValue(0.0),
                MakeDoubleAccessor(&FabricNetDevice::SetErrorRate, &FabricNetDevice::GetErrorRate),
                MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("ControlErrorRate",
                          "Probability in [0,1] that a received control frame (PFC PAUSE/resume, "
                          "InfiniBand flow-control packet) is corrupt and dropped (reason "
                          "'corrupt'); 0: control frames are never lost.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&FabricNetDevice::m_controlErrorRate),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("CutThrough",
                          "Receive side: a frame is handed on after its first bit arrives "
                          "(plus ReceiveLatency) instead of its last bit (store-and-forward).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FabricNetDevice::SetCutThrough,
                                              &FabricNetDevice::IsCutThrough),
                          MakeBooleanChecker())
            .AddAttribute("ReceiveLatency",
                          "Receive-side processing latency (a switch's port-to-port latency).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&FabricNetDevice::SetReceiveLatency,
                                           &FabricNetDevice::GetReceiveLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute(
                "LinkRetry",
                "Link-level retry (ns3::LinkLevelRetry; null: none). Both ends of a "
                "link need it.",
                PointerValue(),
                MakePointerAccessor(&FabricNetDevice::SetLinkRetry, &FabricNetDevice::GetLinkRetry),
                MakePointerChecker<LinkLevelRetry>())
            .AddAttribute("FlowControl",
                          "The link-level flow control object (e.g. ns3::PfcFlowControl).",
                          PointerValue(),
                          MakePointerAccessor(&FabricNetDevice::SetFlowControl,
                                              &FabricNetDevice::GetFlowControl),
                          MakePointerChecker<FabricFlowControl>())
            .AddAttribute(
                "Scheduler",
                "The egress scheduler over the 8 priority queues.",
                PointerValue(),
                MakePointerAccessor(&FabricNetDevice::SetScheduler, &FabricNetDevice::GetScheduler),
                MakePointerChecker<FabricEgressScheduler>())
            .AddTraceSource("MacTx",
                            "A frame starts transmission.",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_macTxTrace),
                            "ns3::FabricNetDevice::FrameTracedCallback")
            .AddTraceSource("MacRx",
                            "A data frame was received intact.",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_macRxTrace),
                            "ns3::FabricNetDevice::FrameTracedCallback")
            .AddTraceSource("Enqueue",
                            "A frame was queued for transmission.",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_enqueueTrace),
                            "ns3::FabricNetDevice::FrameTracedCallback")
            .AddTraceSource("Drop",
                            "A frame was dropped by this device, with the reason.",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_dropTrace),
                            "ns3::FabricNetDevice::DropTracedCallback")
            .AddTraceSource("QueueLength",
                            "Egress queue length changed (priority, bytes).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_queueLengthTrace),
                            "ns3::FabricNetDevice::QueueLengthTracedCallback")
            .AddTraceSource("Sniffer",
                            "Real Ethernet frames sent or received (for pcap).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_snifferTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PromiscSniffer",
                            "Real Ethernet frames sent or received (for promiscuous pcap).",
                            MakeTraceSourceAccessor(&FabricNetDevice::m_promiscSnifferTrace),
                            "ns3::Packet::TracedCallback");
    return tid;
}

FabricNetDevice::FabricNetDevice()
    : m_address(Mac48Address::Allocate()),
      m_rate("400Gbps")
{
    m_fsPerStep = 1000000000000000LL / Seconds(1).GetTimeStep();
    NS_ABORT_MSG_IF(m_fsPerStep < 1,
                    "FabricNetDevice needs an ns-3 time resolution of 1 fs or coarser");
    UpdateRateConstants();
    m_scheduler = CreateObject<StrictPriorityEgressScheduler>();
    m_flowControl = CreateObject<FabricFlowControl>();
    m_flowControl->SetDevice(this);
    m_errorRng = CreateObject<UniformRandomVariable>();
    m_txComplete = Ptr<EventImpl>(MakeEvent(&FabricNetDevice::TransmitComplete, this), false);
    m_macTxTrace.Bind(&m_traced, TRACED_MAC_TX);
    m_macRxTrace.Bind(&m_traced, TRACED_MAC_RX);
    m_enqueueTrace.Bind(&m_traced, TRACED_ENQUEUE);
    m_queueLengthTrace.Bind(&m_traced, TRACED_QUEUE_LENGTH);
    m_snifferTrace.Bind(&m_traced, TRACED_SNIFFER);
    m_promiscSnifferTrace.Bind(&m_traced, TRACED_PROMISC_SNIFFER);
}

FabricNetDevice::~FabricNetDevice() = default;

void
FabricNetDevice::SetVlanTagged(bool tagged)
{
    m_vlanTagged = tagged;
    UpdateFraming();
}

void
FabricNetDevice::SetLinkLayer(LinkLayer ll)
{
    m_linkLayer = ll;
    UpdateFraming();
}

void
FabricNetDevice::SetIbFramingBytes(uint32_t bytes)
{
    m_ibFraming = bytes;
    UpdateFraming();
}

uint32_t
FabricNetDevice::GetIbFramingBytes() const
{
    return m_ibFraming;
}

void
FabricNetDevice::UpdateFraming()
{
    m_l2Overhead = GetL2OverheadBytes();
    m_minFrame = m_linkLayer == INFINIBAND ? 0 : 64;
    m_phyOverhead = m_linkLayer == INFINIBAND ? m_ibFraming : 20;
}

bool
FabricNetDevice::IsVlanTagged() const
{
    return m_vlanTagged;
}

void
FabricNetDevice::SetReceiveLatency(Time latency)
{
    m_rxLatency = latency;
    m_rxLatencySteps = latency.GetTimeStep();
    ReceiveTimingChanged();
}

void
FabricNetDevice::ReceiveTimingChanged()
{
    if (m_channel)
    {
        m_channel->UpdateReceiveTiming(this); // the cable keeps a copy for its per-frame path
    }
}

void
FabricNetDevice::SetCutThrough(bool cutThrough)
{
    m_cutThrough = cutThrough;
    ReceiveTimingChanged();
}

Time
FabricNetDevice::GetReceiveLatency() const
{
    return m_rxLatency;
}

void
FabricNetDevice::DoInitialize()
{
    m_rxLatencySteps = m_rxLatency.GetTimeStep();
    ReceiveTimingChanged();
    NetDevice::DoInitialize();
}

void
FabricNetDevice::DoDispose()
{
    m_txComplete->Cancel();
    for (auto& q : m_queue)
    {
        q.Clear();
    }
    m_ctrlQueue.Clear();
    if (m_flowControl)
    {
        m_flowControl->Dispose();
    }
    m_flowControl = nullptr;
    m_scheduler = nullptr;
    m_node = nullptr;
    m_channel = nullptr;
    m_peer = nullptr;
    m_receiver = nullptr;
    m_udpHandlers.clear();
    m_tcpHandler = Callback<void, FabricNetDevice*, const FabricFrame&>();
    m_rxFilter = Callback<bool, const FabricFrame&>();
    if (m_llr)
    {
        m_llr->Dispose();
    }
    m_llr = nullptr;
    m_ipHandler = Callback<void, Ptr<Packet>>();
    m_rxCallback = NetDevice::ReceiveCallback();
    m_promiscCallback = NetDevice::PromiscReceiveCallback();
    m_linkChangeCallbacks.clear();
    NetDevice::DoDispose();
}

void
FabricNetDevice::UpdateRateConstants()
{
    uint64_t bps = m_rate.GetBitRate();
    NS_ABORT_MSG_IF(bps == 0, "FabricNetDevice::DataRate must be positive");
    // 8e15 fs per byte-second; rounding error < 0.5 fs per byte (2.5e-5 relative at 400G).
    m_fsPerByte = static_cast<int64_t>((8000000000000000ULL + bps / 2) / bps);
    if (m_fsPerByte < 1)
    {
        m_fsPerByte = 1;
    }
}

void
FabricNetDevice::SetDataRate(DataRate rate)
{
    m_rate = rate;
    UpdateRateConstants();
}

DataRate
FabricNetDevice::GetDataRate() const
{
    return m_rate;
}

Time
FabricNetDevice::BitTimes(uint64_t bits) const
{
    int64_t fs = static_cast<int64_t>(bits) * m_fsPerByte / 8;
    return TimeStep((fs + m_fsPerStep / 2) / m_fsPerStep);
}

uint32_t
FabricNetDevice::GetL2OverheadBytes() const
{
    if (m_linkLayer == INFINIBAND)
    {
        return 8 + 2; // LRH + VCRC
    }
    return 14 + 4 + (m_vlanTagged ? 4 : 0);
}

uint32_t
FabricNetDevice::ControlWireBytes(const FabricFrame& frame) const
{
    if (frame.kind == FabricFrame::ORDERED_SET)
    {
        return frame.l3Bytes; // a PCS block between frames: no MAC framing, preamble or IFG
    }
    const uint32_t body = frame.packet ? frame.packet->GetSize() : frame.l3Bytes;
    if (m_linkLayer == INFINIBAND)
    {
        // Link packets (flow control) carry no LRH/VCRC: their own CRC is in `body`.
        return body + m_phyOverhead;
    }
    uint32_t l2 = body + 14 + 4;
    return (l2 < 64 ? 64 : l2) + 20;
}

void
FabricNetDevice::Attach(Ptr<FabricChannel> channel)
{
    m_channel = channel;
}

FabricNetDevice*
FabricNetDevice::GetPeer() const
{
    return m_channel ? m_channel->GetPeer(this) : nullptr;
}

void
FabricNetDevice::SetFlowControl(Ptr<FabricFlowControl> fc)
{
    if (m_flowControl && m_flowControl != fc)
    {
        m_flowControl->SetDevice(nullptr);
    }
    m_flowControl = fc ? fc : CreateObject<FabricFlowControl>();
    m_flowControl->SetDevice(this);
    // the default flow control counts nothing
    m_hooks = static_cast<uint8_t>((m_hooks & ~HOOK_FC_COUNTS) |
                                   (fc && fc->CountsTraffic() ? HOOK_FC_COUNTS : 0));
}

void
FabricNetDevice::SetLinkRetry(Ptr<LinkLevelRetry> llr)
{
    if (m_llr && m_llr != llr)
    {
        m_llr->SetDevice(nullptr);
    }
    m_llr = llr;
    if (m_llr)
    {
        m_llr->SetDevice(this);
    }
    UpdateHooks();
}

Ptr<LinkLevelRetry>
FabricNetDevice::GetLinkRetry() const
{
    return m_llr;
}

void
FabricNetDevice::SetErrorRate(double rate)
{
    m_errorRate = rate;
    UpdateHooks();
}

double
FabricNetDevice::GetErrorRate() const
{
    return m_errorRate;
}

void
FabricNetDevice::UpdateHooks()
{
    uint8_t h = static_cast<uint8_t>(m_hooks & HOOK_FC_COUNTS);
    if (m_llr)
    {
        h |= HOOK_LLR;
    }
    if (m_llr || m_errorRate > 0.0 || !m_rxFilter.IsNull())
    {
        h |= HOOK_RX_CHECKS;
    }
    m_hooks = h;
}

Ptr<FabricFlowControl>
FabricNetDevice::GetFlowControl() const
{
    return m_flowControl;
}

void
FabricNetDevice::SetScheduler(Ptr<FabricEgressScheduler> s)
{
    m_scheduler = s ? s : Ptr<FabricEgressScheduler>(CreateObject<StrictPriorityEgressScheduler>());
    m_schedCountsSent = m_scheduler->CountsSent();
}

Ptr<FabricEgressScheduler>
FabricNetDevice::GetScheduler() const
{
    return m_scheduler;
}

void
FabricNetDevice::SetFrameReceiver(FabricFrameReceiver* receiver)
{
    m_receiver = receiver;
}

FabricFrameReceiver*
FabricNetDevice::GetFrameReceiver() const
{
    return m_receiver;
}

void
FabricNetDevice::RegisterUdpHandler(uint16_t port,
                                    Callback<void, FabricNetDevice*, const FabricFrame&> cb)
{
    for (auto& h : m_udpHandlers)
    {
        if (h.first == port)
        {
            h.second = cb;
            return;
        }
    }
    m_udpHandlers.emplace_back(port, cb);
}

void
FabricNetDevice::SetTcpHandler(Callback<void, FabricNetDevice*, const FabricFrame&> cb)
{
    m_tcpHandler = cb;
}

void
FabricNetDevice::SetPortIndex(uint16_t index)
{
    m_portIndex = index;
}

void
FabricNetDevice::SetIpv4Address(Ipv4Address a)
{
    m_ipv4 = a;
}

Ipv4Address
FabricNetDevice::GetIpv4Address() const
{
    return m_ipv4;
}

void
FabricNetDevice::SetReceiveFilter(Callback<bool, const FabricFrame&> filter)
{
    m_rxFilter = filter;
    UpdateHooks();
}

void
FabricNetDevice::SetLinkUp(bool up)
{
    if (up == m_linkUp)
    {
        return;
    }
    m_linkUp = up;
    if (m_llr)
    {
        m_llr->Reset(); // LLR re-initialises when the link comes back
    }
    for (auto& cb : m_linkChangeCallbacks)
    {
        cb();
    }
    if (up)
    {
        TryTransmit();
    }
    else
    {
        // Frames waiting for this port cannot leave: drop them now so buffers are released.
        TxFrame f;
        while (DequeueNext(f))
        {
            DropFrame(*f, FabricDropReason::LINK_DOWN);
        }
    }
}

uint32_t
FabricNetDevice::GetQueueBytes(uint8_t prio) const
{
    return m_queueBytes[prio & 7];
}

uint32_t
FabricNetDevice::GetQueueFrames(uint8_t prio) const
{
    return static_cast<uint32_t>(m_queue[prio & 7].Size());
}

const FabricDeviceCounters&
FabricNetDevice::GetCounters() const
{
    return m_counters;
}

void
FabricNetDevice::DropFrame(const FabricFrame& frame, FabricDropReason reason)
{
    ++m_counters.drops[static_cast<size_t>(reason)];
    m_dropTrace(frame, reason);
}

int64_t
FabricNetDevice::AssignStreams(int64_t stream)
{
    m_errorRng->SetStream(stream);
    return 1;
}

// ---------------------------------------------------------------- NetDevice API

void
FabricNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
FabricNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
FabricNetDevice::GetChannel() const
{
    return m_channel;
}

void
FabricNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
FabricNetDevice::GetAddress() const
{
    return m_address;
}

bool
FabricNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
FabricNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
FabricNetDevice::IsLinkUp() const
{
    return IsUp();
}

void
FabricNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChangeCallbacks.push_back(callback);
}

bool
FabricNetDevice::IsBroadcast() const
{
    return true;
}

Address
FabricNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
FabricNetDevice::IsMulticast() const
{
    return true;
}

Address
FabricNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
FabricNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
FabricNetDevice::IsBridge() const
{
    return false;
}

bool
FabricNetDevice::IsPointToPoint() const
{
    return true;
}

Ptr<Node>
FabricNetDevice::GetNode() const
{
    return m_node;
}

void
FabricNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
FabricNetDevice::NeedsArp() const
{
    return false;
}

void
FabricNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
FabricNetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback cb)
{
    m_promiscCallback = cb;
}

bool
FabricNetDevice::SupportsSendFrom() const
{
    return true;
}

} // namespace ns3

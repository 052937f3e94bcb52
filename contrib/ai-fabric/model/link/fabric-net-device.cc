// SPDX-License-Identifier: GPL-2.0-only
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
#include "ns3/host-stack-cost-model.h"
#include "ns3/ib-lrh-header.h"
#include "ns3/ipv4-header.h"
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
FabricFrameReceiver::NotifyDequeue(FabricNetDevice*, const FabricFrame&)
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
            .AddAttribute("ReceiveErrorRate",
                          "Probability in [0,1) that a received data frame is corrupt and "
                          "dropped (reason 'corrupt').",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&FabricNetDevice::m_errorRate),
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
    m_rxFilter = Callback<bool, const FabricFrame&>();
    m_hostStack = nullptr;
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
    m_fcCountsTraffic = fc && fc->CountsTraffic(); // the default flow control counts nothing
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
}

void
FabricNetDevice::SetLinkUp(bool up)
{
    if (up == m_linkUp)
    {
        return;
    }
    m_linkUp = up;
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
        FabricFrame f;
        while (DequeueNext(f))
        {
            DropFrame(f, FabricDropReason::LINK_DOWN);
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

// ---------------------------------------------------------------- transmit path

bool
FabricNetDevice::Enqueue(FabricFrame&& frame)
{
    if (frame.kind != FabricFrame::DATA)
    {
        SendControlFrame(std::move(frame));
        return true;
    }
    if (!m_linkUp)
    {
        DropFrame(frame, FabricDropReason::LINK_DOWN);
        return false;
    }
    const uint8_t p = frame.priority & 7;
    const uint32_t bytes = BufferBytes(frame);
    if (m_txQueueLimit != 0 && m_queueBytes[p] + bytes > m_txQueueLimit)
    {
        DropFrame(frame, FabricDropReason::TX_QUEUE_FULL);
        return false;
    }
    if (m_traced & TRACED_ENQUEUE)
    {
        m_enqueueTrace(frame);
    }
    m_queueBytes[p] += bytes;
    m_queue[p].PushBack(std::move(frame));
    m_nonEmptyMask |= static_cast<uint8_t>(1U << p);
    if (m_traced & TRACED_QUEUE_LENGTH)
    {
        m_queueLengthTrace(p, m_queueBytes[p]);
    }
    TryTransmit();
    return true;
}

void
FabricNetDevice::SendControlFrame(FabricFrame&& frame)
{
    m_ctrlQueue.PushBack(std::move(frame));
    TryTransmit();
}

void
FabricNetDevice::AddFrameSource(FabricFrameSource* source, uint8_t prio)
{
    m_sources[prio & 7].push_back(source);
}

void
FabricNetDevice::RemoveFrameSource(FabricFrameSource* source)
{
    for (auto& v : m_sources)
    {
        for (size_t i = 0; i < v.size(); ++i)
        {
            if (v[i] == source)
            {
                v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
                break;
            }
        }
    }
}

void
FabricNetDevice::WakeSource(uint8_t prio)
{
    m_sourceReadyMask |= static_cast<uint8_t>(1U << (prio & 7));
    TryTransmit();
}

void
FabricNetDevice::SetTxBlocked(uint8_t prio, bool blocked)
{
    const uint8_t bit = static_cast<uint8_t>(1U << (prio & 7));
    if (blocked)
    {
        m_blockedMask |= bit;
    }
    else
    {
        m_blockedMask &= static_cast<uint8_t>(~bit);
        TryTransmit();
    }
}

bool
FabricNetDevice::IsTxBlocked(uint8_t prio) const
{
    return (m_blockedMask >> (prio & 7)) & 1U;
}

bool
FabricNetDevice::DequeueNext(FabricFrame& out)
{
    if (!m_ctrlQueue.Empty())
    {
        m_ctrlQueue.PopFrontInto(out);
        return true;
    }
    for (;;)
    {
        const uint8_t eligible =
            static_cast<uint8_t>((m_nonEmptyMask | m_sourceReadyMask) & ~m_blockedMask);
        if (eligible == 0)
        {
            return false;
        }
        uint8_t p;
        if ((eligible & (eligible - 1)) == 0)
        {
            p = FabricEgressScheduler::HighestBit(eligible);
        }
        else
        {
            uint32_t head[8];
            for (uint8_t q = 0; q < 8; ++q)
            {
                head[q] = ((m_nonEmptyMask >> q) & 1U)
                              ? WireBytes(m_queue[q].Front())
                              : uint32_t(m_mtu) + m_l2Overhead + m_phyOverhead;
            }
            p = m_scheduler->Select(eligible, head);
        }
        const uint8_t bit = static_cast<uint8_t>(1U << p);
        if (m_nonEmptyMask & bit)
        {
            m_queue[p].PopFrontInto(out);
            m_queueBytes[p] -= BufferBytes(out);
            if (m_queue[p].Empty())
            {
                m_nonEmptyMask &= static_cast<uint8_t>(~bit);
            }
            if (m_traced & TRACED_QUEUE_LENGTH)
            {
                m_queueLengthTrace(p, m_queueBytes[p]);
            }
            if (m_receiver)
            {
                m_receiver->NotifyDequeue(this, out);
            }
        }
        else
        {
            auto& v = m_sources[p];
            bool got = false;
            const size_t n = v.size();
            for (size_t i = 0; i < n && !got; ++i)
            {
                size_t idx = m_sourceRr[p] + i;
                idx = idx >= n ? idx - n : idx;
                if (v[idx]->PullFrame(p, out))
                {
                    m_sourceRr[p] = static_cast<uint32_t>(idx + 1 >= n ? 0 : idx + 1);
                    got = true;
                }
            }
            if (!got)
            {
                m_sourceReadyMask &= static_cast<uint8_t>(~bit);
                continue;
            }
        }
        if (m_schedCountsSent)
        {
            m_scheduler->NotifySent(p, WireBytes(out));
        }
        return true;
    }
}

void
FabricNetDevice::TryTransmit()
{
    if (m_txEventPending || !m_channel)
    {
        return;
    }
    const int64_t now = Simulator::Now().GetTimeStep();
    if (now < m_busyUntil)
    {
        if (HasPendingTx())
        {
            m_txEventPending = true;
            Simulator::Schedule(TimeStep(m_busyUntil - now), m_txComplete);
        }
        return;
    }
    TransmitFrames(now == m_busyUntil, now);
}

void
FabricNetDevice::TransmitComplete()
{
    m_txEventPending = false;
    TransmitFrames(true, Simulator::Now().GetTimeStep());
}

void
FabricNetDevice::TransmitFrames(bool continueEpoch, int64_t now)
{
    FabricFrame f;
    bool sent = false;
    while (DequeueNext(f))
    {
        if (!m_linkUp)
        {
            DropFrame(f, FabricDropReason::LINK_DOWN);
            continue;
        }
        const bool control = f.kind != FabricFrame::DATA;
        StartTransmission(f, continueEpoch, now);
        continueEpoch = true;
        sent = true;
        // A link-level control frame that ends within this time step (an IB credit update is
        // 6 bytes) is followed back to back by the next frame, at its exact femtosecond end,
        // without an event of its own.
        if (!control || m_busyUntil > now + 1)
        {
            break;
        }
    }
    if (sent && HasPendingTx() && !m_txEventPending)
    {
        m_txEventPending = true;
        Simulator::Schedule(TimeStep(m_busyUntil - now), m_txComplete);
    }
}

void
FabricNetDevice::StartTransmission(FabricFrame& frame, bool continueEpoch, int64_t now)
{
    const uint32_t wire = WireBytes(frame);
    if (!continueEpoch)
    {
        m_epochStep = now;
        m_offsetFs = 0;
    }
    // m_offsetFs < m_fsPerStep here, so the first bit leaves during step m_epochStep.
    const int64_t firstBitStep = m_epochStep;
    m_offsetFs += static_cast<int64_t>(wire) * m_fsPerByte;
    const int64_t whole = m_offsetFs / m_fsPerStep;
    m_epochStep += whole;
    m_offsetFs -= whole * m_fsPerStep;
    const int64_t endStep = m_epochStep + (m_offsetFs > 0 ? 1 : 0);
    m_busyUntil = endStep;

    ++m_counters.txFrames;
    m_counters.txBytes += wire;
    if (frame.kind == FabricFrame::DATA)
    {
        ++m_counters.txDataFrames;
        if (m_fcCountsTraffic)
        {
            m_flowControl->NotifyTransmit(frame.priority & 7, wire);
        }
    }
    else if (frame.kind == FabricFrame::PFC)
    {
        ++m_counters.pfcFramesTx;
    }
    if (m_traced & TRACED_MAC_TX)
    {
        m_macTxTrace(frame);
    }
    if (m_traced & (TRACED_SNIFFER | TRACED_PROMISC_SNIFFER))
    {
        Sniff(frame, true);
    }
    m_channel->Transmit(this, frame, firstBitStep, endStep, now);
}

// ---------------------------------------------------------------- receive path

void
FabricNetDevice::Receive(FabricFrame& frame)
{
    if (!m_linkUp)
    {
        if (frame.kind == FabricFrame::DATA)
        {
            m_flowControl->NotifyLost(frame.priority & 7, BufferBytes(frame));
        }
        DropFrame(frame, FabricDropReason::LINK_DOWN);
        return;
    }
    if (frame.kind != FabricFrame::DATA)
    {
        ++m_counters.rxFrames;
        m_counters.rxBytes += WireBytes(frame);
        if (frame.kind == FabricFrame::PFC)
        {
            ++m_counters.pfcFramesRx;
        }
        if (m_traced & (TRACED_SNIFFER | TRACED_PROMISC_SNIFFER))
        {
            Sniff(frame, false);
        }
        m_flowControl->ReceiveControl(frame);
        return;
    }
    if ((m_errorRate > 0.0 && m_errorRng->GetValue() < m_errorRate) ||
        (!m_rxFilter.IsNull() && m_rxFilter(frame)))
    {
        m_flowControl->NotifyLost(frame.priority & 7, BufferBytes(frame));
        DropFrame(frame, FabricDropReason::CORRUPT);
        return;
    }
    ++m_counters.rxFrames;
    ++m_counters.rxDataFrames;
    m_counters.rxBytes += WireBytes(frame);
    if (m_traced & TRACED_MAC_RX)
    {
        m_macRxTrace(frame);
    }
    if (m_traced & (TRACED_SNIFFER | TRACED_PROMISC_SNIFFER))
    {
        Sniff(frame, false);
    }
    if (m_receiver)
    {
        m_receiver->ReceiveFrame(this, frame);
    }
    else
    {
        DeliverLocal(frame);
    }
}

void
FabricNetDevice::DeliverLocal(FabricFrame& frame)
{
    const uint8_t p = frame.priority & 7;
    const uint32_t bytes = BufferBytes(frame);
    // A host consumes at once: its receive buffer is released immediately.
    if (m_fcCountsTraffic)
    {
        m_flowControl->NotifyReceive(p, bytes);
        m_flowControl->NotifyRelease(p, bytes);
    }
    if (frame.protocol == 17)
    {
        for (auto& h : m_udpHandlers)
        {
            if (h.first == frame.dstPort)
            {
                h.second(this, frame);
                return;
            }
        }
    }
    if (!m_rxCallback.IsNull() && m_hostStack)
    {
        m_hostStack->ReceiveIpPacket(frame.ToL3Packet());
        return;
    }
    if (!m_rxCallback.IsNull())
    {
        Ptr<Packet> pkt = frame.ToL3Packet();
        FabricNetDevice* peer = GetPeer();
        Address from = peer ? Address(peer->m_address) : Address(Mac48Address::GetBroadcast());
        if (!m_promiscCallback.IsNull())
        {
            m_promiscCallback(this, pkt, 0x0800, from, m_address, NetDevice::PACKET_HOST);
        }
        m_rxCallback(this, pkt, 0x0800, from);
        return;
    }
    DropFrame(frame, FabricDropReason::NO_LISTENER);
}

void
FabricNetDevice::SetHostStackCostModel(HostStackCostModel* model)
{
    m_hostStack = model;
}

void
FabricNetDevice::DeliverToStack(Ptr<Packet> packet)
{
    if (m_rxCallback.IsNull())
    {
        return;
    }
    FabricNetDevice* peer = GetPeer();
    Address from = peer ? Address(peer->m_address) : Address(Mac48Address::GetBroadcast());
    m_rxCallback(this, packet, 0x0800, from);
}

void
FabricNetDevice::Sniff(const FabricFrame& frame, bool outgoing)
{
    Ptr<Packet> p = MaterializeEthernet(frame, outgoing);
    if (p)
    {
        m_snifferTrace(p);
        m_promiscSnifferTrace(p);
    }
}

uint32_t
FabricNetDevice::GetPcapDataLinkType() const
{
    return m_linkLayer == INFINIBAND ? 197 : 1; // ERF (records of type InfiniBand), Ethernet
}

Ptr<Packet>
FabricNetDevice::MaterializeInfiniBand(const FabricFrame& frame) const
{
    if (frame.kind != FabricFrame::DATA)
    {
        return nullptr;
    }
    Ptr<Packet> p = frame.ToTransportPacket();
    const uint32_t grh = frame.l3Bytes >= p->GetSize() + 40 ? 40 : 0;
    if (p->GetSize() + grh < frame.l3Bytes)
    {
        p->AddPaddingAtEnd(frame.l3Bytes - grh - p->GetSize());
    }
    if (grh)
    {
        // GRH: IPv6-like, next header 0x1B (IBA transport), GIDs fe80::LID.
        uint8_t b[40] = {};
        b[0] = 0x60;
        const uint16_t payLen = static_cast<uint16_t>(p->GetSize());
        b[4] = static_cast<uint8_t>(payLen >> 8);
        b[5] = static_cast<uint8_t>(payLen);
        b[6] = 0x1b;
        b[7] = 64;
        b[8] = 0xfe;
        b[9] = 0x80;
        b[22] = static_cast<uint8_t>(frame.src >> 8);
        b[23] = static_cast<uint8_t>(frame.src);
        b[24] = 0xfe;
        b[25] = 0x80;
        b[38] = static_cast<uint8_t>(frame.dst >> 8);
        b[39] = static_cast<uint8_t>(frame.dst);
        Ptr<Packet> g = Create<Packet>(b, 40);
        g->AddAtEnd(p);
        p = g;
    }
    IbLrhHeader lrh;
    lrh.m_vl = frame.priority & 7;
    lrh.m_sl = static_cast<uint8_t>((frame.dscp >> 3) & 15);
    lrh.m_lnh = grh ? IbLrhHeader::LNH_IBA_GLOBAL : IbLrhHeader::LNH_IBA_LOCAL;
    lrh.m_dlid = static_cast<uint16_t>(frame.dst);
    lrh.m_slid = static_cast<uint16_t>(frame.src);
    lrh.m_pktLenWords = static_cast<uint16_t>((8 + p->GetSize() + 3) / 4);
    p->AddHeader(lrh);
    p->AddPaddingAtEnd(2); // VCRC
    return p;
}

Ptr<Packet>
FabricNetDevice::MaterializeEthernet(const FabricFrame& frame, bool outgoing) const
{
    if (m_linkLayer == INFINIBAND)
    {
        return MaterializeInfiniBand(frame);
    }
    Ptr<Packet> p = frame.ToL3Packet();
    FabricNetDevice* peer = GetPeer();
    Mac48Address other = peer ? peer->m_address : Mac48Address::GetBroadcast();
    FabricEthernetHeader eth;
    eth.SetSource(outgoing ? m_address : other);
    if (frame.kind == FabricFrame::PFC)
    {
        eth.SetDestination(Mac48Address("01:80:c2:00:00:01"));
        eth.SetEtherType(PfcHeader::ETHERTYPE);
    }
    else
    {
        eth.SetDestination(outgoing ? other : m_address);
        eth.SetEtherType(0x0800);
        if (m_vlanTagged)
        {
            eth.SetVlanTag(frame.priority, 0);
        }
    }
    const uint32_t minPayload = 64 - 4 - eth.GetSerializedSize();
    if (p->GetSize() < minPayload)
    {
        p->AddPaddingAtEnd(minPayload - p->GetSize());
    }
    p->AddHeader(eth);
    return p;
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

bool
FabricNetDevice::Send(Ptr<Packet> packet, const Address&, uint16_t protocolNumber)
{
    if (protocolNumber != 0x0800)
    {
        return false; // the fabric carries IPv4 only
    }
    Ipv4Header ip;
    Ptr<Packet> copy = packet->Copy();
    copy->RemoveHeader(ip);
    FabricFrame f;
    f.kind = FabricFrame::DATA;
    f.src = ip.GetSource().Get();
    f.dst = ip.GetDestination().Get();
    f.protocol = ip.GetProtocol();
    f.dscp = static_cast<uint8_t>(ip.GetDscp());
    f.ecn = static_cast<uint8_t>(ip.GetEcn());
    f.ttl = ip.GetTtl();
    f.priority = static_cast<uint8_t>(f.dscp >> 3); // class selector -> 802.1p
    f.l3Bytes = packet->GetSize();
    f.payloadBytes = copy->GetSize();
    if (f.protocol == 17)
    {
        UdpHeader udp;
        copy->PeekHeader(udp);
        f.srcPort = udp.GetSourcePort();
        f.dstPort = udp.GetDestinationPort();
        f.payloadBytes -= 8;
    }
    else if (f.protocol == 6)
    {
        TcpHeader tcp;
        copy->PeekHeader(tcp);
        f.srcPort = tcp.GetSourcePort();
        f.dstPort = tcp.GetDestinationPort();
        f.seq = tcp.GetSequenceNumber().GetValue();
        f.payloadBytes -= tcp.GetSerializedSize();
    }
    f.txTimeStep = Simulator::Now().GetTimeStep();
    f.packet = packet;
    f.ComputeFlowHash();
    return Enqueue(std::move(f));
}

bool
FabricNetDevice::SendFrom(Ptr<Packet> packet,
                          const Address&,
                          const Address& dest,
                          uint16_t protocolNumber)
{
    return Send(packet, dest, protocolNumber);
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

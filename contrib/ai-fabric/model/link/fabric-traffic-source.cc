// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-traffic-source.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricTrafficSource");
NS_OBJECT_ENSURE_REGISTERED(FabricTrafficSource);

TypeId
FabricTrafficSource::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricTrafficSource")
            .SetParent<Application>()
            .SetGroupName("AiFabric")
            .AddConstructor<FabricTrafficSource>()
            .AddAttribute("Remote",
                          "Destination IPv4 address.",
                          Ipv4AddressValue(),
                          MakeIpv4AddressAccessor(&FabricTrafficSource::m_remote),
                          MakeIpv4AddressChecker())
            .AddAttribute("RemotePort",
                          "Destination UDP port.",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&FabricTrafficSource::m_remotePort),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("SourcePort",
                          "Source UDP port; 0 = 10000 + FlowId mod 50000 (ECMP entropy).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricTrafficSource::m_sourcePort),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("FlowId",
                          "Flow identifier carried in every datagram.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricTrafficSource::m_flowId),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PayloadSize",
                          "UDP payload bytes per datagram (>= 16 for the probe header).",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&FabricTrafficSource::m_payloadSize),
                          MakeUintegerChecker<uint32_t>(16, 65507))
            .AddAttribute("DataRate",
                          "Sending rate in wire bits/s; 0 = as fast as the NIC sends.",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&FabricTrafficSource::m_rate),
                          MakeDataRateChecker())
            .AddAttribute("MaxBytes",
                          "Total payload bytes to send; 0 = until the application stops.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricTrafficSource::m_maxBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Priority",
                          "802.1p priority / traffic class (3 = the usual lossless class).",
                          UintegerValue(3),
                          MakeUintegerAccessor(&FabricTrafficSource::m_priority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("EcnCapable",
                          "Send as ECT(0) so switches may mark CE.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FabricTrafficSource::m_ecnCapable),
                          MakeBooleanChecker())
            .AddAttribute("DeviceIndex",
                          "Index among the node's FabricNetDevices of the NIC to send from.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricTrafficSource::m_deviceIndex),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("Tx",
                            "A datagram was handed to the NIC.",
                            MakeTraceSourceAccessor(&FabricTrafficSource::m_txTrace),
                            "ns3::FabricNetDevice::FrameTracedCallback");
    return tid;
}

FabricTrafficSource::FabricTrafficSource() = default;
FabricTrafficSource::~FabricTrafficSource() = default;

void
FabricTrafficSource::DoDispose()
{
    m_wakeEvent.Cancel();
    if (m_device)
    {
        m_device->RemoveFrameSource(this);
        m_device = nullptr;
    }
    Application::DoDispose();
}

void
FabricTrafficSource::StartApplication()
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < GetNode()->GetNDevices(); ++i)
    {
        Ptr<FabricNetDevice> d = DynamicCast<FabricNetDevice>(GetNode()->GetDevice(i));
        if (d && k++ == m_deviceIndex)
        {
            m_device = PeekPointer(d);
            break;
        }
    }
    NS_ABORT_MSG_IF(!m_device,
                    "FabricTrafficSource: node has no FabricNetDevice #" << m_deviceIndex);
    if (m_sourcePort == 0)
    {
        m_sourcePort = static_cast<uint16_t>(10000 + m_flowId % 50000);
    }
    m_running = true;
    m_nextSend = Simulator::Now().GetTimeStep();
    m_device->AddFrameSource(this, m_priority);
    m_device->WakeSource(m_priority);
}

void
FabricTrafficSource::StopApplication()
{
    m_running = false;
    m_wakeEvent.Cancel();
    if (m_device)
    {
        m_device->RemoveFrameSource(this);
    }
}

void
FabricTrafficSource::Wake()
{
    m_wakeEvent.Expire();
    if (m_running && m_device)
    {
        m_device->WakeSource(m_priority);
    }
}

bool
FabricTrafficSource::IsFinished() const
{
    return m_maxBytes != 0 && m_sentBytes >= m_maxBytes;
}

bool
FabricTrafficSource::PullFrame(uint8_t, FabricFrame& out)
{
    if (!m_running || IsFinished())
    {
        return false;
    }
    const int64_t now = Simulator::Now().GetTimeStep();
    if (m_rate.GetBitRate() > 0 && now < m_nextSend)
    {
        if (!m_wakeEvent.IsPending())
        {
            m_wakeEvent.Set(
                Simulator::Schedule(TimeStep(m_nextSend - now), &FabricTrafficSource::Wake, this));
        }
        return false;
    }
    uint32_t payload = m_payloadSize;
    if (m_maxBytes != 0 && m_maxBytes - m_sentBytes < payload)
    {
        payload = static_cast<uint32_t>(m_maxBytes - m_sentBytes);
    }
    out = FabricFrame();
    out.kind = FabricFrame::DATA;
    out.l4Format = FabricFrame::L4_PROBE;
    out.src = m_device->GetIpv4Address().Get();
    out.dst = m_remote.Get();
    out.protocol = 17;
    out.srcPort = m_sourcePort;
    out.dstPort = m_remotePort;
    out.priority = m_priority;
    out.dscp = static_cast<uint8_t>(m_priority << 3);
    out.ecn = m_ecnCapable ? FabricFrame::ECN_ECT0 : FabricFrame::ECN_NOT_ECT;
    out.payloadBytes = payload;
    out.l3Bytes = payload + FabricFrame::IPV4_UDP_HEADER_BYTES;
    out.flowId = m_flowId;
    out.seq = static_cast<uint32_t>(m_sentPackets);
    out.txTimeStep = now;
    out.ComputeFlowHash();
    ++m_sentPackets;
    m_sentBytes += payload;
    if (m_rate.GetBitRate() > 0)
    {
        const int64_t start = std::max(now, m_nextSend);
        m_nextSend = start + m_rate.CalculateBytesTxTime(m_device->WireBytes(out)).GetTimeStep();
    }
    if (!m_txTrace.IsEmpty())
    {
        m_txTrace(out);
    }
    return true;
}

uint64_t
FabricTrafficSource::GetSentPackets() const
{
    return m_sentPackets;
}

uint64_t
FabricTrafficSource::GetSentPayloadBytes() const
{
    return m_sentBytes;
}

} // namespace ns3

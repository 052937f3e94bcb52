// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-traffic-sink.h"

#include "fabric-net-device.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricTrafficSink");
NS_OBJECT_ENSURE_REGISTERED(FabricTrafficSink);

TypeId
FabricTrafficSink::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricTrafficSink")
                            .SetParent<Application>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricTrafficSink>()
                            .AddAttribute("Port",
                                          "UDP port to listen on.",
                                          UintegerValue(9000),
                                          MakeUintegerAccessor(&FabricTrafficSink::m_port),
                                          MakeUintegerChecker<uint16_t>())
                            .AddTraceSource("Rx",
                                            "A datagram arrived (frame, one-way latency).",
                                            MakeTraceSourceAccessor(&FabricTrafficSink::m_rxTrace),
                                            "ns3::FabricTrafficSink::RxTracedCallback");
    return tid;
}

FabricTrafficSink::FabricTrafficSink() = default;
FabricTrafficSink::~FabricTrafficSink() = default;

void
FabricTrafficSink::StartApplication()
{
    for (uint32_t i = 0; i < GetNode()->GetNDevices(); ++i)
    {
        Ptr<FabricNetDevice> d = DynamicCast<FabricNetDevice>(GetNode()->GetDevice(i));
        if (d)
        {
            d->RegisterUdpHandler(m_port, MakeCallback(&FabricTrafficSink::Receive, this));
        }
    }
}

void
FabricTrafficSink::StopApplication()
{
}

void
FabricTrafficSink::Receive(FabricNetDevice*, const FabricFrame& frame)
{
    const Time now = Simulator::Now();
    const int64_t lat = now.GetTimeStep() - frame.txTimeStep;
    if (m_packets == 0)
    {
        m_first = now;
    }
    m_last = now;
    ++m_packets;
    m_bytes += frame.payloadBytes;
    m_latMin = std::min(m_latMin, lat);
    m_latMax = std::max(m_latMax, lat);
    m_latSum += double(lat);
    FlowStats& fs = m_flows[frame.flowId];
    if (fs.packets == 0)
    {
        fs.firstRx = now;
    }
    fs.lastRx = now;
    ++fs.packets;
    fs.bytes += frame.payloadBytes;
    if (frame.ecn == FabricFrame::ECN_CE)
    {
        ++fs.ceMarked;
        ++m_ce;
    }
    if (frame.seq != fs.nextSeq)
    {
        ++fs.outOfOrder;
    }
    fs.nextSeq = frame.seq + 1;
    if (!m_rxTrace.IsEmpty())
    {
        m_rxTrace(frame, TimeStep(lat));
    }
}

uint64_t
FabricTrafficSink::GetReceivedPackets() const
{
    return m_packets;
}

uint64_t
FabricTrafficSink::GetReceivedBytes() const
{
    return m_bytes;
}

uint64_t
FabricTrafficSink::GetCeMarkedPackets() const
{
    return m_ce;
}

Time
FabricTrafficSink::GetFirstRxTime() const
{
    return m_first;
}

Time
FabricTrafficSink::GetLastRxTime() const
{
    return m_last;
}

Time
FabricTrafficSink::GetMinLatency() const
{
    return m_packets ? TimeStep(m_latMin) : Time(0);
}

Time
FabricTrafficSink::GetMaxLatency() const
{
    return TimeStep(m_latMax);
}

Time
FabricTrafficSink::GetMeanLatency() const
{
    return m_packets ? TimeStep(static_cast<int64_t>(m_latSum / double(m_packets))) : Time(0);
}

const std::map<uint32_t, FabricTrafficSink::FlowStats>&
FabricTrafficSink::GetFlowStats() const
{
    return m_flows;
}

} // namespace ns3

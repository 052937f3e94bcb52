// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-link-helper.h"

#include "ns3/abort.h"
#include "ns3/enum.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-egress-scheduler.h"
#include "ns3/fabric-flow-control.h"
#include "ns3/fabric-net-device.h"
#include "ns3/link-level-retry.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

FabricLinkHelper::FabricLinkHelper()
{
    m_deviceFactory.SetTypeId("ns3::FabricNetDevice");
    m_channelFactory.SetTypeId("ns3::FabricChannel");
    m_flowControlFactory.SetTypeId("ns3::PfcFlowControl");
    m_schedulerFactory.SetTypeId("ns3::StrictPriorityEgressScheduler");
}

FabricLinkHelper::~FabricLinkHelper() = default;

void
FabricLinkHelper::SetDeviceAttribute(std::string name, const AttributeValue& value)
{
    m_deviceFactory.Set(name, value);
}

void
FabricLinkHelper::SetChannelAttribute(std::string name, const AttributeValue& value)
{
    m_channelFactory.Set(name, value);
}

void
FabricLinkHelper::SetLinkLayer(uint8_t linkLayer)
{
    if (linkLayer == FabricNetDevice::INFINIBAND)
    {
        m_deviceFactory.Set("LinkLayer", EnumValue(FabricNetDevice::INFINIBAND));
        m_deviceFactory.Set("Mtu", UintegerValue(4096 + 12 + 16 + 4));
        SetFlowControl("ns3::IbCreditFlowControl");
    }
    else
    {
        m_deviceFactory.Set("LinkLayer", EnumValue(FabricNetDevice::ETHERNET));
    }
}

void
FabricLinkHelper::SetFlowControl(std::string typeId)
{
    m_flowControlFactory = ObjectFactory();
    m_flowControlFactory.SetTypeId(typeId);
}

void
FabricLinkHelper::SetFlowControlAttribute(std::string name, const AttributeValue& value)
{
    m_flowControlFactory.Set(name, value);
}

void
FabricLinkHelper::SetLinkRetry(std::string typeId)
{
    m_linkRetry = !typeId.empty();
    m_linkRetryFactory = ObjectFactory();
    if (m_linkRetry)
    {
        m_linkRetryFactory.SetTypeId(typeId);
    }
}

void
FabricLinkHelper::SetLinkRetryAttribute(std::string name, const AttributeValue& value)
{
    m_linkRetryFactory.Set(name, value);
}

void
FabricLinkHelper::SetScheduler(std::string typeId)
{
    m_schedulerFactory = ObjectFactory();
    m_schedulerFactory.SetTypeId(typeId);
}

void
FabricLinkHelper::SetSchedulerAttribute(std::string name, const AttributeValue& value)
{
    m_schedulerFactory.Set(name, value);
}

Ptr<FabricNetDevice>
FabricLinkHelper::CreateDevice(Ptr<Node> node) const
{
    Ptr<FabricNetDevice> dev = m_deviceFactory.Create<FabricNetDevice>();
    dev->SetFlowControl(m_flowControlFactory.Create<FabricFlowControl>());
    dev->SetScheduler(m_schedulerFactory.Create<FabricEgressScheduler>());
    if (m_linkRetry)
    {
        dev->SetLinkRetry(m_linkRetryFactory.Create<LinkLevelRetry>());
    }
    node->AddDevice(dev);
    return dev;
}

NetDeviceContainer
FabricLinkHelper::Install(Ptr<Node> a, Ptr<Node> b)
{
    Ptr<FabricNetDevice> da = CreateDevice(a);
    Ptr<FabricNetDevice> db = CreateDevice(b);
    Ptr<FabricChannel> ch = m_channelFactory.Create<FabricChannel>();
    da->Attach(ch);
    db->Attach(ch);
    ch->Attach(da);
    ch->Attach(db);
    NetDeviceContainer c;
    c.Add(da);
    c.Add(db);
    return c;
}

NetDeviceContainer
FabricLinkHelper::Install(Ptr<Node> a, Ptr<Node> b, DataRate rate, double cableMeters)
{
    NetDeviceContainer c = Install(a, b);
    for (uint32_t i = 0; i < 2; ++i)
    {
        DynamicCast<FabricNetDevice>(c.Get(i))->SetDataRate(rate);
    }
    DynamicCast<FabricChannel>(c.Get(0)->GetChannel())->SetCableLength(cableMeters);
    return c;
}

NetDeviceContainer
FabricLinkHelper::Install(NodeContainer c)
{
    NS_ABORT_MSG_UNLESS(c.GetN() == 2, "FabricLinkHelper::Install: need exactly two nodes");
    return Install(c.Get(0), c.Get(1));
}

namespace
{

/**
 * Write one InfiniBand packet (LRH ... VCRC) as an ERF record of type 21 (InfiniBand) in a
 * pcap file of link type 197 (ERF): Wireshark and tshark decode it with their InfiniBand
 * dissector (there is no plain pcap link type for InfiniBand they read).
 */
void
WriteErfInfiniband(Ptr<PcapFileWrapper> file, Ptr<const Packet> packet)
{
    const Time now = Simulator::Now();
    const uint64_t ns = static_cast<uint64_t>(now.GetNanoSeconds());
    const uint64_t ts =
        ((ns / 1000000000ULL) << 32) | (((ns % 1000000000ULL) << 32) / 1000000000ULL);
    const uint32_t len = packet->GetSize();
    uint8_t h[16];
    for (int i = 0; i < 8; ++i)
    {
        h[i] = static_cast<uint8_t>(ts >> (8 * i)); // little-endian timestamp
    }
    h[8] = 21;   // ERF_TYPE_INFINIBAND
    h[9] = 0x04; // varying-length record
    const uint16_t rlen = static_cast<uint16_t>(16 + len);
    h[10] = static_cast<uint8_t>(rlen >> 8);
    h[11] = static_cast<uint8_t>(rlen);
    h[12] = 0; // loss counter
    h[13] = 0;
    h[14] = static_cast<uint8_t>(len >> 8); // wire length
    h[15] = static_cast<uint8_t>(len);
    Ptr<Packet> rec = Create<Packet>(h, 16);
    rec->AddAtEnd(packet);
    file->Write(now, rec);
}

} // namespace

void
FabricLinkHelper::EnablePcapInternal(std::string prefix,
                                     Ptr<NetDevice> nd,
                                     bool promiscuous,
                                     bool explicitFilename)
{
    Ptr<FabricNetDevice> dev = nd->GetObject<FabricNetDevice>();
    if (!dev)
    {
        return;
    }
    PcapHelper pcapHelper;
    std::string filename =
        explicitFilename ? prefix : pcapHelper.GetFilenameFromDevice(prefix, dev);
    Ptr<PcapFileWrapper> file =
        pcapHelper.CreateFile(filename,
                              std::ios::out,
                              static_cast<PcapHelper::DataLinkType>(dev->GetPcapDataLinkType()));
    const std::string source = promiscuous ? "PromiscSniffer" : "Sniffer";
    if (dev->GetLinkLayer() == FabricNetDevice::INFINIBAND)
    {
        dev->TraceConnectWithoutContext(source, MakeBoundCallback(&WriteErfInfiniband, file));
        return;
    }
    pcapHelper.HookDefaultSink<FabricNetDevice>(dev, source, file);
}

namespace
{

/// The packet an ascii line prints: the L3 packet on Ethernet, the IB packet on InfiniBand.
Ptr<Packet>
AsciiPacket(const FabricNetDevice* dev, const FabricFrame& frame)
{
    if (dev->GetLinkLayer() == FabricNetDevice::INFINIBAND && frame.kind == FabricFrame::DATA)
    {
        return dev->MaterializeEthernet(frame, true);
    }
    return frame.ToL3Packet();
}

void
AsciiFrameEvent(Ptr<OutputStreamWrapper> stream,
                std::string context,
                const FabricNetDevice* dev,
                char op,
                const FabricFrame& frame)
{
    std::ostream& os = *stream->GetStream();
    os << op << " " << Simulator::Now().GetSeconds() << " " << context << " ";
    AsciiPacket(dev, frame)->Print(os);
    os << "\n";
}

void
AsciiEnqueue(Ptr<OutputStreamWrapper> s,
             std::string ctx,
             const FabricNetDevice* d,
             const FabricFrame& f)
{
    AsciiFrameEvent(s, ctx, d, '+', f);
}

void
AsciiDequeue(Ptr<OutputStreamWrapper> s,
             std::string ctx,
             const FabricNetDevice* d,
             const FabricFrame& f)
{
    AsciiFrameEvent(s, ctx, d, '-', f);
}

void
AsciiReceive(Ptr<OutputStreamWrapper> s,
             std::string ctx,
             const FabricNetDevice* d,
             const FabricFrame& f)
{
    AsciiFrameEvent(s, ctx, d, 'r', f);
}

void
AsciiDrop(Ptr<OutputStreamWrapper> s,
          std::string ctx,
          const FabricNetDevice* d,
          const FabricFrame& f,
          FabricDropReason r)
{
    std::ostream& os = *s->GetStream();
    os << "d " << Simulator::Now().GetSeconds() << " " << ctx
       << " reason=" << FabricDropReasonName(r) << " ";
    AsciiPacket(d, f)->Print(os);
    os << "\n";
}

} // namespace

void
FabricLinkHelper::EnableAsciiInternal(Ptr<OutputStreamWrapper> stream,
                                      std::string prefix,
                                      Ptr<NetDevice> nd,
                                      bool explicitFilename)
{
    Ptr<FabricNetDevice> dev = nd->GetObject<FabricNetDevice>();
    if (!dev)
    {
        return;
    }
    if (!stream)
    {
        AsciiTraceHelper asciiTraceHelper;
        std::string filename =
            explicitFilename ? prefix : asciiTraceHelper.GetFilenameFromDevice(prefix, dev);
        stream = asciiTraceHelper.CreateFileStream(filename);
    }
    std::ostringstream ctx;
    ctx << "/NodeList/" << dev->GetNode()->GetId() << "/DeviceList/" << dev->GetIfIndex()
        << "/$ns3::FabricNetDevice";
    const FabricNetDevice* d = PeekPointer(dev);
    dev->TraceConnectWithoutContext("Enqueue",
                                    MakeBoundCallback(&AsciiEnqueue, stream, ctx.str(), d));
    dev->TraceConnectWithoutContext("MacTx",
                                    MakeBoundCallback(&AsciiDequeue, stream, ctx.str(), d));
    dev->TraceConnectWithoutContext("MacRx",
                                    MakeBoundCallback(&AsciiReceive, stream, ctx.str(), d));
    dev->TraceConnectWithoutContext("Drop", MakeBoundCallback(&AsciiDrop, stream, ctx.str(), d));
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-link-helper.h"

#include "ns3/abort.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-egress-scheduler.h"
#include "ns3/fabric-flow-control.h"
#include "ns3/fabric-net-device.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

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
        pcapHelper.CreateFile(filename, std::ios::out, PcapHelper::DLT_EN10MB);
    pcapHelper.HookDefaultSink<FabricNetDevice>(dev,
                                                promiscuous ? "PromiscSniffer" : "Sniffer",
                                                file);
}

namespace
{

void
AsciiFrameEvent(Ptr<OutputStreamWrapper> stream,
                std::string context,
                char op,
                const FabricFrame& frame)
{
    std::ostream& os = *stream->GetStream();
    os << op << " " << Simulator::Now().GetSeconds() << " " << context << " ";
    frame.ToL3Packet()->Print(os);
    os << "\n";
}

void
AsciiEnqueue(Ptr<OutputStreamWrapper> s, std::string ctx, const FabricFrame& f)
{
    AsciiFrameEvent(s, ctx, '+', f);
}

void
AsciiDequeue(Ptr<OutputStreamWrapper> s, std::string ctx, const FabricFrame& f)
{
    AsciiFrameEvent(s, ctx, '-', f);
}

void
AsciiReceive(Ptr<OutputStreamWrapper> s, std::string ctx, const FabricFrame& f)
{
    AsciiFrameEvent(s, ctx, 'r', f);
}

void
AsciiDrop(Ptr<OutputStreamWrapper> s, std::string ctx, const FabricFrame& f, FabricDropReason r)
{
    std::ostream& os = *s->GetStream();
    os << "d " << Simulator::Now().GetSeconds() << " " << ctx << " reason="
       << FabricDropReasonName(r) << " ";
    f.ToL3Packet()->Print(os);
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
    dev->TraceConnectWithoutContext("Enqueue", MakeBoundCallback(&AsciiEnqueue, stream, ctx.str()));
    dev->TraceConnectWithoutContext("MacTx", MakeBoundCallback(&AsciiDequeue, stream, ctx.str()));
    dev->TraceConnectWithoutContext("MacRx", MakeBoundCallback(&AsciiReceive, stream, ctx.str()));
    dev->TraceConnectWithoutContext("Drop", MakeBoundCallback(&AsciiDrop, stream, ctx.str()));
}

} // namespace ns3

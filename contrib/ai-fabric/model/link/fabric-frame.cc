// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-frame.h"

#include "fabric-probe-header.h"

#include "ns3/ipv4-header.h"
#include "ns3/tcp-header.h"
#include "ns3/udp-header.h"

#include <array>
#include <sstream>

namespace ns3
{

const char*
FabricDropReasonName(FabricDropReason r)
{
    switch (r)
    {
    case FabricDropReason::BUFFER_FULL:
        return "buffer-full";
    case FabricDropReason::HEADROOM_FULL:
        return "headroom-full";
    case FabricDropReason::CORRUPT:
        return "corrupt";
    case FabricDropReason::LINK_DOWN:
        return "link-down";
    case FabricDropReason::NO_ROUTE:
        return "no-route";
    case FabricDropReason::TX_QUEUE_FULL:
        return "tx-queue-full";
    case FabricDropReason::TTL_EXPIRED:
        return "ttl-expired";
    case FabricDropReason::NO_LISTENER:
        return "no-listener";
    case FabricDropReason::PFC_WATCHDOG:
        return "pfc-watchdog";
    default:
        return "unknown";
    }
}

void
FabricFrame::ComputeFlowHash()
{
    uint32_t h = FabricMix32(src ^ 0x9e3779b9U);
    h = FabricMix32(h ^ dst);
    h = FabricMix32(h ^ ((uint32_t(srcPort) << 16) | dstPort));
    h = FabricMix32(h ^ protocol);
    flowHash = h;
}

namespace
{

Ptr<Packet>
MaterializeRaw(const FabricFrame& f)
{
    uint32_t l4Bytes = f.l3Bytes > 20 ? f.l3Bytes - 20 : 0;
    uint32_t body = l4Bytes > 8 ? l4Bytes - 8 : 0;
    return Create<Packet>(body);
}

Ptr<Packet>
MaterializeProbe(const FabricFrame& f)
{
    uint32_t l4Bytes = f.l3Bytes > 20 ? f.l3Bytes - 20 : 0;
    uint32_t body = l4Bytes > 8 ? l4Bytes - 8 : 0;
    FabricProbeHeader probe;
    probe.SetFlowId(f.flowId);
    probe.SetSeq(f.seq);
    probe.SetTimestamp(f.txTimeStep);
    uint32_t pad = body > probe.GetSerializedSize() ? body - probe.GetSerializedSize() : 0;
    Ptr<Packet> p = Create<Packet>(pad);
    p->AddHeader(probe);
    return p;
}

std::array<FabricFrame::L4Materializer, FabricFrame::L4_MAX>&
Materializers()
{
    static std::array<FabricFrame::L4Materializer, FabricFrame::L4_MAX> table = [] {
        std::array<FabricFrame::L4Materializer, FabricFrame::L4_MAX> t{};
        t.fill(nullptr);
        t[FabricFrame::L4_RAW] = &MaterializeRaw;
        t[FabricFrame::L4_PROBE] = &MaterializeProbe;
        return t;
    }();
    return table;
}

void
FillIpv4(Ipv4Header& ip, const FabricFrame& f, uint32_t payloadSize)
{
    ip.SetSource(Ipv4Address(f.src));
    ip.SetDestination(Ipv4Address(f.dst));
    ip.SetProtocol(f.protocol);
    ip.SetPayloadSize(payloadSize);
    ip.SetTtl(f.ttl);
    ip.SetDscp(static_cast<Ipv4Header::DscpType>(f.dscp));
    ip.SetEcn(static_cast<Ipv4Header::EcnType>(f.ecn));
    ip.SetIdentification(static_cast<uint16_t>(f.seq));
    ip.EnableChecksum();
}

} // namespace

void
FabricFrame::RegisterL4Materializer(uint8_t format, L4Materializer fn)
{
    if (format < L4_MAX)
    {
        Materializers()[format] = fn;
    }
}

Ptr<Packet>
FabricFrame::ToTransportPacket() const
{
    L4Materializer fn = l4Format < L4_MAX ? Materializers()[l4Format] : nullptr;
    return fn ? fn(*this) : MaterializeRaw(*this);
}

Ptr<Packet>
FabricFrame::ToL3Packet() const
{
    if (kind != DATA)
    {
        return packet ? packet->Copy() : Create<Packet>(0);
    }
    if (packet)
    {
        Ptr<Packet> p = packet->Copy();
        if (ipModified)
        {
            Ipv4Header ip;
            p->RemoveHeader(ip);
            ip.SetEcn(static_cast<Ipv4Header::EcnType>(ecn));
            ip.SetTtl(ttl);
            ip.EnableChecksum();
            p->AddHeader(ip);
        }
        return p;
    }
    L4Materializer fn = l4Format < L4_MAX ? Materializers()[l4Format] : nullptr;
    Ptr<Packet> p = fn ? fn(*this) : MaterializeRaw(*this);
    if (protocol == 17 && l4Format != L4_RAW && p->GetSize() + 28 != l3Bytes)
    {
        // A materializer may build only the transport header; pad the rest of the payload.
        uint32_t want = l3Bytes > 28 ? l3Bytes - 28 : 0;
        if (p->GetSize() < want)
        {
            p->AddPaddingAtEnd(want - p->GetSize());
        }
    }
    if (protocol == 17)
    {
        UdpHeader udp;
        udp.SetSourcePort(srcPort);
        udp.SetDestinationPort(dstPort);
        p->AddHeader(udp);
    }
    else if (protocol == 6 && l4Format != L4_TCP)
    {
        TcpHeader tcp;
        tcp.SetSourcePort(srcPort);
        tcp.SetDestinationPort(dstPort);
        tcp.SetSequenceNumber(SequenceNumber32(seq));
        p->AddHeader(tcp);
    }
    Ipv4Header ip;
    FillIpv4(ip, *this, p->GetSize());
    p->AddHeader(ip);
    return p;
}

std::string
FabricFrame::ToString() const
{
    std::ostringstream os;
    if (kind == PFC)
    {
        os << "PFC";
        if (packet)
        {
            os << " ";
            packet->Print(os);
        }
        return os.str();
    }
    os << Ipv4Address(src) << ":" << srcPort << " > " << Ipv4Address(dst) << ":" << dstPort
       << " proto " << unsigned(protocol) << " len " << l3Bytes << " prio " << unsigned(priority)
       << " ecn " << unsigned(ecn) << " flow " << flowId << " seq " << seq;
    return os.str();
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
// FabricNetDevice's captures: the real Ethernet (802.1Q, IPv4, UDP/TCP, PFC) or InfiniBand
// (LRH, BTH, ICRC, VCRC) frame of a descriptor, built only when a pcap or ascii sink listens.
#include "fabric-channel.h"
#include "fabric-egress-scheduler.h"
#include "fabric-ethernet-header.h"
#include "fabric-net-device.h"
#include "strict-priority-egress-scheduler.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/fabric-enum-accessor.h"
#include "ns3/fabric-flow-control.h"
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
    if (frame.kind == FabricFrame::ORDERED_SET)
    {
        return nullptr; // a PCS ordered set (LLR ACK/NACK) is not a frame: captures omit it
    }
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

} // namespace ns3

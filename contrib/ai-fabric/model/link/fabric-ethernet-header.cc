// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-ethernet-header.h"

#include "ns3/address-utils.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricEthernetHeader);

TypeId
FabricEthernetHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricEthernetHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricEthernetHeader>();
    return tid;
}

TypeId
FabricEthernetHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
FabricEthernetHeader::GetSerializedSize() const
{
    return m_tagged ? 18 : 14;
}

void
FabricEthernetHeader::Serialize(Buffer::Iterator start) const
{
    WriteTo(start, m_dst);
    WriteTo(start, m_src);
    if (m_tagged)
    {
        start.WriteHtonU16(TPID_8021Q);
        start.WriteHtonU16(static_cast<uint16_t>((uint16_t(m_pcp & 7) << 13) | (m_vid & 0x0fff)));
    }
    start.WriteHtonU16(m_etherType);
}

uint32_t
FabricEthernetHeader::Deserialize(Buffer::Iterator start)
{
    ReadFrom(start, m_dst);
    ReadFrom(start, m_src);
    uint16_t t = start.ReadNtohU16();
    m_tagged = (t == TPID_8021Q);
    if (m_tagged)
    {
        uint16_t tci = start.ReadNtohU16();
        m_pcp = static_cast<uint8_t>(tci >> 13);
        m_vid = tci & 0x0fff;
        t = start.ReadNtohU16();
    }
    m_etherType = t;
    return GetSerializedSize();
}

void
FabricEthernetHeader::Print(std::ostream& os) const
{
    os << m_src << " > " << m_dst;
    if (m_tagged)
    {
        os << " vlan " << m_vid << " pcp " << unsigned(m_pcp);
    }
    os << " type 0x" << std::hex << m_etherType << std::dec;
}

void
FabricEthernetHeader::SetSource(Mac48Address a)
{
    m_src = a;
}

Mac48Address
FabricEthernetHeader::GetSource() const
{
    return m_src;
}

void
FabricEthernetHeader::SetDestination(Mac48Address a)
{
    m_dst = a;
}

Mac48Address
FabricEthernetHeader::GetDestination() const
{
    return m_dst;
}

void
FabricEthernetHeader::SetEtherType(uint16_t t)
{
    m_etherType = t;
}

uint16_t
FabricEthernetHeader::GetEtherType() const
{
    return m_etherType;
}

void
FabricEthernetHeader::SetVlanTag(uint8_t pcp, uint16_t vid)
{
    m_tagged = true;
    m_pcp = pcp & 7;
    m_vid = vid & 0x0fff;
}

bool
FabricEthernetHeader::HasVlanTag() const
{
    return m_tagged;
}

uint8_t
FabricEthernetHeader::GetPcp() const
{
    return m_pcp;
}

uint16_t
FabricEthernetHeader::GetVid() const
{
    return m_vid;
}

} // namespace ns3

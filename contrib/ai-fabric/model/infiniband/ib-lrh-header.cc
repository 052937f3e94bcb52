// SPDX-License-Identifier: GPL-2.0-only
#include "ib-lrh-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(IbLrhHeader);

TypeId
IbLrhHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IbLrhHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<IbLrhHeader>();
    return tid;
}

TypeId
IbLrhHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
IbLrhHeader::GetSerializedSize() const
{
    return 8;
}

void
IbLrhHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(static_cast<uint8_t>((m_vl & 0x0f) << 4)); // LVer 0
    i.WriteU8(static_cast<uint8_t>(((m_sl & 0x0f) << 4) | (m_lnh & 0x03)));
    i.WriteHtonU16(m_dlid);
    i.WriteHtonU16(m_pktLenWords & 0x07ff);
    i.WriteHtonU16(m_slid);
}

uint32_t
IbLrhHeader::Deserialize(Buffer::Iterator i)
{
    const uint8_t b0 = i.ReadU8();
    const uint8_t b1 = i.ReadU8();
    m_vl = b0 >> 4;
    m_sl = b1 >> 4;
    m_lnh = b1 & 0x03;
    m_dlid = i.ReadNtohU16();
    m_pktLenWords = i.ReadNtohU16() & 0x07ff;
    m_slid = i.ReadNtohU16();
    return 8;
}

void
IbLrhHeader::Print(std::ostream& os) const
{
    os << "LRH vl=" << unsigned(m_vl) << " sl=" << unsigned(m_sl) << " lnh=" << unsigned(m_lnh)
       << " dlid=" << m_dlid << " slid=" << m_slid << " len=" << m_pktLenWords * 4;
}

} // namespace ns3

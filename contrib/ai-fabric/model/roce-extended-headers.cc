// SPDX-License-Identifier: GPL-2.0-only
#include "roce-extended-headers.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceRethHeader);
NS_OBJECT_ENSURE_REGISTERED(RoceAethHeader);

TypeId
RoceRethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceRethHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RoceRethHeader>();
    return tid;
}

TypeId
RoceRethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RoceRethHeader::GetSerializedSize() const
{
    return 16;
}

void
RoceRethHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU64(m_va);
    i.WriteHtonU32(m_rkey);
    i.WriteHtonU32(m_length);
}

uint32_t
RoceRethHeader::Deserialize(Buffer::Iterator i)
{
    m_va = i.ReadNtohU64();
    m_rkey = i.ReadNtohU32();
    m_length = i.ReadNtohU32();
    return 16;
}

void
RoceRethHeader::Print(std::ostream& os) const
{
    os << "RETH va=" << m_va << " rkey=" << m_rkey << " len=" << m_length;
}

TypeId
RoceAethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceAethHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RoceAethHeader>();
    return tid;
}

TypeId
RoceAethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RoceAethHeader::GetSerializedSize() const
{
    return 4;
}

void
RoceAethHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(m_syndrome);
    i.WriteU8(static_cast<uint8_t>(m_msn >> 16));
    i.WriteHtonU16(static_cast<uint16_t>(m_msn & 0xffff));
}

uint32_t
RoceAethHeader::Deserialize(Buffer::Iterator i)
{
    m_syndrome = i.ReadU8();
    m_msn = uint32_t(i.ReadU8()) << 16;
    m_msn |= i.ReadNtohU16();
    return 4;
}

void
RoceAethHeader::Print(std::ostream& os) const
{
    os << "AETH syndrome=0x" << std::hex << unsigned(m_syndrome) << std::dec << " msn=" << m_msn;
}

} // namespace ns3

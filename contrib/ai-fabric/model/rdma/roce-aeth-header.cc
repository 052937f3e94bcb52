// SPDX-License-Identifier: GPL-2.0-only
#include "roce-aeth-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceAethHeader);

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

// SPDX-License-Identifier: GPL-2.0-only
#include "pfc-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PfcHeader);

TypeId
PfcHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<PfcHeader>();
    return tid;
}

TypeId
PfcHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
PfcHeader::GetSerializedSize() const
{
    return PAYLOAD_BYTES;
}

void
PfcHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU16(m_opcode);
    start.WriteHtonU16(m_vector);
    for (uint16_t q : m_quanta)
    {
        start.WriteHtonU16(q);
    }
    start.WriteU8(0, PAYLOAD_BYTES - 2 - 2 - 16);
}

uint32_t
PfcHeader::Deserialize(Buffer::Iterator start)
{
    m_opcode = start.ReadNtohU16();
    m_vector = start.ReadNtohU16();
    for (auto& q : m_quanta)
    {
        q = start.ReadNtohU16();
    }
    start.Next(PAYLOAD_BYTES - 2 - 2 - 16);
    return PAYLOAD_BYTES;
}

void
PfcHeader::Print(std::ostream& os) const
{
    os << "opcode=0x" << std::hex << m_opcode << " cev=0x" << m_vector << std::dec;
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (IsEnabled(p))
        {
            os << " p" << unsigned(p) << "=" << m_quanta[p];
        }
    }
}

void
PfcHeader::SetPause(uint8_t prio, uint16_t quanta)
{
    m_vector |= static_cast<uint16_t>(1U << (prio & 7));
    m_quanta[prio & 7] = quanta;
}

bool
PfcHeader::IsEnabled(uint8_t prio) const
{
    return (m_vector >> (prio & 7)) & 1U;
}

uint16_t
PfcHeader::GetQuanta(uint8_t prio) const
{
    return m_quanta[prio & 7];
}

uint16_t
PfcHeader::GetClassEnableVector() const
{
    return m_vector;
}

uint16_t
PfcHeader::GetOpcode() const
{
    return m_opcode;
}

} // namespace ns3

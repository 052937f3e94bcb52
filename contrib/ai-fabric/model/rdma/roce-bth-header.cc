// SPDX-License-Identifier: GPL-2.0-only
#include "roce-bth-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceBthHeader);

TypeId
RoceBthHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceBthHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RoceBthHeader>();
    return tid;
}

TypeId
RoceBthHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RoceBthHeader::GetSerializedSize() const
{
    return 12;
}

void
RoceBthHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(m_opcode);
    i.WriteU8(static_cast<uint8_t>((m_se ? 0x80 : 0) | 0x00)); // M=0, PadCnt=0, TVer=0
    i.WriteHtonU16(m_pkey);
    i.WriteU8(static_cast<uint8_t>((m_fecn ? 0x80 : 0) | (m_becn ? 0x40 : 0)));
    i.WriteU8(static_cast<uint8_t>(m_destQp >> 16));
    i.WriteHtonU16(static_cast<uint16_t>(m_destQp & 0xffff));
    i.WriteU8(m_ackReq ? 0x80 : 0);
    i.WriteU8(static_cast<uint8_t>(m_psn >> 16));
    i.WriteHtonU16(static_cast<uint16_t>(m_psn & 0xffff));
}

uint32_t
RoceBthHeader::Deserialize(Buffer::Iterator i)
{
    m_opcode = i.ReadU8();
    m_se = i.ReadU8() & 0x80;
    m_pkey = i.ReadNtohU16();
    uint8_t fb = i.ReadU8();
    m_fecn = fb & 0x80;
    m_becn = fb & 0x40;
    m_destQp = uint32_t(i.ReadU8()) << 16;
    m_destQp |= i.ReadNtohU16();
    m_ackReq = i.ReadU8() & 0x80;
    m_psn = uint32_t(i.ReadU8()) << 16;
    m_psn |= i.ReadNtohU16();
    return 12;
}

void
RoceBthHeader::Print(std::ostream& os) const
{
    os << "BTH opcode=0x" << std::hex << unsigned(m_opcode) << std::dec << " dqp=" << m_destQp
       << " psn=" << m_psn << (m_ackReq ? " A" : "") << (m_becn ? " BECN" : "");
}

void
RoceBthHeader::SetOpcode(uint8_t op)
{
    m_opcode = op;
}

uint8_t
RoceBthHeader::GetOpcode() const
{
    return m_opcode;
}

void
RoceBthHeader::SetDestQp(uint32_t qpn)
{
    m_destQp = qpn & 0xffffff;
}

uint32_t
RoceBthHeader::GetDestQp() const
{
    return m_destQp;
}

void
RoceBthHeader::SetPsn(uint32_t psn)
{
    m_psn = psn & 0xffffff;
}

uint32_t
RoceBthHeader::GetPsn() const
{
    return m_psn;
}

void
RoceBthHeader::SetAckRequest(bool a)
{
    m_ackReq = a;
}

bool
RoceBthHeader::GetAckRequest() const
{
    return m_ackReq;
}

void
RoceBthHeader::SetBecn(bool b)
{
    m_becn = b;
}

bool
RoceBthHeader::GetBecn() const
{
    return m_becn;
}

void
RoceBthHeader::SetPartitionKey(uint16_t pkey)
{
    m_pkey = pkey;
}

uint16_t
RoceBthHeader::GetPartitionKey() const
{
    return m_pkey;
}

} // namespace ns3

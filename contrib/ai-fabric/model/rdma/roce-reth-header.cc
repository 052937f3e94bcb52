// SPDX-License-Identifier: GPL-2.0-only
#include "roce-reth-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceRethHeader);

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

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-probe-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricProbeHeader);

TypeId
FabricProbeHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricProbeHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<FabricProbeHeader>();
    return tid;
}

TypeId
FabricProbeHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
FabricProbeHeader::GetSerializedSize() const
{
    return 16;
}

void
FabricProbeHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU32(m_flowId);
    start.WriteHtonU32(m_seq);
    start.WriteHtonU64(static_cast<uint64_t>(m_timestamp));
}

uint32_t
FabricProbeHeader::Deserialize(Buffer::Iterator start)
{
    m_flowId = start.ReadNtohU32();
    m_seq = start.ReadNtohU32();
    m_timestamp = static_cast<int64_t>(start.ReadNtohU64());
    return 16;
}

void
FabricProbeHeader::Print(std::ostream& os) const
{
    os << "flow=" << m_flowId << " seq=" << m_seq << " ts=" << m_timestamp;
}

void
FabricProbeHeader::SetFlowId(uint32_t id)
{
    m_flowId = id;
}

uint32_t
FabricProbeHeader::GetFlowId() const
{
    return m_flowId;
}

void
FabricProbeHeader::SetSeq(uint32_t seq)
{
    m_seq = seq;
}

uint32_t
FabricProbeHeader::GetSeq() const
{
    return m_seq;
}

void
FabricProbeHeader::SetTimestamp(int64_t ts)
{
    m_timestamp = ts;
}

int64_t
FabricProbeHeader::GetTimestamp() const
{
    return m_timestamp;
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_PROBE_HEADER_H
#define FABRIC_PROBE_HEADER_H

#include "ns3/header.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Payload header of the fabric test traffic (FabricTrafficSource): flow id, sequence number
 * and the send timestamp, 16 bytes in network byte order. Only materialised for pcap/ascii
 * traces; on the fabric the same fields travel in the FabricFrame descriptor.
 */
class FabricProbeHeader : public Header
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    void SetFlowId(uint32_t id);
    uint32_t GetFlowId() const;
    void SetSeq(uint32_t seq);
    uint32_t GetSeq() const;
    /// \param ts send time in ns-3 time steps
    void SetTimestamp(int64_t ts);
    int64_t GetTimestamp() const;

  private:
    uint32_t m_flowId{0};
    uint32_t m_seq{0};
    int64_t m_timestamp{0};
};

} // namespace ns3

#endif // FABRIC_PROBE_HEADER_H

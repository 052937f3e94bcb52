// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_RETH_HEADER_H
#define ROCE_RETH_HEADER_H

#include "ns3/header.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * RDMA Extended Transport Header (16 bytes): virtual address, remote key, DMA length. Carried by
 * RDMA WRITE FIRST/ONLY packets.
 */
class RoceRethHeader : public Header
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint64_t m_va{0};
    uint32_t m_rkey{0};
    uint32_t m_length{0};
};

} // namespace ns3

#endif // ROCE_RETH_HEADER_H

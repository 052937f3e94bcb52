// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_AETH_HEADER_H
#define ROCE_AETH_HEADER_H

#include "ns3/header.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * ACK Extended Transport Header (4 bytes): syndrome (ACK 0x00-0x1f with credits, NAK 0x60|code)
 * and the 24-bit message sequence number.
 */
class RoceAethHeader : public Header
{
  public:
    static constexpr uint8_t SYNDROME_ACK = 0x1f;     //!< ACK, credits invalid
    static constexpr uint8_t SYNDROME_NAK_PSN = 0x60; //!< NAK: PSN sequence error

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint8_t m_syndrome{SYNDROME_ACK};
    uint32_t m_msn{0};
};

} // namespace ns3

#endif // ROCE_AETH_HEADER_H

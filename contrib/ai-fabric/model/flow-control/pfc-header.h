// SPDX-License-Identifier: GPL-2.0-only
#ifndef PFC_HEADER_H
#define PFC_HEADER_H

#include "ns3/header.h"

#include <array>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The MAC-control payload of an IEEE 802.1Qbb Priority-based Flow Control frame: opcode 0x0101,
 * a 16-bit class-enable vector and eight 16-bit pause timers in quanta of 512 bit-times,
 * zero-padded to the 46-byte minimum payload (64-byte frame with Ethernet header and FCS).
 * It follows an Ethernet header with EtherType 0x8808 and destination 01-80-C2-00-00-01.
 */
class PfcHeader : public Header
{
  public:
    static constexpr uint16_t ETHERTYPE = 0x8808;
    static constexpr uint16_t OPCODE = 0x0101;
    static constexpr uint32_t PAYLOAD_BYTES = 46; //!< opcode + vector + 8 timers + 26 B pad

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /// Enable class `prio` with a pause time of `quanta` (0 = resume / XON).
    void SetPause(uint8_t prio, uint16_t quanta);
    /// \return true if class `prio` is enabled in the class-enable vector
    bool IsEnabled(uint8_t prio) const;
    uint16_t GetQuanta(uint8_t prio) const;
    uint16_t GetClassEnableVector() const;
    uint16_t GetOpcode() const;

  private:
    uint16_t m_opcode{OPCODE};
    uint16_t m_vector{0};
    std::array<uint16_t, 8> m_quanta{};
};

} // namespace ns3

#endif // PFC_HEADER_H

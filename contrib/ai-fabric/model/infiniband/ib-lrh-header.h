// SPDX-License-Identifier: GPL-2.0-only
#ifndef IB_LRH_HEADER_H
#define IB_LRH_HEADER_H

#include "ns3/header.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * InfiniBand Local Route Header (8 bytes, IBA vol. 1 §7.7): virtual lane (4 bits), link
 * version (4), service level (4), reserved (2), link next header (2: 2 = BTH follows, 3 = GRH
 * follows), destination LID (16), reserved (5), packet length in 4-byte words from the LRH
 * through the ICRC (11), source LID (16).
 *
 * Built only for pcap/ascii traces of InfiniBand ports (pcap files of ERF records of type
 * InfiniBand, which Wireshark decodes); the simulation itself never serializes it.
 */
class IbLrhHeader : public Header
{
  public:
    static constexpr uint8_t LNH_IBA_LOCAL = 2;  //!< BTH follows
    static constexpr uint8_t LNH_IBA_GLOBAL = 3; //!< GRH follows

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint8_t m_vl{0};
    uint8_t m_sl{0};
    uint8_t m_lnh{LNH_IBA_LOCAL};
    uint16_t m_dlid{0};
    uint16_t m_slid{0};
    uint16_t m_pktLenWords{0};
};

} // namespace ns3

#endif // IB_LRH_HEADER_H

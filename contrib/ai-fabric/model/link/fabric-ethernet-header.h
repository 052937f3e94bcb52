// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_ETHERNET_HEADER_H
#define FABRIC_ETHERNET_HEADER_H

#include "ns3/header.h"
#include "ns3/mac48-address.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * An Ethernet II header with an optional IEEE 802.1Q tag (TPID 0x8100, PCP, DEI, VID).
 * ns-3's EthernetHeader has no VLAN tag; PFC acts on the PCP carried here. The FCS is not part
 * of the header (pcap captures, like Linux, omit it) but is counted on the wire.
 */
class FabricEthernetHeader : public Header
{
  public:
    static constexpr uint16_t TPID_8021Q = 0x8100;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    void SetSource(Mac48Address a);
    Mac48Address GetSource() const;
    void SetDestination(Mac48Address a);
    Mac48Address GetDestination() const;
    void SetEtherType(uint16_t t);
    uint16_t GetEtherType() const;
    /// Add an 802.1Q tag with priority code point `pcp` and VLAN id `vid`.
    void SetVlanTag(uint8_t pcp, uint16_t vid);
    bool HasVlanTag() const;
    uint8_t GetPcp() const;
    uint16_t GetVid() const;

  private:
    Mac48Address m_src;
    Mac48Address m_dst;
    uint16_t m_etherType{0x0800};
    bool m_tagged{false};
    uint8_t m_pcp{0};
    uint16_t m_vid{0};
};

} // namespace ns3

#endif // FABRIC_ETHERNET_HEADER_H

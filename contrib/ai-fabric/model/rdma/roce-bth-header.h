// SPDX-License-Identifier: GPL-2.0-only
#ifndef ROCE_BTH_HEADER_H
#define ROCE_BTH_HEADER_H

#include "ns3/header.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * InfiniBand Base Transport Header (12 bytes), as carried by RoCEv2 over UDP port 4791:
 * opcode, solicited event, migration request, pad count, transport version, partition key,
 * FECN/BECN (RoCEv2 keeps them zero; congestion travels in the IP ECN bits), destination QP
 * (24 bits), acknowledge-request bit and PSN (24 bits).
 */
class RoceBthHeader : public Header
{
  public:
    /// RC opcodes used by the model (IBA vol. 1, table 38) and the RoCEv2 CNP.
    enum Opcode : uint8_t
    {
        SEND_FIRST = 0x00,
        SEND_MIDDLE = 0x01,
        SEND_LAST = 0x02,
        SEND_ONLY = 0x04,
        WRITE_FIRST = 0x06,
        WRITE_MIDDLE = 0x07,
        WRITE_LAST = 0x08,
        WRITE_ONLY = 0x0a,
        ACKNOWLEDGE = 0x11,
        CNP = 0x81,
        IB_CNP = 0x80, //!< InfiniBand congestion notification (IBA Annex A10.3.2)
    };

    static constexpr uint16_t UDP_PORT = 4791;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    void SetOpcode(uint8_t op);
    uint8_t GetOpcode() const;
    void SetDestQp(uint32_t qpn);
    uint32_t GetDestQp() const;
    void SetPsn(uint32_t psn);
    uint32_t GetPsn() const;
    void SetAckRequest(bool a);
    bool GetAckRequest() const;
    void SetBecn(bool b);
    bool GetBecn() const;
    void SetPartitionKey(uint16_t pkey);
    uint16_t GetPartitionKey() const;

    // Inline: the NIC asks these once or twice per packet.
    /// \return true for opcodes that carry a RETH (RDMA WRITE first/only)
    static bool HasReth(uint8_t op)
    {
        return op == WRITE_FIRST || op == WRITE_ONLY;
    }

    /// \return true for the last packet of a message (LAST or ONLY opcodes)
    static bool IsLast(uint8_t op)
    {
        return op == SEND_LAST || op == SEND_ONLY || op == WRITE_LAST || op == WRITE_ONLY;
    }

    /// \return true for the first packet of a message (FIRST or ONLY opcodes)
    static bool IsFirst(uint8_t op)
    {
        return op == SEND_FIRST || op == SEND_ONLY || op == WRITE_FIRST || op == WRITE_ONLY;
    }

    /// \return true for data-carrying opcodes (SEND or WRITE)
    static bool IsData(uint8_t op)
    {
        return op <= WRITE_ONLY;
    }

  private:
    uint8_t m_opcode{0};
    bool m_se{false};
    uint16_t m_pkey{0xffff};
    bool m_fecn{false};
    bool m_becn{false};
    uint32_t m_destQp{0};
    bool m_ackReq{false};
    uint32_t m_psn{0};
};

} // namespace ns3

#endif // ROCE_BTH_HEADER_H

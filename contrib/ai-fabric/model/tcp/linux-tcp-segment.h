// SPDX-License-Identifier: GPL-2.0-only
#ifndef LINUX_TCP_SEGMENT_H
#define LINUX_TCP_SEGMENT_H

#include <cstdint>

namespace ns3
{

struct FabricFrame;

/// TCP header flags as on the wire.
enum LinuxTcpFlag : uint8_t
{
    TCP_FIN = 0x01,
    TCP_SYN = 0x02,
    TCP_RST = 0x04,
    TCP_PSH = 0x08,
    TCP_ACK = 0x10,
    TCP_URG = 0x20,
    TCP_ECE = 0x40,
    TCP_CWR = 0x80,
};

/**
 * \ingroup ai-fabric
 * One received TCP frame as the Linux TCP model processes it (after the NIC, interrupt
 * moderation and GRO): the fields of its TCP header and options.
 *
 * On the fabric a TCP frame is a FabricFrame (l4Format L4_TCP, protocol 6) whose words say:
 * flowId = the receiving endpoint's index in its host's stack (the socket lookup of the 4-tuple
 * done once, like an RDMA QPN), seq = the low 32 bits of the sequence number (data) or of the
 * acknowledgement number (pure ACK), aux[1] = the high 32 bits (the model keeps 64-bit byte
 * offsets, so no wrap arithmetic), aux[0] = flags (bits 0-7), SACK present (bit 8), D-SACK
 * (bit 9), receive window in 2^wscale-byte units (bits 16-31), aux[2]/aux[3] = the SACK block's
 * start/end relative to the acknowledgement number (signed, so a D-SACK below it fits),
 * txTimeStep = TSval, echoTimeStep = TSecr. Materialized headers (pcap) show all of it.
 */
struct LinuxTcpRxSegment
{
    uint64_t seq{0};       //!< data: first byte; ACK: acknowledgement number
    int64_t tsval{0};      //!< sender's timestamp (time steps)
    int64_t tsecr{0};      //!< echoed timestamp (time steps)
    uint32_t endpoint{0};  //!< index of the receiving endpoint in the stack
    uint32_t len{0};       //!< payload bytes (GRO: all merged segments)
    uint32_t sackStart{0}; //!< SACK block start - seq (two's complement)
    uint32_t sackEnd{0};   //!< SACK block end - seq
    uint32_t window{0};    //!< advertised window, bytes
    uint16_t segs{1};      //!< frames merged by GRO
    uint8_t flags{0};      //!< LinuxTcpFlag
    uint8_t ecn{0};        //!< IP ECN codepoint
    bool hasSack{false};
    bool dsack{false};

    static constexpr uint32_t AUX_SACK = 1U << 8;
    static constexpr uint32_t AUX_DSACK = 1U << 9;

    /// Decode a frame's words.
    static LinuxTcpRxSegment FromFrame(const FabricFrame& f, uint8_t wscale);
};

/// IPv4 20 + TCP 20 + timestamps option 12 (Linux sends timestamps on every segment).
constexpr uint32_t LINUX_TCP_HEADER_BYTES = 20 + 32;
/// A SACK option with one block, padded (2 NOPs + kind + length + 8).
constexpr uint32_t LINUX_TCP_SACK_BYTES = 12;

} // namespace ns3

#endif // LINUX_TCP_SEGMENT_H

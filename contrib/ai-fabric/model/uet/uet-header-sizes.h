// SPDX-License-Identifier: GPL-2.0-only
#ifndef UET_HEADER_SIZES_H
#define UET_HEADER_SIZES_H

// Wire sizes and codes of Ultra Ethernet Transport (UEC 1.0) packets as UetNic sends them:
// UET over UDP/IPv4, the UDP source port carrying the entropy value (EV) that switches hash.
// Sizes follow the packed header structs of UEC's reference provider (ultraethernet/uet-ref-prov,
// uet_pkt_hdr.h / pds.h): PDS RUD/ROD request 12 B (prologue 2, PSN offset 2, PSN 4, SPDCID 2,
// DPDCID 2), ACK 12 B + CC extension 20 B (ACK_CC: CC type/flags, MPR, SACK offset, 64-bit SACK
// bitmap, 8 B CC state) = 32 B, NACK 16 B (prologue, code, vendor code, PSN, PDCIDs, payload);
// SES standard request 44 B (12 B common + buffer offset 8, initiator 4, memory key 8, header
// data 8, request length 4) and the SES response without data 12 B. A request whose PDS CC flag
// is set carries 4 B of CC state after the PDS header (uet_pds_cc_state: RCCC's credit target);
// PDS control packets (CREDIT, CREDIT_REQUEST) are 16 B (prologue, PSN, PDC ids, payload) with
// no SES header.

#include <cstdint>

namespace ns3
{
namespace uetwire
{

/// FabricFrame::l4Format of UET frames (UDP + PDS + SES + payload; the formats below 4 are
/// FabricFrame's raw, probe, RoCEv2 and TCP).
constexpr uint8_t kL4Uet = 4;
constexpr uint16_t kUdpPort = 4793; //!< IANA UDP port of UET (uet-ref-prov UET_UDP_PORT)
constexpr uint32_t kIpUdp = 20 + 8;
constexpr uint32_t kPdsRequest = 12;
constexpr uint32_t kPdsAckCc = 32;
constexpr uint32_t kPdsNack = 16;
constexpr uint32_t kSesRequest = 44;
constexpr uint32_t kSesResponse = 12;
constexpr uint32_t kPdsCcState = 4; //!< request CC state (flag CC): the credit target
constexpr uint32_t kPdsCtrl = 16;
/// L3 bytes of a data packet around its payload: IPv4 + UDP + PDS request + SES standard.
constexpr uint32_t kDataHeaders = kIpUdp + kPdsRequest + kSesRequest; // 84
/// L3 bytes of an ACK (ACK_CC with the SACK bitmap) and of a NACK.
constexpr uint32_t kAck = kIpUdp + kPdsAckCc + kSesResponse; // 72
constexpr uint32_t kNack = kIpUdp + kPdsNack + kSesResponse; // 56
/// L3 bytes of a PDS control packet (RCCC's CREDIT and CREDIT_REQUEST).
constexpr uint32_t kCtrl = kIpUdp + kPdsCtrl; // 44
/// Credits are counted in units of this many bytes (htsim's UEC_PULL_QUANTUM).
constexpr uint64_t kCreditUnit = 256;

/// FabricFrame::aux[0] of a UET frame: the PDS packet type (bits 0-3), flags, the NACK code
/// (bits 11-15) and an ACK's SACK PSN offset (bits 16-31). ACKs and NACKs echo the entropy
/// value of the data packet that triggered them in their UDP source port.
enum PacketType : uint32_t
{
    DATA = 1, //!< a RUD/ROD request carrying payload
    ACK = 2,  //!< ACK_CC: cumulative PSN in `seq`, SACK bitmap in aux[2] (low) and aux[3] (high)
    NACK = 3, //!< NACK: the PSN in `seq`, the code in bits 11-15
    /// CTRL CREDIT (target -> initiator): the cumulative credit granted to the PDC, in
    /// kCreditUnit, in `seq`
    CREDIT = 4,
    /// CTRL CREDIT_REQUEST (initiator -> target): the PDC's credit target, in kCreditUnit, in
    /// `seq` (sent when it has no credit to carry the target on a data packet)
    CREDIT_REQUEST = 5,
};

constexpr uint32_t kTypeMask = 0xf;
constexpr uint32_t kSyn = 1U << 4;    //!< the sender has no destination PDC id yet (SYN)
constexpr uint32_t kAckReq = 1U << 5; //!< acknowledge at once (a message's last packet, retx)
constexpr uint32_t kRetx = 1U << 6;   //!< a retransmission
/// Set by a trimming switch (FabricSwitch, SwitchBufferManager TrimEnabled) on the data packet
/// whose payload it cut off; kTrimmedLastHop when that switch's egress port faces the target.
constexpr uint32_t kTrimmed = 1U << 7;
constexpr uint32_t kTrimmedLastHop = 1U << 8;
constexpr uint32_t kEcnEcho = 1U << 9; //!< ACK: the packet that triggered it was CE-marked
constexpr uint32_t kRod = 1U << 10;    //!< reliable ordered delivery
/// Data: the PDS CC flag; the credit target (RCCC, in kCreditUnit) is in FabricFrame::echoTimeStep
/// (which data packets do not use otherwise).
constexpr uint32_t kCcState = 1U << 31;
/// ACK: the ACK_CC's receiver back-pressure (0..127) rides in the top byte of
/// FabricFrame::echoTimeStep, above the echoed send time (time steps below 2^56: 2.3 years at
/// ns-3's nanosecond resolution), so the frame descriptor does not grow for it.
constexpr int kPressureShift = 56;
constexpr int64_t kEchoMask = (int64_t(1) << kPressureShift) - 1;
constexpr uint32_t kCodeShift = 11;
constexpr uint32_t kSackShift = 16;
constexpr uint32_t kMaxSackOffset = 0xffff;

/// NACK codes (uet-ref-prov uet_pds_nack_code_t).
enum NackCode : uint8_t
{
    NACK_TRIMMED = 0x01,
    NACK_TRIMMED_LAST_HOP = 0x02,
    NACK_ROD_OOO = 0x0d,
};

} // namespace uetwire
} // namespace ns3

#endif // UET_HEADER_SIZES_H

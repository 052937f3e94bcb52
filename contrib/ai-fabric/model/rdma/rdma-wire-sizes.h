// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_WIRE_SIZES_H
#define RDMA_WIRE_SIZES_H

// Header sizes of RoCEv2 packets, shared by the files of RdmaNic (not installed).

#include <cstdint>

namespace ns3
{
namespace rdmawire
{

constexpr uint32_t kIpUdp = 20 + 8;
constexpr uint32_t kBth = 12;
constexpr uint32_t kReth = 16;
constexpr uint32_t kAeth = 4;
constexpr uint32_t kIcrc = 4;
constexpr uint32_t kCnpPad = 16;
constexpr uint32_t kAckReqFlag = 1;
/// IPv4 TTL of every frame the NIC sends (FabricFrame's default); switches decrement it.
constexpr uint8_t kInitialTtl = 64;

} // namespace rdmawire
} // namespace ns3

#endif // RDMA_WIRE_SIZES_H

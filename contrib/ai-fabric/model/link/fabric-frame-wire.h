// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_FRAME_WIRE_H
#define FABRIC_FRAME_WIRE_H

#include "fabric-frame.h"

#include "ns3/fabric-partition-scheduler.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <optional>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A FabricFrame as bytes, for a cable whose two ends run on different MPI ranks (|ns3|'s
 * distributed simulator moves a Packet between ranks by Packet::Serialize).
 *
 * The descriptor travels as a header of 87 bytes (every field, the switch-private buffer
 * charges and the link-retry sequence included, so that the receiving rank sees the frame the
 * sequential run would hand to the receiver) plus 28 bytes per telemetry hop, in front of the
 * frame's own packet (an |ns3| IPv4 packet or a control PDU) when it has one. With `key`, the
 * delivery's place in FabricPartitionScheduler's event order follows the fixed part (12 bytes).
 */
Ptr<Packet> FabricFrameToWire(const FabricFrame& frame, const FabricEventOrderKey* key = nullptr);

/**
 * The frame FabricFrameToWire made of `wire` (which loses the descriptor's header).
 * \param key where to put the event-order key the frame carries (nullopt when none)
 * \return false when `wire` holds no such header (then `frame` is left as it was)
 */
bool FabricFrameFromWire(Ptr<Packet> wire,
                         FabricFrame& frame,
                         std::optional<FabricEventOrderKey>* key = nullptr);

/**
 * Appends `frame` to `out` in the compact form a batch of frames to another MPI rank carries
 * (FabricRankMailbox): the descriptor's fields copied as they are laid out in memory (every rank
 * of a run runs the same build on the same kind of machine), 82 bytes plus 28 per telemetry hop,
 * then `key` when given (12 bytes). The frame must not carry an |ns3| packet (those travel alone,
 * FabricFrameToWire).
 */
void FabricFrameAppendBytes(const FabricFrame& frame,
                            const FabricEventOrderKey* key,
                            std::vector<uint8_t>& out);

/**
 * Reads a frame FabricFrameAppendBytes wrote at `p` (advanced past it, up to `end`).
 * eturn false when the bytes are not such a frame (then `frame` is left unspecified)
 */
bool FabricFrameReadBytes(const uint8_t*& p,
                          const uint8_t* end,
                          FabricFrame& frame,
                          std::optional<FabricEventOrderKey>& key);

} // namespace ns3

#endif // FABRIC_FRAME_WIRE_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_RANK_MAILBOX_H
#define FABRIC_RANK_MAILBOX_H

#include "fabric-frame.h"

#include "ns3/fabric-partition-scheduler.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

#include <cstdint>
#include <functional>

namespace ns3
{

class FabricChannel;

/**
 * \ingroup ai-fabric
 * Frames to another MPI rank, in batches (issue 45). A frame on a cut cable used to be one
 * message of ns-3's MPI interface, and a message costs its sender and receiver ~5,000
 * instructions (a Packet and its serialization, MPI's send and receive, ns-3's search for the
 * receiving device, an event), 2.5 times what the frame costs to simulate. Here the frames a
 * rank sends to one other rank wait in that rank's outbox and leave together, as one message of
 * up to 1,900 bytes (~16 frames; ns-3's interfaces receive into 2,000-byte buffers).
 *
 * How long a frame may wait is set by the lookahead: a message handed to MpiInterface at time t
 * must be stamped at least t + L, L the shortest delay of the cut cables from this rank to the
 * receiver's (what ns-3's synchronizers were promised: NullMessageSimulatorImpl's bundle delay,
 * at least DistributedSimulatorImpl's global one). A frame reaches the other rank at its
 * arrival step R (one step early under FabricPartitionScheduler, FabricChannel) with R >= sent
 * + its cable's delay >= sent + L, so it may leave as late as R - L: the outbox is sent by an
 * event at the earliest such deadline of its frames, or at once when full. The message is
 * stamped with its earliest R; there, each frame's delivery is scheduled for its own arrival,
 * in its receiver's context and, under FabricPartitionScheduler, with the key it carries. The
 * simulated results are those of one message per frame (the test fabric-cut-test compares
 * them with the sequential run's); only the number of messages changes.
 *
 * A frame that carries an ns-3 packet still travels alone (FabricFrameToWire). A message goes
 * to the device of the first registered cut cable into the receiving rank, whose MpiReceiver
 * hands it back here (FabricChannel::ReceiveFromRank recognizes a batch by its first bytes).
 *
 * The same batches carry messages of the layers above from rank to rank (Broadcast): state that
 * every rank keeps alike (a workload's table of flows, which connections are idle) learns of an
 * event of one node, e.g. a flow's completion, a fixed delay after it, on every rank, in the
 * order of FabricPartitionScheduler's key; a run on one rank schedules the same event.
 */
class FabricRankMailbox
{
  public:
    /// The largest serialized Packet ns-3's MPI interfaces carry: they receive into 2,000-byte
    /// buffers, of which their own header takes up to 24 bytes (3.37 through 3.48).
    static constexpr uint32_t kMaxMessageBytes = 2000 - 24;

    /**
     * Register direction `d` of a cut cable (from a node of rank `srcRank` to one of rank
     * `dstRank`), in the order every rank builds the cables in.
     * \return the direction's index, the same on every rank
     */
    static uint32_t Register(FabricChannel* channel,
                             uint8_t d,
                             uint32_t srcRank,
                             uint32_t dstRank,
                             uint32_t dstNode,
                             uint32_t dstIfIndex);

    /**
     * Queue a frame sent now on registered direction `index`.
     * \param rxStep when the receiving rank must have it (the arrival, or one step before)
     * \param arrival when it is delivered to the receiving device
     * \param key its delivery's key under FabricPartitionScheduler (null: none)
     */
    static void Post(uint32_t index,
                     const FabricFrame& frame,
                     int64_t rxStep,
                     int64_t arrival,
                     const FabricEventOrderKey* key,
                     int64_t now);

    /// A receiver of Broadcast's messages: the payload's bytes.
    using Handler = std::function<void(const uint8_t* data, uint32_t size)>;
    /// The largest payload of a Broadcast message.
    static constexpr uint32_t kMaxPayloadBytes = 256;

    /**
     * Register a receiver of messages. Every rank must register the same handlers in the same
     * order (their index names them in messages). They are forgotten at Simulator::Destroy.
     * \return the handler's index, for Broadcast
     */
    static uint32_t AddHandler(Handler handler);

    /**
     * Call handler `handler` with `size` bytes of `data` on every rank, `delay` from now, outside
     * any node's context (an event of every rank). Under FabricPartitionScheduler the event has
     * the key an event scheduled now would get, on every rank. On other ranks the message
     * travels in the batches of the cut cables, so `delay` must exceed the lookahead to every
     * rank by a step (GetMessageDelay gives a delay that does, whatever the partition); every
     * rank must have a cut cable to every other.
     *
     * \param origin the node the message speaks for, which must run on this rank: its key's
     *        node when no node's event is running (an event of a layer above every node, as a
     *        training job's), so that the key orders it alike on every rank. Without one, such
     *        a message is keyed by this rank's own sequence, which orders it against the events
     *        of other ranks' messages differently on each partition.
     */
    static void Broadcast(uint32_t handler,
                          const void* data,
                          uint32_t size,
                          Time delay,
                          uint32_t origin = Simulator::NO_CONTEXT);

    /**
     * A delay for Broadcast that holds on any partition of the cables `delays` (every cable of
     * the topology): the longest of them, plus one step.
     */
    static Time GetMessageDelay(const std::vector<Time>& delays);

    /// This process's MPI rank and the number of ranks (0 and 1 without MPI, or before
    /// MpiInterface::Enable).
    static uint32_t GetRank();
    /// Whether this simulation is split across MPI ranks (ns-3's distributed core runs it).
    static bool Distributed();
    static uint32_t GetNRanks();

    /// Messages of Broadcast sent to other ranks since the simulation started.
    static uint64_t GetControlMessagesSent();

    /// Whether `wire` is a batch of this mailbox (else a frame of its own).
    static bool IsBatch(Ptr<Packet> wire);

    /// Schedule the deliveries of the frames of a batch received from another rank.
    static void Receive(Ptr<Packet> wire);

    /// Messages and frames sent through the mailbox since the simulation started.
    static uint64_t GetMessagesSent();
    static uint64_t GetFramesSent();

  private:
    /// Each outbox's lookahead, from the cables' delays (set after they are attached).
    static void ComputeLookaheads();
    static void FlushAt(uint32_t rank, int64_t at);
    static void ScheduleDestroy();
    /// Room for an entry of at most `bytes` in the outbox to `rank` (sent first when full, its
    /// header written when empty). \return where the entry starts
    static size_t Open(uint32_t rank, size_t bytes);
    /// An entry due at `rxStep` on `rank` was added now: the message's stamp, and the flush at
    /// the latest moment the lookahead allows.
    static void Added(uint32_t rank, int64_t rxStep, int64_t now);
    static void Flush(uint32_t rank);
    /// Forget every cable and outbox (at Simulator::Destroy).
    static void Reset();
};

} // namespace ns3

#endif // FABRIC_RANK_MAILBOX_H

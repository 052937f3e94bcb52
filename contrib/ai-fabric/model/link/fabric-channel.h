// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_CHANNEL_H
#define FABRIC_CHANNEL_H

#include "fabric-frame.h"
#include "fabric-ring.h"

#include "ns3/channel.h"
#include "ns3/event-impl.h"
#include "ns3/fabric-partition-scheduler.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"

#include <array>
#include <optional>

namespace ns3
{

class FabricNetDevice;

/**
 * \ingroup ai-fabric
 * A full-duplex cable between two FabricNetDevices.
 *
 * Each direction keeps its frames in flight in FIFO rings with their arrival times and has at
 * most one pending delivery event for data and one for link-level control frames, so the event
 * set grows with the number of busy links, not with the number of frames on the wires. Arrival
 * = last bit sent (or first bit for a cut-through receiver) + propagation delay + the receiver's
 * ReceiveLatency. The delay is set directly or from the cable length at 5 ns/m.
 */
class FabricChannel : public Channel
{
  public:
    static TypeId GetTypeId();
    FabricChannel();
    ~FabricChannel() override;

    /// Connect a device to the next free end (two at most).
    void Attach(Ptr<FabricNetDevice> device);
    /// \return the device at the other end from `device`
    FabricNetDevice* GetPeer(const FabricNetDevice* device) const;

    /**
     * Put a frame on the wire from `src`.
     * \param firstBitStep time step at which the first bit left
     * \param lastBitStep time step at which the last bit left
     * \param now the current time step (the sender has it; Simulator::Now costs ~50 instructions)
     */
    void Transmit(FabricNetDevice* src,
                  FabricFrame& frame,
                  int64_t firstBitStep,
                  int64_t lastBitStep,
                  int64_t now);

    Time GetDelay() const;
    void SetDelay(Time delay);
    /// Set the delay from a cable length in metres (5 ns/m).
    void SetCableLength(double meters);

    /// Frames currently on the wire in both directions.
    uint32_t GetFramesInFlight() const;

    /**
     * Copy `receiver`'s CutThrough and ReceiveLatency into the direction that ends at it (the
     * device calls this when they change), so that Transmit does not read the receiving
     * device, whose state is usually out of the cache when the frame leaves the sender.
     */
    void UpdateReceiveTiming(const FabricNetDevice* receiver);

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

  private:
    struct InFlight
    {
        InFlight(int64_t a, FabricFrame&& f)
            : arrival(a),
              frame(std::move(f))
        {
        }

        int64_t arrival{0};
        FabricFrame frame;
    };

    struct Lane
    {
        FabricRing<InFlight, 64> fifo; //!< in cache-line-aligned slots
        bool pending{false};
        /// The lane's delivery event, scheduled again for each frame: a lane has at most one
        /// pending delivery, so one event object serves all of them (no allocation per frame).
        Ptr<EventImpl> deliver;
    };

    struct Direction
    {
        FabricNetDevice* dst{nullptr};
        uint32_t context{0xffffffff}; //!< dst's node id: deliveries run in its context
        bool remote{false}; //!< dst runs on another MPI rank: frames go through MpiInterface
        /// Frames are delivered in the partition-invariant event order (FabricPartitionScheduler
        /// in use, or `remote`): TransmitOrdered instead of the lane's shared delivery event.
        bool ordered{false};
        /// The receiver may send on this direction while it receives (both ends on one node,
        /// or a node unknown when attached): its frames are then taken off the ring before
        /// Receive, as a send that grows the ring would move the frame being received.
        bool reentrant{true};
        int64_t rxLatencySteps{0}; //!< dst's ReceiveLatency, in time steps
        bool cutThrough{false};    //!< dst's CutThrough
        std::array<Lane, 2> lanes; //!< 0: data, 1: link-level control
    };

    /// The lane a frame travels on: 0 for data, 1 for link-level control.
    static uint8_t LaneOf(const FabricFrame& frame)
    {
        return frame.kind == FabricFrame::DATA ? 0 : 1;
    }

    void Deliver(uint8_t dir, uint8_t lane);
    /// A cable whose ends are on different MPI ranks: frames cross as messages (issue 45).
    void ConnectAcrossRanks();
    void SendToRank(uint8_t d, const FabricFrame& frame, int64_t arrival, int64_t now);
    void ReceiveFromRank(uint8_t dir, Ptr<Packet> wire);
    friend class FabricRankMailbox;
    /// A frame from another rank (of a batch, or alone and ordered): deliver it at `arrival`
    /// (with `key` when given) by an event that holds it.
    void DeliverFromRank(uint8_t d,
                         FabricFrame&& frame,
                         int64_t arrival,
                         const std::optional<FabricEventOrderKey>& key);
    class RemoteDelivery;
    /// Transmit for an `ordered` direction: one delivery event per frame, or a message to the
    /// receiver's rank.
    void TransmitOrdered(uint8_t d,
                         uint8_t laneIdx,
                         FabricFrame& frame,
                         int64_t arrival,
                         int64_t now);
    /// The delivery of the frame at the head of lane `laneIdx` of direction `d` (its own event).
    void DeliverOrdered(uint8_t d, uint8_t laneIdx);
    class OrderedDelivery;
    /// Schedule DeliverOrdered(d, laneIdx) `delay` steps from now in the receiver's context.
    void ScheduleOrdered(uint8_t d, uint8_t laneIdx, int64_t delay);
    /// Deliver taking the frame off the ring first (a receiver that may send on `dir`).
    void DeliverCopy(Direction& dir, Lane& lane);
    /// Schedule `lane`'s delivery of `next`, or mark the lane idle (null).
    /// Inlined into Deliver: it runs once per frame.
    [[gnu::always_inline]] inline void ScheduleNextDelivery(Lane& lane, const InFlight* next);

    std::array<Ptr<FabricNetDevice>, 2> m_devices;
    std::array<Direction, 2> m_dir;
    std::size_t m_nDevices{0};
    Time m_delay;
    int64_t m_delaySteps{0};
    /// A cut cable's directions: the index FabricRankMailbox knows each by (kept out of
    /// Direction, which the per-frame path indexes).
    std::array<uint32_t, 2> m_mailbox{UINT32_MAX, UINT32_MAX};
    bool m_rankBatching{true}; //!< RankBatching
};

} // namespace ns3

#endif // FABRIC_CHANNEL_H

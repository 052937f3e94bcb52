// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-channel.h"

#include "fabric-frame-wire.h"
#include "fabric-net-device.h"
#include "fabric-rank-mailbox.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/fabric-clock.h"
#include "ns3/fabric-partition-scheduler.h"
#include "ns3/fabric-pooled-event.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <cstddef>
#include <vector>

#ifdef AIFABRIC_MPI
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricChannel");
NS_OBJECT_ENSURE_REGISTERED(FabricChannel);

TypeId
FabricChannel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricChannel")
            .SetParent<Channel>()
            .SetGroupName("AiFabric")
            .AddConstructor<FabricChannel>()
            .AddAttribute("Delay",
                          "Propagation delay of the cable (5 ns per metre).",
                          TimeValue(NanoSeconds(15)),
                          MakeTimeAccessor(&FabricChannel::SetDelay, &FabricChannel::GetDelay),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RankBatching",
                          "On a cable between MPI ranks: frames to the other rank leave in "
                          "batches, one message per up to ~16 frames (FabricRankMailbox), or "
                          "each as a message of its own. The simulated results are the same.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FabricChannel::m_rankBatching),
                          MakeBooleanChecker());
    return tid;
}

FabricChannel::FabricChannel()
{
    for (uint8_t d = 0; d < 2; ++d)
    {
        for (uint8_t l = 0; l < 2; ++l)
        {
            m_dir[d].lanes[l].deliver =
                Ptr<EventImpl>(MakeEvent(&FabricChannel::Deliver, this, d, l), false);
        }
    }
}

FabricChannel::~FabricChannel() = default;

void
FabricChannel::DoDispose()
{
    for (auto& d : m_dir)
    {
        d.dst = nullptr;
        for (auto& l : d.lanes)
        {
            l.deliver->Cancel();
            l.fifo.Clear();
        }
    }
    m_devices[0] = nullptr;
    m_devices[1] = nullptr;
    Channel::DoDispose();
}

void
FabricChannel::Attach(Ptr<FabricNetDevice> device)
{
    NS_ABORT_MSG_IF(m_nDevices >= 2, "FabricChannel: a cable has two ends");
    m_devices[m_nDevices++] = device;
    if (m_nDevices == 2)
    {
        m_dir[0].dst = PeekPointer(m_devices[1]); // frames sent by device 0
        m_dir[1].dst = PeekPointer(m_devices[0]);
        UpdateReceiveTiming(m_dir[0].dst);
        UpdateReceiveTiming(m_dir[1].dst);
        // A node handles its frames in its own context: only a device of the receiving node
        // can send on the direction a frame arrives on while it is being received.
        const Ptr<Node> a = m_devices[0]->GetNode();
        const Ptr<Node> b = m_devices[1]->GetNode();
        const bool sameNode = !a || a == b;
        m_dir[0].context = b ? b->GetId() : Simulator::NO_CONTEXT;
        m_dir[1].context = a ? a->GetId() : Simulator::NO_CONTEXT;
        m_dir[0].ordered = FabricPartitionScheduler::IsActive();
        m_dir[1].ordered = m_dir[0].ordered;
        if (a && b && a->GetSystemId() != b->GetSystemId())
        {
            ConnectAcrossRanks();
        }
        m_dir[0].reentrant = sameNode;
        m_dir[1].reentrant = sameNode;
    }
}

void
FabricChannel::UpdateReceiveTiming(const FabricNetDevice* receiver)
{
    for (auto& dir : m_dir)
    {
        if (dir.dst == receiver)
        {
            dir.rxLatencySteps = receiver->GetRxLatencySteps();
            dir.cutThrough = receiver->IsCutThrough();
        }
    }
}

FabricNetDevice*
FabricChannel::GetPeer(const FabricNetDevice* device) const
{
    if (m_nDevices < 2)
    {
        return nullptr;
    }
    return PeekPointer(m_devices[0]) == device ? PeekPointer(m_devices[1])
                                               : PeekPointer(m_devices[0]);
}

Time
FabricChannel::GetDelay() const
{
    return m_delay;
}

void
FabricChannel::SetDelay(Time delay)
{
    m_delay = delay;
    m_delaySteps = delay.GetTimeStep();
}

void
FabricChannel::SetCableLength(double meters)
{
    NS_ABORT_MSG_IF(meters < 0, "FabricChannel: cable length must be >= 0 m");
    SetDelay(NanoSeconds(1) * (meters * 5.0));
}

uint32_t
FabricChannel::GetFramesInFlight() const
{
    uint32_t n = 0;
    for (const auto& d : m_dir)
    {
        for (const auto& l : d.lanes)
        {
            n += static_cast<uint32_t>(l.fifo.Size());
        }
    }
    return n;
}

std::size_t
FabricChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
FabricChannel::GetDevice(std::size_t i) const
{
    return i < m_nDevices ? Ptr<NetDevice>(m_devices[i]) : Ptr<NetDevice>();
}

void
FabricChannel::Transmit(FabricNetDevice* src,
                        FabricFrame& frame,
                        int64_t firstBitStep,
                        int64_t lastBitStep,
                        int64_t now)
{
    const uint8_t d = (PeekPointer(m_devices[0]) == src) ? 0 : 1;
    Direction& dir = m_dir[d];
    NS_ABORT_MSG_IF(dir.dst == nullptr, "FabricChannel: transmit on a cable with one end");
    const uint8_t laneIdx = LaneOf(frame);
    int64_t arrival;
    if (laneIdx == 0)
    {
        arrival = (dir.cutThrough ? firstBitStep : lastBitStep) + m_delaySteps + dir.rxLatencySteps;
    }
    else
    {
        arrival = lastBitStep + m_delaySteps; // MAC control is consumed by the MAC itself
    }
    if (arrival < now)
    {
        arrival = now;
    }
    if (__builtin_expect(dir.ordered, false))
    {
        TransmitOrdered(d, laneIdx, frame, arrival, now);
        return;
    }
    Lane& lane = dir.lanes[laneIdx];
    lane.fifo.EmplaceBack(arrival, std::move(frame));
    if (!lane.pending)
    {
        lane.pending = true;
        FabricSimulatorImpl::ScheduleFastWithContext(dir.context, arrival - now, lane.deliver);
    }
}

void
FabricChannel::Deliver(uint8_t d, uint8_t laneIdx)
{
    Direction& dir = m_dir[d];
    Lane& lane = dir.lanes[laneIdx];
    if (dir.reentrant)
    {
        DeliverCopy(dir, lane);
        return;
    }
    // The frame is received where it waited (no copy): nothing can push onto this ring before
    // it is discarded. The next delivery is scheduled first, as events scheduled by Receive
    // must come after it in the event order.
    InFlight& front = lane.fifo.Front();
    ScheduleNextDelivery(lane, lane.fifo.Size() > 1 ? &lane.fifo.At(1) : nullptr);
    dir.dst->Receive(front.frame);
    lane.fifo.DiscardFront();
}

// Out of line: only cables whose ends share a node (or whose nodes were unknown) come here.
[[gnu::noinline]] void
FabricChannel::DeliverCopy(Direction& dir, Lane& lane)
{
    InFlight item = lane.fifo.PopFront();
    ScheduleNextDelivery(lane, lane.fifo.Empty() ? nullptr : &lane.fifo.Front());
    dir.dst->Receive(item.frame);
}

void
FabricChannel::ScheduleNextDelivery(Lane& lane, const InFlight* next)
{
    if (next != nullptr)
    {
        const int64_t now = FabricClock::NowStep();
        FabricSimulatorImpl::ScheduleFast(next->arrival - now, lane.deliver);
    }
    else
    {
        lane.pending = false;
    }
}

// ---------------------------------------------------------------- partition-invariant order

// FabricPartitionScheduler orders the events of a time stamp by the node that scheduled them.
// A lane's shared delivery event is scheduled by the sender for the first frame of a train and
// by the receiver (its previous delivery) for the next ones, whether the lane was still busy
// depending on events at equal times on both ends: a partition cannot reproduce that. Here each
// frame's delivery is scheduled by the sender when the frame is sent, on a cable within one
// rank as on one that crosses ranks.
[[gnu::noinline]] void
FabricChannel::TransmitOrdered(uint8_t d,
                               uint8_t laneIdx,
                               FabricFrame& frame,
                               int64_t arrival,
                               int64_t now)
{
    Direction& dir = m_dir[d];
    // A frame arrives at least a step after the cable's delay: on a cable cut between ranks it
    // travels in a message delivered one step early, which must leave a lookahead (the delay)
    // before that. Only a frame that ends within the step it began in is held (an InfiniBand
    // credit update, 6 bytes, sent back to back after another frame: its last bit leaves now),
    // and on every cable alike, so that any partition gives the same run.
    arrival = std::max(arrival, now + m_delaySteps + 1);
    if (dir.remote)
    {
        SendToRank(d, frame, arrival, now);
        return;
    }
    dir.lanes[laneIdx].fifo.EmplaceBack(arrival, std::move(frame));
    ScheduleOrdered(d, laneIdx, arrival - now);
}

// A frame's delivery event under the partition order, one per frame in flight (from a free
// list: FabricPooledEvent).
class FabricChannel::OrderedDelivery final : public FabricPooledEvent<OrderedDelivery>
{
  public:
    OrderedDelivery(FabricChannel* ch, uint8_t d, uint8_t lane)
        : m_ch(ch),
          m_d(d),
          m_lane(lane)
    {
    }

  protected:
    void Notify() override
    {
        m_ch->DeliverOrdered(m_d, m_lane);
    }

  private:
    FabricChannel* m_ch;
    uint8_t m_d;
    uint8_t m_lane;
};

void
FabricChannel::ScheduleOrdered(uint8_t d, uint8_t laneIdx, int64_t delay)
{
    Simulator::ScheduleWithContext(m_dir[d].context,
                                   TimeStep(delay),
                                   new OrderedDelivery(this, d, laneIdx));
}

void
FabricChannel::DeliverOrdered(uint8_t d, uint8_t laneIdx)
{
    // A lane's arrivals grow strictly (a frame's last bit leaves at least one step after its
    // first), so its events run in the order of its ring.
    Direction& dir = m_dir[d];
    Lane& lane = dir.lanes[laneIdx];
    if (lane.fifo.Empty() || dir.dst == nullptr)
    {
        return; // the cable was disposed
    }
    InFlight item = lane.fifo.PopFront();
    dir.dst->Receive(item.frame);
}

// ---------------------------------------------------------------- across MPI ranks

// ns-3's distributed simulator (issue 45) builds every node on every rank and runs a node's
// events on the rank of its system id. A cable between nodes of two ranks carries each frame as
// a message: the sender's rank serializes it (FabricFrameToWire) and hands it to MpiInterface
// with its arrival time; on the receiver's rank the MpiReceiver aggregated to the receiving
// device schedules it at that time in the receiving node's context, and it is received as a
// frame from this cable's ring would be. A frame arrives at least the cable's Delay after it is
// sent, so that Delay is a valid lookahead: it is what DistributedSimulatorImpl and
// NullMessageSimulatorImpl read from the "Delay" attribute of point-to-point devices' channels.
void
FabricChannel::ConnectAcrossRanks()
{
#ifdef AIFABRIC_MPI
    NS_ABORT_MSG_IF(!MpiInterface::IsEnabled(),
                    "FabricChannel: a cable between nodes of different system ids needs ns-3's "
                    "distributed simulator (MpiInterface::Enable before the topology is built)");
    for (const Ptr<FabricNetDevice>& dev : m_devices)
    {
        const uint32_t id = dev->GetNode()->GetSystemId();
        NS_ABORT_MSG_IF(id >= MpiInterface::GetSize(),
                        "FabricChannel: node " << dev->GetNode()->GetId() << " has system id " << id
                                               << ", but the run has " << MpiInterface::GetSize()
                                               << " MPI ranks (system ids 0.."
                                               << MpiInterface::GetSize() - 1 << ")");
    }
    for (uint8_t d = 0; d < 2; ++d)
    {
        m_dir[d].remote = true;
        m_dir[d].ordered = true;
        // Direction d ends at device 1 - d: its receiver hands arrivals to direction d.
        m_mailbox[d] = FabricRankMailbox::Register(this,
                                                   d,
                                                   m_devices[d]->GetNode()->GetSystemId(),
                                                   m_devices[1 - d]->GetNode()->GetSystemId(),
                                                   m_dir[d].context,
                                                   m_devices[1 - d]->GetIfIndex());
        Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
        receiver->SetReceiveCallback(MakeCallback(&FabricChannel::ReceiveFromRank, this).Bind(d));
        m_devices[1 - d]->AggregateObject(receiver);
    }
#else
    NS_ABORT_MSG("FabricChannel: a cable between nodes of different system ids (MPI ranks) needs "
                 "a build with ns-3's mpi module (scripts/ns3-mpi.sh; doc: Building with MPI)");
#endif
}

void
FabricChannel::SendToRank(uint8_t d, const FabricFrame& frame, int64_t arrival, int64_t now)
{
#ifdef AIFABRIC_MPI
    Direction& dir = m_dir[d];
    // Under FabricPartitionScheduler the frame carries its delivery's key and reaches the other
    // rank one step early: its message event (placed among that step's events by ns-3, not by
    // the key) only schedules the delivery, with the key, for the arrival step, none of whose
    // events has run yet. Every frame arrives at least one step after sent + Delay (a frame's
    // last bit leaves at least one step after its first, and a cut-through receiver adds its
    // ReceiveLatency), so the early message still respects the lookahead (the cable's Delay).
    int64_t rxStep = arrival;
    FabricEventOrderKey key;
    const bool ordered = FabricPartitionScheduler::IsActive();
    if (ordered)
    {
        NS_ABORT_MSG_IF(arrival - 1 < now + m_delaySteps,
                        "FabricChannel: a frame on a cable between MPI ranks arrives "
                            << arrival - now << " steps after it is sent, at most the cable's "
                            << "Delay (" << m_delaySteps << " steps): with "
                            << "FabricPartitionScheduler the receiver's ReceiveLatency (a "
                            << "switch's PortToPortLatency) must be at least 1 ns, or the "
                            << "receiver store-and-forward");
        key = FabricPartitionScheduler::TakeKey(dir.context);
        rxStep = arrival - 1;
    }
    // Frames without an ns-3 packet wait in the receiving rank's outbox and leave with others
    // in one message (FabricRankMailbox); the rest travel alone.
    if (m_rankBatching && !frame.packet)
    {
        FabricRankMailbox::Post(m_mailbox[d],
                                frame,
                                rxStep,
                                arrival,
                                ordered ? &key : nullptr,
                                now);
        return;
    }
    Ptr<Packet> wire = FabricFrameToWire(frame, ordered ? &key : nullptr);
    // ns-3.37's MPI interfaces receive into 2,000-byte buffers, of which their own header takes
    // up to 24 bytes; a larger message would be cut short. Frames of the fabric's own clients
    // (RDMA, UET, probes) and zero-filled ns-3 payloads serialize to ~100-200 bytes; an ns-3
    // packet carrying real payload bytes may not fit.
    const uint32_t bytes = wire->GetSerializedSize();
    NS_ABORT_MSG_IF(bytes > FabricRankMailbox::kMaxMessageBytes,
                    "FabricChannel: a frame of " << bytes << " serialized bytes cannot cross MPI "
                                                 << "ranks (ns-3's MPI interface takes at most "
                                                 << FabricRankMailbox::kMaxMessageBytes << ")");
    MpiInterface::SendPacket(wire, TimeStep(rxStep), dir.context, dir.dst->GetIfIndex());
#else
    (void)d;
    (void)frame;
    (void)arrival;
    (void)now;
#endif
}

void
FabricChannel::ReceiveFromRank(uint8_t d, Ptr<Packet> wire)
{
    if (FabricRankMailbox::IsBatch(wire))
    {
        FabricRankMailbox::Receive(wire);
        return;
    }
    FabricFrame frame;
    std::optional<FabricEventOrderKey> key;
    const bool ok = FabricFrameFromWire(wire, frame, &key);
    NS_ABORT_MSG_UNLESS(ok, "FabricChannel: a message from another rank is not a frame");
    if (!key)
    {
        m_dir[d].dst->Receive(frame);
        return;
    }
    // It came one step early (SendToRank): delivered in the next step with its key, as a frame
    // of a batch is.
    DeliverFromRank(d, std::move(frame), Simulator::Now().GetTimeStep() + 1, key);
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-rank-mailbox.h"

#include "fabric-channel.h"
#include "fabric-frame-wire.h"
#include "fabric-net-device.h"

#include "ns3/abort.h"
#include "ns3/fabric-clock.h"
#include "ns3/fabric-pooled-event.h"
#include "ns3/simulator-impl.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#ifdef AIFABRIC_MPI
#include "ns3/mpi-interface.h"
#endif

namespace ns3
{

namespace
{

/// A batch starts with these bytes (a frame of its own starts with 0xAF 0xF1), then the number
/// of entries (4 bytes); each frame is its direction's index (4), its arrival step (8) and the
/// frame (FabricFrameAppendBytes); a message of Broadcast is kControl (4), its step (8), its
/// handler (4), whether a key follows (1), the key (4 + 8), the payload's size (2) and payload.
constexpr uint8_t kMagic[2] = {0xAF, 0xF2};
constexpr size_t kHeaderBytes = 2 + 4;
/// A batch's bytes: the message (with the Packet's own serialization, ~20 bytes, and the MPI
/// interface's header, up to 24) must fit ns-3's 2,000-byte receive buffers.
constexpr size_t kMaxBytes = 1900;
/// The largest entry: index and arrival, the frame with five telemetry hops, a key.
constexpr size_t kMaxEntryBytes = 12 + 84 + 5 * 28 + 12;
constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
/// The index of an entry that is a message of Broadcast, not a frame.
constexpr uint32_t kControl = 0xffffffff;
constexpr size_t kControlHeadBytes = 4 + 8 + 4 + 1 + 12 + 2;

struct RemoteDirection
{
    FabricChannel* channel;
    uint8_t d;
    uint32_t srcRank;
    uint32_t dstRank;
};

struct Outbox
{
    std::vector<uint8_t> bytes;
    uint32_t frames{0};        //!< entries: frames and messages of Broadcast
    uint32_t controls{0};      //!< of which messages of Broadcast
    int64_t minRx{kNever};     //!< the earliest frame's rxStep: the message's time stamp
    int64_t flushAt{kNever};   //!< when the pending flush event sends it
    int64_t lookahead{kNever}; //!< the shortest delay of this rank's cut cables to that rank
    uint32_t node{0};          //!< where that rank receives: a node and device of a cut cable
    uint32_t ifIndex{0};
    bool addressed{false};
};

struct State
{
    std::vector<RemoteDirection> dirs;
    std::vector<Outbox> out; //!< by receiving rank
    uint64_t messages{0};
    uint64_t frames{0};
    uint64_t controls{0};
    std::vector<FabricRankMailbox::Handler> handlers;
    bool destroyScheduled{false};
    bool lookaheads{false}; //!< every outbox's lookahead is computed
    int8_t distributed{-1}; //!< the simulation runs on ns-3's distributed core (-1: not known)
};

State&
Get()
{
    // Never destroyed: events may reach it while static objects are destroyed.
    static State* s = new State();
    return *s;
}

} // namespace

// With MPI started, a simulation can still be whole (the runner's runs it cannot split, its idle
// probe: on the sequential core in each process): it is then rank 0 of 1.
bool
FabricRankMailbox::Distributed()
{
#ifdef AIFABRIC_MPI
    State& s = Get();
    if (s.distributed < 0)
    {
        Ptr<SimulatorImpl> impl = Simulator::GetImplementation();
        std::string type = impl->GetInstanceTypeId().GetName();
        if (type == "ns3::FabricOrderedSimulatorImpl")
        {
            StringValue core; // the core it orders events for
            impl->GetAttribute("Core", core);
            type = core.Get();
        }
        s.distributed = MpiInterface::IsEnabled() && (type == "ns3::DistributedSimulatorImpl" ||
                                                      type == "ns3::NullMessageSimulatorImpl")
                            ? 1
                            : 0;
        ScheduleDestroy(); // known again for the next simulation
    }
    return s.distributed == 1;
#else
    return false;
#endif
}

namespace
{

uint32_t
ThisRank()
{
#ifdef AIFABRIC_MPI
    return FabricRankMailbox::Distributed() ? MpiInterface::GetSystemId() : 0;
#else
    return 0;
#endif
}

/// A message of Broadcast, delivered to its handler (on this rank or another).
class ControlDelivery final : public FabricPooledEvent<ControlDelivery>
{
  public:
    ControlDelivery(uint32_t handler, const uint8_t* data, uint32_t size)
        : m_handler(handler),
          m_size(size)
    {
        std::memcpy(m_data, data, size);
    }

  protected:
    void Notify() override
    {
        const std::vector<FabricRankMailbox::Handler>& h = Get().handlers;
        NS_ABORT_MSG_IF(m_handler >= h.size(),
                        "FabricRankMailbox: a message for handler "
                            << m_handler << " of " << h.size()
                            << " (every rank must add the same handlers)");
        h[m_handler](m_data, m_size);
    }

  private:
    uint32_t m_handler;
    uint32_t m_size;
    uint8_t m_data[FabricRankMailbox::kMaxPayloadBytes];
};

/// A message of Broadcast from another rank at `p` (after its index and step `due`): schedule
/// its delivery, with the key it carries.
void
ReceiveControl(const uint8_t*& p, const uint8_t* end, int64_t due)
{
    constexpr size_t head = kControlHeadBytes - 12;
    NS_ABORT_MSG_IF(end - p < static_cast<ptrdiff_t>(head),
                    "FabricRankMailbox: a message from another rank is cut short");
    uint32_t handler = 0;
    uint8_t hasKey = 0;
    FabricEventOrderKey key;
    uint16_t n = 0;
    std::memcpy(&handler, p, 4);
    std::memcpy(&hasKey, p + 4, 1);
    std::memcpy(&key.context, p + 5, 4);
    std::memcpy(&key.seq, p + 9, 8);
    std::memcpy(&n, p + 17, 2);
    p += head;
    NS_ABORT_MSG_IF(n > FabricRankMailbox::kMaxPayloadBytes || end - p < n,
                    "FabricRankMailbox: a message from another rank is cut short");
    const int64_t now = Simulator::Now().GetTimeStep();
    NS_ABORT_MSG_IF(due < now,
                    "FabricRankMailbox: a message from another rank is due in the past ("
                        << due << " < " << now << ")");
    if (hasKey != 0)
    {
        NS_ABORT_MSG_UNLESS(FabricPartitionScheduler::IsActive(),
                            "FabricRankMailbox: a message ordered by FabricPartitionScheduler "
                            "came from another rank, but this rank uses another scheduler");
        FabricPartitionScheduler::SetNextKey(key);
    }
    Simulator::ScheduleWithContext(Simulator::NO_CONTEXT,
                                   TimeStep(due - now),
                                   new ControlDelivery(handler, p, n));
    p += n;
}

} // namespace

void
FabricRankMailbox::ScheduleDestroy()
{
    State& s = Get();
    if (!s.destroyScheduled)
    {
        s.destroyScheduled = true;
        Simulator::ScheduleDestroy(&FabricRankMailbox::Reset);
    }
}

uint32_t
FabricRankMailbox::GetRank()
{
    return ThisRank();
}

uint32_t
FabricRankMailbox::GetNRanks()
{
#ifdef AIFABRIC_MPI
    return Distributed() ? MpiInterface::GetSize() : 1;
#else
    return 1;
#endif
}

uint32_t
FabricRankMailbox::AddHandler(Handler handler)
{
    ScheduleDestroy();
    State& s = Get();
    s.handlers.push_back(std::move(handler));
    return static_cast<uint32_t>(s.handlers.size() - 1);
}

Time
FabricRankMailbox::GetMessageDelay(const std::vector<Time>& delays)
{
    int64_t longest = 0;
    for (const Time& d : delays)
    {
        longest = std::max(longest, d.GetTimeStep());
    }
    return TimeStep(longest + 1);
}

void
FabricRankMailbox::Broadcast(uint32_t handler,
                             const void* data,
                             uint32_t size,
                             Time delay,
                             uint32_t origin)
{
    State& s = Get();
    NS_ABORT_MSG_IF(handler >= s.handlers.size(),
                    "FabricRankMailbox::Broadcast: no handler " << handler);
    NS_ABORT_MSG_IF(size > kMaxPayloadBytes,
                    "FabricRankMailbox::Broadcast: " << size << " bytes; at most "
                                                     << kMaxPayloadBytes);
    const int64_t now = Simulator::Now().GetTimeStep();
    const int64_t due = now + delay.GetTimeStep();
    const bool ordered = FabricPartitionScheduler::IsActive();
    FabricEventOrderKey key;
    if (ordered)
    {
        key = FabricPartitionScheduler::TakeKey(origin);
    }
    const uint8_t* bytes = static_cast<const uint8_t*>(data);
    const uint32_t me = ThisRank();
    const uint32_t ranks = GetNRanks();
    if (ranks > 1 && !s.lookaheads)
    {
        ComputeLookaheads();
    }
    for (uint32_t r = 0; r < ranks; ++r)
    {
        if (r == me)
        {
            continue;
        }
        NS_ABORT_MSG_IF(r >= s.out.size() || !s.out[r].addressed || s.out[r].lookahead == kNever,
                        "FabricRankMailbox::Broadcast: rank "
                            << me << " has no cable to rank " << r
                            << " (messages between ranks travel with the frames of cut cables)");
        const size_t entry = kControlHeadBytes + size;
        const size_t at = Open(r, entry);
        Outbox& o = s.out[r];
        o.bytes.resize(at + entry);
        uint8_t* p = o.bytes.data() + at;
        const uint16_t n = static_cast<uint16_t>(size);
        const uint8_t hasKey = ordered ? 1 : 0;
        std::memcpy(p, &kControl, 4);
        std::memcpy(p + 4, &due, 8);
        std::memcpy(p + 12, &handler, 4);
        std::memcpy(p + 16, &hasKey, 1);
        std::memcpy(p + 17, &key.context, 4);
        std::memcpy(p + 21, &key.seq, 8);
        std::memcpy(p + 29, &n, 2);
        std::memcpy(p + 31, bytes, size);
        ++o.controls;
        ++s.controls;
        // Delivered one step early, as frames are: the receiving rank schedules it in its own
        // step, before any event of that step has run.
        Added(r, due - 1, now);
    }
    if (ordered)
    {
        FabricPartitionScheduler::SetNextKey(key);
    }
    Simulator::ScheduleWithContext(Simulator::NO_CONTEXT,
                                   delay,
                                   new ControlDelivery(handler, bytes, size));
}

uint64_t
FabricRankMailbox::GetControlMessagesSent()
{
    return Get().controls;
}

uint32_t
FabricRankMailbox::Register(FabricChannel* channel,
                            uint8_t d,
                            uint32_t srcRank,
                            uint32_t dstRank,
                            uint32_t dstNode,
                            uint32_t dstIfIndex)
{
    ScheduleDestroy();
    State& s = Get();
    const uint32_t index = static_cast<uint32_t>(s.dirs.size());
    s.dirs.push_back(RemoteDirection{channel, d, srcRank, dstRank});
    if (s.out.size() <= dstRank)
    {
        s.out.resize(dstRank + 1);
    }
    Outbox& o = s.out[dstRank];
    if (!o.addressed)
    {
        o.addressed = true;
        o.node = dstNode;
        o.ifIndex = dstIfIndex;
    }
    s.lookaheads = false;
    return index;
}

void
FabricRankMailbox::Post(uint32_t index,
                        const FabricFrame& frame,
                        int64_t rxStep,
                        int64_t arrival,
                        const FabricEventOrderKey* key,
                        int64_t now)
{
    State& s = Get();
    if (!s.lookaheads)
    {
        ComputeLookaheads();
    }
    const RemoteDirection& rd = s.dirs[index];
    const size_t at = Open(rd.dstRank, kMaxEntryBytes);
    Outbox& o = s.out[rd.dstRank];
    o.bytes.resize(at + 4 + 8);
    std::memcpy(o.bytes.data() + at, &index, 4);
    std::memcpy(o.bytes.data() + at + 4, &arrival, 8);
    FabricFrameAppendBytes(frame, key, o.bytes);
    NS_ABORT_MSG_IF(o.bytes.size() > kMaxBytes,
                    "FabricRankMailbox: a frame of " << o.bytes.size() - at
                                                     << " bytes does not fit a batch");
    Added(rd.dstRank, rxStep, now);
}

size_t
FabricRankMailbox::Open(uint32_t rank, size_t bytes)
{
    Outbox& o = Get().out[rank];
    if (o.bytes.size() + bytes > kMaxBytes)
    {
        Flush(rank);
    }
    if (o.bytes.empty())
    {
        o.bytes.resize(kHeaderBytes);
    }
    return o.bytes.size();
}

void
FabricRankMailbox::Added(uint32_t rank, int64_t rxStep, int64_t now)
{
    Outbox& o = Get().out[rank];
    ++o.frames;
    o.minRx = std::min(o.minRx, rxStep);
    const int64_t deadline = rxStep - o.lookahead;
    NS_ABORT_MSG_IF(deadline < now,
                    "FabricRankMailbox: an entry to rank "
                        << rank << " is due " << rxStep - now
                        << " steps after it is sent, less than the lookahead (" << o.lookahead
                        << "; a Broadcast's delay must exceed it by one: GetMessageDelay)");
    if (deadline < o.flushAt)
    {
        o.flushAt = deadline;
        Simulator::Schedule(TimeStep(deadline - now), &FabricRankMailbox::FlushAt, rank, deadline);
    }
}

void
FabricRankMailbox::ComputeLookaheads()
{
    State& s = Get();
    const uint32_t me = ThisRank();
    for (Outbox& o : s.out)
    {
        o.lookahead = kNever;
    }
    for (const RemoteDirection& rd : s.dirs)
    {
        if (rd.srcRank == me)
        {
            Outbox& o = s.out[rd.dstRank];
            o.lookahead = std::min(o.lookahead, rd.channel->GetDelay().GetTimeStep());
        }
    }
    s.lookaheads = true;
}

void
FabricRankMailbox::FlushAt(uint32_t rank, int64_t at)
{
    if (Get().out[rank].flushAt == at)
    {
        Flush(rank); // else an earlier flush sent these frames, or a later one is due
    }
}

void
FabricRankMailbox::Flush(uint32_t rank)
{
    State& s = Get();
    Outbox& o = s.out[rank];
    if (o.frames == 0)
    {
        return;
    }
#ifdef AIFABRIC_MPI
    std::memcpy(o.bytes.data(), kMagic, 2);
    std::memcpy(o.bytes.data() + 2, &o.frames, 4);
    Ptr<Packet> wire = Create<Packet>(o.bytes.data(), static_cast<uint32_t>(o.bytes.size()));
    NS_ABORT_MSG_IF(wire->GetSerializedSize() > kMaxMessageBytes,
                    "FabricRankMailbox: a batch of " << wire->GetSerializedSize()
                                                     << " serialized bytes exceeds ns-3's MPI "
                                                        "messages");
    MpiInterface::SendPacket(wire, TimeStep(o.minRx), o.node, o.ifIndex);
#endif
    ++s.messages;
    s.frames += o.frames - o.controls;
    o.bytes.clear();
    o.frames = 0;
    o.controls = 0;
    o.minRx = kNever;
    o.flushAt = kNever;
}

bool
FabricRankMailbox::IsBatch(Ptr<Packet> wire)
{
    uint8_t head[2];
    return wire->GetSize() >= kHeaderBytes && wire->CopyData(head, 2) == 2 &&
           head[0] == kMagic[0] && head[1] == kMagic[1];
}

void
FabricRankMailbox::Receive(Ptr<Packet> wire)
{
    State& s = Get();
    static std::vector<uint8_t> buf;
    buf.resize(wire->GetSize());
    wire->CopyData(buf.data(), static_cast<uint32_t>(buf.size()));
    const uint8_t* p = buf.data() + 2;
    const uint8_t* end = buf.data() + buf.size();
    uint32_t frames = 0;
    std::memcpy(&frames, p, 4);
    p += 4;
    for (uint32_t k = 0; k < frames; ++k)
    {
        uint32_t index = 0;
        int64_t arrival = 0;
        NS_ABORT_MSG_IF(end - p < 12, "FabricRankMailbox: a batch from another rank is cut short");
        std::memcpy(&index, p, 4);
        std::memcpy(&arrival, p + 4, 8);
        p += 12;
        if (index == kControl)
        {
            ReceiveControl(p, end, arrival);
            continue;
        }
        FabricFrame frame;
        std::optional<FabricEventOrderKey> key;
        NS_ABORT_MSG_UNLESS(index < s.dirs.size() && FabricFrameReadBytes(p, end, frame, key),
                            "FabricRankMailbox: a batch from another rank holds no frame (every "
                            "rank must build the same cables)");
        const RemoteDirection& rd = s.dirs[index];
        rd.channel->DeliverFromRank(rd.d, std::move(frame), arrival, key);
    }
}

uint64_t
FabricRankMailbox::GetMessagesSent()
{
    return Get().messages;
}

uint64_t
FabricRankMailbox::GetFramesSent()
{
    return Get().frames;
}

void
FabricRankMailbox::Reset()
{
    State& s = Get();
    s.dirs.clear();
    s.out.clear();
    s.messages = 0;
    s.frames = 0;
    s.controls = 0;
    s.handlers.clear();
    s.destroyScheduled = false;
    s.lookaheads = false;
    s.distributed = -1;
}

// FabricChannel's side of a batch, here rather than in fabric-channel.cc: more code in that
// translation unit made GCC stop inlining the scheduler's Insert into FabricChannel::Deliver
// (+1% instructions per packet-hop in scripts/perf-budget.sh).

// A frame of a batch from another rank (FabricRankMailbox), delivered by an event of its own
// that holds it: the batch's event runs at its earliest frame's step, and later batches may
// hold earlier frames, so the lane's ring (in the order frames are pushed) cannot serve.
class FabricChannel::RemoteDelivery final : public FabricPooledEvent<RemoteDelivery>
{
  public:
    RemoteDelivery(FabricChannel* ch, uint8_t d, FabricFrame&& frame)
        : m_ch(ch),
          m_d(d),
          m_frame(std::move(frame))
    {
    }

  protected:
    void Notify() override
    {
        FabricNetDevice* dst = m_ch->m_dir[m_d].dst;
        if (dst != nullptr) // else the cable was disposed
        {
            dst->Receive(m_frame);
        }
    }

  private:
    FabricChannel* m_ch;
    uint8_t m_d;
    FabricFrame m_frame;
};

void
FabricChannel::DeliverFromRank(uint8_t d,
                               FabricFrame&& frame,
                               int64_t arrival,
                               const std::optional<FabricEventOrderKey>& key)
{
    const int64_t now = Simulator::Now().GetTimeStep();
    NS_ABORT_MSG_IF(arrival < now,
                    "FabricChannel: a frame from another rank arrives in the past ("
                        << arrival << " < " << now << ")");
    if (key)
    {
        NS_ABORT_MSG_UNLESS(FabricPartitionScheduler::IsActive(),
                            "FabricChannel: a frame ordered by FabricPartitionScheduler came "
                            "from another rank, but this rank uses another scheduler (every "
                            "rank must set the same SchedulerType)");
        FabricPartitionScheduler::SetNextKey(*key);
    }
    Simulator::ScheduleWithContext(m_dir[d].context,
                                   TimeStep(arrival - now),
                                   new RemoteDelivery(this, d, std::move(frame)));
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_PARTITION_SCHEDULER_H
#define FABRIC_PARTITION_SCHEDULER_H

#include "ns3/ptr.h"
#include "ns3/scheduler.h"
#include "ns3/simulator-impl.h"

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Where an event stands among the events of its time stamp under FabricPartitionScheduler: the
 * node that scheduled it (the scheduling event's context; the event's own context when it was
 * scheduled outside any node, as at set-up) and a sequence number that grows with every event
 * scheduled on the scheduling event's MPI rank.
 */
struct FabricEventOrderKey
{
    uint32_t context{0}; //!< the scheduling node's id
    uint64_t seq{0};     //!< grows in the order the scheduling node scheduled its events
};

/**
 * \ingroup ai-fabric
 * An event order that does not depend on how the nodes are dealt to MPI ranks (issue 45), so
 * that a run on N ranks gives the sequential run's results to the nanosecond. Select it before
 * the simulator is first used, with any single-threaded or distributed core:
 *
 *   GlobalValue::Bind("SchedulerType", StringValue("ns3::FabricPartitionScheduler"));
 *
 * ns-3's schedulers order events of equal time stamps by a uid allocated in the order they were
 * scheduled on their rank. On N ranks a rank allocates uids only for its own nodes' events, and
 * an event that came from another rank gets its uid when the message is received, so events at
 * equal times (47% of the frame arrivals of a ring AllReduce) can run in another order than in
 * the sequential run. This scheduler orders them by (time stamp, scheduling node, the node's
 * scheduling order) instead. Each part is the same on any partition: a node's events run on one
 * rank, in this order, so the order in which a node schedules is the same everywhere; a frame
 * that crosses ranks carries its key (FabricChannel ships it with the frame). Only the relative
 * order of one node's sequence numbers matters, which is why one counter per rank serves all of
 * its nodes. Events of equal times are ordered differently from ns-3's default (the same events
 * at the same times, with other ties broken), so results differ from a run with ns-3's
 * schedulers by such reorderings; a run with this scheduler on 1, 2 or 4 ranks gives the same
 * results.
 *
 * FabricChannel delivers each frame with its own event while this scheduler is in use (a cable
 * lane's shared delivery event would be scheduled by the receiver for the next frame, which
 * another rank cannot reproduce).
 *
 * |ns3|'s simulator cores decide whether an event of the current time stamp has run by its uid
 * (at most the running event's uid: run), which holds only for their own order. Under this one an
 * event with a smaller uid can still be pending, and cancelling it would be ignored. So it runs
 * only under a core that asks HasRun instead: FabricSimulatorImpl, or any other core wrapped in
 * FabricOrderedSimulatorImpl. Select() chooses both; the scheduler stops the run with one line
 * under any other core.
 */
class FabricPartitionScheduler : public Scheduler
{
  public:
    static TypeId GetTypeId();
    FabricPartitionScheduler();
    ~FabricPartitionScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

    /// True while a FabricPartitionScheduler orders the simulation's events.
    static bool IsActive()
    {
        return s_instance != nullptr;
    }

    /**
     * The key an event scheduled now by the running event would get (taking a sequence number,
     * as scheduling it would): a frame that crosses ranks carries it.
     * \param target the event's context, used when no node's event is running
     */
    static FabricEventOrderKey TakeKey(uint32_t target);

    /// The next event scheduled gets `key` instead of a key of its own (a frame from another rank).
    static void SetNextKey(const FabricEventOrderKey& key);

    /**
     * Whether the event of time stamp `ts` and uid `uid` has been taken out to run (or was
     * removed): every event before the current time stamp, and those of the current one that
     * this scheduler has handed out.
     */
    static bool HasRun(uint64_t ts, uint32_t uid);

    /**
     * SimulatorImpl::IsExpired of an event that is not a destroy event, under this scheduler:
     * released, cancelled, or HasRun. What FabricSimulatorImpl and FabricOrderedSimulatorImpl
     * answer instead of their uid rule.
     */
    static bool IsExpired(const EventId& id);

    /**
     * Order the simulation's events by this scheduler: binds SchedulerType to it and, unless
     * SimulatorImplementationType is ns3::FabricSimulatorImpl, wraps the selected core in
     * FabricOrderedSimulatorImpl. Call before the simulator is first used, and after
     * MpiInterface::Enable (which reads SimulatorImplementationType to choose its synchronizer).
     */
    static void Select();

  private:
    /// (scheduling node, sequence number) as one integer: node ids below 2^24 (no context is
    /// 2^24 - 1), sequence numbers below 2^40.
    static uint64_t Pack(const FabricEventOrderKey& k);
    FabricEventOrderKey NewKey(uint32_t target);

    /// A pending event in a wheel slot (all of a slot's events have the slot's time stamp).
    struct Near
    {
        uint64_t key;
        Event ev;
    };

    /// A pending event beyond the wheel (a timer), in a min-heap by (time stamp, key).
    struct Far
    {
        uint64_t ts;
        uint64_t key;
        Event ev;
    };

    static bool FarRunsLater(const Far& a, const Far& b)
    {
        return a.ts != b.ts ? a.ts > b.ts : a.key > b.key;
    }

    /// Where the next event is: a slot (`slot` set) or the far heap.
    struct Next
    {
        uint32_t slot{kNone};
        uint64_t ts{0};
    };

    Next FindNext() const;
    /// Take the event FindNext found out of its place.
    Event Take(const Next& n);
    /// Take removed events off the front.
    void Purge();

    static constexpr uint32_t kSlots = 4096; //!< one time step each
    static constexpr uint32_t kNone = UINT32_MAX;

    /// The events of one time stamp, sorted by key from `head` on (those before it have run).
    struct Slot
    {
        std::vector<Near> v;
        uint32_t head{0};
    };

    /// Slot `ts & (kSlots-1)` holds the events of time stamp ts for ts in [m_now, m_now + kSlots).
    std::vector<Slot> m_slot;
    std::array<uint64_t, kSlots / 64> m_bits{}; //!< one bit per non-empty slot
    uint64_t m_summary{0};                      //!< one bit per non-zero word of m_bits
    std::vector<Far> m_far;
    uint64_t m_now{0}; //!< time stamp of the last event taken out
    uint64_t m_count{0};
    /// Events taken out by Remove (uid, time stamp), skipped when they come first.
    std::set<std::pair<uint32_t, uint64_t>> m_removed;
    uint64_t m_seq{0};
    bool m_hasNextKey{false};
    FabricEventOrderKey m_nextKey;
    uint64_t m_runTs{0};         //!< time stamp of the events handed out last
    std::vector<uint32_t> m_ran; //!< uids handed out (or removed) at m_runTs

    static inline FabricPartitionScheduler* s_instance = nullptr;
};

/**
 * \ingroup ai-fabric
 * Another simulator core (its `Core` attribute: ns3::DefaultSimulatorImpl, or |ns3|'s distributed
 * ns3::DistributedSimulatorImpl and ns3::NullMessageSimulatorImpl) run under
 * FabricPartitionScheduler's order: everything is the core's, except whether an event has run,
 * which FabricPartitionScheduler::HasRun answers (Cancel, Remove, IsExpired, GetDelayLeft; a
 * removed event is cancelled and left in the core's queue, where it runs as nothing).
 */
class FabricOrderedSimulatorImpl : public SimulatorImpl
{
  public:
    static TypeId GetTypeId();
    FabricOrderedSimulatorImpl();
    ~FabricOrderedSimulatorImpl() override;

    void Destroy() override;
    bool IsFinished() const override;
    void Stop() override;
    /// ns-3.37 returns nothing here, later versions the EventId of the stop event.
    using StopResult = decltype(std::declval<SimulatorImpl&>().Stop(std::declval<const Time&>()));
    StopResult Stop(const Time& delay) override;
    EventId Schedule(const Time& delay, EventImpl* event) override;
    void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override;
    EventId ScheduleNow(EventImpl* event) override;
    EventId ScheduleDestroy(EventImpl* event) override;
    void Remove(const EventId& id) override;
    void Cancel(const EventId& id) override;
    bool IsExpired(const EventId& id) const override;
    void Run() override;
    Time Now() const override;
    Time GetDelayLeft(const EventId& id) const override;
    Time GetMaximumSimulationTime() const override;
    void SetScheduler(ObjectFactory schedulerFactory) override;
    uint32_t GetSystemId() const override;
    uint32_t GetContext() const override;
    uint64_t GetEventCount() const override;

  protected:
    void DoDispose() override;

  private:
    /// The wrapped core, created on first use from `m_coreType`.
    SimulatorImpl& Core() const;

    std::string m_coreType{"ns3::DefaultSimulatorImpl"};
    mutable Ptr<SimulatorImpl> m_core;
};

} // namespace ns3

#endif // FABRIC_PARTITION_SCHEDULER_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_PARTITION_SCHEDULER_H
#define FABRIC_PARTITION_SCHEDULER_H

#include "ns3/scheduler.h"

#include <cstdint>
#include <set>
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

  private:
    struct Entry
    {
        uint64_t ts;
        uint32_t context;
        uint64_t seq;
        Event ev;
    };

    /// Heap order: the entry that runs later is "less" (std::push_heap keeps the greatest first).
    static bool RunsLater(const Entry& a, const Entry& b)
    {
        if (a.ts != b.ts)
        {
            return a.ts > b.ts;
        }
        if (a.context != b.context)
        {
            return a.context > b.context;
        }
        return a.seq > b.seq;
    }

    FabricEventOrderKey NewKey(uint32_t target);
    /// Drop removed events from the top of the heap.
    void Purge() const;

    mutable std::vector<Entry> m_heap;
    /// Events taken out by Remove (uid, time stamp), skipped when they reach the top.
    mutable std::set<std::pair<uint32_t, uint64_t>> m_removed;
    uint64_t m_seq{0};
    bool m_hasNextKey{false};
    FabricEventOrderKey m_nextKey;

    static inline FabricPartitionScheduler* s_instance = nullptr;
};

} // namespace ns3

#endif // FABRIC_PARTITION_SCHEDULER_H

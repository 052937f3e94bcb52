// SPDX-License-Identifier: GPL-2.0-only
// The benchmarks' scheduler: ns-3's PriorityQueueScheduler, also counting pending events.
#ifndef AI_FABRIC_BENCH_COUNTING_SCHEDULER_H
#define AI_FABRIC_BENCH_COUNTING_SCHEDULER_H

#include "ns3/priority-queue-scheduler.h"

#include <algorithm>
#include <cstdint>

namespace aifabricbench
{

/**
 * PriorityQueueScheduler that also records the pending-event set: its peak, and its mean as
 * seen by each event removed. The counting costs a few additions per event.
 */
class CountingScheduler : public ns3::PriorityQueueScheduler
{
  public:
    static ns3::TypeId GetTypeId()
    {
        static ns3::TypeId tid = ns3::TypeId("ns3::AiFabricBenchCountingScheduler")
                                     .SetParent<ns3::PriorityQueueScheduler>()
                                     .AddConstructor<CountingScheduler>();
        return tid;
    }

    void Insert(const Event& ev) override
    {
        PriorityQueueScheduler::Insert(ev);
        s_peak = std::max(s_peak, ++s_size);
    }

    Event RemoveNext() override
    {
        s_sum += --s_size;
        ++s_removed;
        return PriorityQueueScheduler::RemoveNext();
    }

    void Remove(const Event& ev) override
    {
        --s_size;
        PriorityQueueScheduler::Remove(ev);
    }

    static void Reset()
    {
        s_size = s_peak = s_sum = s_removed = 0;
    }

    static double Mean()
    {
        return s_removed ? double(s_sum) / double(s_removed) : 0.0;
    }

    static inline uint64_t s_size = 0;
    static inline uint64_t s_peak = 0;
    static inline uint64_t s_sum = 0;
    static inline uint64_t s_removed = 0;
};

} // namespace aifabricbench

#endif

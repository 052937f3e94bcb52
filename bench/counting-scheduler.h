// SPDX-License-Identifier: GPL-2.0-only
// The benchmarks' schedulers: ns-3's PriorityQueueScheduler or ai-fabric's TimingWheelScheduler,
// also counting pending events.
#ifndef AI_FABRIC_BENCH_COUNTING_SCHEDULER_H
#define AI_FABRIC_BENCH_COUNTING_SCHEDULER_H

#include "ns3/priority-queue-scheduler.h"
#include "ns3/timing-wheel-scheduler.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace aifabricbench
{

/// The pending-event set as the counting schedulers saw it: its peak, and its mean as seen by
/// each event removed.
struct PendingStats
{
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

/// `Base` (an ns-3 Scheduler) that also updates PendingStats; a few additions per event.
template <typename Base>
class Counting : public Base
{
  public:
    static ns3::TypeId GetTypeId()
    {
        static ns3::TypeId tid =
            ns3::TypeId("ns3::AiFabricBenchCounting" + Base::GetTypeId().GetName().substr(5))
                .template SetParent<Base>()
                .template AddConstructor<Counting<Base>>();
        return tid;
    }

    void Insert(const ns3::Scheduler::Event& ev) override
    {
        Base::Insert(ev);
        PendingStats::s_peak = std::max(PendingStats::s_peak, ++PendingStats::s_size);
    }

    ns3::Scheduler::Event RemoveNext() override
    {
        PendingStats::s_sum += --PendingStats::s_size;
        ++PendingStats::s_removed;
        return Base::RemoveNext();
    }

    void Remove(const ns3::Scheduler::Event& ev) override
    {
        --PendingStats::s_size;
        Base::Remove(ev);
    }
};

/// \return the counting TypeId for a scheduler TypeId name, or an invalid TypeId
inline ns3::TypeId
CountingSchedulerFor(const std::string& scheduler)
{
    if (scheduler == "ns3::PriorityQueueScheduler")
    {
        return Counting<ns3::PriorityQueueScheduler>::GetTypeId();
    }
    if (scheduler == "ns3::TimingWheelScheduler")
    {
        return Counting<ns3::TimingWheelScheduler>::GetTypeId();
    }
    return ns3::TypeId();
}

} // namespace aifabricbench

#endif

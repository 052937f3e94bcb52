// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_MEMORY_ESTIMATE_H
#define AI_FABRIC_MEMORY_ESTIMATE_H

#include "scenario.h"

#include <cstdint>
#include <string>

namespace aifabric
{

/**
 * What a run will hold in memory, estimated before anything is built from the sizes that
 * dominate it: the hosts (node, NIC, device, stack), the switch ports (device, queues, flow
 * control), the forwarding tables (an entry per host below a switch) and the collective schedule (a
 * transfer record, its dependency and the executor's record per transfer). The per-item costs were
 * measured with peak RSS (doc: "Memory").
 */
struct MemoryEstimate
{
    uint64_t hosts{0};
    uint64_t switchPorts{0};
    uint64_t routes{0};    //!< forwarding entries (hosts below each switch, and defaults)
    uint64_t transfers{0}; //!< transfers written out in the schedules (a ring's: none, it is lazy)
    uint64_t connections{0}; //!< network connections the collective opens (queue pairs, sockets)
    uint64_t operations{0};  //!< a training step's operations (workload.kind training)
    double bytes{0};         //!< the estimate

    /// "about 12.3 GB (4096 hosts, 12288 switch ports, 0.8 M routes, 33.5 M collective transfers,
    /// 1.0 k connections)"
    std::string Describe() const;
};

/// The estimate for `r` (its topology, algorithm, channels, chunks and buckets).
MemoryEstimate EstimateMemory(const RunConfig& r);

/// This machine's physical memory in bytes (0 if unknown).
uint64_t PhysicalMemoryBytes();

/**
 * Refuse a run whose estimate is above limits.max_memory_gb (0: this machine's physical
 * memory): throws ScenarioError naming limits.max_memory_gb, the estimate and what dominates it.
 */
void CheckMemory(const RunConfig& r);

} // namespace aifabric

#endif

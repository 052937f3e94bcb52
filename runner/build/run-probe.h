// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_RUN_PROBE_H
#define AI_FABRIC_RUN_PROBE_H

#include "scenario.h"

#include <nlohmann/json.hpp>

namespace aifabric
{

/**
 * The idle small-message figure of a run: its fabric and transport built alone (no workload,
 * no loss, no faults), one message of `bytes` from rank 0 to the last rank (a GPU on another
 * leaf), after a warm-up message and 100 ms of quiet as the tcp-vs-rdma-latency example
 * sends it. Run in a simulation of its own after the run's, so the run itself is unchanged.
 * \return {"bytes", "us", "src", "dst"}: one way, the first byte leaving GPU memory to the last
 * in the peer's GPU memory (0 us when the fabric has fewer than two GPUs)
 */
nlohmann::json IdleMessageProbe(const RunConfig& c, uint64_t bytes = 1024);

} // namespace aifabric

#endif

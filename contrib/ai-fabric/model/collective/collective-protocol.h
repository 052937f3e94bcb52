// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_PROTOCOL_H
#define COLLECTIVE_PROTOCOL_H

#include "ns3/nstime.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * NCCL's three protocols and what each costs, per algorithm family, as NCCL's own tuner
 * charges them (src/graph/tuning.cc, ncclTunerConstantsDefaults; src/device/ for the wire
 * formats):
 *  - Simple: data in 512 KiB steps behind a memory fence and a flag;
 *  - LL: 8 bytes of data and 8 of flag per 16-byte line (wire × 2), no fence;
 *  - LL128: 120 bytes of data and 8 of flag per 128-byte line (wire × 128/120), no fence.
 * NCCL charges each collective a base latency (kernel launch, its own tables) and each hop a
 * hardware latency per link (NVLink, network). The packet-level model already has the hop's
 * physical latency (NvlinkTransport Latency 0.6 µs; a small message NIC to NIC through a leaf
 * 1.64 µs), so a protocol adds, per hop, only what NCCL charges beyond it (at least 0): the
 * executor holds each send back by that much, and each rank's first sends by the base.
 */
struct CollectiveProtocol
{
    enum Kind : uint8_t
    {
        SIMPLE = 0,
        LL128 = 1,
        LL = 2,
    };

    /// What an algorithm family pays under a protocol.
    struct Costs
    {
        uint32_t wireNum{1}; //!< wire bytes per data byte, as a fraction
        uint32_t wireDen{1};
        Time start;      //!< per collective and rank, before its first send (NCCL base latency)
        Time nvlinkHop;  //!< added to every NVLink hop (not to NVLS operations, whose latency
                         //!< NCCL charges once, in `start`)
        Time networkHop; //!< added to every network hop

        /// Keep only the wire format: no start or per-hop latency.
        void ClearLatencies()
        {
            start = nvlinkHop = networkHop = Time(0);
        }

        /// Whether the protocol adds no latency at all.
        bool HasNoLatency() const
        {
            return start.IsZero() && nvlinkHop.IsZero() && networkHop.IsZero();
        }
    };

    /// The physical hop latencies the NCCL figures are reduced by.
    static constexpr int64_t kNvlinkHopNs = 600;
    static constexpr int64_t kNetworkHopNs = 1640;

    static const char* Name(Kind k);
    /// \return false (and `k` unchanged) if `name` is none of "simple", "ll128", "ll"
    static bool ByName(const std::string& name, Kind& k);
    /**
     * What `algorithm` (a workload.algorithm name: ring, tree, nvls, nvls-tree,
     * pat, halving-doubling, hierarchical) pays under `k`. Halving-doubling and hierarchical
     * are charged as rings (NCCL has no such algorithm); NVLS, NVLS-Tree and PAT run Simple
     * only.
     */
    static Costs CostsOf(const std::string& algorithm, Kind k);
    /// Whether NCCL runs `algorithm` with `k` (NVLS, NVLS-Tree and PAT: Simple only).
    static bool Supports(const std::string& algorithm, Kind k);
    /// Data bytes per step slot (NCCL_STEPS = 8 slots per buffer): Simple 512 KiB, LL 32 KiB
    /// (64 KiB of lines), LL128 562.5 KiB (600 KiB of lines).
    static uint64_t StepBytes(Kind k);
    /// Wire bytes for `bytes` of data (at least 1).
    static uint64_t WireBytes(const Costs& c, uint64_t bytes);
};

} // namespace ns3

#endif // COLLECTIVE_PROTOCOL_H

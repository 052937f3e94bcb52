// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLNET_COLLECTIVE_H
#define COLLNET_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * NCCL's CollNet Direct AllReduce on SHARP switches (InfiniBand in-network reduction): every GPU
 * of a server is a head for 1/G of the buffer. Per chunk, the other G−1 GPUs scatter the head's
 * share to it over NVLink; the head sends the share (reduced in the server) out of its own NIC
 * to the aggregation node of its leaf switch; the leaf's aggregator reduces the chunks of all
 * its servers and, if the rail spans several leaves, sends the partial sum to the rail's root
 * aggregator (a spine's), which reduces the leaves' and sends the total back down; each head
 * receives the total and writes it to the other G−1 GPUs over NVLink (NCCL's directGather).
 * Each NIC carries S/G each way instead of a ring's ≈ 2S/G, and a chunk crosses the fabric in
 * one round trip whatever the server count (NCCL's CollNet latency is one network hop).
 *
 * Needs CollectiveSpec::inNetwork (the fabric's InNetworkTree: aggregators are ranks after the
 * GPUs) and a whole number of servers, two at least. Chunks of kChunkBytes (a Simple step) per
 * head, CollectiveSpec::chunks if more, at most kMaxChunks; a head starts chunk k once chunk
 * k − kSlots has left it (its receive slots) and come back (its network connection's slots).
 * Simple protocol only, as NCCL's. NCCL's latency adds 0.4 µs per local peer on each NVLink
 * step (its arity serialization; ArityLatency).
 */
class CollNetCollective : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    std::string Check(const CollectiveSpec& spec) const override;

    static constexpr uint64_t kChunkBytes = 512 * 1024;
    static constexpr uint32_t kSlots = 8; //!< NCCL_STEPS
    static constexpr uint32_t kMaxChunks = 256;
    static uint32_t Chunks(uint64_t bytes, uint32_t specChunks);
    /// NCCL's arity serialization on an NVLink step of a server of `gpusPerServer` GPUs.
    static Time ArityLatency(uint32_t gpusPerServer);

  protected:
    void DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const override;
};

} // namespace ns3

#endif // COLLNET_COLLECTIVE_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef DOUBLE_BINARY_TREE_COLLECTIVE_H
#define DOUBLE_BINARY_TREE_COLLECTIVE_H

#include "collective-algorithm.h"

#include <array>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * NCCL's Tree AllReduce (NCCL >= 2.4, src/graph/trees.cc and the tree kernels): per channel, an
 * intra-server chain over NVLink and a double binary tree over servers whose edges join the
 * chain heads. Channel c's chain starts at GPU c mod G (its head), so the inter-server edges of
 * channel c stay on rail c (the head's own NIC, the same rail at both ends). Each channel's
 * share is split in two halves, one per tree; the second tree mirrors the first (server s sits
 * where M-1-s sits in the first) so most servers that are inner nodes of one tree are leaves of
 * the other and every NIC sends and receives about 2·S/(C·...) in balance. Each chunk is reduced
 * up (chain tail to head, then children's heads to parent's head: a node forwards a chunk once
 * it has it from everyone below) and broadcast down the same edges. Chunks are NCCL's tree
 * chunk, one step slot of the protocol (Simple NCCL_BUFFSIZE / NCCL_STEPS = 512 KiB,
 * src/enqueue.cc calcCollChunking), or CollectiveSpec::chunks if that is more, at most
 * kMaxChunks per half. With one GPU per server
 * (or ranks not a multiple of G) it is the plain double binary tree over ranks.
 * Latency grows as (G-1) + log2 M hops each way.
 */
class DoubleBinaryTreeCollective : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    std::string Check(const CollectiveSpec& spec) const override;

    /// At most this many chunks per half and channel (bounds the schedule's memory).
    static constexpr uint32_t kMaxChunks = 256;
    /// The chunks each half of a channel's `bytes` is pipelined in: one step slot of the
    /// protocol each (CollectiveProtocol::StepBytes; Simple 512 KiB), or `specChunks` if more.
    static uint32_t Chunks(uint64_t channelBytes,
                           uint32_t specChunks,
                           CollectiveProtocol::Kind protocol = CollectiveProtocol::SIMPLE);

    /// What brings a node the fully reduced chunk: up to 3 transfer indices (UINT32_MAX: none).
    using Deps = std::array<uint32_t, 3>;
    /// NCCL_STEPS: the buffer slots a connection has; a sender is at most this many chunks
    /// ahead of what its receiver has consumed (passed on).
    static constexpr uint32_t kSlots = 8;

    /**
     * Appends a binary-tree AllReduce to a schedule chunk by chunk. The tree is a heap over
     * positions; `nodeAt[pos]` is the node there and `chains[node]` its ranks, head first (the
     * tree joins heads; a chain reduces tail to head and broadcasts back). Receiver-side flow
     * control as NCCL's: the send of chunk k to a rank also waits for that rank's passing on of
     * chunk k - kSlots (the transfer that freed the slot), so no sender runs ahead of the
     * slots its peer has free.
     */
    class Builder
    {
      public:
        Builder(const std::vector<std::vector<uint32_t>>& chains,
                const std::vector<uint32_t>& nodeAt,
                uint32_t ranks);
        /**
         * Append the next chunk (`bytes`). \param ready if not null, per node: what the chain
         * tail's first send (the head's, in a one-rank chain) also waits for \param done if
         * not null, filled per node with what brings the reduced chunk to the node's head
         */
        void AppendChunk(CollectiveSchedule& s,
                         uint64_t bytes,
                         const std::vector<uint32_t>* ready,
                         std::vector<Deps>* done);
        /// `t` passes on the chunk just appended at `rank` (a head that forwards nothing in the
        /// tree: NVLS-Tree's store), freeing its slot if nothing else did.
        void Consumed(uint32_t rank, uint32_t t);
        /// The transfer with which `rank` passed on chunk (next chunk - kSlots) up the tree (its
        /// send to its parent; the root's first send down), or UINT32_MAX: what frees the slot
        /// the next chunk takes in `rank`'s own buffer towards the tree.
        uint32_t PassedOnUp(uint32_t rank) const;

      private:
        /// The transfer that freed `rank`'s slot for the chunk being appended (up or down).
        uint32_t Slot(const std::vector<uint64_t>& ring, uint32_t rank) const;
        /// Record `t` as `rank`'s passing on of the current chunk, unless one is recorded.
        void Record(std::vector<uint64_t>& ring, uint32_t rank, uint32_t t);

        const std::vector<std::vector<uint32_t>>& m_chains;
        const std::vector<uint32_t>& m_nodeAt;
        uint32_t m_chunk{0};
        /// Per rank and slot: (chunk << 32 | transfer) of its last passing on, up and down.
        std::vector<uint64_t> m_up;
        std::vector<uint64_t> m_down;
        std::vector<uint32_t> m_headIn;
        std::vector<uint32_t> m_upT;
        std::vector<uint32_t> m_downT;
    };

    /// Heap position -> node of the double binary tree's tree `t` (0, or 1: mirrored) over m.
    static std::vector<uint32_t> TreeOrder(uint32_t m, uint32_t t);

  protected:
    void DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const override;
};

} // namespace ns3

#endif // DOUBLE_BINARY_TREE_COLLECTIVE_H

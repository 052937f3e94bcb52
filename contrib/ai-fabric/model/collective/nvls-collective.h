// SPDX-License-Identifier: GPL-2.0-only
#ifndef NVLS_COLLECTIVE_H
#define NVLS_COLLECTIVE_H

#include "collective-algorithm-registry.h"
#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * NCCL's NVLS algorithm (NVLink SHARP, H100 and later) inside one server: GPU i owns shard i of
 * the buffer (S/G); per chunk it reduces its shard in the NVSwitch (multimem.ld_reduce:
 * CollectiveTransfer::NVLS_REDUCE) and, for AllReduce, writes the sum back to every GPU
 * (multimem.st: NVLS_MULTICAST). ReduceScatter is the reduction only, AllGather the store only.
 * Each GPU's NVLink then carries S·(G+1)/G per direction for an AllReduce instead of a ring's
 * 2·S·(G−1)/G. Chunks are NCCL's nvlsChunkSize (128 KiB, src/enqueue.cc), or
 * CollectiveSpec::chunks if that is more, at most kMaxChunks per shard. Needs the NVLink
 * transport (the executor sends NVLS operations to NvlinkTransport::SendNvls); across servers
 * use NvlsTreeCollective (NCCL runs NVLS across nodes only with CollNet/SHARP switches).
 */
class NvlsCollective : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    std::string Check(const CollectiveSpec& spec) const override;

    /// NCCL's nvlsChunkSize (NCCL_NVLS_CHUNKSIZE, 128 KiB).
    static constexpr uint64_t kChunkBytes = 128 * 1024;
    /// NCCL_STEPS: a GPU starts chunk k once its chunk k - kSlots is done.
    static constexpr uint32_t kSlots = 8;
    /// At most this many chunks per shard and channel.
    static constexpr uint32_t kMaxChunks = 256;
    /// Chunks a shard of `bytes` is pipelined in.
    static uint32_t Chunks(uint64_t bytes, uint32_t specChunks);

  protected:
    void DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const override;
};

/**
 * The tuner's α-β time of an NVLS collective on `in` (NVLS-Tree's with `tree`): per chunk and
 * channel every GPU's egress serves G reads and a store (AllReduce), one side each for
 * ReduceScatter and AllGather; NVLS-Tree adds its server's tree edges on the NIC. Negative when
 * it cannot run the collective.
 */
double NvlsTunerCost(const CollectiveCostInput& in, bool tree);

} // namespace ns3

#endif // NVLS_COLLECTIVE_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef NVLS_TREE_COLLECTIVE_H
#define NVLS_TREE_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * NCCL's NVLSTree AllReduce across servers: GPU i of every server owns shard i (S/G); per chunk
 * it reduces the shard inside its server with NVLS (multimem.ld_reduce), the GPUs i of all
 * servers reduce and broadcast it over a double binary tree on rail i (each half of the shard on
 * one of the two mirrored trees, DoubleBinaryTreeCollective::AppendTree), and each writes the
 * result back to its server's GPUs (multimem.st). Every NIC carries about 2·S/G each way. Chunks
 * as NvlsCollective's, per half. On one server it is NVLS.
 */
class NvlsTreeCollective : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    std::string Check(const CollectiveSpec& spec) const override;

  protected:
    void DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const override;
};

} // namespace ns3

#endif // NVLS_TREE_COLLECTIVE_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef DOUBLE_BINARY_TREE_COLLECTIVE_H
#define DOUBLE_BINARY_TREE_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Double binary tree AllReduce (as in NCCL >= 2.4): two binary trees, each carrying half of the
 * buffer, pipelined in chunks; the second tree mirrors the first (rank r sits where N-1-r sits
 * in the first) so that most leaves of one tree are inner nodes of the other and every rank
 * sends and receives about S in total. Each chunk is reduced up the tree (a node forwards a
 * chunk once it has it from all its children) and broadcast down. Latency grows as log2 N.
 */
class DoubleBinaryTreeCollective : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    std::string Check(const CollectiveSpec& spec) const override;

  protected:
    void DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const override;
};

} // namespace ns3

#endif // DOUBLE_BINARY_TREE_COLLECTIVE_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef PAT_COLLECTIVE_H
#define PAT_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * PAT-style AllGather and ReduceScatter in ⌈log2 N⌉ steps, for any N (NCCL >= 2.23's PAT,
 * "parallel aggregated trees", which NCCL runs with one GPU per node; modelled here as Bruck's
 * algorithm, whose steps and bytes it shares): AllGather step k (distance d = 2^k) sends the
 * min(d, N − d) blocks of S/N a rank has gathered to rank r − d, ReduceScatter runs the same
 * steps from the largest distance down, sending partial sums to r + d. Every rank sends
 * (N − 1)/N · S in all, against a ring's N − 1 steps. Each step depends on the previous one's
 * arrival; CollectiveSpec::chunks pipelines every step.
 */
class PatCollective : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    std::string Check(const CollectiveSpec& spec) const override;

  protected:
    void DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const override;
};

} // namespace ns3

#endif // PAT_COLLECTIVE_H

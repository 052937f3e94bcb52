// SPDX-License-Identifier: GPL-2.0-only
#ifndef HALVING_DOUBLING_COLLECTIVE_H
#define HALVING_DOUBLING_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Rabenseifner's AllReduce: reduce-scatter by recursive halving (log2 N steps exchanging S/2,
 * S/4, ... with partner i XOR N/2, N/4, ...) then all-gather by recursive doubling (the same
 * steps reversed). Time 2·log2(N)·α + 2(N-1)/N·S/B. Also ReduceScatter / AllGather (one
 * half each). N must be a power of two.
 */
class HalvingDoublingCollective : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    std::string Check(const CollectiveSpec& spec) const override;

  protected:
    void DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const override;
};

} // namespace ns3

#endif // HALVING_DOUBLING_COLLECTIVE_H

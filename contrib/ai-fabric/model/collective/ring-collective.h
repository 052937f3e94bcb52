// SPDX-License-Identifier: GPL-2.0-only
#ifndef RING_COLLECTIVE_H
#define RING_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Ring collectives over ranks 0..N-1 in order: ReduceScatter and AllGather in N-1 steps of S/N
 * bytes, AllReduce as both (2(N-1) steps). Each rank sends 2(N-1)/N·S (AllReduce) or (N-1)/N·S.
 * The α-β time is 2(N-1)·α + 2(N-1)/N·S/B for AllReduce (Thakur, Rabenseifner, Gropp 2005).
 */
class RingCollective : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;

  protected:
    void DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const override;
};

} // namespace ns3

#endif // RING_COLLECTIVE_H

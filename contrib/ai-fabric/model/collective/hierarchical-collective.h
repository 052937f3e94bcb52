// SPDX-License-Identifier: GPL-2.0-only
#ifndef HIERARCHICAL_COLLECTIVE_H
#define HIERARCHICAL_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Hierarchical (rail-aware) AllReduce for servers of G GPUs: (1) ring reduce-scatter inside
 * each server (NVLink) on S bytes, leaving GPU g with slice g; (2) ring AllReduce of the S/G
 * slice among the GPUs of index g of all servers — one ring per rail, so inter-server traffic
 * never leaves its rail; (3) ring all-gather inside each server. Each NIC carries
 * 2(M-1)/M·S/G for M servers instead of 2(N-1)/N·S for a flat ring.
 */
class HierarchicalCollective : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    std::string Check(const CollectiveSpec& spec) const override;

  protected:
    void DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const override;
};

} // namespace ns3

#endif // HIERARCHICAL_COLLECTIVE_H

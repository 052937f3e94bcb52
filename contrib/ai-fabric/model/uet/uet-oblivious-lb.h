// SPDX-License-Identifier: GPL-2.0-only
#ifndef UET_OBLIVIOUS_LB_H
#define UET_OBLIVIOUS_LB_H

#include "uet-load-balancer.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Oblivious packet spraying: the EVs in a permuted round robin (index XOR a random mask, a new
 * mask every round), ignoring feedback (htsim UecMpOblivious).
 */
class UetObliviousLb : public UetLoadBalancer
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    void Init(uint16_t paths, uint32_t seed) override;
    uint16_t NextEv() override;

  protected:
    /// The next index of the permuted round robin (advances it).
    uint32_t NextIndex();

  private:
    uint32_t m_index{0};
    uint32_t m_xor{0};
};

} // namespace ns3

#endif // UET_OBLIVIOUS_LB_H

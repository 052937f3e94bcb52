// SPDX-License-Identifier: GPL-2.0-only
#ifndef UET_ECMP_LB_H
#define UET_ECMP_LB_H

#include "uet-load-balancer.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Plain per-flow ECMP for comparison: one random EV per PDC for its whole life (as RoCEv2's
 * fixed UDP source port), so all of its packets take one path.
 */
class UetEcmpLb : public UetLoadBalancer
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    void Init(uint16_t paths, uint32_t seed) override;
    uint16_t NextEv() override;

  private:
    uint16_t m_ev{0};
};

} // namespace ns3

#endif // UET_ECMP_LB_H

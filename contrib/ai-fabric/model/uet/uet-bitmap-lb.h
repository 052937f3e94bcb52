// SPDX-License-Identifier: GPL-2.0-only
#ifndef UET_BITMAP_LB_H
#define UET_BITMAP_LB_H

#include "uet-oblivious-lb.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Bitmap load balancing: the oblivious permuted round robin, skipping penalised EVs. Feedback
 * adds a penalty to its EV (ECN +EcnPenalty, NACK +NackPenalty, timeout MaxPenalty, capped at
 * MaxPenalty); each time the round robin meets a penalised EV it takes one point off and moves
 * on (htsim UecMpBitmap: 1, 4, 15).
 */
class UetBitmapLb : public UetObliviousLb
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    void Init(uint16_t paths, uint32_t seed) override;
    uint16_t NextEv() override;
    void Feedback(uint16_t ev, UetPathFeedback fb) override;

    /// The penalty of `ev` now.
    uint8_t GetPenalty(uint16_t ev) const;

  private:
    uint8_t m_ecnPenalty{1};
    uint8_t m_nackPenalty{4};
    uint8_t m_maxPenalty{15};
    std::vector<uint8_t> m_penalty;
};

} // namespace ns3

#endif // UET_BITMAP_LB_H

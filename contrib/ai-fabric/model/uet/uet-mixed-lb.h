// SPDX-License-Identifier: GPL-2.0-only
#ifndef UET_MIXED_LB_H
#define UET_MIXED_LB_H

#include "uet-bitmap-lb.h"

#include <deque>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Mixed load balancing, htsim's default (ultraethernet/uet-htsim, uec_mp.cpp UecMpMixed):
 * Bitmap combined with REPS in its first ("legacy") form. Every feedback goes to both halves:
 * the Bitmap's penalties (ECN +1, NACK +4, timeout 15), and a FIFO of recycled EVs to which
 * every EV that came back GOOD is appended (no cap, each entry used once). The next EV is the
 * oldest recycled EV if there is one, else the Bitmap's (the permuted round robin skipping
 * penalised EVs). A NACK of a packet trimmed at the last hop counts as GOOD: only the target's
 * link leads there, so the path is not to blame (htsim, UecSrc::processNack).
 *
 * Departures from htsim: a last-hop NACK here never carries an ECN echo (htsim's counts as ECN
 * when the trimmed header was marked); a timeout penalises the EV of the packet that timed
 * out (htsim's penalises EV 0).
 */
class UetMixedLb : public UetBitmapLb
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    void Init(uint16_t paths, uint32_t seed) override;
    uint16_t NextEv() override;
    void Feedback(uint16_t ev, UetPathFeedback fb) override;

    /// EVs waiting to be reused.
    uint32_t GetRecycledCount() const;

  private:
    std::deque<uint16_t> m_recycled;
};

} // namespace ns3

#endif // UET_MIXED_LB_H

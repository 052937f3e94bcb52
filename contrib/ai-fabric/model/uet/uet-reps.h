// SPDX-License-Identifier: GPL-2.0-only
#ifndef UET_REPS_H
#define UET_REPS_H

#include "uet-load-balancer.h"

#include "ns3/nstime.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * REPS, recycled entropy packet spraying (arXiv 2407.21625; UEC 1.0's default sender load
 * balancing): EVs whose ACKs came back without ECN are cached (up to CacheSize, oldest first)
 * and reused, each once; with none cached the next EV is random (exploration). A retransmission
 * timeout freezes the cache for FreezeDuration: its EVs are then cycled through (reused over and
 * over, since fresh feedback may no longer come from a failed part of the network) and new good
 * EVs still join; after the freeze the cache is emptied and ExploreAfterFreeze random EVs are
 * sent. Values: htsim (buffer_reps.h: 8 entries; uec_mp.cpp: explore 16 after a freeze).
 */
class UetReps : public UetLoadBalancer
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    void Init(uint16_t paths, uint32_t seed) override;
    uint16_t NextEv() override;
    void Feedback(uint16_t ev, UetPathFeedback fb) override;

    bool IsFrozen() const;
    /// EVs cached and not yet reused.
    uint32_t GetFreshCount() const;

  private:
    struct Entry
    {
        uint16_t ev{0};
        bool fresh{false};
    };

    void Add(uint16_t ev);

    uint32_t m_cacheSize{8};
    Time m_freeze;
    uint32_t m_exploreAfter{16};

    std::vector<Entry> m_cache; //!< a ring: m_head is the oldest entry
    uint32_t m_head{0};
    uint32_t m_count{0};
    uint32_t m_fresh{0};
    uint32_t m_cycle{0}; //!< frozen mode: the next entry to reuse
    bool m_frozen{false};
    int64_t m_frozenUntil{0};
    uint32_t m_explore{0};
};

} // namespace ns3

#endif // UET_REPS_H

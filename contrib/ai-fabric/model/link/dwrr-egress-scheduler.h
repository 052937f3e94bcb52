// SPDX-License-Identifier: GPL-2.0-only
#ifndef DWRR_EGRESS_SCHEDULER_H
#define DWRR_EGRESS_SCHEDULER_H

#include "fabric-egress-scheduler.h"

#include <array>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Deficit weighted round robin (Shreedhar & Varghese, SIGCOMM'95) over the priority queues, with
 * an optional set of strict-priority queues served first (by default 6 and 7: CNPs and network
 * control). Each visit to a backlogged queue adds Quantum × weight bytes of credit; a queue sends
 * while its credit covers its head frame; an idle queue loses its credit.
 */
class DwrrEgressScheduler : public FabricEgressScheduler
{
  public:
    static TypeId GetTypeId();
    DwrrEgressScheduler();

    uint8_t Select(uint8_t eligible, const uint32_t* headBytes) override;
    void NotifySent(uint8_t prio, uint32_t wireBytes) override;

    /// Set the weight of one queue (>= 1).
    void SetWeight(uint8_t prio, uint32_t weight);
    uint32_t GetWeight(uint8_t prio) const;

  private:
    void SetWeights(std::string s);
    std::string GetWeights() const;

    std::array<uint32_t, 8> m_weight;
    std::array<int64_t, 8> m_deficit{};
    uint32_t m_quantum{9216};
    uint8_t m_strictMask{0xc0};
    uint8_t m_current{0};
    bool m_visitCredited{false};
};

} // namespace ns3

#endif // DWRR_EGRESS_SCHEDULER_H

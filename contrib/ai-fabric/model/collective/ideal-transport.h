// SPDX-License-Identifier: GPL-2.0-only
#ifndef IDEAL_TRANSPORT_H
#define IDEAL_TRANSPORT_H

#include "collective-transport.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * An ideal network: a message arrives Latency + bytes / Bandwidth after it is sent (Bandwidth 0:
 * no limit), with no contention between messages. With both 0 (the defaults) communication is
 * free, so a training step shows its compute and its pipeline bubble alone — the baseline of
 * the analytic checks, and of "how much does the network cost" comparisons.
 */
class IdealTransport : public CollectiveTransport
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    void Send(uint32_t src,
              uint32_t dst,
              uint64_t bytes,
              CollectiveTransportListener* listener,
              uint64_t token,
              uint32_t channel = 0) override;

  private:
    Time m_latency;
    DataRate m_rate{0};
};

} // namespace ns3

#endif // IDEAL_TRANSPORT_H

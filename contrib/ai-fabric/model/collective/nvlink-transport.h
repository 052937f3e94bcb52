// SPDX-License-Identifier: GPL-2.0-only
#ifndef NVLINK_TRANSPORT_H
#define NVLINK_TRANSPORT_H

#include "collective-transport.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The NVLink/NVSwitch fabric inside a server, at message level: every GPU has one egress and one
 * ingress port of Bandwidth × Efficiency to a non-blocking NVSwitch; a message occupies the
 * sender's egress and the receiver's ingress for bytes / rate each (FIFO per port, so concurrent
 * messages share a GPU's links), then arrives Latency later. One event per message.
 * H100 SXM: 450 GB/s per direction; NCCL reaches ~370 GB/s (Efficiency 0.82).
 *
 * Not modelled: NVLink packets and credits, NVLS in-switch reduction (SHARP), multicast.
 */
class NvlinkTransport : public CollectiveTransport
{
  public:
    static TypeId GetTypeId();
    NvlinkTransport();

    /// Number of ranks (GPUs) served.
    void SetRanks(uint32_t n);
    std::string GetName() const override;
    void Send(uint32_t src,
              uint32_t dst,
              uint64_t bytes,
              CollectiveTransportListener* listener,
              uint64_t token,
              uint32_t channel = 0) override;
    /// Effective per-GPU rate (Bandwidth × Efficiency).
    DataRate GetEffectiveRate() const;
    Time GetLatency() const;

  private:
    static void Deliver(CollectiveTransportListener* listener, uint64_t token);
    /// Serialization time of `bytes` at the effective rate, in time steps.
    int64_t SerializationSteps(uint64_t bytes);

    struct SerEntry
    {
        uint64_t bytes{UINT64_MAX};
        int64_t steps{0};
    };

    DataRate m_bandwidth;
    double m_efficiency{0.82};
    Time m_latency;
    std::vector<int64_t> m_egressFree;
    std::vector<int64_t> m_ingressFree;
    uint64_t m_cachedBps{0};
    std::array<SerEntry, 8> m_serCache{}; //!< by message size (a collective has a few)
};

} // namespace ns3

#endif // NVLINK_TRANSPORT_H

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
 * NVLS (NVLink SHARP, H100 and later): SendNvls runs the NVSwitch's in-switch operations on one
 * server's GPUs at Bandwidth × Efficiency × NvlsEfficiency. A multimem.ld_reduce by GPU r reads
 * `bytes` from every GPU of the server (each one's egress busy bytes / rate) and returns their
 * sum to r (r's ingress), after a request and a response (2 × Latency); a multimem.st writes r's
 * `bytes` to every GPU (r's egress, every ingress), Latency later.
 *
 * Not modelled: NVLink packets and credits.
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
    /**
     * An NVLS operation of GPU `rank` on the GPUs first .. first + count - 1 (its server):
     * NVLS_REDUCE (multimem.ld_reduce) or NVLS_MULTICAST (multimem.st), as described above;
     * `listener` is told with `token` when the result is in place.
     */
    void SendNvls(uint8_t kind,
                  uint32_t rank,
                  uint32_t first,
                  uint32_t count,
                  uint64_t bytes,
                  CollectiveTransportListener* listener,
                  uint64_t token);
    /// Effective per-GPU rate (Bandwidth × Efficiency).
    DataRate GetEffectiveRate() const;
    Time GetLatency() const;
    /// Effective per-GPU rate of NVLS operations (Bandwidth × Efficiency × NvlsEfficiency).
    DataRate GetNvlsRate() const;

  private:
    static void Deliver(CollectiveTransportListener* listener, uint64_t token);
    /// Serialization time of `bytes` at the effective rate, in time steps.
    int64_t SerializationSteps(uint64_t bytes);
    /// The same at the NVLS rate (not cached: NVLS moves few, large chunks).
    int64_t NvlsSteps(uint64_t bytes) const;
    /**
     * Book `ser` steps of GPU `dst`'s ingress, at `earliest` or in the first idle gap after it
     * long enough (work-conserving: a message that can flow while the port waits for one booked
     * later does). \return the end of the booking
     */
    int64_t BookIngress(uint32_t dst, int64_t earliest, int64_t ser, int64_t now);

    /// A GPU's ingress: its booked intervals [begin, end), in time order, none before now.
    struct Ingress
    {
        std::vector<std::pair<int64_t, int64_t>> busy;
    };

    struct SerEntry
    {
        uint64_t bytes{UINT64_MAX};
        int64_t steps{0};
    };

    DataRate m_bandwidth;
    double m_efficiency{0.82};
    double m_nvlsEfficiency{0.85};
    Time m_latency;
    std::vector<int64_t> m_egressFree;
    std::vector<Ingress> m_ingress;
    uint64_t m_cachedBps{0};
    std::array<SerEntry, 8> m_serCache{}; //!< by message size (a collective has a few)
};

} // namespace ns3

#endif // NVLINK_TRANSPORT_H

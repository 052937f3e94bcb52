// SPDX-License-Identifier: GPL-2.0-only
#ifndef LOSS_PROBE_COUNTER_H
#define LOSS_PROBE_COUNTER_H

#include "ns3/collective-transport.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Counts the tail loss probes of a network transport that sends them, through its LossProbe
 * trace source (LinuxTcpCollectiveTransport: kernel TCP's TLP), for the training jobs' step
 * records. A transport without that trace source (RDMA, Ultra Ethernet, ns-3's TCP sockets)
 * leaves the count at zero: CollectiveTransport itself knows nothing of loss probes.
 */
class LossProbeCounter
{
  public:
    LossProbeCounter() = default;
    LossProbeCounter(const LossProbeCounter&) = delete;
    LossProbeCounter& operator=(const LossProbeCounter&) = delete;
    ~LossProbeCounter();

    /// Count `network`'s loss probes from now on, if it has a LossProbe trace source (null:
    /// none); disconnects from the transport connected before.
    void Connect(Ptr<CollectiveTransport> network);
    /// Stop counting (before the owner goes away).
    void Disconnect();

    /// Loss probes since Connect.
    uint64_t GetCount() const
    {
        return m_count;
    }

    /// The transport rank the most recent loss probe went to, or -1.
    int32_t GetLastReceiver() const
    {
        return m_lastReceiver;
    }

  private:
    void Probe(uint32_t sender, int32_t receiver);

    Ptr<CollectiveTransport> m_network; //!< connected to, or null
    uint64_t m_count{0};
    int32_t m_lastReceiver{-1};
};

} // namespace ns3

#endif // LOSS_PROBE_COUNTER_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_CONGESTION_OPS_H
#define RDMA_CONGESTION_OPS_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <string>

namespace ns3
{

class RdmaQueuePair;

/**
 * \ingroup ai-fabric
 * Congestion control of one RDMA queue pair (the TcpCongestionOps pattern): a small object that
 * acts on the queue pair's sending rate. It is a rate controller only: the NIC paces each queue
 * pair at RdmaQueuePair::GetRate() and has no window, so algorithms that gate on bytes in flight
 * or read in-band telemetry (HPCC, Swift) do not fit this seam yet.
 *
 * How a subclass is used: the NIC creates one instance per queue pair from an ObjectFactory whose
 * TypeId is RdmaNic's CongestionControl attribute (or RdmaHelper::SetCongestionControl, which also
 * takes attribute values); attributes of the subclass are therefore per-NIC configuration and
 * member state is per queue pair. A new algorithm is one subclass in its own file pair with a
 * TypeId that has a constructor (AddConstructor) and a parent of RdmaCongestionOps.
 *
 * What it receives, in simulated-time order, on the queue pair it was made for:
 * - Init(qp): once, when the queue pair is created, before any packet is sent. The rate is the
 *   line rate unless Init sets another.
 * - PacketSent(qp, wireBytes): after every data packet (new or retransmitted) is handed to the
 *   link, with its bytes on the wire (headers included).
 * - AckReceived(qp, newlyAcked, rtt): for every ACK (or NAK) that moves the send window forward,
 *   with the number of packets it newly acknowledged; `rtt` is the round-trip time of the one
 *   packet the NIC times per window, and zero when this ACK does not cover it.
 * - CnpReceived(qp): for every congestion notification packet (RoCEv2 CNP, InfiniBand BECN) for
 *   this queue pair while it is not in error.
 * - Stop(): once, when the queue pair is closed, in error, or disposed; cancel timers here.
 *
 * What it must do: call qp->SetRate() (clamped by the queue pair to at most GetLineRate()) when
 * its rate changes; never send or drop packets itself. Timers it schedules must be cancelled in
 * Stop().
 */
class RdmaCongestionOps : public Object
{
  public:
    static TypeId GetTypeId();
    ~RdmaCongestionOps() override;

    virtual std::string GetName() const = 0;
    /// The queue pair starts; set its initial rate.
    virtual void Init(Ptr<RdmaQueuePair> qp);
    /// A data packet of `wireBytes` left the NIC.
    virtual void PacketSent(Ptr<RdmaQueuePair> qp, uint32_t wireBytes);
    /// An ACK advanced the send window by `newlyAcked` packets.
    virtual void AckReceived(Ptr<RdmaQueuePair> qp, uint32_t newlyAcked, Time rtt);
    /// A congestion notification packet arrived for this queue pair.
    virtual void CnpReceived(Ptr<RdmaQueuePair> qp);
    /// Cancel timers: the queue pair is closed or in error.
    virtual void Stop();
};

} // namespace ns3

#endif // RDMA_CONGESTION_OPS_H

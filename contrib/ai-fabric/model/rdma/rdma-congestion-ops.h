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
 * acts on the queue pair's traced rate (RdmaQueuePair::SetRate). The NIC forks one instance per
 * queue pair from a prototype chosen by TypeId, and calls the hooks below. A new algorithm
 * (HPCC, TIMELY, DCTCP-style windows, ...) is one subclass in its own file pair.
 *
 * Hooks: Init (rate starts at line rate unless the algorithm says otherwise), PacketSent (byte
 * counters), AckReceived (ACK-clocked algorithms; carries the RTT sample of the acknowledged
 * packet), CnpReceived (ECN feedback from the notification point), Stop (queue pair closed).
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
    /// A fresh instance with the same configuration, for another queue pair.
    virtual Ptr<RdmaCongestionOps> Fork() const = 0;
};

} // namespace ns3

#endif // RDMA_CONGESTION_OPS_H

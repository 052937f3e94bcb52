// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_CONGESTION_OPS_H
#define RDMA_CONGESTION_OPS_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <string>

namespace ns3
{

class RdmaQueuePair;
class FabricIntStack;

/**
 * \ingroup ai-fabric
 * What one ACK or NAK tells a queue pair's congestion control (RdmaCongestionOps::AckReceived).
 */
struct RdmaAck
{
    uint32_t ackedPsn{0};        //!< every PSN below this is acknowledged (cumulative)
    uint32_t newlyAcked{0};      //!< packets this ACK newly acknowledged (0: duplicate or NAK)
    uint64_t newlyAckedBytes{0}; //!< their payload bytes
    uint64_t bytesInFlight{0};   //!< payload bytes sent and not yet acknowledged, after it
    /**
     * Round-trip time: now minus the send time of the data packet whose arrival triggered this
     * ACK (echoed by the responder, so it includes ACK coalescing and is exact for
     * retransmissions too).
     */
    Time rtt;
    bool nak{false}; //!< a NAK (sequence error): `ackedPsn` is the PSN the responder expects
    /**
     * Switches this ACK crossed (64 minus its IPv4 TTL); on the symmetric paths of a Clos
     * fabric, also the data packet's (Swift's hop count).
     */
    uint8_t hops{0};
    /**
     * The in-band telemetry of that data packet, echoed (one entry per switch egress it
     * crossed, source side first); null unless the algorithm asked (WantsTelemetry) and the
     * path has switches.
     */
    const FabricIntStack* telemetry{nullptr};
};

/**
 * \ingroup ai-fabric
 * Congestion control of one RDMA queue pair (the TcpCongestionOps pattern): a small object that
 * sets the queue pair's sending rate (the NIC paces every queue pair at RdmaQueuePair::GetRate())
 * and, if it wants, a window (RdmaQueuePair::SetWindow: the NIC sends a packet only while the
 * payload bytes in flight are below it; 0, the default, is no window).
 *
 * How a subclass is used: the NIC creates one instance per queue pair from an ObjectFactory whose
 * TypeId is RdmaNic's CongestionControl attribute (or RdmaHelper::SetCongestionControl, which also
 * takes attribute values); attributes of the subclass are therefore per-NIC configuration and
 * member state is per queue pair. A new algorithm is one subclass in its own file pair with a
 * TypeId that has a constructor (AddConstructor) and a parent of RdmaCongestionOps.
 *
 * What it receives, in simulated-time order, on the queue pair it was made for:
 * - Init(qp): once, when the queue pair is created, before it is connected and before any
 *   packet is sent. The rate is the line rate and there is no window unless Init sets them.
 *   WantsTelemetry() is asked right after.
 * - PacketSent(qp, wireBytes): after every data packet (new or retransmitted) is handed to the
 *   link, with its bytes on the wire (headers, and telemetry if any, included).
 * - AckReceived(qp, ack): for every ACK and NAK the queue pair receives while it is not in
 *   error, duplicates included (RdmaAck: what it acknowledged, bytes in flight, the echoed RTT
 *   and telemetry). Called after the send window moved and before completions are delivered.
 * - CnpReceived(qp): for every congestion notification packet (RoCEv2 CNP, InfiniBand BECN) for
 *   this queue pair while it is not in error.
 * - Timeout(qp): for every retransmission timeout, before loss recovery rewinds.
 * - Stop(): once, when the queue pair is closed, in error, or disposed; cancel timers here.
 *
 * What it must do: call qp->SetRate() (clamped by the queue pair to 1 bit/s .. GetLineRate())
 * and qp->SetWindow() when they change; never send or drop packets itself. A new rate applies
 * from the next packet on: the gap the last packet left at the old rate stands unless the
 * algorithm calls qp->RestartPacing() (when it leaves a slow, paced regime). Timers it schedules
 * must be cancelled in Stop(). If it returns true from WantsTelemetry(), the queue pair's data
 * packets carry HPCC's INT header (FabricIntStack::kWireBytes more on the wire, each way, as its
 * ACKs echo it) and switches fill it at every egress.
 */
class RdmaCongestionOps : public Object
{
  public:
    static TypeId GetTypeId();
    ~RdmaCongestionOps() override;

    virtual std::string GetName() const = 0;
    /// The queue pair starts; set its initial rate (and window).
    virtual void Init(Ptr<RdmaQueuePair> qp);
    /// \return true if this algorithm reads in-band telemetry (default false)
    virtual bool WantsTelemetry() const;
    /// A data packet of `wireBytes` left the NIC.
    virtual void PacketSent(Ptr<RdmaQueuePair> qp, uint32_t wireBytes);
    /// An ACK or NAK arrived.
    virtual void AckReceived(Ptr<RdmaQueuePair> qp, const RdmaAck& ack);
    /// A congestion notification packet arrived for this queue pair.
    virtual void CnpReceived(Ptr<RdmaQueuePair> qp);
    /// The retransmission timer expired.
    virtual void Timeout(Ptr<RdmaQueuePair> qp);
    /// Cancel timers: the queue pair is closed or in error.
    virtual void Stop();
};

} // namespace ns3

#endif // RDMA_CONGESTION_OPS_H

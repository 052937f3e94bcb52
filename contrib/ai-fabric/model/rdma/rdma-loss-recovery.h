// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_LOSS_RECOVERY_H
#define RDMA_LOSS_RECOVERY_H

#include "ns3/object.h"

#include <string>

namespace ns3
{

class RdmaQueuePair;

/**
 * \ingroup ai-fabric
 * Loss recovery of one RDMA queue pair: which PSN the requester sends next, what a NAK and a
 * retransmission timeout do, and whether the responder keeps out-of-order packets.
 * Implementations: RdmaGoBackN (RoCE NICs' classic behaviour) and RdmaSelectiveRepeat
 * (IRN-style, SIGCOMM'18).
 *
 * How a subclass is used: the NIC creates one instance per queue pair from an ObjectFactory whose
 * TypeId is RdmaNic's LossRecovery attribute (or RdmaHelper::SetLossRecovery). A new scheme is one
 * subclass in its own file pair with a TypeId that has a constructor.
 *
 * What it receives: the requester's queue pair (its PSN state: SndUna, SndNxt, SndMax) on every
 * call. OnAck comes for every ACK that moves SndUna forward; OnNack for every NAK whose expected
 * PSN is not below SndUna. The NIC has already moved SndUna forward when either is called.
 * NextPsn is only called when HasPending() is true, once per packet the NIC is about to send.
 * OnTimeout is called when the retransmission timer fires with packets outstanding; the NIC then
 * re-arms the timer (it counts the retry and puts the queue pair in error after its RetryCount).
 *
 * What it must do: return from NextPsn a PSN in [SndUna, SndMax] for a retransmission (setting
 * `retransmission`) or take a new one with TakeNew; never return a PSN below SndUna; after
 * OnTimeout, make HasPending() true so that the NIC resends.
 */
class RdmaLossRecovery : public Object
{
  public:
    static TypeId GetTypeId();
    ~RdmaLossRecovery() override;

    virtual std::string GetName() const = 0;
    /// \return true if a packet (new or retransmitted) is waiting to be sent
    virtual bool HasPending(const RdmaQueuePair& qp) const;
    /// \return true if the next PSN will be a queued retransmission (not SndNxt)
    virtual bool HasQueuedRetransmission() const;
    /// Pick the next PSN to send; set `retransmission` if it was sent before.
    virtual uint32_t NextPsn(RdmaQueuePair& qp, bool& retransmission) = 0;
    /// An ACK acknowledged every PSN below `cumulative`.
    virtual void OnAck(RdmaQueuePair& qp, uint32_t cumulative) = 0;
    /// A NAK: the responder expects `epsn`; `sackPsn` (> epsn) arrived out of order, or 0.
    virtual void OnNack(RdmaQueuePair& qp, uint32_t epsn, uint32_t sackPsn) = 0;
    /// The retransmission timer expired with packets outstanding.
    virtual void OnTimeout(RdmaQueuePair& qp) = 0;
    /// Responder side: keep packets that arrive beyond the expected PSN?
    virtual bool KeepsOutOfOrder() const = 0;

  protected:
    /// Send a new packet: SndNxt++ (and SndMax follows).
    static uint32_t TakeNew(RdmaQueuePair& qp, bool& retransmission);
};

} // namespace ns3

#endif // RDMA_LOSS_RECOVERY_H

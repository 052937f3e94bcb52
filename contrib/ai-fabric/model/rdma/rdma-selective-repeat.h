// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_SELECTIVE_REPEAT_H
#define RDMA_SELECTIVE_REPEAT_H

#include "rdma-loss-recovery.h"

#include <deque>
#include <set>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Selective repeat in the style of IRN (Mittal et al., SIGCOMM'18): the responder keeps
 * out-of-order packets (an out-of-order bitmap) and answers each with a NAK carrying the
 * expected PSN and the PSN that arrived (a selective ACK); the requester resends only the holes
 * below the highest selectively acknowledged PSN, each once per NAK episode, and on a timeout
 * every outstanding packet not yet selectively acknowledged.
 *
 * ReorderThreshold makes the requester tolerate reordering (per-packet spraying, adaptive
 * routing): a hole is taken for lost only once a packet that many PSNs after it has arrived
 * (the packet-count rule of TCP's dupthresh and RACK, UEC's out-of-order count), so packets that
 * are merely late are not resent; a loss within the threshold of a message's last packet is
 * then found by the timeout. 0 (the default) is IRN: every hole below the highest SACK at once.
 */
class RdmaSelectiveRepeat : public RdmaLossRecovery
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    bool HasPending(const RdmaQueuePair& qp) const override;
    bool HasQueuedRetransmission() const override;
    uint32_t NextPsn(RdmaQueuePair& qp, bool& retransmission) override;
    void OnAck(RdmaQueuePair& qp, uint32_t cumulative) override;
    void OnNack(RdmaQueuePair& qp, uint32_t epsn, uint32_t sackPsn) override;
    void OnTimeout(RdmaQueuePair& qp) override;
    bool KeepsOutOfOrder() const override;

  private:
    void Prune(uint32_t cumulative);

    std::set<uint32_t> m_sacked;
    /// Drop queued retransmissions that need no resend any more (acknowledged or SACKed).
    void DropStale(const RdmaQueuePair& qp) const;

    /// Queued retransmissions in PSN order; mutable so that HasPending can drop stale entries
    /// (each is dropped once, so the cost stays O(1) amortized per packet).
    mutable std::deque<uint32_t> m_retx;
    uint32_t m_queuedUpTo{0}; //!< holes below this PSN were already queued once
    uint32_t m_reorderThreshold{0};
};

} // namespace ns3

#endif // RDMA_SELECTIVE_REPEAT_H

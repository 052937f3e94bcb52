// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_GO_BACK_N_H
#define RDMA_GO_BACK_N_H

#include "rdma-loss-recovery.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Go-back-N, as RoCE NICs classically do: the responder drops every packet beyond the expected
 * PSN and sends one NAK (PSN sequence error) per gap; the requester rewinds to the NAK's PSN,
 * or to the oldest unacknowledged PSN on a timeout, and resends everything from there.
 */
class RdmaGoBackN : public RdmaLossRecovery
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    uint32_t NextPsn(RdmaQueuePair& qp, bool& retransmission) override;
    void OnAck(RdmaQueuePair& qp, uint32_t cumulative) override;
    void OnNack(RdmaQueuePair& qp, uint32_t epsn, uint32_t sackPsn) override;
    void OnTimeout(RdmaQueuePair& qp) override;
    bool KeepsOutOfOrder() const override;
};

} // namespace ns3

#endif // RDMA_GO_BACK_N_H

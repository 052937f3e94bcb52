// SPDX-License-Identifier: GPL-2.0-only
#ifndef UET_RCCC_H
#define UET_RCCC_H

#include "uet-congestion-ops.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * RCCC, UEC 1.0's receiver-credit congestion control, initiator side: the PDC sends only on
 * credit its target grants (UetCreditScheduler paces the target's line rate among the PDCs
 * that ask), so an incast shares the receiver's link instead of queueing at its last hop.
 *
 * - A new PDC starts with InitialCreditBdps x BDP of speculative credit (it may send at once,
 *   before the target heard of it); the first feedback (ACK, NACK, CREDIT or timeout) ends
 *   speculation and discards what is left of it (credit = min(credit, 0)).
 * - Every packet sent costs its wire bytes; a packet may be sent with any credit > 0.
 * - Every data packet carries the credit target: granted + (min(backlog, maxCredit [, cwnd +
 *   one packet with SenderCc]) - credit) / active PDCs of this NIC, rounded up to 256 B; while
 *   speculating with a backlog it asks for at least one packet.
 * - CREDITs add to credit, capped at MaxCreditBdps x BDP.
 *
 * SenderCc (empty: RCCC alone, no window) names a window congestion control run alongside
 * (ns3::UetNscc for `nscc+rccc`): it gets every ACK, NACK and timeout and sets the window;
 * the PDC then sends only within both the credit and the window, and asks for no more credit
 * than the window can use. As in htsim, a NACK of a packet trimmed at the last hop does not
 * shrink the window when credits pace the last hop (UetNscc reads s.useCredit).
 *
 * Values: UEC's reference simulator (ultraethernet/uet-htsim, sim/uec.cpp: initRccc, credit
 * capped at and initially the configured maximum window, 1.5 BDP; computePullTarget). The BDP
 * is the line rate x the network RTT, as NSCC's.
 */
class UetRccc : public UetCongestionOps
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    void Init(UetCcState& s) override;
    void AckReceived(UetCcState& s, const UetAckSample& ack) override;
    void NackReceived(UetCcState& s, uint32_t bytes, bool lastHop) override;
    void Timeout(UetCcState& s, uint64_t lostBytes) override;
    void CreditReceived(UetCcState& s, uint64_t bytes) override;
    uint64_t CreditTarget(const UetCcState& s, const UetCreditDemand& d) const override;

    /// The window congestion control run alongside (null: none).
    Ptr<UetCongestionOps> GetSenderCc() const;

  protected:
    void DoDispose() override;

  private:
    static void StopSpeculating(UetCcState& s);

    double m_initialBdps{1.5};
    double m_maxBdps{1.5};
    std::string m_senderCcName;
    Ptr<UetCongestionOps> m_sender;
};

} // namespace ns3

#endif // UET_RCCC_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef CBFC_FLOW_CONTROL_H
#define CBFC_FLOW_CONTROL_H

#include "ib-credit-flow-control.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Ultra Ethernet credit-based flow control per virtual channel (UEC 1.0 link layer, CBFC): the
 * receiver advertises buffer credits per VC and the sender transmits on a VC only while it has
 * credits for a largest frame; an alternative to PFC on Ethernet ports. No PAUSE frame is sent.
 *
 * The credit loop is InfiniBand's (IbCreditFlowControl, which this extends): cumulative counts
 * of consumed cells at the sender and freed cells at the receiver, in 64-byte cells (UEC's
 * default credit cell), RxBufferBytes per credited VC, a freed-credit update once
 * FreedCreditUpdateBytes were freed since the last one (UEC: 800 B to 64 KiB) or the VC's buffer
 * drained, a smaller remainder after CreditUpdateDelay. Only the VCs in LosslessVcs travel on
 * credits (UEC: up to 4 lossless of up to 32 VCs per port; this device has 8); the others are
 * lossy and the switch's shared buffer admits, marks, trims or drops them as without CBFC. A
 * switch keeps the credited VCs of a port in their own buffer (no shared-buffer admission, no
 * drop), marks ECN on dequeue from the egress queue's length when the buffer manager marks on
 * dequeue, and returns credits as frames leave.
 *
 * A credit update is a minimum-size Ethernet control frame (84 bytes on the wire; its exact
 * format is UNCONFIRMED). A data frame lost on the way in returns its credits at once (UEC
 * recovers them with the consumed-credit sync, every 10 us by default; not modelled as its own
 * message). Not modelled: credit cells other than 64 B, more than 8 VCs, lost credit updates.
 */
class CbfcFlowControl : public IbCreditFlowControl
{
  public:
    static TypeId GetTypeId();
    CbfcFlowControl();
    ~CbfcFlowControl() override;

    bool IsLossless(uint8_t prio) const override;
    uint8_t GetCreditedMask() const override;
    void NotifyTransmit(uint8_t prio, uint32_t wireBytes) override;
    void NotifyReceive(uint8_t prio, uint32_t bytes) override;
    void NotifyRelease(uint8_t prio, uint32_t bytes) override;
    void NotifyLost(uint8_t prio, uint32_t bytes) override;

  protected:
    void NotifyConstructionCompleted() override;

  private:
    void SetLosslessVcs(uint8_t mask);
    uint8_t GetLosslessVcs() const;
    void SetFreedCreditUpdateBytes(uint32_t bytes);
    uint32_t GetFreedCreditUpdateBytes() const;

    bool Credited(uint8_t prio) const
    {
        return (m_lossless >> (prio & 7)) & 1U;
    }

    uint8_t m_lossless{0x04};
    uint32_t m_freedUpdateBytes{4096};
};

} // namespace ns3

#endif // CBFC_FLOW_CONTROL_H

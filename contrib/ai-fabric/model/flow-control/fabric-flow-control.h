// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_FLOW_CONTROL_H
#define FABRIC_FLOW_CONTROL_H

#include "ns3/fabric-frame.h"
#include "ns3/object.h"

namespace ns3
{

class FabricNetDevice;

/**
 * \ingroup ai-fabric
 * The link-level flow-control seam of a FabricNetDevice.
 *
 * One object per device. The transmit side answers "may I send on priority p?" by blocking
 * priorities on its device (FabricNetDevice::SetTxBlocked), so the device's per-packet check is
 * a bitmask test, and handles the control frames the peer sends (PFC PAUSE, credit updates).
 * The receive side is told when bytes of priority p enter and leave the local buffer (a switch
 * ingress port, or a host NIC that consumes at once) and when the switch buffer manager decides
 * that an ingress priority is congested (XOFF) or no longer (XON).
 *
 * PfcFlowControl implements IEEE 802.1Qbb on this seam; InfiniBand credit-based flow control
 * plugs into the same calls (credits consumed on transmit, returned on release). The base class
 * is "no flow control": nothing is ever blocked and every priority is lossy.
 */
class FabricFlowControl : public Object
{
  public:
    static TypeId GetTypeId();
    FabricFlowControl();
    ~FabricFlowControl() override;

    /// Called by the device when the flow control is installed on it.
    virtual void SetDevice(FabricNetDevice* device);
    FabricNetDevice* GetDevice() const;

    /// \return true if frames of priority `prio` must never be dropped for lack of buffer.
    virtual bool IsLossless(uint8_t prio) const;

    /// Transmit side: a data frame of `wireBytes` (FabricNetDevice::WireBytes) on `prio` is
    /// leaving.
    virtual void NotifyTransmit(uint8_t prio, uint32_t wireBytes);

    /**
     * \return false if NotifyTransmit, NotifyReceive and NotifyRelease do nothing here, so that
     * devices and switches leave these three calls out of the per-frame path. Asked once, when
     * the flow control is installed on a device or a switch port. The base returns true: a
     * subclass that counts traffic (credits, per-priority occupancy) is always told.
     */
    virtual bool CountsTraffic() const;

    /// Transmit side: a link-level control frame from the peer arrived (PFC, credits).
    virtual void ReceiveControl(const FabricFrame& frame);

    /**
     * Receive side: a data frame of `bytes` on `prio` entered the local buffer (buffer bytes:
     * FabricNetDevice::BufferBytes, without preamble/IFG or IB symbol framing).
     */
    virtual void NotifyReceive(uint8_t prio, uint32_t bytes);

    /// Receive side: `bytes` (buffer bytes) of priority `prio` left the local buffer.
    virtual void NotifyRelease(uint8_t prio, uint32_t bytes);

    /**
     * Receive side: a data frame of `bytes` (buffer bytes) on `prio` arrived but was lost before
     * entering the local buffer (corrupt, link down, no route): whatever the sender reserved
     * for it (InfiniBand credits) must be given back.
     */
    virtual void NotifyLost(uint8_t prio, uint32_t bytes);

    /**
     * Receive side: the buffer manager says ingress priority `prio` crossed its XOFF threshold
     * (congested = true) or fell below its XON threshold (congested = false).
     */
    virtual void SetIngressCongested(uint8_t prio, bool congested);

  protected:
    void DoDispose() override;

    FabricNetDevice* m_device{nullptr}; //!< the device we control (not owned)
};

} // namespace ns3

#endif // FABRIC_FLOW_CONTROL_H

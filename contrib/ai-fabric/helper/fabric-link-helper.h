// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_LINK_HELPER_H
#define FABRIC_LINK_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/trace-helper.h"

#include <string>

namespace ns3
{

class FabricNetDevice;

/**
 * \ingroup ai-fabric
 * Builds fabric links (a FabricChannel and two FabricNetDevices) the way PointToPointHelper
 * builds point-to-point links, and enables pcap (DLT_EN10MB, real Ethernet/802.1Q/IPv4 frames,
 * PFC MAC-control frames) and ascii traces on them.
 *
 * Each device gets its own flow-control object (default ns3::PfcFlowControl, priority 3
 * lossless) and egress scheduler (default ns3::StrictPriorityEgressScheduler), built from
 * factories configurable with SetFlowControl / SetScheduler.
 */
class FabricLinkHelper : public PcapHelperForDevice, public AsciiTraceHelperForDevice
{
  public:
    FabricLinkHelper();
    ~FabricLinkHelper() override;

    void SetDeviceAttribute(std::string name, const AttributeValue& value);
    void SetChannelAttribute(std::string name, const AttributeValue& value);
    /// Flow control type for new devices (e.g. "ns3::PfcFlowControl", "ns3::FabricFlowControl").
    /**
     * Ethernet (the default) or InfiniBand ports. InfiniBand sets the devices' LinkLayer, an
     * MTU of 4128 bytes (IB MTU 4096 + BTH 12 + RETH 16 + ICRC 4) and IbCreditFlowControl; call
     * it before other flow-control settings.
     */
    void SetLinkLayer(uint8_t linkLayer); //!< a FabricNetDevice::LinkLayer value
    void SetFlowControl(std::string typeId);
    void SetFlowControlAttribute(std::string name, const AttributeValue& value);
    /**
     * Link-level retry for new devices (both ends of every link): "ns3::LinkLevelRetry", or ""
     * (the default) for none.
     */
    void SetLinkRetry(std::string typeId);
    void SetLinkRetryAttribute(std::string name, const AttributeValue& value);
    /// Egress scheduler type for new devices.
    void SetScheduler(std::string typeId);
    void SetSchedulerAttribute(std::string name, const AttributeValue& value);

    /// Connect two nodes with the configured rate and delay. \return the two devices (a, b)
    NetDeviceContainer Install(Ptr<Node> a, Ptr<Node> b);
    /// Connect two nodes with an explicit rate and cable length (5 ns/m).
    NetDeviceContainer Install(Ptr<Node> a, Ptr<Node> b, DataRate rate, double cableMeters);
    /// Connect the two nodes of a container.
    NetDeviceContainer Install(NodeContainer c);

  private:
    Ptr<FabricNetDevice> CreateDevice(Ptr<Node> node) const;
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;
    void EnableAsciiInternal(Ptr<OutputStreamWrapper> stream,
                             std::string prefix,
                             Ptr<NetDevice> nd,
                             bool explicitFilename) override;

    ObjectFactory m_deviceFactory;
    ObjectFactory m_channelFactory;
    ObjectFactory m_flowControlFactory;
    ObjectFactory m_schedulerFactory;
    ObjectFactory m_linkRetryFactory;
    bool m_linkRetry{false};
};

} // namespace ns3

#endif // FABRIC_LINK_HELPER_H

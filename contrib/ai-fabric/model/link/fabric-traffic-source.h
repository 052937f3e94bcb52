// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_TRAFFIC_SOURCE_H
#define FABRIC_TRAFFIC_SOURCE_H

#include "fabric-net-device.h"

#include "ns3/application.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/fabric-timer.h"
#include "ns3/ipv4-address.h"
#include "ns3/traced-callback.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A UDP-like test traffic source for the fabric: one flow of fixed-size datagrams carrying a
 * flow id, a sequence number and a send timestamp (FabricProbeHeader), either as fast as the
 * NIC can send (it is pulled by the device when the wire is free, so it never builds a NIC
 * queue and respects PFC pauses) or paced at DataRate (wire bytes). It stops after MaxBytes of
 * payload. No transport: losses are not recovered (that is the RDMA engine's job).
 */
class FabricTrafficSource : public Application, public FabricFrameSource
{
  public:
    static TypeId GetTypeId();
    FabricTrafficSource();
    ~FabricTrafficSource() override;

    bool PullFrame(uint8_t prio, FabricFrame& out) override;

    uint64_t GetSentPackets() const;
    uint64_t GetSentPayloadBytes() const;
    /// \return true once MaxBytes have all been handed to the NIC
    bool IsFinished() const;

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void Wake();

    Ipv4Address m_remote;
    uint16_t m_remotePort{9000};
    uint16_t m_sourcePort{0};
    uint32_t m_flowId{0};
    uint32_t m_payloadSize{1024};
    DataRate m_rate{0};
    uint64_t m_maxBytes{0};
    uint8_t m_priority{3};
    bool m_ecnCapable{true};
    uint32_t m_deviceIndex{0};

    FabricNetDevice* m_device{nullptr};
    bool m_running{false};
    uint64_t m_sentPackets{0};
    uint64_t m_sentBytes{0};
    int64_t m_nextSend{0};
    FabricTimer m_wakeEvent;
    TracedCallback<const FabricFrame&> m_txTrace;
};

} // namespace ns3

#endif // FABRIC_TRAFFIC_SOURCE_H

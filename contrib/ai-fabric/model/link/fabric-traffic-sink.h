// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_TRAFFIC_SINK_H
#define FABRIC_TRAFFIC_SINK_H

#include "fabric-frame.h"

#include "ns3/application.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <map>

namespace ns3
{

class FabricNetDevice;

/**
 * \ingroup ai-fabric
 * Receives FabricTrafficSource datagrams on a UDP port of every FabricNetDevice of its node and
 * keeps per-flow counts, one-way latency (from the send timestamp), goodput and CE marks.
 */
class FabricTrafficSink : public Application
{
  public:
    static TypeId GetTypeId();
    FabricTrafficSink();
    ~FabricTrafficSink() override;

    struct FlowStats
    {
        uint64_t packets{0};
        uint64_t bytes{0};
        uint64_t ceMarked{0};
        uint64_t outOfOrder{0};
        uint32_t nextSeq{0};
        Time firstRx;
        Time lastRx;
    };

    uint64_t GetReceivedPackets() const;
    uint64_t GetReceivedBytes() const;
    uint64_t GetCeMarkedPackets() const;
    Time GetFirstRxTime() const;
    Time GetLastRxTime() const;
    Time GetMinLatency() const;
    Time GetMaxLatency() const;
    Time GetMeanLatency() const;
    const std::map<uint32_t, FlowStats>& GetFlowStats() const;

    typedef void (*RxTracedCallback)(const FabricFrame& frame, Time latency);

  private:
    void StartApplication() override;
    void StopApplication() override;
    void Receive(FabricNetDevice* device, const FabricFrame& frame);

    uint16_t m_port{9000};
    uint64_t m_packets{0};
    uint64_t m_bytes{0};
    uint64_t m_ce{0};
    Time m_first;
    Time m_last;
    int64_t m_latMin{INT64_MAX};
    int64_t m_latMax{0};
    double m_latSum{0};
    std::map<uint32_t, FlowStats> m_flows;
    TracedCallback<const FabricFrame&, Time> m_rxTrace;
};

} // namespace ns3

#endif // FABRIC_TRAFFIC_SINK_H

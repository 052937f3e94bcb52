// SPDX-License-Identifier: GPL-2.0-only
#include "loss-probe-counter.h"

#include "ns3/callback.h"

namespace ns3
{

LossProbeCounter::~LossProbeCounter()
{
    Disconnect();
}

void
LossProbeCounter::Connect(Ptr<CollectiveTransport> network)
{
    Disconnect();
    if (network &&
        network->TraceConnectWithoutContext("LossProbe",
                                            MakeCallback(&LossProbeCounter::Probe, this)))
    {
        m_network = network;
    }
}

void
LossProbeCounter::Disconnect()
{
    if (m_network)
    {
        m_network->TraceDisconnectWithoutContext("LossProbe",
                                                 MakeCallback(&LossProbeCounter::Probe, this));
        m_network = nullptr;
    }
}

void
LossProbeCounter::Probe(uint32_t /* sender */, int32_t receiver)
{
    ++m_count;
    if (receiver >= 0)
    {
        m_lastReceiver = receiver;
    }
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "ideal-transport.h"

#include "ns3/simulator.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(IdealTransport);

TypeId
IdealTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IdealTransport")
                            .SetParent<CollectiveTransport>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<IdealTransport>()
                            .AddAttribute("Latency",
                                          "Time every message takes besides its bytes.",
                                          TimeValue(Time(0)),
                                          MakeTimeAccessor(&IdealTransport::m_latency),
                                          MakeTimeChecker(Time(0)))
                            .AddAttribute("Bandwidth",
                                          "Rate of every message on its own (0: no limit).",
                                          DataRateValue(DataRate(0)),
                                          MakeDataRateAccessor(&IdealTransport::m_rate),
                                          MakeDataRateChecker());
    return tid;
}

std::string
IdealTransport::GetName() const
{
    return "ideal";
}

void
IdealTransport::Send(uint32_t,
                     uint32_t,
                     uint64_t bytes,
                     CollectiveTransportListener* listener,
                     uint64_t token,
                     uint32_t)
{
    Time t = m_latency;
    if (m_rate.GetBitRate() > 0)
    {
        t += m_rate.CalculateBytesTxTime(bytes);
    }
    Simulator::Schedule(t, &CollectiveTransportListener::MessageArrived, listener, token);
}

} // namespace ns3

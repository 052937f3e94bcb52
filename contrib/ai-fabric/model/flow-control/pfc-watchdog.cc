// SPDX-License-Identifier: GPL-2.0-only
#include "pfc-watchdog.h"

#include "pfc-flow-control.h"

#include "ns3/enum.h"
#include "ns3/fabric-enum-accessor.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-poll-chain.h"
#include "ns3/fabric-switch.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcWatchdog");
NS_OBJECT_ENSURE_REGISTERED(PfcWatchdog);

TypeId
PfcWatchdog::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PfcWatchdog")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<PfcWatchdog>()
            .AddAttribute("DetectionTime",
                          "A lossless queue paused without a break this long while holding "
                          "frames is a storm (SONiC pfcwd default 200 ms).",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&PfcWatchdog::m_detection),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RestorationTime",
                          "A stormed queue is restored once no PAUSE has arrived on it this long "
                          "(SONiC pfcwd default 200 ms).",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&PfcWatchdog::m_restoration),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PollInterval",
                          "How often queues are checked while any is paused (SONiC accepts "
                          "100-3000 ms; Juniper's default is 100 ms).",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&PfcWatchdog::m_poll),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("Action",
                          "What is done to a stormed queue: Drop (ignore PAUSEs and discard its "
                          "frames, SONiC's default), Forward (ignore PAUSEs), Alert (count only).",
                          EnumValue(PfcWatchdog::DROP),
                          MakeFabricEnumAccessor<PfcWatchdog::Action>(&PfcWatchdog::m_action),
                          MakeEnumChecker(PfcWatchdog::DROP,
                                          "Drop",
                                          PfcWatchdog::FORWARD,
                                          "Forward",
                                          PfcWatchdog::ALERT,
                                          "Alert"))
            .AddTraceSource("StormDetected",
                            "A storm was detected on a queue (device, priority).",
                            MakeTraceSourceAccessor(&PfcWatchdog::m_detectedTrace),
                            "ns3::PfcWatchdog::StormTracedCallback")
            .AddTraceSource("StormRestored",
                            "A stormed queue was restored (device, priority).",
                            MakeTraceSourceAccessor(&PfcWatchdog::m_restoredTrace),
                            "ns3::PfcWatchdog::StormTracedCallback");
    return tid;
}

PfcWatchdog::PfcWatchdog() = default;
PfcWatchdog::~PfcWatchdog() = default;

void
PfcWatchdog::DoDispose()
{
    m_pollEvent.Cancel();
    m_chain.reset();
    m_queues.clear();
    Object::DoDispose();
}

void
PfcWatchdog::AddPort(Ptr<FabricNetDevice> device)
{
    Ptr<PfcFlowControl> fc =
        device ? DynamicCast<PfcFlowControl>(device->GetFlowControl()) : nullptr;
    if (!fc)
    {
        return;
    }
    bool any = false;
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (fc->IsLossless(p))
        {
            m_queues.push_back(Queue{device, PeekPointer(fc), p, false});
            any = true;
        }
    }
    if (any)
    {
        fc->TraceConnectWithoutContext("PauseReceived", MakeCallback(&PfcWatchdog::Wake, this));
    }
}

void
PfcWatchdog::Install(Ptr<FabricSwitch> sw)
{
    for (uint16_t i = 0; i < sw->GetNPorts(); ++i)
    {
        AddPort(sw->GetPort(i));
    }
}

void
PfcWatchdog::SetPartitioned(Time delay)
{
    m_chain = std::make_unique<FabricPollChain>(m_poll, delay, [this]() { return PollQueues(); });
}

void
PfcWatchdog::Wake(uint8_t /*prio*/, uint16_t quanta)
{
    if (m_chain)
    {
        if (quanta != 0)
        {
            m_chain->Wake();
        }
        return;
    }
    if (quanta != 0 && m_pollEvent.IsExpired())
    {
        m_pollEvent = Simulator::Schedule(m_poll, &PfcWatchdog::Poll, this);
    }
}

void
PfcWatchdog::Mitigate(Queue& q, bool on)
{
    q.stormed = on;
    if (m_action == ALERT)
    {
        return;
    }
    q.fc->SetIgnorePause(q.prio, on);
    if (m_action == DROP)
    {
        q.dev->SetTxDiscard(q.prio, on);
    }
}

void
PfcWatchdog::Poll()
{
    if (PollQueues())
    {
        m_pollEvent = Simulator::Schedule(m_poll, &PfcWatchdog::Poll, this);
    }
}

bool
PfcWatchdog::PollQueues()
{
    const Time now = Simulator::Now();
    bool again = false;
    for (Queue& q : m_queues)
    {
        if (!q.stormed)
        {
            // ALERT leaves the pause in force, so a queue it reported stays stormed until the
            // PAUSEs stop; the other actions ignore them from detection on.
            if (q.fc->IsPaused(q.prio))
            {
                again = true;
                if (now - q.fc->GetPausedSince(q.prio) >= m_detection &&
                    q.dev->GetQueueFrames(q.prio) > 0)
                {
                    ++m_storms;
                    NS_LOG_INFO("storm on node " << q.dev->GetNode()->GetId() << " port "
                                                 << q.dev->GetPortIndex() << " prio "
                                                 << unsigned(q.prio));
                    Mitigate(q, true);
                    m_detectedTrace(q.dev, q.prio);
                }
            }
            continue;
        }
        again = true;
        if (now - q.fc->GetLastPauseReceived(q.prio) >= m_restoration)
        {
            ++m_restorations;
            Mitigate(q, false);
            m_restoredTrace(q.dev, q.prio);
        }
    }
    return again;
}

bool
PfcWatchdog::IsStormed(Ptr<FabricNetDevice> device, uint8_t prio) const
{
    for (const Queue& q : m_queues)
    {
        if (q.dev == device && q.prio == (prio & 7))
        {
            return q.stormed;
        }
    }
    return false;
}

uint64_t
PfcWatchdog::GetStormsDetected() const
{
    return m_storms;
}

uint64_t
PfcWatchdog::GetRestorations() const
{
    return m_restorations;
}

uint64_t
PfcWatchdog::GetDroppedFrames() const
{
    uint64_t n = 0;
    const FabricNetDevice* last = nullptr;
    for (const Queue& q : m_queues)
    {
        if (PeekPointer(q.dev) != last)
        {
            last = PeekPointer(q.dev);
            n += q.dev->GetCounters().drops[size_t(FabricDropReason::PFC_WATCHDOG)];
        }
    }
    return n;
}

uint32_t
PfcWatchdog::GetStormedQueues() const
{
    uint32_t n = 0;
    for (const Queue& q : m_queues)
    {
        n += q.stormed ? 1 : 0;
    }
    return n;
}

} // namespace ns3

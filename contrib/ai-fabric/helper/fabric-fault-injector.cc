// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-fault-injector.h"

#include "fabric-topology-helper.h"

#include "ns3/double.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-rank-mailbox.h"
#include "ns3/fabric-switch.h"
#include "ns3/pfc-flow-control.h"
#include "ns3/simulator.h"
#include "ns3/switch-buffer-manager.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricFaultInjector);

TypeId
FabricFaultInjector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricFaultInjector")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<FabricFaultInjector>()
            .AddAttribute("ConvergenceTime",
                          "From a link going down or up to every switch's routes reflecting it "
                          "(failure detection + route withdrawal + FIB update; RFC 7938 §7: "
                          "sub-second with fast fallover).",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&FabricFaultInjector::m_convergence),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("LossBurstGap",
                          "A connection's losses to down links closer than this belong to one "
                          "burst (GetConnectionFirstBursts: how long it kept sending onto a dead "
                          "path before it stopped, by moving away or by waiting for a timeout).",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&FabricFaultInjector::m_burstGap),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("LinkChange",
                            "A link went down (false) or came back up (true).",
                            MakeTraceSourceAccessor(&FabricFaultInjector::m_linkTrace),
                            "ns3::FabricFaultInjector::LinkChangeCallback")
            .AddTraceSource("Reconverged",
                            "Every switch's routes were recomputed over the links that are up.",
                            MakeTraceSourceAccessor(&FabricFaultInjector::m_reconvergedTrace),
                            "ns3::TracedCallback::NoArgs");
    return tid;
}

FabricFaultInjector::FabricFaultInjector() = default;

FabricFaultInjector::~FabricFaultInjector() = default;

void
FabricFaultInjector::DoDispose()
{
    if (m_topo && !m_firstDown.IsNegative())
    {
        WatchLinkDownDrops(false); // the ports may outlive this injector
    }
    m_topo = nullptr;
    m_random.clear();
    Object::DoDispose();
}

void
FabricFaultInjector::SetTopology(Ptr<FabricTopology> topo)
{
    m_topo = topo;
}

int64_t
FabricFaultInjector::AssignStreams(int64_t stream)
{
    m_stream = stream;
    for (uint32_t k = 0; k < m_random.size(); ++k)
    {
        m_random[k].ttf->SetStream(stream + k);
    }
    return m_topo ? std::max<int64_t>(1, m_topo->GetNLinks()) : 1;
}

void
FabricFaultInjector::AddEvent(const FabricFaultEvent& e)
{
    Simulator::Schedule(e.at, &FabricFaultInjector::Apply, this, e);
}

uint32_t
FabricFaultInjector::AddRandomFailures(Time mtbf, Time repair, bool hostLinks, Time horizon)
{
    NS_ABORT_MSG_IF(!m_topo, "FabricFaultInjector: SetTopology first");
    const uint32_t endpoints = m_topo->GetNEndpoints();
    const auto first = static_cast<uint32_t>(m_random.size());
    for (uint32_t l = 0; l < m_topo->GetNLinks(); ++l)
    {
        const FabricLinkInfo& li = m_topo->GetLinks()[l];
        if (!hostLinks && (li.a < endpoints || li.b < endpoints))
        {
            continue;
        }
        Ptr<ExponentialRandomVariable> ttf = CreateObject<ExponentialRandomVariable>();
        ttf->SetAttribute("Mean", DoubleValue(mtbf.GetSeconds()));
        ttf->SetAttribute("Bound", DoubleValue(0));
        if (m_stream >= 0)
        {
            ttf->SetStream(m_stream + int64_t(m_random.size()));
        }
        m_random.push_back(RandomLink{l, ttf, repair, Simulator::Now() + horizon});
    }
    for (auto i = first; i < m_random.size(); ++i)
    {
        ScheduleRandomFailure(i);
    }
    return static_cast<uint32_t>(m_random.size() - first);
}

uint64_t
FabricFaultInjector::GetRandomFailures() const
{
    return m_randomFailures;
}

void
FabricFaultInjector::ScheduleRandomFailure(uint32_t i)
{
    const RandomLink& r = m_random[i];
    const Time at = Simulator::Now() + Seconds(r.ttf->GetValue());
    if (at < r.horizon)
    {
        Simulator::Schedule(at - Simulator::Now(), &FabricFaultInjector::RandomDown, this, i);
    }
}

// Each schedules the link's next change before applying this one: at a tie with the
// reconvergence the change schedules (the repair, or the next failure, exactly ConvergenceTime
// later), the link's change comes first, as when every change was scheduled up front.

void
FabricFaultInjector::RandomDown(uint32_t i)
{
    Simulator::Schedule(m_random[i].repair, &FabricFaultInjector::RandomUp, this, i);
    ++m_randomFailures;
    SetLinkUp(m_random[i].link, false);
}

void
FabricFaultInjector::RandomUp(uint32_t i)
{
    ScheduleRandomFailure(i);
    SetLinkUp(m_random[i].link, true);
}

void
FabricFaultInjector::Apply(FabricFaultEvent e)
{
    for (uint32_t l : e.links)
    {
        switch (e.action)
        {
        case FabricFaultEvent::DOWN:
            SetLinkUp(l, false);
            break;
        case FabricFaultEvent::UP:
            SetLinkUp(l, true);
            break;
        case FabricFaultEvent::DEGRADE:
            SetPortRate(l,
                        e.oneWay ? e.stormEnd : UINT32_MAX,
                        DataRate(uint64_t(e.gbps * 1e9)),
                        e.scaleQueue);
            break;
        case FabricFaultEvent::LOSS:
            SetLinkLoss(l, e.rate, e.allFrames);
            break;
        case FabricFaultEvent::FLAP:
            Flap(l, e.period / 2, Simulator::Now() + e.until - e.at, false);
            break;
        case FabricFaultEvent::PAUSE_STORM:
            SetPauseStorm(l, e.stormEnd, e.priority, true);
            if (e.until > e.at)
            {
                Simulator::Schedule(e.until - e.at,
                                    &FabricFaultInjector::SetPauseStorm,
                                    this,
                                    l,
                                    e.stormEnd,
                                    e.priority,
                                    false);
            }
            break;
        }
    }
}

void
FabricFaultInjector::Flap(uint32_t link, Time halfPeriod, Time until, bool up)
{
    if (Simulator::Now() > until)
    {
        return;
    }
    SetLinkUp(link, up);
    Simulator::Schedule(halfPeriod, &FabricFaultInjector::Flap, this, link, halfPeriod, until, !up);
}

void
FabricFaultInjector::SetLinkUp(uint32_t link, bool up)
{
    if (m_topo->IsLinkUp(link) == up)
    {
        return;
    }
    m_topo->SetLinkUp(link, up);
    ++m_changes;
    if (!up && m_firstDown.IsNegative())
    {
        m_firstDown = Simulator::Now();
        WatchLinkDownDrops(true);
    }
    m_linkTrace(link, up);
    // Changes at the same instant (a switch's links) converge together: one recomputation.
    const Time at = Simulator::Now() + m_convergence;
    if (m_pending.IsExpired() || m_pendingAt != at)
    {
        m_pending = Simulator::Schedule(m_convergence, &FabricFaultInjector::Reconverge, this);
        m_pendingAt = at;
    }
}

void
FabricFaultInjector::SetLinkRate(uint32_t link, DataRate rate)
{
    SetPortRate(link, UINT32_MAX, rate, false);
}

void
FabricFaultInjector::SetPortRate(uint32_t link, uint32_t end, DataRate rate, bool scaleQueue)
{
    const FabricLinkInfo& li = m_topo->GetLinks().at(link);
    const bool both = end != li.a && end != li.b;
    for (const auto& [vertex, dev] : {std::make_pair(li.a, li.devA), std::make_pair(li.b, li.devB)})
    {
        if (!both && vertex != end)
        {
            continue;
        }
        if (scaleQueue && vertex >= m_topo->GetNEndpoints())
        {
            const double factor =
                double(rate.GetBitRate()) / double(dev->GetDataRate().GetBitRate());
            Ptr<SwitchBufferManager> bm =
                m_topo->GetSwitch(vertex - m_topo->GetNEndpoints())->GetBufferManager();
            bm->SetPortScale(dev->GetPortIndex(), bm->GetPortScale(dev->GetPortIndex()) * factor);
        }
        dev->SetDataRate(rate);
    }
    ++m_changes;
}

void
FabricFaultInjector::SetLinkLoss(uint32_t link, double rate, bool allFrames)
{
    const FabricLinkInfo& li = m_topo->GetLinks().at(link);
    for (const auto& d : {li.devA, li.devB})
    {
        d->SetAttribute("ReceiveErrorRate", DoubleValue(rate));
        d->SetAttribute("ControlErrorRate", DoubleValue(allFrames ? rate : 0.0));
    }
    ++m_changes;
}

void
FabricFaultInjector::SetPauseStorm(uint32_t link, uint32_t end, uint8_t prio, bool on)
{
    const FabricLinkInfo& li = m_topo->GetLinks().at(link);
    if (end != li.a && end != li.b)
    {
        throw FabricConfigError("PauseStorm",
                                "vertex " + std::to_string(end) + " is not an end of link " +
                                    m_topo->GetLinkName(link));
    }
    Ptr<FabricNetDevice> dev = end == li.a ? li.devA : li.devB;
    Ptr<PfcFlowControl> fc = DynamicCast<PfcFlowControl>(dev->GetFlowControl());
    if (!fc || !fc->IsLossless(prio))
    {
        throw FabricConfigError("PauseStorm",
                                "the " + m_topo->GetVertexName(end) + " end of " +
                                    m_topo->GetLinkName(link) + " has no PFC on priority " +
                                    std::to_string(unsigned(prio)));
    }
    // Across MPI ranks only the device's own rank storms (its PAUSE frames are events of its
    // node); every rank counts the storm.
    const bool local = !FabricRankMailbox::Distributed() ||
                       dev->GetNode()->GetSystemId() == FabricRankMailbox::GetRank();
    bool& storming = m_storming[(uint64_t(link) << 9) | (uint64_t(end == li.a) << 8) | prio];
    if (on && !(local ? fc->IsStorming(prio) : storming))
    {
        ++m_storms;
    }
    storming = on;
    if (local)
    {
        fc->SetStorm(prio, on);
    }
}

uint64_t
FabricFaultInjector::GetPauseStorms() const
{
    return m_storms;
}

void
FabricFaultInjector::Reconverge()
{
    m_topo->PopulateRoutes();
    for (uint32_t j = 0; j < m_topo->GetNSwitches(); ++j)
    {
        Ptr<FabricSwitch> sw = m_topo->GetSwitch(j);
        if (sw->HasLinearForwardingTable())
        {
            sw->BuildLinearForwardingTable(1, m_topo->GetNEndpoints());
        }
    }
    ++m_reconvergences;
    m_reconvergedTrace();
}

uint64_t
FabricFaultInjector::GetChanges() const
{
    return m_changes;
}

uint64_t
FabricFaultInjector::GetReconvergences() const
{
    return m_reconvergences;
}

uint64_t
FabricFaultInjector::GetLinkDownDrops() const
{
    uint64_t drops = 0;
    for (const auto& l : m_topo->GetLinks())
    {
        for (const auto& d : {l.devA, l.devB})
        {
            drops += d->GetCounters().drops[size_t(FabricDropReason::LINK_DOWN)];
        }
    }
    // Frames a switch forwarded to a port that is down, before the routes changed.
    for (uint32_t j = 0; j < m_topo->GetNSwitches(); ++j)
    {
        drops += m_topo->GetSwitch(j)->GetCounters().drops[size_t(FabricDropReason::LINK_DOWN)];
    }
    return drops;
}

void
FabricFaultInjector::WatchLinkDownDrops(bool on)
{
    auto cb = MakeCallback(&FabricFaultInjector::OnDrop, this);
    auto hook = [&](Ptr<Object> o) {
        if (on)
        {
            o->TraceConnectWithoutContext("Drop", cb);
        }
        else
        {
            o->TraceDisconnectWithoutContext("Drop", cb);
        }
    };
    for (const auto& l : m_topo->GetLinks())
    {
        hook(l.devA);
        hook(l.devB);
    }
    for (uint32_t j = 0; j < m_topo->GetNSwitches(); ++j)
    {
        hook(m_topo->GetSwitch(j));
    }
}

void
FabricFaultInjector::OnDrop(const FabricFrame& frame, FabricDropReason reason)
{
    if (reason != FabricDropReason::LINK_DOWN)
    {
        return;
    }
    if (frame.kind != FabricFrame::DATA || frame.payloadBytes == 0)
    {
        return; // acknowledgements and control frames: a sender's path choice is its data's
    }
    const Time now = Simulator::Now();
    if (m_keepDropLog)
    {
        m_dropLog.push_back(LinkDownDrop{frame.src, frame.dst, frame.flowId, now.GetTimeStep()});
    }
    LinkDownLoss(frame.src, frame.dst, frame.flowId, now);
}

void
FabricFaultInjector::SetKeepDropLog(bool keep)
{
    m_keepDropLog = keep;
}

const std::vector<FabricFaultInjector::LinkDownDrop>&
FabricFaultInjector::GetDropLog() const
{
    return m_dropLog;
}

void
FabricFaultInjector::ReplayLinkDownDrops(std::vector<LinkDownDrop> drops)
{
    std::stable_sort(drops.begin(), drops.end(), [](const LinkDownDrop& a, const LinkDownDrop& b) {
        return a.step < b.step;
    });
    m_connectionLoss.clear();
    m_lastLinkDownDrop = Time(0);
    for (const LinkDownDrop& d : drops)
    {
        LinkDownLoss(d.src, d.dst, d.flowId, TimeStep(d.step));
    }
}

void
FabricFaultInjector::LinkDownLoss(uint32_t src, uint32_t dst, uint32_t flowId, Time now)
{
    m_lastLinkDownDrop = now;
    // A connection: its hosts' addresses and the flow id that tells a host pair's apart.
    auto [it, fresh] = m_connectionLoss.try_emplace(std::make_tuple(src, dst, flowId),
                                                    ConnectionLoss{now, now, now, true});
    ConnectionLoss& l = it->second;
    if (!fresh)
    {
        if (l.inFirstBurst && now - l.last <= m_burstGap)
        {
            l.firstBurstEnd = now;
        }
        else
        {
            l.inFirstBurst = false;
        }
        l.last = now;
    }
}

std::vector<Time>
FabricFaultInjector::GetConnectionLossWindows() const
{
    return ConnectionSpans(&ConnectionLoss::last);
}

std::vector<Time>
FabricFaultInjector::GetConnectionFirstBursts() const
{
    return ConnectionSpans(&ConnectionLoss::firstBurstEnd);
}

std::vector<Time>
FabricFaultInjector::ConnectionSpans(Time ConnectionLoss::*end) const
{
    std::vector<Time> w;
    w.reserve(m_connectionLoss.size());
    for (const auto& [key, l] : m_connectionLoss)
    {
        w.push_back(l.*end - l.first);
    }
    std::sort(w.begin(), w.end());
    return w;
}

Time
FabricFaultInjector::GetFirstDownTime() const
{
    return m_firstDown;
}

Time
FabricFaultInjector::GetLossWindow() const
{
    if (m_firstDown.IsNegative() || m_lastLinkDownDrop < m_firstDown)
    {
        return Time(0);
    }
    return m_lastLinkDownDrop - m_firstDown;
}

uint32_t
FabricFaultInjector::GetLinksDown() const
{
    uint32_t n = 0;
    for (uint32_t l = 0; l < m_topo->GetNLinks(); ++l)
    {
        n += m_topo->IsLinkUp(l) ? 0 : 1;
    }
    return n;
}

} // namespace ns3

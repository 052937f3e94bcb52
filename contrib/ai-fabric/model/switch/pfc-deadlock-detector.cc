// SPDX-License-Identifier: GPL-2.0-only
#include "pfc-deadlock-detector.h"

#include "fabric-switch.h"

#include "ns3/boolean.h"
#include "ns3/fabric-net-device.h"
#include "ns3/log.h"
#include "ns3/pfc-flow-control.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <functional>
#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcDeadlockDetector");
NS_OBJECT_ENSURE_REGISTERED(PfcDeadlockDetector);

TypeId
PfcDeadlockDetector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PfcDeadlockDetector")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<PfcDeadlockDetector>()
            .AddAttribute("Threshold",
                          "A queue belongs to a deadlock cycle only once paused without a break "
                          "this long (congestion pauses last microseconds to milliseconds).",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&PfcDeadlockDetector::m_threshold),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PollInterval",
                          "How often the wait-for graph is searched while any queue is paused.",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&PfcDeadlockDetector::m_poll),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("StopSimulation",
                          "Stop the simulation when a deadlock is found (nothing in the cycle "
                          "can move again unless something drops frames).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&PfcDeadlockDetector::m_stop),
                          MakeBooleanChecker())
            .AddTraceSource("Deadlock",
                            "A new deadlock cycle was found (its queues in wait-for order).",
                            MakeTraceSourceAccessor(&PfcDeadlockDetector::m_deadlockTrace),
                            "ns3::PfcDeadlockDetector::DeadlockTracedCallback");
    return tid;
}

PfcDeadlockDetector::PfcDeadlockDetector() = default;
PfcDeadlockDetector::~PfcDeadlockDetector() = default;

void
PfcDeadlockDetector::DoDispose()
{
    m_pollEvent.Cancel();
    m_ports.clear();
    m_byDevice.clear();
    m_cycles.clear();
    Object::DoDispose();
}

void
PfcDeadlockDetector::AddSwitch(Ptr<FabricSwitch> sw)
{
    const uint32_t s = static_cast<uint32_t>(m_switchPorts.size());
    m_switchPorts.emplace_back();
    for (uint16_t i = 0; i < sw->GetNPorts(); ++i)
    {
        Ptr<FabricNetDevice> dev = sw->GetPort(i);
        Ptr<PfcFlowControl> fc = DynamicCast<PfcFlowControl>(dev->GetFlowControl());
        if (!fc)
        {
            continue;
        }
        Port p;
        p.sw = sw;
        p.dev = dev;
        p.fc = PeekPointer(fc);
        p.sw_index = s;
        p.port = i;
        for (uint8_t q = 0; q < 8; ++q)
        {
            p.lossless |= fc->IsLossless(q) ? static_cast<uint8_t>(1U << q) : 0;
        }
        if (p.lossless == 0)
        {
            continue;
        }
        const uint32_t idx = static_cast<uint32_t>(m_ports.size());
        m_byDevice[PeekPointer(dev)] = idx;
        m_switchPorts[s].push_back(idx);
        m_ports.push_back(p);
        fc->TraceConnectWithoutContext("PauseReceived",
                                       MakeCallback(&PfcDeadlockDetector::Wake, this));
    }
}

const std::vector<std::vector<PfcDeadlockHop>>&
PfcDeadlockDetector::GetDeadlocks() const
{
    return m_cycles;
}

uint64_t
PfcDeadlockDetector::GetDeadlocksDetected() const
{
    return m_cycles.size();
}

void
PfcDeadlockDetector::Wake(uint8_t /*prio*/, uint16_t quanta)
{
    if (quanta != 0 && m_pollEvent.IsExpired())
    {
        m_pollEvent = Simulator::Schedule(m_poll, &PfcDeadlockDetector::Poll, this);
    }
}

void
PfcDeadlockDetector::Poll()
{
    const bool found = Check() > 0;
    if (found && m_stop)
    {
        Simulator::Stop();
        return;
    }
    for (const Port& p : m_ports)
    {
        for (uint8_t q = 0; q < 8; ++q)
        {
            if (((p.lossless >> q) & 1U) && p.fc->IsPaused(q))
            {
                m_pollEvent = Simulator::Schedule(m_poll, &PfcDeadlockDetector::Poll, this);
                return;
            }
        }
    }
}

uint32_t
PfcDeadlockDetector::Check()
{
    const Time now = Simulator::Now();
    // Vertices: queues (port index * 8 + priority) paused past the threshold that hold frames.
    std::map<uint64_t, std::vector<uint64_t>> next;
    std::map<uint64_t, std::vector<uint16_t>> ingresses; // the ingress ports of each one's frames
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        const Port& p = m_ports[i];
        for (uint8_t q = 0; q < 8; ++q)
        {
            if (!((p.lossless >> q) & 1U) || !p.fc->IsPaused(q) ||
                now - p.fc->GetPausedSince(q) < m_threshold || p.dev->GetQueueFrames(q) == 0)
            {
                continue;
            }
            std::vector<uint16_t>& in = ingresses[uint64_t(i) * 8 + q];
            p.dev->ForEachQueued(q, [&in](const FabricFrame& f) { in.push_back(f.ingressPort); });
            std::sort(in.begin(), in.end());
            in.erase(std::unique(in.begin(), in.end()), in.end());
            next[uint64_t(i) * 8 + q];
        }
    }
    if (next.empty())
    {
        return 0;
    }
    for (auto& [key, out] : next)
    {
        const uint8_t q = key % 8;
        const Port& p = m_ports[key / 8];
        FabricNetDevice* peer = p.dev->GetPeer();
        const auto it = m_byDevice.find(peer);
        if (it == m_byDevice.end())
        {
            continue; // paused by a host: a storm, not a cycle
        }
        const Port& holder = m_ports[it->second];
        if (!holder.fc->IsHoldingPause(q))
        {
            continue;
        }
        for (uint32_t k : m_switchPorts[holder.sw_index])
        {
            const auto v = ingresses.find(uint64_t(k) * 8 + q);
            if (v != ingresses.end() &&
                std::binary_search(v->second.begin(), v->second.end(), holder.port))
            {
                out.push_back(v->first);
            }
        }
    }
    // Depth-first search; every back edge closes a cycle.
    std::map<uint64_t, uint8_t> color; // 0 white, 1 on the stack, 2 done
    std::vector<uint64_t> stack;
    uint32_t fresh = 0;
    auto report = [&](std::vector<uint64_t> cyc) {
        std::vector<uint64_t> sorted = cyc;
        std::sort(sorted.begin(), sorted.end());
        if (!m_seen.insert(sorted).second)
        {
            return;
        }
        std::vector<PfcDeadlockHop> hops;
        for (uint64_t key : cyc)
        {
            const Port& p = m_ports[key / 8];
            const uint8_t q = key % 8;
            hops.push_back(PfcDeadlockHop{p.sw, p.dev, p.port, q, now - p.fc->GetPausedSince(q)});
        }
        NS_LOG_WARN("PFC deadlock: a cycle of " << hops.size() << " paused queues at " << now);
        m_cycles.push_back(hops);
        ++fresh;
        m_deadlockTrace(m_cycles.back());
    };
    std::function<void(uint64_t)> visit = [&](uint64_t u) {
        color[u] = 1;
        stack.push_back(u);
        for (uint64_t w : next[u])
        {
            if (color[w] == 1)
            {
                const auto from = std::find(stack.begin(), stack.end(), w);
                report(std::vector<uint64_t>(from, stack.end()));
            }
            else if (color[w] == 0)
            {
                visit(w);
            }
        }
        stack.pop_back();
        color[u] = 2;
    };
    for (const auto& [key, out] : next)
    {
        if (color[key] == 0)
        {
            visit(key);
        }
    }
    return fresh;
}

} // namespace ns3

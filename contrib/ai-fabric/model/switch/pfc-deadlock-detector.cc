// SPDX-License-Identifier: GPL-2.0-only
#include "pfc-deadlock-detector.h"

#include "fabric-switch.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-poll-chain.h"
#include "ns3/fabric-rank-mailbox.h"
#include "ns3/log.h"
#include "ns3/pfc-flow-control.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstring>
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

/// Messages of the search across ranks (SetPartitioned), at most
/// FabricRankMailbox::kMaxPayloadBytes each.
enum SplitMessage : uint8_t
{
    PAUSED = 1, //!< u32 port, u8 priority, i64 paused since, u16 n, n u16 ingress ports
    HOLDS = 2,  //!< u16 n, n times (u32 port, u8 priorities)
    END = 3,    //!< i64 the poll's time: the sender's findings are all sent
};

constexpr uint32_t kPausedHead = 1 + 4 + 1 + 8 + 2;
constexpr uint32_t kIngressPerMessage = (FabricRankMailbox::kMaxPayloadBytes - kPausedHead) / 2;
constexpr uint32_t kHoldsPerMessage = (FabricRankMailbox::kMaxPayloadBytes - 3) / 5;

PfcDeadlockDetector::PfcDeadlockDetector() = default;
PfcDeadlockDetector::~PfcDeadlockDetector() = default;

void
PfcDeadlockDetector::DoDispose()
{
    m_pollEvent.Cancel();
    m_chain.reset();
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
PfcDeadlockDetector::SetPartitioned(Time delay)
{
    m_chain = std::make_unique<FabricPollChain>(m_poll, delay, [this]() { return PollSplit(); });
    m_handler = FabricRankMailbox::AddHandler(
        [this](const uint8_t* data, uint32_t size) { ReceiveSplit(data, size); });
}

bool
PfcDeadlockDetector::PollSplit()
{
    const Time now = Simulator::Now();
    Snapshot s;
    Gather(s, now, true);
    const Time delay = m_chain->GetDelay();
    uint8_t msg[FabricRankMailbox::kMaxPayloadBytes];
    for (const auto& [key, e] : s.paused)
    {
        // Long ingress lists go in several messages of the same queue.
        size_t from = 0;
        do
        {
            const uint32_t port = static_cast<uint32_t>(key / 8);
            const uint16_t n = static_cast<uint16_t>(
                std::min<size_t>(kIngressPerMessage, e.ingress.size() - from));
            msg[0] = PAUSED;
            std::memcpy(msg + 1, &port, 4);
            msg[5] = static_cast<uint8_t>(key % 8);
            std::memcpy(msg + 6, &e.pausedSince, 8);
            std::memcpy(msg + 14, &n, 2);
            std::memcpy(msg + kPausedHead, e.ingress.data() + from, 2 * size_t(n));
            FabricRankMailbox::Broadcast(m_handler, msg, kPausedHead + 2 * n, delay);
            from += n;
        } while (from < e.ingress.size());
    }
    auto it = s.holds.begin();
    while (it != s.holds.end())
    {
        uint16_t n = 0;
        msg[0] = HOLDS;
        for (; it != s.holds.end() && n < kHoldsPerMessage; ++it, ++n)
        {
            std::memcpy(msg + 3 + 5 * n, &it->first, 4);
            msg[3 + 5 * n + 4] = it->second;
        }
        std::memcpy(msg + 1, &n, 2);
        FabricRankMailbox::Broadcast(m_handler, msg, 3 + 5 * n, delay);
    }
    const int64_t at = now.GetTimeStep();
    msg[0] = END;
    std::memcpy(msg + 1, &at, 8);
    FabricRankMailbox::Broadcast(m_handler, msg, 9, delay);
    return AnyPaused();
}

void
PfcDeadlockDetector::ReceiveSplit(const uint8_t* data, uint32_t size)
{
    NS_ABORT_MSG_IF(size < 3, "PfcDeadlockDetector: a message of " << size << " bytes");
    if (data[0] == PAUSED)
    {
        uint32_t port = 0;
        uint16_t n = 0;
        std::memcpy(&port, data + 1, 4);
        std::memcpy(&n, data + 14, 2);
        NS_ABORT_MSG_IF(port >= m_ports.size() || size != kPausedHead + 2 * uint32_t(n),
                        "PfcDeadlockDetector: a malformed message");
        Snapshot::Queue& e = m_incoming.paused[uint64_t(port) * 8 + (data[5] & 7)];
        std::memcpy(&e.pausedSince, data + 6, 8);
        const size_t had = e.ingress.size();
        e.ingress.resize(had + n);
        std::memcpy(e.ingress.data() + had, data + kPausedHead, 2 * size_t(n));
        return;
    }
    if (data[0] == HOLDS)
    {
        uint16_t n = 0;
        std::memcpy(&n, data + 1, 2);
        NS_ABORT_MSG_IF(size != 3 + 5 * uint32_t(n), "PfcDeadlockDetector: a malformed message");
        for (uint16_t i = 0; i < n; ++i)
        {
            uint32_t port = 0;
            std::memcpy(&port, data + 3 + 5 * i, 4);
            m_incoming.holds[port] |= data[3 + 5 * i + 4];
        }
        return;
    }
    if (++m_ends < FabricRankMailbox::GetNRanks())
    {
        return;
    }
    int64_t at = 0;
    std::memcpy(&at, data + 1, 8);
    Snapshot s;
    std::swap(s, m_incoming);
    m_ends = 0;
    // A port's queue and its peer's PAUSE may be on different ranks: every rank searches the
    // union, as of the poll, one message delay after it.
    if (Search(s, TimeStep(at)) > 0 && m_stop)
    {
        Simulator::Stop();
    }
}

void
PfcDeadlockDetector::Wake(uint8_t /*prio*/, uint16_t quanta)
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
    if (AnyPaused())
    {
        m_pollEvent = Simulator::Schedule(m_poll, &PfcDeadlockDetector::Poll, this);
    }
}

bool
PfcDeadlockDetector::AnyPaused() const
{
    for (const Port& p : m_ports)
    {
        for (uint8_t q = 0; q < 8; ++q)
        {
            if (((p.lossless >> q) & 1U) && p.fc->IsPaused(q))
            {
                return true;
            }
        }
    }
    return false;
}

uint32_t
PfcDeadlockDetector::Check()
{
    const Time now = Simulator::Now();
    Snapshot s;
    Gather(s, now, false);
    return Search(s, now);
}

void
PfcDeadlockDetector::Gather(Snapshot& s, Time now, bool allHolds) const
{
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        const Port& p = m_ports[i];
        for (uint8_t q = 0; q < 8; ++q)
        {
            if (!((p.lossless >> q) & 1U))
            {
                continue;
            }
            if (allHolds && p.fc->IsHoldingPause(q))
            {
                s.holds[i] |= static_cast<uint8_t>(1U << q);
            }
            if (!p.fc->IsPaused(q) || now - p.fc->GetPausedSince(q) < m_threshold ||
                p.dev->GetQueueFrames(q) == 0)
            {
                continue;
            }
            Snapshot::Queue& e = s.paused[uint64_t(i) * 8 + q];
            e.pausedSince = p.fc->GetPausedSince(q).GetTimeStep();
            std::vector<uint16_t>& in = e.ingress;
            p.dev->ForEachQueued(q, [&in](const FabricFrame& f) { in.push_back(f.ingressPort); });
            std::sort(in.begin(), in.end());
            in.erase(std::unique(in.begin(), in.end()), in.end());
        }
    }
    if (allHolds)
    {
        return;
    }
    // In one place: the PAUSEs held by the peers of paused queues only.
    for (const auto& [key, e] : s.paused)
    {
        const auto it = m_byDevice.find(m_ports[key / 8].dev->GetPeer());
        if (it != m_byDevice.end() && m_ports[it->second].fc->IsHoldingPause(key % 8))
        {
            s.holds[it->second] |= static_cast<uint8_t>(1U << (key % 8));
        }
    }
}

uint32_t
PfcDeadlockDetector::Search(const Snapshot& s, Time now)
{
    std::map<uint64_t, std::vector<uint64_t>> next;
    for (const auto& [key, e] : s.paused)
    {
        next[key];
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
        const auto held = s.holds.find(it->second);
        if (held == s.holds.end() || !((held->second >> q) & 1U))
        {
            continue;
        }
        for (uint32_t k : m_switchPorts[holder.sw_index])
        {
            const auto v = s.paused.find(uint64_t(k) * 8 + q);
            if (v != s.paused.end() &&
                std::binary_search(v->second.ingress.begin(), v->second.ingress.end(), holder.port))
            {
                out.push_back(v->first);
            }
        }
    }
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
            hops.push_back(PfcDeadlockHop{p.sw,
                                          p.dev,
                                          p.port,
                                          q,
                                          now - TimeStep(s.paused.at(key).pausedSince)});
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

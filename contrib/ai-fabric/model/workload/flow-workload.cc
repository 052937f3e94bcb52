// SPDX-License-Identifier: GPL-2.0-only
// FlowWorkload: arrivals (Poisson, incast, scheduled matrix flows), the connection pool over RDMA
// queue pairs and UET PDCs, ideal FCTs, completion, and the workload's split across MPI ranks
// (posting on the sender's rank, completions broadcast). About 690 lines in one file: every part
// reads and writes the same flow and connection tables, which a split would have to expose.
#include "flow-workload.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-enum-accessor.h"
#include "ns3/fabric-frame.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-partition-scheduler.h"
#include "ns3/fabric-rank-mailbox.h"
#include "ns3/fabric-topology.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/rdma-congestion-ops.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uet-nic.h"
#include "ns3/uet-pdc.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowWorkload");
NS_OBJECT_ENSURE_REGISTERED(FlowWorkload);

TypeId
FlowWorkload::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlowWorkload")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<FlowWorkload>()
            .AddAttribute("Load",
                          "Offered load per host as a fraction of its line rate, in (0, 1]: "
                          "Poisson arrivals at Load x line rate / (8 x mean flow size).",
                          DoubleValue(0.3),
                          MakeDoubleAccessor(&FlowWorkload::m_load),
                          MakeDoubleChecker<double>(1e-9, 1.0))
            .AddAttribute("Duration",
                          "How long flows arrive, from Start() (Time).",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&FlowWorkload::m_duration),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Pattern",
                          "Destinations: Uniform (each flow to a host drawn uniformly among the "
                          "others) or Permutation (each host to one partner of a random "
                          "derangement).",
                          EnumValue(FlowWorkload::UNIFORM),
                          MakeFabricEnumAccessor<FlowWorkload::Pattern>(&FlowWorkload::m_pattern),
                          MakeEnumChecker(FlowWorkload::UNIFORM,
                                          "Uniform",
                                          FlowWorkload::PERMUTATION,
                                          "Permutation"))
            .AddAttribute("IncastFanin",
                          "Senders of each incast burst (0: no incast).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlowWorkload::m_incastFanin),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("IncastBytes",
                          "Bytes each sender of an incast burst sends.",
                          UintegerValue(500000),
                          MakeUintegerAccessor(&FlowWorkload::m_incastBytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("IncastPeriod",
                          "Time between incast bursts (Time; 0: no incast).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&FlowWorkload::m_incastPeriod),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Dscp",
                          "DSCP of the flows' queue pairs (0: the NIC's DataDscp).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlowWorkload::m_dscp),
                          MakeUintegerChecker<uint8_t>(0, 63))
            .AddTraceSource("FlowCompleted",
                            "A flow was acknowledged in full (or failed).",
                            MakeTraceSourceAccessor(&FlowWorkload::m_flowCompleted),
                            "ns3::FlowWorkload::FlowTracedCallback")
            .AddTraceSource("Drained",
                            "Arrivals are over and every flow has completed or failed.",
                            MakeTraceSourceAccessor(&FlowWorkload::m_drained),
                            "ns3::TracedCallback::Void");
    return tid;
}

FlowWorkload::FlowWorkload()
    : m_gap(CreateObject<ExponentialRandomVariable>()),
      m_size(CreateObject<UniformRandomVariable>()),
      m_pick(CreateObject<UniformRandomVariable>())
{
    m_gap->SetAttribute("Mean", DoubleValue(1.0));
}

FlowWorkload::~FlowWorkload() = default;

void
FlowWorkload::DoDispose()
{
    for (EventId& e : m_next)
    {
        e.Cancel();
    }
    m_incastEvent.Cancel();
    m_scheduledEvent.Cancel();
    m_conns.clear();
    m_idle.clear();
    m_uetConn.clear();
    m_paths.reset();
    m_topo = nullptr;
    Object::DoDispose();
}

void
FlowWorkload::SetDistribution(const FlowSizeDistribution& d)
{
    m_dist = d;
}

const FlowSizeDistribution&
FlowWorkload::GetDistribution() const
{
    return m_dist;
}

void
FlowWorkload::Install(Ptr<FabricTopology> topo, std::vector<uint32_t> hosts)
{
    m_topo = topo;
    if (hosts.empty())
    {
        for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
        {
            hosts.push_back(h);
        }
    }
    m_uet = !hosts.empty() && hosts[0] < topo->GetNEndpoints() &&
            topo->GetHostNode(hosts[0])->GetObject<UetNic>() &&
            !topo->GetHostNode(hosts[0])->GetObject<RdmaNic>();
    for (uint32_t h : hosts)
    {
        NS_ABORT_MSG_IF(h >= topo->GetNEndpoints() ||
                            (m_uet ? !topo->GetHostNode(h)->GetObject<UetNic>()
                                   : !topo->GetHostNode(h)->GetObject<RdmaNic>()),
                        "FlowWorkload: host " << h << " has no " << (m_uet ? "UetNic" : "RdmaNic"));
    }
    m_uetWatched.assign(m_uet ? topo->GetNEndpoints() : 0, false);
    m_hosts = std::move(hosts);
    m_paths = std::make_unique<FabricPathTimer>(topo);
}

int64_t
FlowWorkload::AssignStreams(int64_t stream)
{
    m_gap->SetStream(stream);
    m_size->SetStream(stream + 1);
    m_pick->SetStream(stream + 2);
    return 3;
}

void
FlowWorkload::Start()
{
    NS_ABORT_MSG_IF(!m_topo, "FlowWorkload: Install() before Start()");
    NS_ABORT_MSG_IF(m_hosts.size() < 2, "FlowWorkload: needs at least two hosts");
    m_started = true;
    m_end = Simulator::Now() + m_duration;
    m_split = FabricPartitionScheduler::IsActive();
    if (m_split)
    {
        std::vector<Time> delays;
        for (const FabricLinkInfo& l : m_topo->GetLinks())
        {
            delays.push_back(DynamicCast<FabricChannel>(l.devA->GetChannel())->GetDelay());
        }
        m_messageDelay = FabricRankMailbox::GetMessageDelay(delays);
        m_rank = FabricRankMailbox::GetRank();
        m_handler = FabricRankMailbox::AddHandler(
            [this](const uint8_t* data, uint32_t size) { EndedMessage(data, size); });
    }
    const uint32_t n = static_cast<uint32_t>(m_hosts.size());
    if (m_pattern == PERMUTATION)
    {
        // A random derangement (Sattolo's shuffle: one cycle through every host, so nobody
        // is its own partner).
        m_partner.resize(n);
        for (uint32_t i = 0; i < n; ++i)
        {
            m_partner[i] = i;
        }
        for (uint32_t i = n - 1; i > 0; --i)
        {
            const uint32_t j = m_pick->GetInteger(0, i - 1);
            std::swap(m_partner[i], m_partner[j]);
        }
    }
    // The host's NIC rate (a multi-plane NIC: every port's), as the papers' load is defined.
    const double lineBps = double(m_topo->GetHostRate(m_hosts[0]));
    m_rate = m_dist.GetMean() > 0 ? m_load * lineBps / (8 * m_dist.GetMean()) : 0;
    m_next.assign(n, EventId());
    if (m_rate > 0)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            m_next[i] = ScheduleArrival(i);
        }
    }
    if (m_incastFanin > 0 && m_incastPeriod.IsStrictlyPositive())
    {
        NS_ABORT_MSG_IF(m_incastFanin >= n,
                        "FlowWorkload: IncastFanin must be below the number of hosts");
        m_incastEvent = Simulator::Schedule(m_incastPeriod, &FlowWorkload::Incast, this);
    }
    if (!m_scheduled.empty())
    {
        std::stable_sort(m_scheduled.begin(),
                         m_scheduled.end(),
                         [](const Scheduled& a, const Scheduled& b) { return a.at < b.at; });
        m_nextScheduled = 0;
        m_scheduledEvent =
            Simulator::Schedule(m_scheduled[0].at, &FlowWorkload::RunScheduled, this);
    }
    CheckDrained();
}

void
FlowWorkload::AddScheduledFlow(Time at, uint32_t src, uint32_t dst, uint64_t bytes)
{
    NS_ABORT_MSG_IF(m_started, "FlowWorkload: AddScheduledFlow() before Start()");
    NS_ABORT_MSG_IF(at.IsStrictlyNegative(), "FlowWorkload: a scheduled flow starts at >= 0");
    NS_ABORT_MSG_IF(src == dst || bytes == 0, "FlowWorkload: a flow needs two hosts and bytes");
    m_scheduled.push_back(Scheduled{at, src, dst, bytes});
}

void
FlowWorkload::RunScheduled()
{
    // Every flow due now (relative to Start(): the first event was scheduled from there).
    const Time due = m_scheduled[m_nextScheduled].at;
    while (m_nextScheduled < m_scheduled.size() && m_scheduled[m_nextScheduled].at == due)
    {
        const Scheduled& f = m_scheduled[m_nextScheduled++];
        StartFlow(f.src, f.dst, f.bytes, false);
    }
    m_scheduledEvent = m_nextScheduled < m_scheduled.size()
                           ? Simulator::Schedule(m_scheduled[m_nextScheduled].at - due,
                                                 &FlowWorkload::RunScheduled,
                                                 this)
                           : EventId();
}

const FabricPathTiming&
FlowWorkload::GetFlowPath(uint32_t flow) const
{
    NS_ABORT_MSG_IF(flow >= m_flows.size(), "FlowWorkload: no flow " << flow);
    return m_conns[m_flows[flow].connection].forward;
}

void
FlowWorkload::Arrival(uint32_t i)
{
    const uint32_t n = static_cast<uint32_t>(m_hosts.size());
    uint32_t j;
    if (m_pattern == PERMUTATION)
    {
        j = m_partner[i];
    }
    else
    {
        j = m_pick->GetInteger(0, n - 2);
        j += j >= i ? 1 : 0;
    }
    StartFlow(m_hosts[i], m_hosts[j], m_dist.Sample(m_size->GetValue()), false);
    m_next[i] = ScheduleArrival(i);
}

EventId
FlowWorkload::ScheduleArrival(uint32_t i)
{
    // The gap in seconds first: at a tiny rate it is beyond what a Time holds (converting it
    // would overflow), and such an arrival is after the end anyway.
    const double seconds = m_gap->GetValue() / m_rate;
    if (!(seconds <= (m_end - Simulator::Now()).GetSeconds() + 1))
    {
        return EventId();
    }
    const Time gap = Seconds(seconds);
    if (Simulator::Now() + gap < m_end)
    {
        return Simulator::Schedule(gap, &FlowWorkload::Arrival, this, i);
    }
    return EventId();
}

void
FlowWorkload::Incast()
{
    // A receiver and m_incastFanin distinct senders (a partial Fisher-Yates draw).
    const uint32_t n = static_cast<uint32_t>(m_hosts.size());
    std::vector<uint32_t> order(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        order[i] = i;
    }
    for (uint32_t k = 0; k <= m_incastFanin; ++k)
    {
        std::swap(order[k], order[m_pick->GetInteger(k, n - 1)]);
    }
    for (uint32_t k = 1; k <= m_incastFanin; ++k)
    {
        StartFlow(m_hosts[order[k]], m_hosts[order[0]], m_incastBytes, true);
    }
    if (Simulator::Now() + m_incastPeriod < m_end)
    {
        m_incastEvent = Simulator::Schedule(m_incastPeriod, &FlowWorkload::Incast, this);
    }
    else
    {
        m_incastEvent = EventId();
    }
}

uint32_t
FlowWorkload::Acquire(uint32_t src, uint32_t dst)
{
    auto& idle = m_idle[(uint64_t(src) << 32) | dst];
    if (!idle.empty())
    {
        const uint32_t c = idle.back();
        idle.pop_back();
        if (m_uet)
        {
            m_topo->GetHostNode(src)->GetObject<UetNic>()->RestartCongestionControl(m_conns[c].pdc);
        }
        else
        {
            m_conns[c].requester->GetNic()->RestartCongestionControl(m_conns[c].requester);
        }
        return c;
    }
    if (m_uet)
    {
        const uint32_t index = static_cast<uint32_t>(m_conns.size());
        m_conns.push_back(ConnectUet(src, dst, index));
        return index;
    }
    Ptr<RdmaNic> a = m_topo->GetHostNode(src)->GetObject<RdmaNic>();
    Ptr<RdmaNic> b = m_topo->GetHostNode(dst)->GetObject<RdmaNic>();
    Connection c;
    c.src = src;
    c.dst = dst;
    c.requester = a->CreateQueuePair(m_topo->GetHostAddress(dst), m_dscp);
    c.responder = b->CreateQueuePair(m_topo->GetHostAddress(src), m_dscp);
    RdmaNic::Connect(c.requester, c.responder);
    // The paths the connection's frames take (its UDP source port picks the ECMP path).
    FabricFrame f;
    f.src = m_topo->GetHostAddress(src).Get();
    f.dst = m_topo->GetHostAddress(dst).Get();
    f.srcPort = c.requester->GetUdpSourcePort();
    f.dstPort = 4791;
    f.ComputeFlowHash();
    // Both directions in the requester's plane: the responder answers on the port the data
    // came in on.
    const uint32_t plane = c.requester->GetPort();
    c.forward = m_paths->Path(src, f, plane);
    f.src = m_topo->GetHostAddress(dst).Get();
    f.dst = m_topo->GetHostAddress(src).Get();
    f.srcPort = c.responder->GetUdpSourcePort();
    f.ComputeFlowHash();
    c.backward = m_paths->Path(dst, f, plane);
    NS_ABORT_MSG_IF(c.forward.hops.empty() || c.backward.hops.empty(),
                    "FlowWorkload: no path between hosts " << src << " and " << dst);
    // The unloaded RTT of a full packet and its ACK, NIC to NIC (what an RTT sample measures).
    const bool telemetry = c.requester->GetCongestionOps()->WantsTelemetry();
    const uint32_t full = a->GetDataWireBytes(a->GetPathMtu(), false, telemetry);
    const uint32_t ack = b->GetAckWireBytes(telemetry);
    c.requester->SetBaseRtt(c.forward.TrainDelay(full, full, full) +
                            c.backward.TrainDelay(ack, ack, ack));
    a->RestartCongestionControl(c.requester); // Init sees the base RTT
    const uint32_t index = static_cast<uint32_t>(m_conns.size());
    c.requester->SetCompletionCallback(MakeCallback(&FlowWorkload::Completed, this).Bind(index));
    m_conns.push_back(std::move(c));
    return index;
}

FlowWorkload::Connection
FlowWorkload::ConnectUet(uint32_t src, uint32_t dst, uint32_t index)
{
    Ptr<UetNic> a = m_topo->GetHostNode(src)->GetObject<UetNic>();
    if (!m_uetWatched[src])
    {
        m_uetWatched[src] = true;
        a->TraceConnectWithoutContext("PdcFailed",
                                      MakeCallback(&FlowWorkload::UetPdcFailed, this).Bind(src));
    }
    Connection c;
    c.src = src;
    c.dst = dst;
    c.pdc = a->CreatePdc(m_topo->GetHostAddress(dst), index);
    c.pdc->SetCompletionCallback(MakeCallback(&FlowWorkload::UetCompleted, this).Bind(index));
    m_uetConn[(uint64_t(src) << 32) | c.pdc->GetId()] = index;
    // The path of an entropy value (every equal-cost path of a fat-tree has the same timing);
    // the target answers on the same kind of path.
    FabricFrame f;
    f.src = m_topo->GetHostAddress(src).Get();
    f.dst = m_topo->GetHostAddress(dst).Get();
    f.srcPort = 0;
    f.dstPort = 4793;
    f.ComputeFlowHash();
    c.forward = m_paths->Path(src, f, 0);
    std::swap(f.src, f.dst);
    f.ComputeFlowHash();
    c.backward = m_paths->Path(dst, f, 0);
    NS_ABORT_MSG_IF(c.forward.hops.empty() || c.backward.hops.empty(),
                    "FlowWorkload: no path between hosts " << src << " and " << dst);
    return c;
}

Time
FlowWorkload::Ideal(const Connection& c, uint64_t bytes) const
{
    if (c.pdc)
    {
        // Every UET data packet carries the same headers; the last one asks for an ACK at once.
        Ptr<UetNic> a = m_topo->GetHostNode(c.src)->GetObject<UetNic>();
        Ptr<UetNic> b = m_topo->GetHostNode(c.dst)->GetObject<UetNic>();
        const uint32_t mtu = a->GetMtu();
        const uint64_t packets = std::max<uint64_t>(1, (bytes + mtu - 1) / mtu);
        const uint32_t lastPayload = static_cast<uint32_t>(bytes - (packets - 1) * mtu);
        const uint32_t full = a->GetDataWireBytes(mtu);
        const uint32_t last = a->GetDataWireBytes(lastPayload);
        const uint32_t first = packets == 1 ? last : full;
        const uint64_t train = (packets - 1) * uint64_t(full) + last;
        const uint32_t ack = b->GetAckWireBytes();
        return a->GetPostLatency() + c.forward.TrainDelay(train, first, last) +
               c.backward.TrainDelay(ack, ack, ack);
    }
    Ptr<RdmaNic> a = c.requester->GetNic();
    Ptr<RdmaNic> b = c.responder->GetNic();
    const bool telemetry = c.requester->GetCongestionOps()->WantsTelemetry();
    const uint32_t mtu = a->GetPathMtu();
    const uint64_t packets = std::max<uint64_t>(1, (bytes + mtu - 1) / mtu);
    const uint32_t lastPayload = static_cast<uint32_t>(bytes - (packets - 1) * mtu);
    // The first packet carries the RETH; the middle ones are full; the last holds the rest.
    const uint32_t first = a->GetDataWireBytes(packets == 1 ? lastPayload : mtu, true, telemetry);
    uint64_t train = first;
    uint32_t last = first;
    if (packets > 1)
    {
        last = a->GetDataWireBytes(lastPayload, false, telemetry);
        train += (packets - 2) * uint64_t(a->GetDataWireBytes(mtu, false, telemetry)) + last;
    }
    const uint32_t ack = b->GetAckWireBytes(telemetry);
    return a->GetRequesterDelay(bytes) + c.forward.TrainDelay(train, first, last) +
           c.backward.TrainDelay(ack, ack, ack);
}

uint32_t
FlowWorkload::StartFlow(uint32_t src, uint32_t dst, uint64_t bytes, bool incast)
{
    NS_ABORT_MSG_IF(!m_topo, "FlowWorkload: Install() before StartFlow()");
    NS_ABORT_MSG_IF(src == dst || bytes == 0, "FlowWorkload: a flow needs two hosts and bytes");
    const uint32_t c = Acquire(src, dst);
    FlowRecord r;
    r.src = src;
    r.dst = dst;
    r.bytes = bytes;
    r.start = Simulator::Now();
    r.ideal = Ideal(m_conns[c], bytes);
    r.incast = incast;
    r.connection = c;
    const uint32_t index = static_cast<uint32_t>(m_flows.size());
    m_conns[c].flow = index;
    m_flows.push_back(r);
    if (!m_split)
    {
        Post(c);
    }
    else if (m_topo->GetHostNode(src)->GetSystemId() == m_rank)
    {
        // Only the sender's rank runs its host, and the host's events run in its context.
        Simulator::ScheduleWithContext(m_topo->GetHostNode(src)->GetId(),
                                       Time(0),
                                       &FlowWorkload::Post,
                                       this,
                                       c);
    }
    return index;
}

void
FlowWorkload::Post(uint32_t connection)
{
    const Connection& conn = m_conns[connection];
    const uint64_t bytes = m_flows[conn.flow].bytes;
    if (conn.pdc)
    {
        conn.pdc->Send(bytes);
    }
    else
    {
        conn.requester->PostWrite(bytes);
    }
}

void
FlowWorkload::Completed(uint32_t connection, const RdmaCompletion& c)
{
    Ended(connection, c.completed, c.status == RdmaCompletion::SUCCESS);
}

void
FlowWorkload::UetCompleted(uint32_t connection, uint64_t /* msgId */, uint64_t /* bytes */)
{
    Ended(connection, Simulator::Now(), true);
}

void
FlowWorkload::Ended(uint32_t connection, Time end, bool success)
{
    if (!m_split)
    {
        Finish(connection, end, success);
        return;
    }
    uint8_t msg[13];
    const int64_t step = end.GetTimeStep();
    const uint8_t ok = success ? 1 : 0;
    std::memcpy(msg, &connection, 4);
    std::memcpy(msg + 4, &step, 8);
    std::memcpy(msg + 12, &ok, 1);
    FabricRankMailbox::Broadcast(m_handler, msg, sizeof(msg), m_messageDelay);
}

void
FlowWorkload::EndedMessage(const uint8_t* data, uint32_t size)
{
    NS_ABORT_MSG_IF(size != 13, "FlowWorkload: a message of " << size << " bytes, not 13");
    uint32_t connection = 0;
    int64_t step = 0;
    uint8_t ok = 0;
    std::memcpy(&connection, data, 4);
    std::memcpy(&step, data + 4, 8);
    std::memcpy(&ok, data + 12, 1);
    NS_ABORT_MSG_IF(connection >= m_conns.size(),
                    "FlowWorkload: a message of connection " << connection << " of "
                                                             << m_conns.size());
    const FlowRecord& r = m_flows[m_conns[connection].flow];
    if (!r.completed && !r.failed) // a UET PDC can fail after its flow completed
    {
        Finish(connection, TimeStep(step), ok != 0);
    }
}

void
FlowWorkload::UetPdcFailed(uint32_t srcHost, uint32_t pdc)
{
    auto it = m_uetConn.find((uint64_t(srcHost) << 32) | pdc);
    if (it != m_uetConn.end() && !m_flows[m_conns[it->second].flow].completed &&
        !m_flows[m_conns[it->second].flow].failed)
    {
        Ended(it->second, Simulator::Now(), false);
    }
}

void
FlowWorkload::Finish(uint32_t connection, Time end, bool success)
{
    Connection& conn = m_conns[connection];
    FlowRecord& r = m_flows[conn.flow];
    r.end = end;
    if (success)
    {
        r.completed = true;
        ++m_completed;
        m_idle[(uint64_t(conn.src) << 32) | conn.dst].push_back(connection);
    }
    else
    {
        r.failed = true;
        ++m_failed;
    }
    m_flowCompleted(r);
    CheckDrained();
}

void
FlowWorkload::CheckDrained()
{
    if (IsDrained())
    {
        m_drained();
    }
}

bool
FlowWorkload::IsDrained() const
{
    if (!m_started || m_completed + m_failed < m_flows.size())
    {
        return false;
    }
    // IsExpired: in every ns-3 from 3.37 on (IsRunning is gone from 3.46, IsPending new in 3.42).
    for (const EventId& e : m_next)
    {
        if (!e.IsExpired())
        {
            return false;
        }
    }
    return m_incastEvent.IsExpired() && m_scheduledEvent.IsExpired();
}

const std::vector<FlowRecord>&
FlowWorkload::GetFlows() const
{
    return m_flows;
}

uint64_t
FlowWorkload::GetNCompleted() const
{
    return m_completed;
}

uint64_t
FlowWorkload::GetNFailed() const
{
    return m_failed;
}

uint64_t
FlowWorkload::GetNQueuePairs() const
{
    return 2 * m_conns.size();
}

double
FlowWorkload::GetArrivalRate() const
{
    return m_rate;
}

std::vector<FlowSlowdownBucket>
FlowWorkload::SlowdownBySize(const std::vector<FlowRecord>& flows,
                             const std::vector<uint64_t>& edges,
                             bool withIncast)
{
    std::vector<std::vector<double>> v(edges.size() + 1);
    for (const FlowRecord& r : flows)
    {
        if (!r.completed || (r.incast && !withIncast))
        {
            continue;
        }
        const size_t b = std::lower_bound(edges.begin(), edges.end(), r.bytes) - edges.begin();
        v[b].push_back(r.Slowdown());
    }
    std::vector<FlowSlowdownBucket> out(v.size());
    for (size_t b = 0; b < v.size(); ++b)
    {
        out[b].maxBytes = b < edges.size() ? edges[b] : UINT64_MAX;
        out[b].count = v[b].size();
        if (v[b].empty())
        {
            continue;
        }
        std::sort(v[b].begin(), v[b].end());
        auto rank = [&](double q) {
            const size_t k = static_cast<size_t>(std::ceil(q * v[b].size()));
            return v[b][std::max<size_t>(k, 1) - 1];
        };
        out[b].p50 = rank(0.50);
        out[b].p95 = rank(0.95);
        out[b].p99 = rank(0.99);
    }
    return out;
}

} // namespace ns3

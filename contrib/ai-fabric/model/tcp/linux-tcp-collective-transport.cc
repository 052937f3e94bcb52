// SPDX-License-Identifier: GPL-2.0-only
// One file of 680 lines: the path of a message through NCCL's socket transport (post, copy to
// the host, write, read, copy to the GPU, breakdown) reads in order; the split across MPI ranks
// is apart (linux-tcp-collective-transport-split.cc).
#include "linux-tcp-collective-transport.h"

#include "ns3/abort.h"
#include "ns3/fabric-rank-mailbox.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LinuxTcpCollectiveTransport");
NS_OBJECT_ENSURE_REGISTERED(LinuxTcpCollectiveTransport);

namespace
{
/// A connection's key in m_index.
uint64_t
ConnectionKey(uint32_t src, uint32_t dst, uint32_t channel)
{
    return (uint64_t(channel) << 48) | (uint64_t(src) << 24) | dst;
}

} // namespace

TypeId
LinuxTcpCollectiveTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LinuxTcpCollectiveTransport")
            .SetParent<CollectiveTransport>()
            .SetGroupName("AiFabric")
            .AddConstructor<LinuxTcpCollectiveTransport>()
            .AddAttribute("SocketsPerThread",
                          "Sockets per helper thread (NCCL_NSOCKS_PERTHREAD; NCCL's default 1 "
                          "outside AWS and GCP).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&LinuxTcpCollectiveTransport::m_socketsPerThread),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("Threads",
                          "Helper threads per connection (NCCL_SOCKET_NTHREADS; default 1).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&LinuxTcpCollectiveTransport::m_threads),
                          MakeUintegerChecker<uint32_t>(1, 16))
            .AddAttribute("MinTaskBytes",
                          "Smallest task a request is split into (net_socket.cc MIN_CHUNKSIZE "
                          "64 KiB).",
                          UintegerValue(65536),
                          MakeUintegerAccessor(&LinuxTcpCollectiveTransport::m_minTask),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("StagingBytes",
                          "With a host cost model: GPU -> host copies are pipelined in pieces of "
                          "this size (NCCL stages 4 MiB buffers in 8 slices).",
                          UintegerValue(512 * 1024),
                          MakeUintegerAccessor(&LinuxTcpCollectiveTransport::m_staging),
                          MakeUintegerChecker<uint32_t>(1024))
            .AddAttribute("Port",
                          "TCP port of the receiving sockets.",
                          UintegerValue(5001),
                          MakeUintegerAccessor(&LinuxTcpCollectiveTransport::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddTraceSource("MessageBreakdown",
                            "A message arrived: where its time went.",
                            MakeTraceSourceAccessor(&LinuxTcpCollectiveTransport::m_breakdownTrace),
                            "ns3::LinuxTcpCollectiveTransport::BreakdownTracedCallback")
            .AddTraceSource("LossProbe",
                            "A rank's stack sent a tail loss probe: the sending rank and the "
                            "probed rank (-1 when the socket is not one of this transport's). "
                            "The training jobs count these for their step records.",
                            MakeTraceSourceAccessor(&LinuxTcpCollectiveTransport::m_lossProbeTrace),
                            "ns3::LinuxTcpCollectiveTransport::LossProbeTracedCallback");
    return tid;
}

LinuxTcpCollectiveTransport::LinuxTcpCollectiveTransport() = default;
LinuxTcpCollectiveTransport::~LinuxTcpCollectiveTransport() = default;

void
LinuxTcpCollectiveTransport::DoDispose()
{
    m_stacks.clear();
    m_costs.clear();
    m_socks.clear();
    m_msgs.clear();
    m_nodes = NodeContainer();
    CollectiveTransport::DoDispose();
}

std::string
LinuxTcpCollectiveTransport::GetName() const
{
    return "tcp";
}

bool
LinuxTcpCollectiveTransport::ModelsHostSoftware() const
{
    return true;
}

void
LinuxTcpCollectiveTransport::SetRanks(NodeContainer nodes)
{
    m_nodes = nodes;
    m_senderSock.assign(nodes.GetN(), {});
    for (uint32_t r = 0; r < nodes.GetN(); ++r)
    {
        Ptr<LinuxTcpStack> s = nodes.Get(r)->GetObject<LinuxTcpStack>();
        NS_ABORT_MSG_IF(!s, "LinuxTcpCollectiveTransport: rank " << r << " has no LinuxTcpStack");
        m_stacks.push_back(s);
        Ptr<HostStackCostModel> c = nodes.Get(r)->GetObject<HostStackCostModel>();
        m_costs.push_back(c ? PeekPointer(c) : nullptr);
        s->TraceConnectWithoutContext(
            "Timeout",
            MakeCallback(&LinuxTcpCollectiveTransport::TimedOut, this).Bind(r));
        s->TraceConnectWithoutContext(
            "LossProbe",
            MakeCallback(&LinuxTcpCollectiveTransport::Probed, this).Bind(r));
    }
}

HostStackCostModel*
LinuxTcpCollectiveTransport::Cost(uint32_t rank) const
{
    return m_costs[rank];
}

uint32_t
LinuxTcpCollectiveTransport::Open(uint32_t src, uint32_t dst, uint32_t channel)
{
    const uint64_t key = ConnectionKey(src, dst, channel);
    auto it = m_index.find(key);
    if (it != m_index.end())
    {
        return it->second;
    }
    const uint32_t c = static_cast<uint32_t>(m_conns.size());
    Conn conn;
    conn.firstSock = static_cast<uint32_t>(m_socks.size());
    conn.nSocks = m_socketsPerThread * m_threads;
    const uint32_t firstThread = static_cast<uint32_t>(m_txThreads.size());
    m_txThreads.resize(firstThread + m_threads);
    m_rxThreads.resize(firstThread + m_threads);
    for (uint32_t k = 0; k < conn.nSocks; ++k)
    {
        const uint32_t idx = static_cast<uint32_t>(m_socks.size());
        Sock s;
        s.src = src;
        s.dst = dst;
        s.thread = firstThread + k % m_threads;
        s.conn = m_stacks[src]->Connect(m_stacks[dst], m_port, this, idx);
        m_senderSock[src][s.conn.sender] = idx;
        m_txThreads[s.thread].socks.push_back(idx);
        m_rxThreads[s.thread].socks.push_back(idx);
        m_socks.push_back(std::move(s));
    }
    m_conns.push_back(conn);
    m_index.emplace(key, c);
    return c;
}

LinuxTcpCollectiveTransport::Msg&
LinuxTcpCollectiveTransport::GetMsg(uint64_t id)
{
    return m_msgs[static_cast<size_t>(id - m_msgBase)];
}

void
LinuxTcpCollectiveTransport::Send(uint32_t src,
                                  uint32_t dst,
                                  uint64_t bytes,
                                  CollectiveTransportListener* listener,
                                  uint64_t token,
                                  uint32_t channel)
{
    Announcement a{src, dst, 0, 0, token, bytes, 0, Simulator::Now().GetTimeStep()};
    if (!m_partitioned)
    {
        a.conn = Open(src, dst, channel);
        Post(a, listener);
        return;
    }
    const auto it = m_index.find(ConnectionKey(src, dst, channel));
    NS_ABORT_MSG_IF(it == m_index.end(),
                    "LinuxTcpCollectiveTransport: connection " << src << " -> " << dst
                                                               << " channel " << channel
                                                               << " was not prepared (Prepare)");
    a.conn = it->second;
    a.listener = GetListenerIndex(listener);
    const uint32_t node = m_nodes.Get(src)->GetId();
    if (Simulator::GetContext() == node)
    {
        Post(a, listener);
        return;
    }
    // The sender's work in its node's context (the caller may run outside any node's): its
    // events and frames then carry its node's keys, alike on every partition.
    Simulator::ScheduleWithContext(node,
                                   Time(0),
                                   &LinuxTcpCollectiveTransport::Post,
                                   this,
                                   a,
                                   listener);
}

void
LinuxTcpCollectiveTransport::Post(const Announcement& a, CollectiveTransportListener* listener)
{
    Conn& conn = m_conns[a.conn];
    const uint64_t id = m_msgBase + m_msgs.size();
    const uint64_t bytes = a.bytes;
    m_msgs.emplace_back();
    Msg& m = m_msgs.back();
    m.listener = listener;
    m.token = a.token;
    m.bytes = bytes;
    m.src = a.src;
    m.dst = a.dst;
    m.conn = a.conn;
    m.posted = TimeStep(a.posted);
    if (m_partitioned)
    {
        // The receiver's rank queues its tasks and tells its listener.
        Announcement b = a;
        b.id = id;
        FabricRankMailbox::Broadcast(m_handler,
                                     &b,
                                     sizeof(b),
                                     m_messageDelay,
                                     m_nodes.Get(a.src)->GetId());
        m.listener = nullptr;
        if (bytes == 0)
        {
            m.done = true;
            Prune();
            return;
        }
    }
    if (bytes == 0)
    {
        m.tasksLeft = 1;
        Simulator::ScheduleNow(&LinuxTcpCollectiveTransport::TaskInGpu, this, id);
        return;
    }
    // ncclNetSocketIsend: tasks of max(MIN_CHUNKSIZE, size / nSocks), sockets round robin.
    const uint64_t task = std::max<uint64_t>(m_minTask, (bytes + conn.nSocks - 1) / conn.nSocks);
    for (uint64_t off = 0; off < bytes; off += task)
    {
        Task t{id, off, std::min(task, bytes - off)};
        Sock& s = m_socks[conn.firstSock + conn.nextSock];
        conn.nextSock = (conn.nextSock + 1) % conn.nSocks;
        s.tx.push_back(t);
        if (m_partitioned)
        {
            ++m.tasksUnwritten;
        }
        else
        {
            s.rx.push_back(t);
            ++m.tasksLeft;
        }
    }
    const uint32_t src = a.src;
    if (HostStackCostModel* cost = Cost(src))
    {
        for (uint64_t off = 0; off < bytes; off += m_staging)
        {
            const uint64_t piece = std::min<uint64_t>(m_staging, bytes - off);
            const Time done = cost->PcieCopy(piece, true);
            Simulator::Schedule(done - Simulator::Now(),
                                &LinuxTcpCollectiveTransport::CopiedToHost,
                                this,
                                id,
                                piece);
        }
        return;
    }
    CopiedToHost(id, bytes);
}

void
LinuxTcpCollectiveTransport::CopiedToHost(uint64_t id, uint64_t bytes)
{
    Msg& m = GetMsg(id);
    m.copied += bytes;
    if (m.copied >= m.bytes)
    {
        m.copiedToHost = Simulator::Now();
    }
    const Conn& conn = m_conns[m.conn];
    for (uint32_t k = 0; k < std::min(conn.nSocks, m_threads); ++k)
    {
        Write(m_socks[conn.firstSock + k].thread);
    }
}

void
LinuxTcpCollectiveTransport::Write(uint32_t thread)
{
    Thread& th = m_txThreads[thread];
    if (th.busy || th.socks.empty())
    {
        return;
    }
    const uint32_t src = m_socks[th.socks[0]].src;
    HostStackCostModel* cost = Cost(src);
    const size_t n = th.socks.size();
    bool progress = true;
    while (progress)
    {
        progress = false;
        for (size_t i = 0; i < n; ++i)
        {
            const uint32_t si = th.socks[(th.rr + i) % n];
            Sock& s = m_socks[si];
            if (s.tx.empty())
            {
                continue;
            }
            Task& t = s.tx.front();
            const Msg& m = GetMsg(t.msg);
            const uint64_t from = t.offset + t.done;
            const uint64_t to = std::min(t.offset + t.bytes, m.copied);
            if (to <= from)
            {
                continue;
            }
            uint64_t len =
                std::min(to - from, m_stacks[src]->GetSender(s.conn.sender).GetSendSpace());
            if (cost)
            {
                len = std::min<uint64_t>(len, cost->GetSendChunk());
            }
            if (len == 0)
            {
                continue;
            }
            th.rr = static_cast<uint32_t>((th.rr + i + 1) % n);
            if (cost)
            {
                // One send call at a time per helper thread.
                th.busy = true;
                const Time end = cost->RunOnCore(cost->SendCallCost(len), Simulator::Now());
                Simulator::Schedule(end - Simulator::Now(),
                                    &LinuxTcpCollectiveTransport::Written,
                                    this,
                                    thread,
                                    si,
                                    len);
                return;
            }
            Written(thread, si, len);
            progress = true;
            break;
        }
    }
}

void
LinuxTcpCollectiveTransport::Written(uint32_t thread, uint32_t si, uint64_t bytes)
{
    Sock& s = m_socks[si];
    const uint64_t sent = m_stacks[s.src]->Send(s.conn.sender, bytes);
    NS_ABORT_MSG_IF(sent != bytes, "LinuxTcpCollectiveTransport: a reserved write was refused");
    Task& t = s.tx.front();
    t.done += bytes;
    if (t.done == t.bytes)
    {
        const uint64_t id = t.msg;
        s.tx.pop_front();
        Msg& m = GetMsg(id);
        m.written = Simulator::Now();
        if (m_partitioned && --m.tasksUnwritten == 0)
        {
            // All written: the receiver's rank learns the sender's times for its breakdown.
            const WrittenTimes w{id,
                                 m.src,
                                 m.dst,
                                 m.copiedToHost.GetTimeStep(),
                                 m.written.GetTimeStep()};
            FabricRankMailbox::Broadcast(m_writtenHandler,
                                         &w,
                                         sizeof(w),
                                         m_messageDelay,
                                         m_nodes.Get(m.src)->GetId());
            m.done = true;
            Prune();
        }
    }
    Thread& th = m_txThreads[thread];
    if (th.busy)
    {
        th.busy = false;
        Write(thread);
    }
}

void
LinuxTcpCollectiveTransport::SendSpace(uint64_t sock)
{
    Write(m_socks[sock].thread);
}

void
LinuxTcpCollectiveTransport::Readable(uint64_t sock)
{
    Sock& s = m_socks[sock];
    if (!s.rx.empty())
    {
        GetMsg(s.rx.front().msg).readable = Simulator::Now();
    }
    ReadSome(s.thread);
}

void
LinuxTcpCollectiveTransport::ReadSome(uint32_t thread)
{
    Thread& th = m_rxThreads[thread];
    if (th.busy || th.socks.empty())
    {
        return;
    }
    const uint32_t dst = m_socks[th.socks[0]].dst;
    HostStackCostModel* cost = Cost(dst);
    const size_t n = th.socks.size();
    bool progress = true;
    while (progress)
    {
        progress = false;
        for (size_t i = 0; i < n; ++i)
        {
            const uint32_t si = th.socks[(th.rr + i) % n];
            Sock& s = m_socks[si];
            if (s.rx.empty())
            {
                continue;
            }
            const Task& t = s.rx.front();
            const uint64_t len =
                std::min(t.bytes - t.done,
                         m_stacks[dst]->GetReceiver(s.conn.receiver).GetReadable());
            if (len == 0)
            {
                continue;
            }
            th.rr = static_cast<uint32_t>((th.rr + i + 1) % n);
            if (cost)
            {
                th.busy = true;
                const Time end = cost->RunOnCore(cost->RecvCallCost(len), Simulator::Now());
                Simulator::Schedule(end - Simulator::Now(),
                                    &LinuxTcpCollectiveTransport::ReadDone,
                                    this,
                                    thread,
                                    si,
                                    len);
                return;
            }
            ReadDone(thread, si, len);
            progress = true;
            break;
        }
    }
}

void
LinuxTcpCollectiveTransport::ReadDone(uint32_t thread, uint32_t si, uint64_t bytes)
{
    Sock& s = m_socks[si];
    const uint64_t got = m_stacks[s.dst]->Read(s.conn.receiver, bytes);
    NS_ABORT_MSG_IF(got != bytes, "LinuxTcpCollectiveTransport: a read found less data");
    Task& t = s.rx.front();
    t.done += bytes;
    if (t.done == t.bytes)
    {
        const Task done = t;
        s.rx.pop_front();
        TaskRead(si, done);
    }
    Thread& th = m_rxThreads[thread];
    if (th.busy)
    {
        th.busy = false;
        ReadSome(thread);
    }
}

void
LinuxTcpCollectiveTransport::TaskRead(uint32_t si, const Task& t)
{
    Msg& m = GetMsg(t.msg);
    m.read = Simulator::Now();
    if (HostStackCostModel* cost = Cost(m_socks[si].dst))
    {
        const Time done = cost->PcieCopy(t.bytes, false);
        Simulator::Schedule(done - Simulator::Now(),
                            &LinuxTcpCollectiveTransport::TaskInGpu,
                            this,
                            t.msg);
        return;
    }
    TaskInGpu(t.msg);
}

void
LinuxTcpCollectiveTransport::TaskInGpu(uint64_t id)
{
    Msg& m = GetMsg(id);
    if (--m.tasksLeft > 0)
    {
        return;
    }
    m.arrived = Simulator::Now();
    m.inGpu = true;
    CollectiveTransportListener* l = m.listener;
    const uint64_t token = m.token;
    const uint32_t src = m.src;
    const uint32_t dst = m.dst;
    const uint64_t bytes = m.bytes;
    const Time posted = m.posted;
    // Split, the sender's times may come later (then so does the breakdown, unchanged).
    if (m.senderTimes)
    {
        Account(m);
    }
    NotifyMessageLatency(src, dst, bytes, posted);
    if (l)
    {
        l->MessageArrived(token);
    }
}

void
LinuxTcpCollectiveTransport::Account(Msg& m)
{
    const Time now = m.arrived;
    const Time zero(0);
    const Time copied = m.bytes == 0 ? m.posted : m.copiedToHost;
    const Time written = std::max(m.written, copied);
    const Time readable = std::max(m.readable, written);
    const Time read = std::max(m.read, readable);
    HostStackBreakdown b;
    b.src = m.src;
    b.dst = m.dst;
    b.bytes = m.bytes;
    b.pcieTx = copied - m.posted;
    b.cpuTx = written - copied;
    b.network = readable - written;
    b.cpuRx = read - readable;
    b.pcieRx = std::max(now - read, zero);
    m_totals.bytes += b.bytes;
    m_totals.pcieTx += b.pcieTx;
    m_totals.cpuTx += b.cpuTx;
    m_totals.network += b.network;
    m_totals.cpuRx += b.cpuRx;
    m_totals.pcieRx += b.pcieRx;
    ++m_arrived;
    m_breakdownTrace(b);
    m.done = true;
    Prune();
}

void
LinuxTcpCollectiveTransport::Prune()
{
    while (!m_msgs.empty() && m_msgs.front().done)
    {
        m_msgs.pop_front();
        ++m_msgBase;
    }
}

void
LinuxTcpCollectiveTransport::TimedOut(uint32_t rank, uint32_t sender)
{
    auto it = m_senderSock[rank].find(sender);
    if (it != m_senderSock[rank].end())
    {
        m_lastTimeoutReceiver = static_cast<int32_t>(m_socks[it->second].dst);
        m_lastTimeoutAt = Simulator::Now();
    }
}

void
LinuxTcpCollectiveTransport::Probed(uint32_t rank, uint32_t sender)
{
    ++m_probes;
    int32_t receiver = -1;
    auto it = m_senderSock[rank].find(sender);
    if (it != m_senderSock[rank].end())
    {
        receiver = static_cast<int32_t>(m_socks[it->second].dst);
        m_lastProbeReceiver = receiver;
    }
    m_lossProbeTrace(rank, receiver);
}

uint64_t
LinuxTcpCollectiveTransport::GetLossProbes() const
{
    return m_probes;
}

int32_t
LinuxTcpCollectiveTransport::GetLastLossProbeReceiver() const
{
    return m_lastProbeReceiver;
}

LinuxTcpStackCounters
LinuxTcpCollectiveTransport::GetCounters() const
{
    LinuxTcpStackCounters t;
    for (const auto& s : m_stacks)
    {
        const LinuxTcpStackCounters c = s->GetCounters();
        t.segmentsSent += c.segmentsSent;
        t.retransmits += c.retransmits;
        t.timeouts += c.timeouts;
        t.tlpProbes += c.tlpProbes;
        t.tlpRecoveries += c.tlpRecoveries;
        t.rackLosses += c.rackLosses;
        t.lostRetransmits += c.lostRetransmits;
        t.fastRetransmits += c.fastRetransmits;
        t.spuriousRetransmits += c.spuriousRetransmits;
        t.dsacksReceived += c.dsacksReceived;
        t.ecnReductions += c.ecnReductions;
        t.acksSent += c.acksSent;
        t.groUnits += c.groUnits;
        t.rxFrames += c.rxFrames;
        t.interrupts += c.interrupts;
    }
    return t;
}

uint64_t
LinuxTcpCollectiveTransport::GetRetransmissions() const
{
    return GetCounters().retransmits;
}

uint64_t
LinuxTcpCollectiveTransport::GetTimeouts() const
{
    return GetCounters().timeouts;
}

Time
LinuxTcpCollectiveTransport::GetLastTimeoutTime() const
{
    return m_lastTimeoutAt;
}

int32_t
LinuxTcpCollectiveTransport::GetLastTimeoutReceiver() const
{
    return m_lastTimeoutReceiver;
}

const HostStackBreakdown&
LinuxTcpCollectiveTransport::GetBreakdownTotals() const
{
    return m_totals;
}

uint64_t
LinuxTcpCollectiveTransport::GetMessagesArrived() const
{
    return m_arrived;
}

uint32_t
LinuxTcpCollectiveTransport::GetNSockets() const
{
    return static_cast<uint32_t>(m_socks.size());
}

} // namespace ns3

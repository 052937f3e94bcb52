// SPDX-License-Identifier: GPL-2.0-only
// LinuxTcpCollectiveTransport split across MPI ranks (SetPartitioned): the connections prepared
// in one order, a message's announcement queued at its receiver's rank, what arrived before it
// read, and the sender's times for the breakdown. Posting, writing, reading and the breakdown
// itself are in linux-tcp-collective-transport.cc.
#include "linux-tcp-collective-transport.h"

#include "ns3/abort.h"
#include "ns3/fabric-rank-mailbox.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstring>

namespace ns3
{

namespace
{
/// A sender's message at its receiver's rank, split: (sending rank, the sender's id).
uint64_t
RemoteKey(uint32_t src, uint64_t id)
{
    return (uint64_t(src) << 40) ^ id;
}
} // namespace

void
LinuxTcpCollectiveTransport::SetPartitioned(Time messageDelay)
{
    NS_ABORT_MSG_IF(!m_conns.empty(),
                    "LinuxTcpCollectiveTransport: SetPartitioned before any connection");
    m_handler = SetPartitionedBase(messageDelay, [this](const uint8_t* data, uint32_t size) {
        Announced(data, size);
    });
    m_writtenHandler = FabricRankMailbox::AddHandler(
        [this](const uint8_t* data, uint32_t size) { SenderTimes(data, size); });
}

bool
LinuxTcpCollectiveTransport::CanPartition() const
{
    return true;
}

bool
LinuxTcpCollectiveTransport::IsLocal(uint32_t rank) const
{
    return !m_partitioned || m_nodes.Get(rank)->GetSystemId() == m_mpiRank;
}

uint32_t
LinuxTcpCollectiveTransport::GetNodeId(uint32_t rank) const
{
    return m_nodes.Get(rank)->GetId();
}

void
LinuxTcpCollectiveTransport::Prepare(uint32_t src, uint32_t dst, uint32_t channel)
{
    Open(src, dst, channel);
}

void
LinuxTcpCollectiveTransport::Announced(const uint8_t* data, uint32_t size)
{
    NS_ABORT_MSG_IF(size != sizeof(Announcement), "LinuxTcpCollectiveTransport: bad announcement");
    Announcement a;
    std::memcpy(&a, data, sizeof(a));
    if (!IsLocal(a.dst))
    {
        return; // another rank's message
    }
    Conn& conn = m_conns[a.conn];
    const uint64_t id = m_msgBase + m_msgs.size();
    m_msgs.emplace_back();
    Msg& m = m_msgs.back();
    m.listener = GetListener(a.listener);
    m.token = a.token;
    m.bytes = a.bytes;
    m.src = a.src;
    m.dst = a.dst;
    m.conn = a.conn;
    m.posted = TimeStep(a.posted);
    const uint32_t node = m_nodes.Get(a.dst)->GetId();
    if (a.bytes == 0)
    {
        m.tasksLeft = 1;
        Simulator::ScheduleWithContext(node,
                                       Time(0),
                                       &LinuxTcpCollectiveTransport::TaskInGpu,
                                       this,
                                       id);
        return;
    }
    m.senderTimes = false;
    m_remote[RemoteKey(a.src, a.id)] = id;
    // The sender's tasks, on the same sockets in the same order (its own round robin).
    const uint64_t task = std::max<uint64_t>(m_minTask, (a.bytes + conn.nSocks - 1) / conn.nSocks);
    for (uint64_t off = 0; off < a.bytes; off += task)
    {
        m_socks[conn.firstSock + conn.nextRxSock].rx.push_back(
            Task{id, off, std::min(task, a.bytes - off)});
        conn.nextRxSock = (conn.nextRxSock + 1) % conn.nSocks;
        ++m.tasksLeft;
    }
    // Bytes that arrived before the announcement wait in their sockets: read them now, in the
    // receiver's context.
    Simulator::ScheduleWithContext(node, Time(0), &LinuxTcpCollectiveTransport::Expect, this, a);
}

void
LinuxTcpCollectiveTransport::Expect(const Announcement& a)
{
    const Conn& conn = m_conns[a.conn];
    for (uint32_t k = 0; k < conn.nSocks; ++k)
    {
        const Sock& s = m_socks[conn.firstSock + k];
        if (!s.rx.empty() && m_stacks[a.dst]->GetReceiver(s.conn.receiver).GetReadable() > 0)
        {
            Msg& m = GetMsg(s.rx.front().msg);
            m.readable = std::max(m.readable, Simulator::Now());
        }
    }
    for (uint32_t k = 0; k < std::min(conn.nSocks, m_threads); ++k)
    {
        ReadSome(m_socks[conn.firstSock + k].thread);
    }
}

void
LinuxTcpCollectiveTransport::SenderTimes(const uint8_t* data, uint32_t size)
{
    NS_ABORT_MSG_IF(size != sizeof(WrittenTimes), "LinuxTcpCollectiveTransport: bad times");
    WrittenTimes w;
    std::memcpy(&w, data, sizeof(w));
    if (!IsLocal(w.dst))
    {
        return;
    }
    const auto it = m_remote.find(RemoteKey(w.src, w.id));
    NS_ABORT_MSG_IF(it == m_remote.end(),
                    "LinuxTcpCollectiveTransport: times of a message never announced");
    Msg& m = GetMsg(it->second);
    m_remote.erase(it);
    m.copiedToHost = TimeStep(w.copiedToHost);
    m.written = TimeStep(w.written);
    m.senderTimes = true;
    if (m.inGpu)
    {
        Account(m);
    }
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
// TcpCollectiveTransport's receiving side: accepted connections, socket reads, the copies to
// user space and to the GPU through the staging buffer, message completion and the per-message
// latency breakdown. The connections and the sending side are in tcp-collective-transport.cc.
#include "tcp-collective-transport.h"

#include "ns3/inet-socket-address.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"

#include <algorithm>

namespace ns3
{

bool
TcpCollectiveTransport::AcceptRequest(Ptr<Socket>, const Address&)
{
    return true;
}

void
TcpCollectiveTransport::Accepted(Ptr<Socket> s, const Address& from)
{
    const uint32_t srcAddr = InetSocketAddress::ConvertFrom(from).GetIpv4().Get();
    auto src = m_rankOf.find(srcAddr);
    NS_ABORT_MSG_IF(src == m_rankOf.end(),
                    "TcpCollectiveTransport: connection from an unknown rank");
    // The accepting node's rank.
    uint32_t dst = UINT32_MAX;
    for (uint32_t r = 0; r < m_nodes.GetN(); ++r)
    {
        if (m_nodes.Get(r) == s->GetNode())
        {
            dst = r;
            break;
        }
    }
    // The oldest connection from src to dst (any channel) that has no receiving socket yet:
    // connections of one pair are accepted in the order they were opened.
    uint32_t found = UINT32_MAX;
    for (uint32_t c = 0; c < m_conns.size(); ++c)
    {
        if (m_conns[c].src == src->second && m_conns[c].dst == dst && !m_conns[c].rx)
        {
            found = c;
            break;
        }
    }
    NS_ABORT_MSG_IF(found == UINT32_MAX, "TcpCollectiveTransport: unexpected connection");
    m_conns[found].rx = s;
    m_bySocket[PeekPointer(s)] = found;
    s->SetRecvCallback(MakeCallback(&TcpCollectiveTransport::Receive, this));
}

void
TcpCollectiveTransport::Receive(Ptr<Socket> s)
{
    const uint32_t c = m_bySocket.at(PeekPointer(s));
    Ptr<Packet> p;
    uint64_t got = 0;
    while ((p = s->Recv()) && p->GetSize() > 0)
    {
        got += p->GetSize();
    }
    if (got == 0)
    {
        return;
    }
    Conn& conn = m_conns[c];
    conn.received += got;
    for (auto& m : conn.pending)
    {
        if (!m.hasReadable && m.end <= conn.received)
        {
            m.hasReadable = true;
            m.readable = Simulator::Now();
        }
    }
    Ptr<HostStackCostModel> cost = CostModel(conn.dst);
    if (cost)
    {
        // One reader thread per connection: a receive call copies what is readable.
        const Time end = cost->RunOnCore(cost->RecvCallCost(got), TimeStep(conn.readerFree));
        conn.readerFree = end.GetTimeStep();
        Simulator::Schedule(end - Simulator::Now(),
                            &TcpCollectiveTransport::CopiedToUser,
                            this,
                            c,
                            got);
        return;
    }
    CopiedToUser(c, got);
}

void
TcpCollectiveTransport::CopiedToUser(uint32_t c, uint64_t bytes)
{
    Conn& conn = m_conns[c];
    conn.user += bytes;
    for (auto& m : conn.pending)
    {
        if (!m.hasCopiedToUser && m.end <= conn.user)
        {
            m.hasCopiedToUser = true;
            m.copiedToUser = Simulator::Now();
        }
    }
    if (CostModel(conn.dst))
    {
        StageToGpu(c);
        return;
    }
    conn.h2dDone = conn.user;
    Complete(c);
}

void
TcpCollectiveTransport::StageToGpu(uint32_t c)
{
    Ptr<HostStackCostModel> cost = CostModel(m_conns[c].dst);
    Conn& conn = m_conns[c];
    while (conn.user > conn.h2dIssued)
    {
        // Pieces never straddle a message end, so each message completes on its own copy.
        uint64_t nextEnd = UINT64_MAX;
        for (const auto& m : conn.pending)
        {
            if (m.end > conn.h2dIssued)
            {
                nextEnd = m.end;
                break;
            }
        }
        const uint64_t avail = conn.user - conn.h2dIssued;
        uint64_t piece;
        if (nextEnd <= conn.user)
        {
            piece = std::min<uint64_t>(m_staging, nextEnd - conn.h2dIssued);
        }
        else if (avail >= m_staging)
        {
            piece = m_staging;
        }
        else
        {
            break; // wait for a full piece or the end of the message
        }
        const Time done = cost->PcieCopy(piece, false);
        conn.h2dIssued += piece;
        Simulator::Schedule(done - Simulator::Now(),
                            &TcpCollectiveTransport::CopiedToGpu,
                            this,
                            c,
                            piece);
    }
}

void
TcpCollectiveTransport::CopiedToGpu(uint32_t c, uint64_t bytes)
{
    m_conns[c].h2dDone += bytes;
    Complete(c);
}

void
TcpCollectiveTransport::Complete(uint32_t c)
{
    // Deliver completed messages; a listener may send more (and grow m_conns): use indices.
    while (!m_conns[c].pending.empty() && m_conns[c].pending.front().end <= m_conns[c].h2dDone)
    {
        Pending done = m_conns[c].pending.front();
        m_conns[c].pending.pop_front();
        if (m_conns[c].nextCopiedToHost > 0)
        {
            --m_conns[c].nextCopiedToHost;
        }
        HostStackBreakdown b;
        b.src = m_conns[c].src;
        b.dst = m_conns[c].dst;
        b.bytes = done.bytes;
        b.pcieTx = done.copiedToHost - done.posted;
        b.cpuTx = done.written - done.copiedToHost;
        b.network = done.readable - done.written;
        b.cpuRx = done.copiedToUser - done.readable;
        b.pcieRx = Simulator::Now() - done.copiedToUser;
        Arrive(done.listener, done.token, b);
    }
}

void
TcpCollectiveTransport::Arrive(CollectiveTransportListener* listener,
                               uint64_t token,
                               HostStackBreakdown b)
{
    m_lastBreakdown = b;
    ++m_messages;
    m_totals.bytes += b.bytes;
    m_totals.pcieTx += b.pcieTx;
    m_totals.cpuTx += b.cpuTx;
    m_totals.network += b.network;
    m_totals.cpuRx += b.cpuRx;
    m_totals.pcieRx += b.pcieRx;
    m_breakdownTrace(b);
    // Every part of the breakdown is consecutive: their sum is the time since the post.
    NotifyMessageLatency(b.src, b.dst, b.bytes, Simulator::Now() - b.Total());
    listener->MessageArrived(token);
}

const HostStackBreakdown&
TcpCollectiveTransport::GetBreakdownTotals() const
{
    return m_totals;
}

uint64_t
TcpCollectiveTransport::GetMessagesArrived() const
{
    return m_messages;
}

const HostStackBreakdown&
TcpCollectiveTransport::GetLastBreakdown() const
{
    return m_lastBreakdown;
}

} // namespace ns3

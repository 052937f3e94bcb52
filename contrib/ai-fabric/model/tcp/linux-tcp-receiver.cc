// SPDX-License-Identifier: GPL-2.0-only
// LinuxTcpReceiver: tcp_data_queue, tcp_data_queue_ofo, __tcp_ack_snd_check, tcp_send_delayed_ack,
// tcp_cleanup_rbuf and DCTCP's CE echo (dctcp_ece_ack_update), as in net/ipv4/tcp_input.c,
// tcp_output.c and tcp_dctcp.h.
#include "linux-tcp-receiver.h"

#include "linux-tcp-stack.h"

#include "ns3/fabric-clock.h"
#include "ns3/fabric-frame.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

LinuxTcpReceiver::LinuxTcpReceiver(LinuxTcpStack* stack, uint32_t id)
    : m_stack(stack),
      m_id(id),
      m_quick(stack->GetConfig().quickAcks)
{
}

LinuxTcpReceiver::~LinuxTcpReceiver()
{
    m_delAck.Cancel();
}

void
LinuxTcpReceiver::SetPeer(uint32_t localAddr,
                          uint32_t remoteAddr,
                          uint16_t localPort,
                          uint16_t remotePort,
                          uint32_t peerEndpoint,
                          uint32_t mss,
                          bool ecn)
{
    m_local = localAddr;
    m_remote = remoteAddr;
    m_localPort = localPort;
    m_remotePort = remotePort;
    m_peerEndpoint = peerEndpoint;
    m_mss = mss;
    m_ecn = ecn;
    FabricFrame f;
    f.src = localAddr;
    f.dst = remoteAddr;
    f.srcPort = localPort;
    f.dstPort = remotePort;
    f.protocol = 6;
    f.ComputeFlowHash();
    m_flowHash = f.flowHash;
    m_lastWindow = GetWindow();
}

uint32_t
LinuxTcpReceiver::GetWindow() const
{
    const LinuxTcpConfig& c = m_stack->GetConfig();
    const uint64_t used = m_rcvNxt - m_read;
    const uint64_t free = used >= c.bufferBytes ? 0 : c.bufferBytes - used;
    return static_cast<uint32_t>(free >> c.wscale << c.wscale);
}

void
LinuxTcpReceiver::ReceiveData(const LinuxTcpRxSegment& seg)
{
    m_stats.segments += seg.segs;
    bool ackNow = false;
    const bool ce = seg.ecn == FabricFrame::ECN_CE;
    if (ce)
    {
        m_stats.ceSegments += seg.segs;
    }
    if (m_ecn && ce != m_ceState)
    {
        // DCTCP: a CE state change acknowledges what came before with the old state, at once.
        if (m_ackPending)
        {
            SendAck(false);
        }
        m_ceState = ce;
        ackNow = true;
    }
    const uint64_t start = seg.seq;
    const uint64_t end = seg.seq + seg.len;
    if (seg.len % m_mss != 0)
    {
        m_pushed = true; // a short segment (ICSK_ACK_PUSHED)
    }
    bool readable = false;
    if (end <= m_rcvNxt)
    {
        // A retransmission of data already here: D-SACK and quick-ACK mode.
        ++m_stats.duplicates;
        m_dsack = Block{start, end};
        m_quick = m_stack->GetConfig().quickAcks;
        ackNow = true;
    }
    else if (start <= m_rcvNxt)
    {
        if (start <= m_rcvWup)
        {
            m_tsRecent = seg.tsval; // tcp_store_ts_recent
        }
        m_rcvNxt = end;
        const bool hadOfo = !m_ofo.empty();
        size_t n = 0;
        while (n < m_ofo.size() && m_ofo[n].start <= m_rcvNxt)
        {
            m_rcvNxt = std::max(m_rcvNxt, m_ofo[n].end);
            ++n;
        }
        m_ofo.erase(m_ofo.begin(), m_ofo.begin() + static_cast<std::ptrdiff_t>(n));
        if (hadOfo && m_ofo.empty())
        {
            ackNow = true; // RFC 5681 4.2: a filled gap is acknowledged at once
        }
        readable = true;
    }
    else
    {
        // Out of order: keep it as a block (tcp_data_queue_ofo).
        m_stats.outOfOrder += seg.segs;
        auto it =
            std::lower_bound(m_ofo.begin(), m_ofo.end(), start, [](const Block& b, uint64_t v) {
                return b.end < v;
            });
        if (it != m_ofo.end() && it->start <= start && it->end >= end)
        {
            m_dsack = Block{start, end};
            ++m_stats.duplicates;
            m_lastSack = *it;
        }
        else
        {
            Block b{start, end};
            auto first = it;
            while (it != m_ofo.end() && it->start <= b.end)
            {
                b.start = std::min(b.start, it->start);
                b.end = std::max(b.end, it->end);
                ++it;
            }
            it = m_ofo.erase(first, it);
            m_ofo.insert(it, b);
            m_lastSack = b;
        }
        ackNow = true;
    }
    // __tcp_ack_snd_check
    if (ackNow || m_quick > 0 || !m_ofo.empty() || m_rcvNxt - m_rcvWup > m_mss)
    {
        SendAck(false);
    }
    else
    {
        ScheduleDelAck();
    }
    if (readable)
    {
        m_stack->NotifyReadable(m_id);
    }
}

void
LinuxTcpReceiver::ScheduleDelAck()
{
    const int64_t now = FabricClock::NowStep();
    if (!m_ackPending)
    {
        m_ackPending = true;
        m_delAckDeadline = now + m_stack->GetConfig().delAckNs;
    }
    if (m_delAckAt < 0 || m_delAckAt > m_delAckDeadline)
    {
        m_delAck.Cancel();
        m_delAck = Simulator::Schedule(TimeStep(m_delAckDeadline - now),
                                       &LinuxTcpReceiver::DelAckFired,
                                       this);
        m_delAckAt = m_delAckDeadline;
    }
}

void
LinuxTcpReceiver::DelAckFired()
{
    m_delAckAt = -1;
    if (!m_ackPending)
    {
        return;
    }
    const int64_t now = FabricClock::NowStep();
    if (now < m_delAckDeadline)
    {
        ScheduleDelAck();
        return;
    }
    ++m_stats.delayedAcks;
    SendAck(true);
}

void
LinuxTcpReceiver::SendAck(bool)
{
    const LinuxTcpConfig& c = m_stack->GetConfig();
    FabricFrame f;
    f.kind = FabricFrame::DATA;
    f.l4Format = FabricFrame::L4_TCP;
    f.protocol = 6;
    f.src = m_local;
    f.dst = m_remote;
    f.srcPort = m_localPort;
    f.dstPort = m_remotePort;
    f.flowHash = m_flowHash;
    f.flowId = m_peerEndpoint;
    f.seq = static_cast<uint32_t>(m_rcvNxt);
    f.aux[1] = static_cast<uint32_t>(m_rcvNxt >> 32);
    const uint32_t window = GetWindow();
    uint32_t w = TCP_ACK | ((m_ecn && m_ceState) ? TCP_ECE : 0);
    w |= std::min<uint32_t>(window >> c.wscale, 0xffff) << 16;
    bool sack = false;
    if (m_dsack.end > m_dsack.start)
    {
        w |= LinuxTcpRxSegment::AUX_SACK | LinuxTcpRxSegment::AUX_DSACK;
        f.aux[2] = static_cast<uint32_t>(m_dsack.start - m_rcvNxt);
        f.aux[3] = static_cast<uint32_t>(m_dsack.end - m_rcvNxt);
        m_dsack = Block{0, 0};
        ++m_stats.dsacksSent;
        sack = true;
    }
    else if (!m_ofo.empty())
    {
        // The first block is the one holding the most recent segment (RFC 2018).
        Block b = m_lastSack;
        if (b.end <= m_rcvNxt || b.end <= b.start)
        {
            b = m_ofo.front();
        }
        w |= LinuxTcpRxSegment::AUX_SACK;
        f.aux[2] = static_cast<uint32_t>(b.start - m_rcvNxt);
        f.aux[3] = static_cast<uint32_t>(b.end - m_rcvNxt);
        sack = true;
    }
    f.aux[0] = w;
    f.payloadBytes = 0;
    f.l3Bytes = LINUX_TCP_HEADER_BYTES + (sack ? LINUX_TCP_SACK_BYTES : 0);
    f.priority = c.priority;
    f.dscp = c.dscp;
    f.ecn = FabricFrame::ECN_NOT_ECT;
    f.ttl = 64;
    f.txTimeStep = FabricClock::NowStep();
    f.echoTimeStep = m_tsRecent;
    // tcp_dec_quickack_mode: the segments this ACK covers use up quick ACKs.
    const uint64_t pkts = (m_rcvNxt - m_rcvWup + m_mss - 1) / m_mss;
    m_quick = pkts >= m_quick ? 0 : m_quick - static_cast<uint32_t>(pkts);
    m_rcvWup = m_rcvNxt;
    m_lastWindow = window;
    m_ackPending = false;
    m_pushed = false;
    ++m_stats.acksSent;
    m_stack->SendAckFrame(std::move(f));
}

uint64_t
LinuxTcpReceiver::GetReadable() const
{
    return m_rcvNxt - m_read;
}

void
LinuxTcpReceiver::Read(uint64_t bytes)
{
    m_read += std::min(bytes, m_rcvNxt - m_read);
    // tcp_cleanup_rbuf: a delayed ACK goes now if more than one segment is unacknowledged, or
    // if this read emptied the buffer after a short segment (ICSK_ACK_PUSHED).
    if (m_ackPending && bytes > 0 &&
        (m_rcvNxt - m_rcvWup > m_mss || (m_pushed && m_read == m_rcvNxt)))
    {
        SendAck(false);
        return;
    }
    // ... and advertise at once a window at least twice what the sender has left.
    const uint64_t used = m_rcvNxt - m_rcvWup;
    const uint64_t left = used >= m_lastWindow ? 0 : m_lastWindow - used;
    const uint32_t now = GetWindow();
    if (2 * left <= m_stack->GetConfig().bufferBytes && now != 0 && now >= 2 * left)
    {
        SendAck(false);
    }
}

uint64_t
LinuxTcpReceiver::GetRcvNxt() const
{
    return m_rcvNxt;
}

const LinuxTcpReceiverStats&
LinuxTcpReceiver::GetStats() const
{
    return m_stats;
}

} // namespace ns3

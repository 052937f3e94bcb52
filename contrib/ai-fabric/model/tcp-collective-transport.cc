// SPDX-License-Identifier: GPL-2.0-only
#include "tcp-collective-transport.h"

#include "fabric-net-device.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/socket.h"
#include "ns3/tcp-cubic.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpCollectiveTransport");
NS_OBJECT_ENSURE_REGISTERED(TcpCollectiveTransport);

TypeId
TcpCollectiveTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpCollectiveTransport")
            .SetParent<CollectiveTransport>()
            .SetGroupName("AiFabric")
            .AddConstructor<TcpCollectiveTransport>()
            .AddAttribute("Port", "TCP port of the collective's connections.", UintegerValue(5001),
                          MakeUintegerAccessor(&TcpCollectiveTransport::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("SegmentSize",
                          "MSS in bytes (9000-byte MTU - 20 IPv4 - 32 TCP with timestamps).",
                          UintegerValue(8948),
                          MakeUintegerAccessor(&TcpCollectiveTransport::m_segmentSize),
                          MakeUintegerChecker<uint32_t>(64))
            .AddAttribute("MinRto",
                          "Minimum retransmission timeout (Linux TCP_RTO_MIN = HZ/5 = 200 ms).",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&TcpCollectiveTransport::m_minRto),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("InitialRto",
                          "Initial retransmission timeout (Linux TCP_TIMEOUT_INIT = 1 s).",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&TcpCollectiveTransport::m_initialRto),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("DelAckTimeout",
                          "Delayed-ACK timeout (Linux TCP_DELACK_MIN = 40 ms).",
                          TimeValue(MilliSeconds(40)),
                          MakeTimeAccessor(&TcpCollectiveTransport::m_delAck),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("BufferBytes",
                          "Socket send and receive buffer sizes in bytes.",
                          UintegerValue(4 << 20),
                          MakeUintegerAccessor(&TcpCollectiveTransport::m_bufferBytes),
                          MakeUintegerChecker<uint32_t>(1024))
            .AddAttribute("CongestionControl",
                          "TCP congestion control (a TcpCongestionOps TypeId; Linux default CUBIC).",
                          TypeIdValue(TcpCubic::GetTypeId()),
                          MakeTypeIdAccessor(&TcpCollectiveTransport::m_cc),
                          MakeTypeIdChecker());
    return tid;
}

TcpCollectiveTransport::TcpCollectiveTransport() = default;
TcpCollectiveTransport::~TcpCollectiveTransport() = default;

void
TcpCollectiveTransport::DoDispose()
{
    for (auto& c : m_conns)
    {
        c.tx = nullptr;
        c.rx = nullptr;
    }
    m_listeners.clear();
    m_conns.clear();
    m_bySocket.clear();
    m_nodes = NodeContainer();
    CollectiveTransport::DoDispose();
}

std::string
TcpCollectiveTransport::GetName() const
{
    return "tcp";
}

uint32_t
TcpCollectiveTransport::GetNConnections() const
{
    return static_cast<uint32_t>(m_conns.size());
}

void
TcpCollectiveTransport::ConfigureSocket(Ptr<Socket> s) const
{
    s->SetAttribute("SegmentSize", UintegerValue(m_segmentSize));
    s->SetAttribute("SndBufSize", UintegerValue(m_bufferBytes));
    s->SetAttribute("RcvBufSize", UintegerValue(m_bufferBytes));
    s->SetAttribute("DelAckTimeout", TimeValue(m_delAck));
    s->SetAttribute("TcpNoDelay", BooleanValue(true));
    s->SetAttribute("ConnTimeout", TimeValue(m_initialRto));
    s->SetAttribute("MinRto", TimeValue(m_minRto));
}

void
TcpCollectiveTransport::SetRanks(NodeContainer nodes)
{
    m_nodes = nodes;
    for (uint32_t r = 0; r < nodes.GetN(); ++r)
    {
        Ptr<Node> node = nodes.Get(r);
        Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
        NS_ABORT_MSG_IF(!tcp, "TcpCollectiveTransport: rank " << r << " has no internet stack (FabricInternetHelper)");
        tcp->SetAttribute("SocketType", TypeIdValue(m_cc));
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<FabricNetDevice> dev = DynamicCast<FabricNetDevice>(node->GetDevice(d));
            if (dev)
            {
                m_rankOf[dev->GetIpv4Address().Get()] = r;
            }
        }
        Ptr<Socket> l = Socket::CreateSocket(node, TcpSocketFactory::GetTypeId());
        ConfigureSocket(l);
        l->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port));
        l->Listen();
        l->SetAcceptCallback(MakeCallback(&TcpCollectiveTransport::AcceptRequest, this),
                             MakeCallback(&TcpCollectiveTransport::Accepted, this));
        m_listeners.push_back(l);
    }
}

void
TcpCollectiveTransport::Send(uint32_t src,
                             uint32_t dst,
                             uint64_t bytes,
                             CollectiveTransportListener* listener,
                             uint64_t token)
{
    const uint64_t key = (uint64_t(src) << 32) | dst;
    auto it = m_index.find(key);
    uint32_t c;
    if (it == m_index.end())
    {
        c = static_cast<uint32_t>(m_conns.size());
        m_conns.emplace_back();
        m_conns[c].src = src;
        m_conns[c].dst = dst;
        m_index.emplace(key, c);
        Ptr<Socket> s = Socket::CreateSocket(m_nodes.Get(src), TcpSocketFactory::GetTypeId());
        ConfigureSocket(s);
        m_conns[c].tx = s;
        m_bySocket[PeekPointer(s)] = c;
        s->SetConnectCallback(MakeCallback(&TcpCollectiveTransport::ConnectOk, this),
                              MakeCallback(&TcpCollectiveTransport::ConnectFail, this));
        s->SetSendCallback(MakeCallback(&TcpCollectiveTransport::SendSpace, this));
        s->TraceConnectWithoutContext("CongState",
                                      MakeCallback(&TcpCollectiveTransport::CongState, this).Bind(c));
        s->TraceConnectWithoutContext("Tx", MakeCallback(&TcpCollectiveTransport::SegmentSent, this).Bind(c));
        s->Bind();
        Ptr<Node> dn = m_nodes.Get(dst);
        Ipv4Address addr;
        for (uint32_t d = 0; d < dn->GetNDevices(); ++d)
        {
            Ptr<FabricNetDevice> dev = DynamicCast<FabricNetDevice>(dn->GetDevice(d));
            if (dev)
            {
                addr = dev->GetIpv4Address();
                break;
            }
        }
        s->Connect(InetSocketAddress(addr, m_port));
    }
    else
    {
        c = it->second;
    }
    Conn& conn = m_conns[c];
    conn.queued += bytes;
    conn.pending.push_back(Pending{conn.queued, listener, token});
    if (conn.connected)
    {
        Push(c);
    }
}

void
TcpCollectiveTransport::Push(uint32_t c)
{
    Conn& conn = m_conns[c];
    while (conn.written < conn.queued)
    {
        const uint32_t avail = conn.tx->GetTxAvailable();
        if (avail == 0)
        {
            return;
        }
        const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>({avail, conn.queued - conn.written, 1u << 20}));
        const int sent = conn.tx->Send(Create<Packet>(n));
        if (sent <= 0)
        {
            return;
        }
        conn.written += static_cast<uint64_t>(sent);
    }
}

void
TcpCollectiveTransport::ConnectOk(Ptr<Socket> s)
{
    const uint32_t c = m_bySocket.at(PeekPointer(s));
    m_conns[c].connected = true;
    Push(c);
}

void
TcpCollectiveTransport::ConnectFail(Ptr<Socket> s)
{
    const uint32_t c = m_bySocket.at(PeekPointer(s));
    NS_ABORT_MSG("TcpCollectiveTransport: connection " << m_conns[c].src << " -> " << m_conns[c].dst
                                                       << " failed");
}

void
TcpCollectiveTransport::SendSpace(Ptr<Socket> s, uint32_t)
{
    auto it = m_bySocket.find(PeekPointer(s));
    if (it != m_bySocket.end() && m_conns[it->second].connected)
    {
        Push(it->second);
    }
}

void
TcpCollectiveTransport::CongState(uint32_t c,
                                  TcpSocketState::TcpCongState_t,
                                  TcpSocketState::TcpCongState_t to)
{
    if (to == TcpSocketState::CA_LOSS)
    {
        ++m_timeouts;
        m_lastTimeoutReceiver = static_cast<int32_t>(m_conns[c].dst);
    }
    else if (to == TcpSocketState::CA_RECOVERY)
    {
        ++m_fastRecoveries;
    }
}

void
TcpCollectiveTransport::SegmentSent(uint32_t c, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    const uint32_t seq = h.GetSequenceNumber().GetValue();
    const uint32_t end = seq + p->GetSize();
    Conn& conn = m_conns[c];
    if (int32_t(end - conn.highSent) <= 0 && conn.highSent != 0)
    {
        ++m_retransmissions;
    }
    else
    {
        conn.highSent = end;
    }
}

uint64_t
TcpCollectiveTransport::GetRetransmissions() const
{
    return m_retransmissions;
}

uint64_t
TcpCollectiveTransport::GetTimeouts() const
{
    return m_timeouts;
}

uint64_t
TcpCollectiveTransport::GetFastRecoveries() const
{
    return m_fastRecoveries;
}

int32_t
TcpCollectiveTransport::GetLastTimeoutReceiver() const
{
    return m_lastTimeoutReceiver;
}

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
    NS_ABORT_MSG_IF(src == m_rankOf.end(), "TcpCollectiveTransport: connection from an unknown rank");
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
    auto it = m_index.find((uint64_t(src->second) << 32) | dst);
    NS_ABORT_MSG_IF(it == m_index.end(), "TcpCollectiveTransport: unexpected connection");
    m_conns[it->second].rx = s;
    m_bySocket[PeekPointer(s)] = it->second;
    s->SetRecvCallback(MakeCallback(&TcpCollectiveTransport::Receive, this));
}

void
TcpCollectiveTransport::Receive(Ptr<Socket> s)
{
    const uint32_t c = m_bySocket.at(PeekPointer(s));
    Ptr<Packet> p;
    while ((p = s->Recv()) && p->GetSize() > 0)
    {
        m_conns[c].received += p->GetSize();
    }
    // Deliver completed messages; a listener may send more (and grow m_conns): use indices.
    while (!m_conns[c].pending.empty() && m_conns[c].pending.front().end <= m_conns[c].received)
    {
        const Pending done = m_conns[c].pending.front();
        m_conns[c].pending.pop_front();
        done.listener->MessageArrived(done.token);
    }
}

} // namespace ns3

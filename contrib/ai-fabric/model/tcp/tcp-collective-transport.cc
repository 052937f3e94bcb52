// SPDX-License-Identifier: GPL-2.0-only
// TcpCollectiveTransport: connections, the sending side of collective messages over ns-3 TCP
// sockets (host copies, socket writes, congestion-state traces) and its statistics. The
// receiving side (accept, read, staging to the GPU, completion) is in
// tcp-collective-receiver.cc.
#include "tcp-collective-transport.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/fabric-net-device.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/rtt-estimator.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/tcp-cubic.h"
#include "ns3/tcp-dctcp.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-socket-base.h"
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
            .AddAttribute("Port",
                          "TCP port of the collective's connections.",
                          UintegerValue(5001),
                          MakeUintegerAccessor(&TcpCollectiveTransport::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("SegmentSize",
                          "MSS in bytes; 0 = from the host NIC's MTU: MTU - 20 (IPv4) - 32 (TCP "
                          "with timestamps), 8948 for a 9000-byte MTU.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TcpCollectiveTransport::m_segmentSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MinRto",
                          "Minimum retransmission timeout (Linux TCP_RTO_MIN = HZ/5 = 200 ms).",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&TcpCollectiveTransport::m_minRto),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("InitialRto",
                          "Initial retransmission timeout (Linux TCP_TIMEOUT_INIT = 1 s): the "
                          "SYN retransmission timeout (ns-3 ConnTimeout) and the RTT "
                          "estimator's initial estimate, so that data sent before the first "
                          "RTT sample times out after InitialRto plus ns-3's clock "
                          "granularity (1 ms).",
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
            .AddTraceSource("MessageBreakdown",
                            "A message arrived: where its time went.",
                            MakeTraceSourceAccessor(&TcpCollectiveTransport::m_breakdownTrace),
                            "ns3::TcpCollectiveTransport::BreakdownTracedCallback")
            .AddAttribute("StagingBytes",
                          "With a host cost model: GPU <-> host copies are pipelined in pieces of "
                          "this size (NCCL's socket transport stages 4 MiB buffers in 8 slices).",
                          UintegerValue(512 * 1024),
                          MakeUintegerAccessor(&TcpCollectiveTransport::m_staging),
                          MakeUintegerChecker<uint32_t>(1024))
            .AddAttribute(
                "CongestionControl",
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
    uint32_t mss = m_segmentSize;
    if (mss == 0)
    {
        Ptr<Node> node = s->GetNode();
        for (uint32_t d = 0; node && d < node->GetNDevices() && mss == 0; ++d)
        {
            Ptr<FabricNetDevice> dev = DynamicCast<FabricNetDevice>(node->GetDevice(d));
            if (dev && dev->GetMtu() > 52 + 64)
            {
                mss = dev->GetMtu() - 52;
            }
        }
        mss = mss ? mss : 536;
    }
    s->SetAttribute("SegmentSize", UintegerValue(mss));
    s->SetAttribute("SndBufSize", UintegerValue(m_bufferBytes));
    s->SetAttribute("RcvBufSize", UintegerValue(m_bufferBytes));
    s->SetAttribute("DelAckTimeout", TimeValue(m_delAck));
    s->SetAttribute("TcpNoDelay", BooleanValue(true));
    s->SetAttribute("ConnTimeout", TimeValue(m_initialRto));
    // ns-3's RTO before the first sample is the estimator's initial estimate (+ granularity):
    // give each socket an estimator that starts from InitialRto.
    if (Ptr<TcpSocketBase> base = DynamicCast<TcpSocketBase>(s))
    {
        Ptr<RttMeanDeviation> rtt = CreateObject<RttMeanDeviation>();
        rtt->SetAttribute("InitialEstimation", TimeValue(m_initialRto));
        base->SetRtt(rtt);
    }
    s->SetAttribute("MinRto", TimeValue(m_minRto));
    if (m_cc == TcpDctcp::GetTypeId())
    {
        // DCTCP needs ECN: data goes out ECT and CE marks are echoed.
        s->SetAttribute("UseEcn", EnumValue(TcpSocketState::On));
    }
}

void
TcpCollectiveTransport::SetRanks(NodeContainer nodes)
{
    m_nodes = nodes;
    for (uint32_t r = 0; r < nodes.GetN(); ++r)
    {
        Ptr<Node> node = nodes.Get(r);
        Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
        NS_ABORT_MSG_IF(!tcp,
                        "TcpCollectiveTransport: rank "
                            << r << " has no internet stack (FabricInternetHelper)");
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
                             uint64_t token,
                             uint32_t channel)
{
    const uint64_t key = (uint64_t(channel) << 48) | (uint64_t(src) << 24) | dst;
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
        s->TraceConnectWithoutContext(
            "CongState",
            MakeCallback(&TcpCollectiveTransport::CongState, this).Bind(c));
        s->TraceConnectWithoutContext(
            "Tx",
            MakeCallback(&TcpCollectiveTransport::SegmentSent, this).Bind(c));
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
    Pending p;
    p.end = conn.queued;
    p.bytes = bytes;
    p.listener = listener;
    p.token = token;
    p.posted = Simulator::Now();
    conn.pending.push_back(p);
    Ptr<HostStackCostModel> cost = CostModel(src);
    if (cost)
    {
        // GPU -> host copies, pipelined in staging pieces: a piece can be written to the socket
        // as soon as it is in host memory.
        for (uint64_t off = 0; off < bytes; off += m_staging)
        {
            const uint64_t piece = std::min<uint64_t>(m_staging, bytes - off);
            const Time done = cost->PcieCopy(piece, true);
            Simulator::Schedule(done - Simulator::Now(),
                                &TcpCollectiveTransport::CopiedToHost,
                                this,
                                c,
                                piece);
        }
    }
    else
    {
        conn.ready = conn.queued;
        conn.pending.back().copiedToHost = Simulator::Now();
        conn.nextCopiedToHost = conn.pending.size();
        if (conn.connected)
        {
            Push(c);
        }
    }
}

Ptr<HostStackCostModel>
TcpCollectiveTransport::CostModel(uint32_t rank) const
{
    return m_nodes.Get(rank)->GetObject<HostStackCostModel>();
}

void
TcpCollectiveTransport::CopiedToHost(uint32_t c, uint64_t bytes)
{
    Conn& conn = m_conns[c];
    conn.ready += bytes;
    // PCIe copies of one host complete in order: this is the oldest message not yet copied.
    for (size_t i = conn.nextCopiedToHost; i < conn.pending.size(); ++i)
    {
        if (conn.pending[i].end <= conn.ready)
        {
            conn.pending[i].copiedToHost = Simulator::Now();
            conn.nextCopiedToHost = i + 1;
        }
        else
        {
            break;
        }
    }
    if (conn.connected)
    {
        Push(c);
    }
}

void
TcpCollectiveTransport::Push(uint32_t c)
{
    Conn& conn = m_conns[c];
    Ptr<HostStackCostModel> cost = CostModel(conn.src);
    if (cost)
    {
        // One writer thread per connection: a send call of up to SendChunk bytes at a time.
        if (conn.writerBusy || conn.written >= conn.ready)
        {
            return;
        }
        const uint32_t avail = conn.tx->GetTxAvailable();
        const uint32_t n = static_cast<uint32_t>(
            std::min<uint64_t>({avail, conn.ready - conn.written, cost->GetSendChunk()}));
        if (n == 0)
        {
            return; // SendSpace will call again
        }
        conn.writerBusy = true;
        const Time end = cost->RunOnCore(cost->SendCallCost(n), Simulator::Now());
        Simulator::Schedule(end - Simulator::Now(), &TcpCollectiveTransport::Written, this, c, n);
        return;
    }
    while (conn.written < conn.ready)
    {
        const uint32_t avail = conn.tx->GetTxAvailable();
        if (avail == 0)
        {
            return;
        }
        const uint32_t n =
            static_cast<uint32_t>(std::min<uint64_t>({avail, conn.ready - conn.written, 1u << 20}));
        const int sent = conn.tx->Send(Create<Packet>(n));
        if (sent <= 0)
        {
            return;
        }
        conn.written += static_cast<uint64_t>(sent);
        for (auto& p : conn.pending)
        {
            if (!p.hasWritten && p.end <= conn.written)
            {
                p.hasWritten = true;
                p.written = Simulator::Now();
            }
        }
    }
}

void
TcpCollectiveTransport::Written(uint32_t c, uint32_t bytes)
{
    Conn& conn = m_conns[c];
    conn.writerBusy = false;
    const int sent = conn.tx->Send(Create<Packet>(bytes));
    NS_ABORT_MSG_IF(sent != int(bytes), "TcpCollectiveTransport: socket refused a reserved write");
    conn.written += bytes;
    for (auto& p : conn.pending)
    {
        if (!p.hasWritten && p.end <= conn.written)
        {
            p.hasWritten = true;
            p.written = Simulator::Now();
        }
    }
    Push(c);
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
        m_lastTimeoutAt = Simulator::Now();
    }
    else if (to == TcpSocketState::CA_RECOVERY)
    {
        ++m_fastRecoveries;
    }
}

void
TcpCollectiveTransport::SegmentSent(uint32_t c,
                                    Ptr<const Packet> p,
                                    const TcpHeader& h,
                                    Ptr<const TcpSocketBase>)
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

bool
TcpCollectiveTransport::ModelsHostSoftware() const
{
    return true;
}

Time
TcpCollectiveTransport::GetLastTimeoutTime() const
{
    return m_lastTimeoutAt;
}

int32_t
TcpCollectiveTransport::GetLastTimeoutReceiver() const
{
    return m_lastTimeoutReceiver;
}

} // namespace ns3

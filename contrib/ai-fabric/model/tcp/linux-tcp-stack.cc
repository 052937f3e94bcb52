// SPDX-License-Identifier: GPL-2.0-only
// LinuxTcpStack: the host's TCP endpoints, their configuration (the attribute table, about 125
// lines, each constant with its kernel source), connection set-up, and the per-frame paths
// between the NIC and the endpoints (transmit arbitration, interrupt moderation, GRO). About
// 620 lines in one translation unit so that the per-frame calls (frame decoding, GRO, the
// endpoints' hooks) stay inlinable; the endpoints are in linux-tcp-sender*.cc and
// linux-tcp-receiver.cc.
#include "linux-tcp-stack.h"

#include "host-stack-cost-model.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/fabric-frame.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-option-sack.h"
#include "ns3/tcp-option-ts.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LinuxTcpStack");
NS_OBJECT_ENSURE_REGISTERED(LinuxTcpStack);

void
LinuxTcpListener::SendSpace(uint64_t)
{
}

void
LinuxTcpListener::Readable(uint64_t)
{
}

LinuxTcpRxSegment
LinuxTcpRxSegment::FromFrame(const FabricFrame& f, uint8_t wscale)
{
    LinuxTcpRxSegment s;
    s.seq = (uint64_t(f.aux[1]) << 32) | f.seq;
    s.tsval = f.txTimeStep;
    s.tsecr = f.echoTimeStep;
    s.endpoint = f.flowId;
    s.len = f.payloadBytes;
    s.flags = static_cast<uint8_t>(f.aux[0] & 0xff);
    s.hasSack = (f.aux[0] & AUX_SACK) != 0;
    s.dsack = (f.aux[0] & AUX_DSACK) != 0;
    s.sackStart = f.aux[2];
    s.sackEnd = f.aux[3];
    s.window = (f.aux[0] >> 16) << wscale;
    s.ecn = f.ecn;
    return s;
}

namespace
{

/// The L4_TCP materializer: a real TCP header with timestamps and SACK options, for pcap.
Ptr<Packet>
MaterializeTcp(const FabricFrame& f)
{
    Ptr<Packet> p = Create<Packet>(f.payloadBytes);
    TcpHeader h;
    h.SetSourcePort(f.srcPort);
    h.SetDestinationPort(f.dstPort);
    const bool pureAck = f.payloadBytes == 0;
    h.SetSequenceNumber(SequenceNumber32(pureAck ? 0 : f.seq));
    h.SetAckNumber(SequenceNumber32(pureAck ? f.seq : 0));
    h.SetFlags(static_cast<uint8_t>(f.aux[0] & 0xff));
    h.SetWindowSize(static_cast<uint16_t>(f.aux[0] >> 16));
    Ptr<TcpOptionTS> ts = CreateObject<TcpOptionTS>();
    ts->SetTimestamp(static_cast<uint32_t>(f.txTimeStep / 1000));
    ts->SetEcho(static_cast<uint32_t>(f.echoTimeStep / 1000));
    h.AppendOption(ts);
    if (f.aux[0] & LinuxTcpRxSegment::AUX_SACK)
    {
        Ptr<TcpOptionSack> sack = CreateObject<TcpOptionSack>();
        sack->AddSackBlock(
            {SequenceNumber32(f.seq + f.aux[2]), SequenceNumber32(f.seq + f.aux[3])});
        h.AppendOption(sack);
    }
    p->AddHeader(h);
    return p;
}

} // namespace

TypeId
LinuxTcpStack::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LinuxTcpStack")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<LinuxTcpStack>()
            .AddAttribute("SegmentSize",
                          "MSS in bytes; 0 = from the NIC's MTU: MTU - 20 (IPv4) - 32 (TCP with "
                          "timestamps), 8948 for 9000.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&LinuxTcpStack::m_segmentSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MinRto",
                          "TCP_RTO_MIN = HZ / 5 (include/net/tcp.h; sysctl tcp_rto_min_us).",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&LinuxTcpStack::m_rtoMin),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("InitialRto",
                          "TCP_TIMEOUT_INIT = 1 s (include/net/tcp.h, RFC 6298).",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&LinuxTcpStack::m_rtoInit),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MaxRto",
                          "TCP_RTO_MAX = 120 s (include/net/tcp.h).",
                          TimeValue(Seconds(120)),
                          MakeTimeAccessor(&LinuxTcpStack::m_rtoMax),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("DelAckTimeout",
                          "TCP_DELACK_MIN = HZ / 25 = 40 ms (include/net/tcp.h).",
                          TimeValue(MilliSeconds(40)),
                          MakeTimeAccessor(&LinuxTcpStack::m_delAck),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("TlpMinTimeout",
                          "Added to 2 x SRTT for a loss probe with several packets out: "
                          "TCP_TIMEOUT_MIN_US = 2 ms (tcp_schedule_loss_probe).",
                          TimeValue(MilliSeconds(2)),
                          MakeTimeAccessor(&LinuxTcpStack::m_tlpMin),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("TimerGranularity",
                          "A jiffy (1 / HZ, HZ = 1000): RTO, probe and reordering timeouts are "
                          "rounded up to it as usecs_to_jiffies does; 0 = exact.",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&LinuxTcpStack::m_jiffy),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("InitialCwnd",
                          "TCP_INIT_CWND = 10 segments (include/net/tcp.h).",
                          UintegerValue(10),
                          MakeUintegerAccessor(&LinuxTcpStack::m_initCwnd),
                          MakeUintegerChecker<uint32_t>(1, 1000000))
            .AddAttribute("Reordering",
                          "sysctl tcp_reordering = 3 (TCP_FASTRETRANS_THRESH).",
                          UintegerValue(3),
                          MakeUintegerAccessor(&LinuxTcpStack::m_reordering),
                          MakeUintegerChecker<uint32_t>(1, 300))
            .AddAttribute("TsoMaxBytes",
                          "Largest TSO/GSO send (GSO_LEGACY_MAX_SIZE 65536; BIG TCP more).",
                          UintegerValue(65536),
                          MakeUintegerAccessor(&LinuxTcpStack::m_tsoMax),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("GroMaxBytes",
                          "Largest GRO unit (GRO_LEGACY_MAX_SIZE 65536); with a host cost model "
                          "only (GRO runs in the interrupt's poll).",
                          UintegerValue(65536),
                          MakeUintegerAccessor(&LinuxTcpStack::m_groMax),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("BufferBytes",
                          "Send and receive buffer per socket (NCCL's 4 MiB class; tcp_wmem / "
                          "tcp_rmem maxima are 4 / 6 MiB).",
                          UintegerValue(4 << 20),
                          MakeUintegerAccessor(&LinuxTcpStack::m_buffer),
                          MakeUintegerChecker<uint32_t>(4096, 1U << 30))
            .AddAttribute("QuickAcks",
                          "TCP_MAX_QUICKACKS = 16.",
                          UintegerValue(16),
                          MakeUintegerAccessor(&LinuxTcpStack::m_quickAcks),
                          MakeUintegerChecker<uint32_t>(0, 1000))
            .AddAttribute("Tlp",
                          "Tail loss probes (sysctl tcp_early_retrans = 3, the default).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&LinuxTcpStack::m_tlp),
                          MakeBooleanChecker())
            .AddAttribute("Rack",
                          "RACK loss detection (sysctl tcp_recovery = 1, the default); false: "
                          "the RFC 6675 dup-threshold rule, as older kernels and ns-3.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&LinuxTcpStack::m_rack),
                          MakeBooleanChecker())
            .AddAttribute("SlowStartAfterIdle",
                          "sysctl tcp_slow_start_after_idle = 1: the window decays after an idle "
                          "period longer than the RTO (tcp_cwnd_restart).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&LinuxTcpStack::m_ssAfterIdle),
                          MakeBooleanChecker())
            .AddAttribute("Priority",
                          "802.1p priority of TCP frames.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&LinuxTcpStack::m_priority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("FirstPort",
                          "The first local port connections use, then the next ones in turn "
                          "(Linux draws from ip_local_port_range 32768-60999).",
                          UintegerValue(32768),
                          MakeUintegerAccessor(&LinuxTcpStack::m_nextPort),
                          MakeUintegerChecker<uint16_t>(1024))
            .AddAttribute("CongestionControl",
                          "A LinuxTcpCongestionOps TypeId (Linux's default: CUBIC).",
                          TypeIdValue(LinuxTcpCubic::GetTypeId()),
                          MakeTypeIdAccessor(&LinuxTcpStack::m_ccType),
                          MakeTypeIdChecker())
            .AddTraceSource("Timeout",
                            "A sender's retransmission timer expired (RTO).",
                            MakeTraceSourceAccessor(&LinuxTcpStack::m_timeoutTrace),
                            "ns3::LinuxTcpStack::SenderTracedCallback")
            .AddTraceSource("LossProbe",
                            "A sender sent a tail loss probe.",
                            MakeTraceSourceAccessor(&LinuxTcpStack::m_lossProbeTrace),
                            "ns3::LinuxTcpStack::SenderTracedCallback")
            .AddTraceSource("Recovery",
                            "A sender entered fast recovery (a fast retransmit).",
                            MakeTraceSourceAccessor(&LinuxTcpStack::m_recoveryTrace),
                            "ns3::LinuxTcpStack::SenderTracedCallback");
    return tid;
}

LinuxTcpStack::LinuxTcpStack()
{
    FabricFrame::RegisterL4Materializer(FabricFrame::L4_TCP, &MaterializeTcp);
}

LinuxTcpStack::~LinuxTcpStack() = default;

void
LinuxTcpStack::DoInitialize()
{
    Object::DoInitialize();
}

void
LinuxTcpStack::DoDispose()
{
    m_irq.Cancel();
    if (m_dev)
    {
        m_dev->RemoveFrameSource(this);
        m_dev->SetTcpHandler(Callback<void, FabricNetDevice*, const FabricFrame&>());
    }
    m_senders.clear();
    m_receivers.clear();
    m_dev = nullptr;
    m_cost = nullptr;
    Object::DoDispose();
}

void
LinuxTcpStack::SyncConfig()
{
    m_cfg.rtoMinNs = m_rtoMin.GetTimeStep();
    m_cfg.rtoInitNs = m_rtoInit.GetTimeStep();
    m_cfg.rtoMaxNs = m_rtoMax.GetTimeStep();
    m_cfg.delAckNs = m_delAck.GetTimeStep();
    m_cfg.tlpMinNs = m_tlpMin.GetTimeStep();
    m_cfg.jiffyNs = m_jiffy.GetTimeStep();
    m_cfg.initCwnd = m_initCwnd;
    m_cfg.reordering = m_reordering;
    m_cfg.tsoMaxBytes = m_tsoMax;
    m_cfg.groMaxBytes = m_groMax;
    m_cfg.bufferBytes = m_buffer;
    m_cfg.quickAcks = m_quickAcks;
    m_cfg.tlp = m_tlp;
    m_cfg.rack = m_rack;
    m_cfg.slowStartAfterIdle = m_ssAfterIdle;
    m_cfg.priority = m_priority;
    m_cfg.dscp = 0;
    uint8_t ws = 0;
    while ((uint64_t(m_buffer) >> ws) > 0xffff)
    {
        ++ws;
    }
    m_cfg.wscale = ws;
}

void
LinuxTcpStack::Attach(Ptr<FabricNetDevice> device)
{
    NS_ABORT_MSG_IF(m_dev, "LinuxTcpStack: already attached");
    SyncConfig();
    m_dev = device;
    m_dev->AddFrameSource(this, m_cfg.priority);
    m_dev->SetTcpHandler(MakeCallback(&LinuxTcpStack::ReceiveTcp, this));
    if (Ptr<Node> node = device->GetNode())
    {
        if (Ptr<HostStackCostModel> cost = node->GetObject<HostStackCostModel>())
        {
            m_cost = PeekPointer(cost);
        }
    }
}

Ptr<FabricNetDevice>
LinuxTcpStack::GetDevice() const
{
    return m_dev;
}

uint32_t
LinuxTcpStack::GetMss() const
{
    if (m_segmentSize != 0)
    {
        return m_segmentSize;
    }
    const uint32_t mtu = m_dev ? m_dev->GetMtu() : 1500;
    return mtu > LINUX_TCP_HEADER_BYTES + 64 ? mtu - LINUX_TCP_HEADER_BYTES : 536;
}

LinuxTcpStack::Connection
LinuxTcpStack::Connect(Ptr<LinuxTcpStack> peer,
                       uint16_t dstPort,
                       LinuxTcpListener* listener,
                       uint64_t cookie)
{
    NS_ABORT_MSG_IF(!m_dev || !peer->m_dev, "LinuxTcpStack: Connect before Attach");
    Connection c;
    c.sender = static_cast<uint32_t>(m_senders.size());
    c.receiver = static_cast<uint32_t>(peer->m_receivers.size());
    Ptr<LinuxTcpCongestionOps> cc = CreateCongestionOps(m_ccType);
    m_senders.push_back(std::make_unique<LinuxTcpSender>(this, c.sender, cc));
    m_txListeners.emplace_back(listener, cookie);
    m_inReady.push_back(0);
    peer->m_receivers.push_back(std::make_unique<LinuxTcpReceiver>(PeekPointer(peer), c.receiver));
    peer->m_rxListeners.emplace_back(listener, cookie);
    const uint16_t srcPort = m_nextPort++;
    if (m_nextPort == 0)
    {
        m_nextPort = 32768;
    }
    const uint32_t mss = std::min(GetMss(), peer->GetMss());
    const uint32_t local = m_dev->GetIpv4Address().Get();
    const uint32_t remote = peer->m_dev->GetIpv4Address().Get();
    peer->m_receivers.back()
        ->SetPeer(remote, local, dstPort, srcPort, c.sender, mss, cc->NeedsEcn());
    m_senders.back()->SetPeer(local,
                              remote,
                              srcPort,
                              dstPort,
                              c.receiver,
                              mss,
                              peer->m_receivers.back()->GetWindow());
    return c;
}

Ptr<LinuxTcpCongestionOps>
LinuxTcpStack::CreateCongestionOps(TypeId tid)
{
    ObjectFactory f;
    f.SetTypeId(tid);
    Ptr<LinuxTcpCongestionOps> cc = f.Create<LinuxTcpCongestionOps>();
    NS_ABORT_MSG_IF(!cc, "LinuxTcpStack: CongestionControl is not a LinuxTcpCongestionOps");
    return cc;
}

uint64_t
LinuxTcpStack::Send(uint32_t sender, uint64_t bytes)
{
    LinuxTcpSender& s = *m_senders.at(sender);
    const uint64_t n = std::min(bytes, s.GetSendSpace());
    if (n > 0)
    {
        s.Write(n);
    }
    return n;
}

uint64_t
LinuxTcpStack::Read(uint32_t receiver, uint64_t bytes)
{
    LinuxTcpReceiver& r = *m_receivers.at(receiver);
    const uint64_t n = std::min(bytes, r.GetReadable());
    if (n > 0)
    {
        r.Read(n);
    }
    return n;
}

LinuxTcpSender&
LinuxTcpStack::GetSender(uint32_t id)
{
    return *m_senders.at(id);
}

LinuxTcpReceiver&
LinuxTcpStack::GetReceiver(uint32_t id)
{
    return *m_receivers.at(id);
}

uint32_t
LinuxTcpStack::GetNSenders() const
{
    return static_cast<uint32_t>(m_senders.size());
}

uint32_t
LinuxTcpStack::GetNReceivers() const
{
    return static_cast<uint32_t>(m_receivers.size());
}

const LinuxTcpConfig&
LinuxTcpStack::GetConfig() const
{
    return m_cfg;
}

LinuxTcpStackCounters
LinuxTcpStack::GetCounters() const
{
    LinuxTcpStackCounters c;
    for (const auto& s : m_senders)
    {
        const LinuxTcpSenderStats& st = s->GetStats();
        c.segmentsSent += st.segmentsSent;
        c.retransmits += st.retransmits;
        c.timeouts += st.timeouts;
        c.tlpProbes += st.tlpProbes;
        c.tlpRecoveries += st.tlpRecoveries;
        c.rackLosses += st.rackLosses;
        c.lostRetransmits += st.lostRetransmits;
        c.fastRetransmits += st.fastRetransmits;
        c.spuriousRetransmits += st.spuriousRetransmits;
        c.dsacksReceived += st.dsacksReceived;
        c.ecnReductions += st.ecnReductions;
    }
    for (const auto& r : m_receivers)
    {
        c.acksSent += r->GetStats().acksSent;
    }
    c.groUnits = m_groUnits;
    c.rxFrames = m_rxFrames;
    c.interrupts = m_interrupts;
    return c;
}

// ------------------------------------------------------------------ transmit

void
LinuxTcpStack::MakeReady(uint32_t sender)
{
    if (!m_inReady[sender])
    {
        m_inReady[sender] = 1;
        m_ready.push_back(sender);
        m_dev->WakeSource(m_cfg.priority);
    }
}

bool
LinuxTcpStack::PullFrame(uint8_t, FabricFrame& out)
{
    while (!m_ready.empty())
    {
        const uint32_t id = m_ready.front();
        LinuxTcpSender& s = *m_senders[id];
        bool burstDone = false;
        if (s.NextFrame(out, burstDone))
        {
            if (burstDone)
            {
                // The next connection's TSO burst; this one queues again if it has more.
                m_ready.pop_front();
                if (s.CanSend())
                {
                    m_ready.push_back(id);
                }
                else
                {
                    m_inReady[id] = 0;
                }
            }
            return true;
        }
        m_ready.pop_front();
        m_inReady[id] = 0;
    }
    return false;
}

void
LinuxTcpStack::SendAckFrame(FabricFrame&& f)
{
    m_dev->Enqueue(std::move(f));
}

void
LinuxTcpStack::NotifySendSpace(uint32_t sender)
{
    const auto& l = m_txListeners[sender];
    if (l.first)
    {
        l.first->SendSpace(l.second);
    }
}

void
LinuxTcpStack::NotifyReadable(uint32_t receiver)
{
    const auto& l = m_rxListeners[receiver];
    if (l.first)
    {
        l.first->Readable(l.second);
    }
}

void
LinuxTcpStack::NotifyTimeout(uint32_t sender)
{
    m_timeoutTrace(sender);
}

void
LinuxTcpStack::NotifyLossProbe(uint32_t sender)
{
    m_lossProbeTrace(sender);
}

void
LinuxTcpStack::NotifyRecovery(uint32_t sender)
{
    m_recoveryTrace(sender);
}

// ------------------------------------------------------------------ receive

void
LinuxTcpStack::ReceiveTcp(FabricNetDevice*, const FabricFrame& f)
{
    ++m_rxFrames;
    LinuxTcpRxSegment s = LinuxTcpRxSegment::FromFrame(f, m_cfg.wscale);
    if (!m_cost)
    {
        ++m_groUnits;
        Process(s);
        return;
    }
    // Interrupt moderation: the frame waits in the ring for rx-frames frames or rx-usecs.
    m_ring.push_back(s);
    if (m_ring.size() >= m_cost->GetRxFrames())
    {
        m_irq.Cancel();
        m_irqPending = false;
        Interrupt();
    }
    else if (!m_irqPending)
    {
        m_irqPending = true;
        m_irq = Simulator::Schedule(m_cost->GetRxUsecs(), &LinuxTcpStack::Interrupt, this);
    }
}

void
LinuxTcpStack::Interrupt()
{
    m_irqPending = false;
    if (m_ring.empty())
    {
        return;
    }
    ++m_interrupts;
    m_cost->CountInterrupt();
    const uint32_t n = static_cast<uint32_t>(m_ring.size());
    const Time end = m_cost->RunOnCore(m_cost->InterruptWork(n), Simulator::Now());
    // GRO (napi_gro_receive): in-order data of one connection merges up to GroMaxBytes; a
    // different connection, a gap, an ECN change or a pure ACK ends the unit. Pure ACKs are
    // not merged.
    for (const LinuxTcpRxSegment& s : m_ring)
    {
        if (!m_processing.empty() && s.len > 0)
        {
            LinuxTcpRxSegment& last = m_processing.back();
            if (last.len > 0 && last.endpoint == s.endpoint && last.seq + last.len == s.seq &&
                last.ecn == s.ecn && last.len + s.len <= m_cfg.groMaxBytes && m_batchOpen > 0)
            {
                last.len += s.len;
                last.segs = static_cast<uint16_t>(last.segs + s.segs);
                continue;
            }
        }
        m_processing.push_back(s);
        ++m_batchOpen;
    }
    m_batches.push_back(m_batchOpen);
    m_batchOpen = 0;
    m_ring.clear();
    Simulator::Schedule(end - Simulator::Now(), &LinuxTcpStack::DeliverBatch, this);
}

void
LinuxTcpStack::DeliverBatch()
{
    const uint32_t n = m_batches.front();
    m_batches.pop_front();
    for (uint32_t i = 0; i < n; ++i)
    {
        const LinuxTcpRxSegment s = m_processing.front();
        m_processing.pop_front();
        ++m_groUnits;
        Process(s);
    }
}

void
LinuxTcpStack::Process(const LinuxTcpRxSegment& s)
{
    if (s.len > 0)
    {
        if (s.endpoint < m_receivers.size())
        {
            m_receivers[s.endpoint]->ReceiveData(s);
        }
        return;
    }
    if (s.endpoint < m_senders.size())
    {
        m_senders[s.endpoint]->ReceiveAck(s);
    }
}

} // namespace ns3

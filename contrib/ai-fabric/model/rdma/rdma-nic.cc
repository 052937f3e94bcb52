// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-nic.h"

#include "rdma-congestion-ops.h"
#include "rdma-dcqcn.h"
#include "rdma-go-back-n.h"
#include "rdma-loss-recovery.h"
#include "rdma-no-cc.h"
#include "rdma-wire-sizes.h"
#include "roce-aeth-header.h"
#include "roce-bth-header.h"
#include "roce-reth-header.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/fabric-enum-accessor.h"
#include "ns3/fabric-tx-time.h"
#include "ns3/ib-credit-flow-control.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNic");
NS_OBJECT_ENSURE_REGISTERED(RdmaNic);

using namespace rdmawire;

namespace
{

/// Rebuild the RoCEv2 transport headers of a frame for pcap/ascii (L4_ROCE materializer).
Ptr<Packet>
MaterializeRoce(const FabricFrame& f)
{
    const uint8_t op = static_cast<uint8_t>(f.aux[0]);
    Ptr<Packet> p = Create<Packet>(f.payloadBytes + kIcrc);
    if (op == RoceBthHeader::ACKNOWLEDGE)
    {
        RoceAethHeader aeth;
        aeth.m_syndrome = static_cast<uint8_t>(f.aux[2]);
        aeth.m_msn = f.aux[3] & 0xffffff;
        p->AddHeader(aeth);
    }
    else if (op == RoceBthHeader::CNP || op == RoceBthHeader::IB_CNP)
    {
        p->AddPaddingAtEnd(0);
        Ptr<Packet> pad = Create<Packet>(kCnpPad);
        p->AddAtEnd(pad);
    }
    else if (RoceBthHeader::HasReth(op))
    {
        RoceRethHeader reth;
        reth.m_length = f.aux[3];
        p->AddHeader(reth);
    }
    if (f.telemetry)
    {
        // HPCC's INT header: counted on the wire, shown as trailing bytes after the ICRC.
        p->AddAtEnd(Create<Packet>(FabricIntStack::kWireBytes));
    }
    RoceBthHeader bth;
    bth.SetOpcode(op);
    bth.SetDestQp(f.aux[1]);
    bth.SetPsn(f.seq);
    bth.SetAckRequest(f.aux[2] & kAckReqFlag && RoceBthHeader::IsData(op));
    bth.SetBecn(op == RoceBthHeader::CNP || op == RoceBthHeader::IB_CNP);
    p->AddHeader(bth);
    return p;
}

} // namespace

TypeId
RdmaNic::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaNic")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<RdmaNic>()
            .AddAttribute("PathMtu",
                          "RoCE path MTU: payload bytes per packet (256, 512, 1024, 2048, 4096).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&RdmaNic::m_pathMtu),
                          MakeUintegerChecker<uint32_t>(256, 4096))
            .AddAttribute("DataDscp",
                          "DSCP of data and ACKs (26 = AF31, priority 3, the RoCE default).",
                          UintegerValue(26),
                          MakeUintegerAccessor(&RdmaNic::m_dataDscp),
                          MakeUintegerChecker<uint8_t>(0, 63))
            .AddAttribute("BecnInterval",
                          "InfiniBand only: minimum time between BECNs (CNPs) of one queue pair; "
                          "IBA Annex A10 returns one per FECN-marked packet (0).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaNic::m_becnInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("UseGrh",
                          "InfiniBand only: data packets carry a 40-byte GRH (needed across "
                          "subnets; not inside one fat-tree subnet).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaNic::m_useGrh),
                          MakeBooleanChecker())
            .AddAttribute("CnpDscp",
                          "DSCP of CNPs (48 = CS6, priority 6: NVIDIA default).",
                          UintegerValue(48),
                          MakeUintegerAccessor(&RdmaNic::m_cnpDscp),
                          MakeUintegerChecker<uint8_t>(0, 63))
            .AddAttribute("AckInterval",
                          "ACK coalescing: at most this long after an in-order packet before it "
                          "is acknowledged (0 = acknowledge every packet).",
                          TimeValue(MicroSeconds(2)),
                          MakeTimeAccessor(&RdmaNic::m_ackInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("CnpInterval",
                          "Minimum time between CNPs of one queue pair (DCQCN paper 50 us; "
                          "NVIDIA firmware 4 us).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&RdmaNic::m_cnpInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RetransmitTimeout",
                          "Retransmission timeout: 4.096 us x 2^14 = 67.1 ms is the common "
                          "ibverbs QP timeout (IRN uses ~100 us).",
                          TimeValue(NanoSeconds(4096ULL << 14)),
                          MakeTimeAccessor(&RdmaNic::m_rto),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RetryCount",
                          "Retransmission timeouts tolerated before the QP enters error (7 is "
                          "the ibverbs maximum).",
                          UintegerValue(7),
                          MakeUintegerAccessor(&RdmaNic::m_retryCount),
                          MakeUintegerChecker<uint32_t>(0, 1000))
            .AddAttribute("TimeoutBackoff",
                          "Double the timeout after each expiry (InfiniBand: no).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaNic::m_backoff),
                          MakeBooleanChecker())
            .AddAttribute("NicTxLatency",
                          "NIC processing before a message's first packet (UNCONFIRMED).",
                          TimeValue(NanoSeconds(300)),
                          MakeTimeAccessor(&RdmaNic::m_nicTxLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("NicRxLatency",
                          "NIC receive processing per packet (UNCONFIRMED).",
                          TimeValue(NanoSeconds(300)),
                          MakeTimeAccessor(&RdmaNic::m_nicRxLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PcieLatency",
                          "One-way PCIe latency NIC <-> GPU/host memory (UNCONFIRMED).",
                          TimeValue(NanoSeconds(250)),
                          MakeTimeAccessor(&RdmaNic::m_pcieLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PcieBandwidth",
                          "PCIe bandwidth per direction (Gen5 x16: 63 GB/s raw).",
                          DataRateValue(DataRate("504Gbps")),
                          MakeDataRateAccessor(&RdmaNic::m_pcieBandwidth),
                          MakeDataRateChecker())
            .AddAttribute("GpuDirect",
                          "GPUDirect RDMA: the NIC reads/writes GPU memory over PCIe P2P; off: "
                          "an extra host bounce copy on each side.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaNic::m_gpuDirect),
                          MakeBooleanChecker())
            .AddAttribute("CongestionControl",
                          "Congestion control of new queue pairs (an RdmaCongestionOps TypeId).",
                          TypeIdValue(RdmaDcqcn::GetTypeId()),
                          MakeTypeIdAccessor(&RdmaNic::m_ccType),
                          MakeTypeIdChecker())
            .AddAttribute("LossRecovery",
                          "Loss recovery of new queue pairs (an RdmaLossRecovery TypeId).",
                          TypeIdValue(RdmaGoBackN::GetTypeId()),
                          MakeTypeIdAccessor(&RdmaNic::m_recoveryType),
                          MakeTypeIdChecker())
            .AddAttribute("PortSelection",
                          "Home port of a queue pair created without one, on a NIC of several "
                          "ports: RoundRobin (ports in turn, as ConnectX's RoCE LAG assigns "
                          "queue pairs) or Hash (of the queue pair's flow).",
                          EnumValue(PORT_ROUND_ROBIN),
                          MakeFabricEnumAccessor<PortSelection>(&RdmaNic::m_portSelection),
                          MakeEnumChecker(PORT_ROUND_ROBIN, "RoundRobin", PORT_HASH, "Hash"))
            .AddAttribute("PortFailover",
                          "A queue pair whose port's link goes down sends on the next port "
                          "that is up, and returns to its home port when that comes back "
                          "(a LAG's port failover; HPN's NIC keeps the QP context on both).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaNic::m_portFailover),
                          MakeBooleanChecker())
            .AddAttribute("MigrateOnTimeout",
                          "A queue pair moves to the next port that is up after each "
                          "retransmission timeout (InfiniBand's automatic path migration): "
                          "around a failure beyond its own link, e.g. the peer's leaf in one "
                          "plane of a multi-plane fabric.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaNic::m_migrateOnTimeout),
                          MakeBooleanChecker())
            .AddTraceSource("QpError",
                            "A queue pair exhausted its retries and entered the error state.",
                            MakeTraceSourceAccessor(&RdmaNic::m_qpErrorTrace),
                            "ns3::RdmaNic::QpErrorTracedCallback")
            .AddTraceSource("Completion",
                            "A request of any queue pair of this NIC completed (requester).",
                            MakeTraceSourceAccessor(&RdmaNic::m_completionTrace),
                            "ns3::RdmaQueuePair::CompletionTracedCallback")
            .AddTraceSource("PortChange",
                            "A queue pair moved to another port (qpn, from, to): failover, "
                            "return to its home port, or migration after a timeout.",
                            MakeTraceSourceAccessor(&RdmaNic::m_portChangeTrace),
                            "ns3::RdmaNic::PortChangeTracedCallback");
    return tid;
}

RdmaNic::RdmaNic()
{
    FabricFrame::RegisterL4Materializer(FabricFrame::L4_ROCE, &MaterializeRoce);
}

RdmaNic::~RdmaNic() = default;

void
RdmaNic::DoDispose()
{
    for (auto& qp : m_qps)
    {
        qp->Dispose();
    }
    m_qps.clear();
    for (auto& port : m_ports)
    {
        port->wakeEvent.Cancel();
        port->active.clear();
        port->device->RemoveFrameSource(port.get());
        port->device = nullptr;
    }
    m_ports.clear();
    m_dev = nullptr;
    m_latency = nullptr;
    Object::DoDispose();
}

void
RdmaNic::Attach(Ptr<FabricNetDevice> device)
{
    const bool ib = device->GetLinkLayer() == FabricNetDevice::INFINIBAND;
    NS_ABORT_MSG_IF(!m_ports.empty() && ib != m_ib,
                    "RdmaNic: every port of a NIC has the same link layer");
    NS_ABORT_MSG_IF(m_ports.size() >= 255, "RdmaNic: at most 255 ports");
    auto port = std::make_unique<Port>();
    port->nic = this;
    port->index = static_cast<uint32_t>(m_ports.size());
    port->device = device;
    port->dev = PeekPointer(device);
    if (m_ports.empty())
    {
        m_dev = port->dev;
    }
    // On InfiniBand the descriptor's UDP port is only the local demultiplexing key: the wire
    // carries LRH (+GRH) + BTH, and l3Bytes counts no IPv4/UDP header.
    device->RegisterUdpHandler(RoceBthHeader::UDP_PORT, MakeCallback(&RdmaNic::Receive, this));
    device->SetReceiveLatency(m_nicRxLatency);
    device->AddLinkChangeCallback(MakeCallback(&RdmaNic::PortLinkChanged, this).Bind(port->index));
    m_ib = ib;
    m_ports.push_back(std::move(port));
}

uint32_t
RdmaNic::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

void
RdmaNic::AddSource(Port& port, uint8_t prio)
{
    if (!((port.prioMask >> prio) & 1U))
    {
        port.prioMask |= static_cast<uint8_t>(1U << prio);
        port.dev->AddFrameSource(&port, prio);
    }
}

uint32_t
RdmaNic::NextLivePort(uint32_t from) const
{
    const uint32_t n = GetNPorts();
    for (uint32_t i = 1; i < n; ++i)
    {
        const uint32_t p = (from + i) % n;
        if (m_ports[p]->dev->IsUp())
        {
            return p;
        }
    }
    return from;
}

void
RdmaNic::MoveQueuePair(RdmaQueuePair* qp, uint32_t to)
{
    const uint32_t from = qp->m_port;
    if (to == from)
    {
        return;
    }
    Port& old = *m_ports[from];
    if (qp->m_active)
    {
        old.active.erase(std::remove(old.active.begin(), old.active.end(), qp), old.active.end());
        old.rr = 0;
        old.rrBurst = 0;
        qp->m_active = false;
    }
    qp->m_port = to;
    Port& port = *m_ports[to];
    AddSource(port, qp->m_priority);
    ++m_counters.portChanges;
    m_portChangeTrace(qp->m_qpn, from, to);
    if (!qp->m_error)
    {
        Activate(qp);
    }
}

void
RdmaNic::PortLinkChanged(uint32_t port)
{
    if (!m_portFailover || GetNPorts() < 2)
    {
        return;
    }
    if (!m_ports[port]->dev->IsUp())
    {
        const uint32_t to = NextLivePort(port);
        for (auto& qp : m_qps)
        {
            if (qp->m_replyPort == port)
            {
                qp->m_replyPort = to;
            }
            if (qp->m_port == port)
            {
                MoveQueuePair(PeekPointer(qp), to);
            }
        }
        return;
    }
    // Back home; and whatever is stranded on a port that is down (every port was) comes here.
    for (auto& qp : m_qps)
    {
        if (!m_ports[qp->m_replyPort]->dev->IsUp())
        {
            qp->m_replyPort = port;
        }
        if (qp->m_homePort == port || !m_ports[qp->m_port]->dev->IsUp())
        {
            MoveQueuePair(PeekPointer(qp), port);
        }
    }
}

bool
RdmaNic::IsInfiniBand() const
{
    return m_ib;
}

uint32_t
RdmaNic::GetMaxPacketWireBytes() const
{
    FabricFrame f;
    f.l3Bytes = NetworkHeaderBytes() + kBth + kReth + m_pathMtu + kIcrc;
    return m_dev->WireBytes(f);
}

void
RdmaNic::StartCongestionControl(Ptr<RdmaQueuePair> qp)
{
    ObjectFactory cc = m_ccFactory;
    if (cc.GetTypeId() == TypeId())
    {
        cc.SetTypeId(m_ccType);
    }
    qp->m_cc = cc.Create<RdmaCongestionOps>();
    qp->m_cc->Init(qp);
    qp->m_telemetry = qp->m_cc->WantsTelemetry();
}

void
RdmaNic::RestartCongestionControl(Ptr<RdmaQueuePair> qp)
{
    NS_ABORT_MSG_IF(qp->m_nic != this, "RdmaNic: the queue pair belongs to another NIC");
    NS_ABORT_MSG_IF(!qp->m_sendQueue.empty() || qp->m_sndUna != qp->m_sndNxt,
                    "RdmaNic: RestartCongestionControl needs an idle queue pair");
    if (qp->m_cc)
    {
        qp->m_cc->Stop();
    }
    qp->m_rateBps = qp->m_lineRate.GetBitRate();
    qp->m_window = 0;
    // No gap left by the last packet at the old rate: the next message starts at once.
    qp->m_nextTxStep = Simulator::Now().GetTimeStep();
    qp->m_nextTxFs = 0;
    StartCongestionControl(qp);
}

uint32_t
RdmaNic::GetDataWireBytes(uint32_t payload, bool first, bool telemetry) const
{
    FabricFrame f;
    f.l3Bytes = NetworkHeaderBytes() + kBth + (first ? kReth : 0) + payload + kIcrc +
                (telemetry ? FabricIntStack::kWireBytes : 0);
    return m_dev->WireBytes(f);
}

uint32_t
RdmaNic::GetAckWireBytes(bool telemetry) const
{
    FabricFrame f;
    f.l3Bytes =
        NetworkHeaderBytes() + kBth + kAeth + kIcrc + (telemetry ? FabricIntStack::kWireBytes : 0);
    return m_dev->WireBytes(f);
}

uint32_t
RdmaNic::NetworkHeaderBytes() const
{
    if (m_ib)
    {
        return m_useGrh ? 40 : 0;
    }
    return kIpUdp;
}

uint8_t
RdmaNic::PriorityOf(uint8_t dscp) const
{
    const uint8_t level = static_cast<uint8_t>(dscp >> 3);
    if (m_ib)
    {
        // The service level maps to a data VL through the fabric's SL-to-VL table.
        auto* fc = dynamic_cast<IbCreditFlowControl*>(PeekPointer(m_dev->GetFlowControl()));
        return fc ? fc->GetVl(level) : level;
    }
    return level;
}

Ptr<FabricNetDevice>
RdmaNic::GetDevice(uint32_t port) const
{
    return port < m_ports.size() ? m_ports[port]->device : nullptr;
}

void
RdmaNic::SetCongestionControl(ObjectFactory factory)
{
    m_ccFactory = factory;
}

void
RdmaNic::SetLossRecovery(ObjectFactory factory)
{
    m_recoveryFactory = factory;
}

uint32_t
RdmaNic::GetPathMtu() const
{
    return m_pathMtu;
}

Time
RdmaNic::GetRequesterDelay(uint64_t bytes) const
{
    Time d = m_nicTxLatency + m_pcieLatency;
    if (!m_gpuDirect)
    {
        d += m_pcieLatency + FabricTxTime(m_pcieBandwidth, bytes);
    }
    return d;
}

Time
RdmaNic::GetResponderDelay(uint64_t bytes) const
{
    Time d = m_pcieLatency;
    if (!m_gpuDirect)
    {
        d += m_pcieLatency + FabricTxTime(m_pcieBandwidth, bytes);
    }
    return d;
}

const RdmaNicCounters&
RdmaNic::GetCounters() const
{
    return m_counters;
}

Ptr<RdmaQueuePair>
RdmaNic::CreateQueuePair(Ipv4Address remote, uint8_t dscp, uint32_t port)
{
    NS_ABORT_MSG_IF(!m_dev, "RdmaNic: attach to a FabricNetDevice first");
    NS_ABORT_MSG_IF(m_qps.size() >= 0xfffffe, "RdmaNic: out of queue pair numbers");
    NS_ABORT_MSG_IF(port != kAnyPort && port >= GetNPorts(),
                    "RdmaNic: no port " << port << " (the NIC has " << GetNPorts() << ")");
    Ptr<RdmaQueuePair> qp = CreateObject<RdmaQueuePair>();
    qp->m_nic = this;
    qp->m_qpn = static_cast<uint32_t>(m_qps.size() + 1);
    qp->m_local = m_dev->GetIpv4Address();
    qp->m_remote = remote;
    qp->m_dscp = dscp ? dscp : m_dataDscp;
    qp->m_priority = PriorityOf(qp->m_dscp);
    m_cnpPriority = PriorityOf(m_cnpDscp);
    const uint32_t nodeId = m_dev->GetNode() ? m_dev->GetNode()->GetId() : 0;
    qp->m_flowId = (nodeId << 16) | (qp->m_qpn & 0xffff);
    // Per-QP UDP source port: RoCEv2's ECMP entropy (49152..65535).
    qp->m_udpSport =
        static_cast<uint16_t>(49152 + FabricMix32((nodeId << 12) ^ qp->m_qpn ^ 0x40c3) % 16384);
    if (port == kAnyPort)
    {
        port = m_portSelection == PORT_HASH ? FabricMix32(qp->m_flowId ^ 0x5bd1e995) % GetNPorts()
                                            : m_nextPort++ % GetNPorts();
    }
    qp->m_homePort = port;
    qp->m_port = m_portFailover && !m_ports[port]->dev->IsUp() ? NextLivePort(port) : port;
    qp->m_replyPort = qp->m_port;
    // Every port of a NIC has its rate (a multi-plane NIC: LinkRate / planes).
    const uint64_t line = std::min(m_ports[qp->m_port]->dev->GetDataRate().GetBitRate(),
                                   m_pcieBandwidth.GetBitRate());
    qp->m_lineRate = DataRate(line);
    qp->m_lineRateBps = line;
    qp->m_rateBps = line;
    qp->m_localBits = qp->m_local.Get();
    qp->m_remoteBits = qp->m_remote.Get();
    FabricFrame tuple;
    tuple.src = qp->m_localBits;
    tuple.dst = qp->m_remoteBits;
    tuple.srcPort = qp->m_udpSport;
    tuple.dstPort = RoceBthHeader::UDP_PORT;
    tuple.protocol = 17;
    tuple.ComputeFlowHash();
    qp->m_flowHash = tuple.flowHash;
    ObjectFactory rec = m_recoveryFactory;
    if (rec.GetTypeId() == TypeId())
    {
        rec.SetTypeId(m_recoveryType);
    }
    qp->m_recovery = rec.Create<RdmaLossRecovery>();
    StartCongestionControl(qp);
    m_qps.push_back(qp);
    AddSource(*m_ports[qp->m_port], qp->m_priority);
    return qp;
}

void
RdmaNic::Connect(Ptr<RdmaQueuePair> a, Ptr<RdmaQueuePair> b)
{
    a->m_peerQpn = b->m_qpn;
    b->m_peerQpn = a->m_qpn;
}

uint32_t
RdmaNic::GetNQueuePairs() const
{
    return static_cast<uint32_t>(m_qps.size());
}

Ptr<RdmaQueuePair>
RdmaNic::GetQueuePair(uint32_t qpn) const
{
    return qpn >= 1 && qpn <= m_qps.size() ? m_qps[qpn - 1] : nullptr;
}

} // namespace ns3

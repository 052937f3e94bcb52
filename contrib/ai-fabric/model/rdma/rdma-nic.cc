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
            .AddTraceSource("QpError",
                            "A queue pair exhausted its retries and entered the error state.",
                            MakeTraceSourceAccessor(&RdmaNic::m_qpErrorTrace),
                            "ns3::RdmaNic::QpErrorTracedCallback")
            .AddTraceSource("Completion",
                            "A request of any queue pair of this NIC completed (requester).",
                            MakeTraceSourceAccessor(&RdmaNic::m_completionTrace),
                            "ns3::RdmaQueuePair::CompletionTracedCallback");
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
    m_wakeEvent.Cancel();
    for (auto& qp : m_qps)
    {
        qp->Dispose();
    }
    m_qps.clear();
    m_active.clear();
    if (m_device)
    {
        m_device->RemoveFrameSource(this);
    }
    m_device = nullptr;
    m_dev = nullptr;
    m_latency = nullptr;
    Object::DoDispose();
}

void
RdmaNic::Attach(Ptr<FabricNetDevice> device)
{
    m_device = device;
    m_dev = PeekPointer(device);
    // On InfiniBand the descriptor's UDP port is only the local demultiplexing key: the wire
    // carries LRH (+GRH) + BTH, and l3Bytes counts no IPv4/UDP header.
    device->RegisterUdpHandler(RoceBthHeader::UDP_PORT, MakeCallback(&RdmaNic::Receive, this));
    device->SetReceiveLatency(m_nicRxLatency);
    m_ib = device->GetLinkLayer() == FabricNetDevice::INFINIBAND;
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
RdmaNic::GetDevice() const
{
    return m_device;
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
RdmaNic::CreateQueuePair(Ipv4Address remote, uint8_t dscp)
{
    NS_ABORT_MSG_IF(!m_dev, "RdmaNic: attach to a FabricNetDevice first");
    NS_ABORT_MSG_IF(m_qps.size() >= 0xfffffe, "RdmaNic: out of queue pair numbers");
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
    const uint64_t line = std::min(m_dev->GetDataRate().GetBitRate(), m_pcieBandwidth.GetBitRate());
    qp->m_lineRate = DataRate(line);
    qp->m_rateBps = line;
    ObjectFactory rec = m_recoveryFactory;
    if (rec.GetTypeId() == TypeId())
    {
        rec.SetTypeId(m_recoveryType);
    }
    qp->m_recovery = rec.Create<RdmaLossRecovery>();
    StartCongestionControl(qp);
    m_qps.push_back(qp);
    if (!((m_prioMask >> qp->m_priority) & 1U))
    {
        m_prioMask |= static_cast<uint8_t>(1U << qp->m_priority);
        m_dev->AddFrameSource(this, qp->m_priority);
    }
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

// SPDX-License-Identifier: GPL-2.0-only
// UetNic's setup: attributes, attachment, PDC creation, message posting and the pcap view of
// UET frames. The per-packet send and receive paths are in uet-nic-datapath.cc.
#include "uet-nic.h"

#include "uet-header-sizes.h"
#include "uet-nscc.h"
#include "uet-reps.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("UetNic");
NS_OBJECT_ENSURE_REGISTERED(UetNic);

using namespace uetwire;

namespace
{

/// What follows the UDP header of a UET frame, for pcap/ascii: the PDS prologue (type, flags),
/// the PSN, the PDC ids, then zeros for the rest of the PDS/SES headers and the payload.
Ptr<Packet>
MaterializeUet(const FabricFrame& f)
{
    const uint32_t size = f.l3Bytes > kIpUdp ? f.l3Bytes - kIpUdp : 0;
    uint8_t hdr[12] = {};
    const uint32_t type = f.aux[0] & kTypeMask;
    // prologue: type (5 bits) and next header (4 bits) + flags, as uet_pds_prlg packs them
    hdr[0] = static_cast<uint8_t>((type == DATA ? 2 : type == ACK ? 8 : 10) << 3);
    hdr[1] = static_cast<uint8_t>((f.aux[0] >> 4) & 0xff);
    hdr[4] = static_cast<uint8_t>(f.seq >> 24);
    hdr[5] = static_cast<uint8_t>(f.seq >> 16);
    hdr[6] = static_cast<uint8_t>(f.seq >> 8);
    hdr[7] = static_cast<uint8_t>(f.seq);
    hdr[8] = static_cast<uint8_t>(f.aux[1] >> 8);
    hdr[9] = static_cast<uint8_t>(f.aux[1]);
    hdr[10] = static_cast<uint8_t>(f.aux[1] >> 24);
    hdr[11] = static_cast<uint8_t>(f.aux[1] >> 16);
    const uint32_t n = std::min<uint32_t>(size, sizeof(hdr));
    Ptr<Packet> p = Create<Packet>(hdr, n);
    if (size > n)
    {
        p->AddAtEnd(Create<Packet>(size - n));
    }
    return p;
}

} // namespace

TypeId
UetNic::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::UetNic")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<UetNic>()
            .AddAttribute("Mtu",
                          "Payload bytes of a full data packet (4096: 4180 B IPv4 packets).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&UetNic::m_mtu),
                          MakeUintegerChecker<uint32_t>(256, 9000))
            .AddAttribute("AckBytes",
                          "The target acknowledges every this many data bytes (htsim 16 KiB).",
                          UintegerValue(16384),
                          MakeUintegerAccessor(&UetNic::m_ackBytes),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("AckDelay",
                          "Data held back by coalescing is acknowledged at the latest this long "
                          "after its first packet (0: only AckBytes and the immediate cases).",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&UetNic::m_ackDelay),
                          MakeTimeChecker())
            .AddAttribute("Ordered",
                          "ROD (reliable ordered delivery) instead of RUD (unordered).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&UetNic::m_ordered),
                          MakeBooleanChecker())
            .AddAttribute("RetransmitTimeout",
                          "A packet unacknowledged this long after it was sent is resent "
                          "(htsim: 15 us + 6 x a queue's drain time; 50 us suits 1 BDP queues "
                          "at 400 Gb/s).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&UetNic::m_rtoTime),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MaxRetransmissions",
                          "A packet sent this many times without an ACK stops its PDC "
                          "(its messages never complete).",
                          UintegerValue(32),
                          MakeUintegerAccessor(&UetNic::m_maxRetx),
                          MakeUintegerChecker<uint32_t>(1, 255))
            .AddAttribute("NetworkRtt",
                          "Unloaded RTT of the fabric's longest path (NSCC's BDP and "
                          "base RTT before the first sample).",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&UetNic::m_networkRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("Trimming",
                          "The switches trim (NSCC's target delay: 0.75 x RTT, else 1 x RTT).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&UetNic::m_trimming),
                          MakeBooleanChecker())
            .AddAttribute("EntropyValues",
                          "EVs a PDC's load balancer uses, a power of two (htsim 64).",
                          UintegerValue(64),
                          MakeUintegerAccessor(&UetNic::m_paths),
                          MakeUintegerChecker<uint16_t>(1, 32768))
            .AddAttribute("DataPriority",
                          "Traffic class of data packets (lossy unless PFC covers it).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&UetNic::m_dataPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("AckPriority",
                          "Traffic class of ACKs and NACKs (UEC: a separate DSCP).",
                          UintegerValue(6),
                          MakeUintegerAccessor(&UetNic::m_ackPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("PostLatency",
                          "From posting a message to the NIC reading it (NIC 300 ns + PCIe "
                          "250 ns, as RdmaNic's defaults).",
                          TimeValue(NanoSeconds(550)),
                          MakeTimeAccessor(&UetNic::m_postLatency),
                          MakeTimeChecker())
            .AddAttribute("DeliverLatency",
                          "From a message's last packet arriving to it being in memory "
                          "(NIC 300 ns + PCIe 250 ns).",
                          TimeValue(NanoSeconds(550)),
                          MakeTimeAccessor(&UetNic::m_deliverLatency),
                          MakeTimeChecker())
            .AddAttribute("ReceiveRate",
                          "Rate at which the target moves received payload into memory (PCIe, "
                          "host memory); 0 bit/s: as fast as it arrives. Below the line rate a "
                          "backlog builds, messages complete when their last byte is in memory, "
                          "and ACKs carry back-pressure (BackPressureLow/High).",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&UetNic::m_rxRate),
                          MakeDataRateChecker())
            .AddAttribute("BackPressureLow",
                          "Backlog (payload bytes waiting for memory) at which ACKs start to "
                          "carry back-pressure: 0 = a quarter of line rate x NetworkRtt. The "
                          "specification leaves the mapping to the implementation.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&UetNic::m_bpLow),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("BackPressureHigh",
                          "Backlog at which the back-pressure is full (127 of 127: the sender "
                          "takes 127/128 of what each ACK acknowledges off its window): 0 = line "
                          "rate x NetworkRtt; above BackPressureLow.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&UetNic::m_bpHigh),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("CongestionControl",
                          "TypeId of each PDC's congestion control (a UetCongestionOps).",
                          TypeIdValue(UetNscc::GetTypeId()),
                          MakeTypeIdAccessor(&UetNic::m_ccType),
                          MakeTypeIdChecker())
            .AddAttribute("LoadBalancer",
                          "TypeId of each PDC's load balancer (a UetLoadBalancer).",
                          TypeIdValue(UetReps::GetTypeId()),
                          MakeTypeIdAccessor(&UetNic::m_lbType),
                          MakeTypeIdChecker())
            .AddTraceSource("TrimNack",
                            "A NACK for a trimmed packet arrived: (PDC id, PSN).",
                            MakeTraceSourceAccessor(&UetNic::m_trimNackTrace),
                            "ns3::UetNic::PdcPsnTracedCallback")
            .AddTraceSource("Timeout",
                            "The retransmission timer declared a packet lost: (PDC id, PSN).",
                            MakeTraceSourceAccessor(&UetNic::m_timeoutTrace),
                            "ns3::UetNic::PdcPsnTracedCallback")
            .AddTraceSource("PdcFailed",
                            "A PDC stopped: a packet was sent MaxRetransmissions times (PDC id).",
                            MakeTraceSourceAccessor(&UetNic::m_pdcFailedTrace),
                            "ns3::UetNic::PdcTracedCallback");
    return tid;
}

UetNic::UetNic()
{
    m_source.nic = this;
    FabricFrame::RegisterL4Materializer(kL4Uet, &MaterializeUet);
}

UetNic::~UetNic() = default;

void
UetNic::DoDispose()
{
    m_wake.Cancel();
    if (m_credits)
    {
        m_credits->Dispose();
        m_credits = nullptr;
    }
    for (auto& p : m_tx)
    {
        p->Dispose();
    }
    m_tx.clear();
    m_active.clear();
    for (auto& rx : m_rx)
    {
        rx.ackTimer.Cancel();
    }
    m_rx.clear();
    if (m_device)
    {
        m_device->RemoveFrameSource(&m_source);
    }
    m_device = nullptr;
    m_dev = nullptr;
    m_receiveCb = MakeNullCallback<void, const UetMessage&>();
    Object::DoDispose();
}

void
UetNic::Attach(Ptr<FabricNetDevice> device)
{
    NS_ABORT_MSG_IF(m_device, "UetNic: one port per NIC");
    m_device = device;
    m_dev = PeekPointer(device);
    device->AddFrameSource(&m_source, m_dataPriority);
    device->RegisterUdpHandler(kUdpPort, MakeCallback(&UetNic::Receive, this));
    m_seed = FabricMix32(
        device->GetIpv4Address().Get() ^
        static_cast<uint32_t>(RngSeedManager::GetSeed() * 2654435761U + RngSeedManager::GetRun()));
}

Ptr<FabricNetDevice>
UetNic::GetDevice() const
{
    return m_device;
}

void
UetNic::SetCongestionControl(ObjectFactory factory)
{
    m_ccFactory = factory;
}

void
UetNic::SetLoadBalancer(ObjectFactory factory)
{
    m_lbFactory = factory;
}

Ptr<UetPdc>
UetNic::CreatePdc(Ipv4Address remote, uint32_t flowId)
{
    NS_ABORT_MSG_IF(!m_device, "UetNic: CreatePdc before Attach");
    NS_ABORT_MSG_IF(m_tx.size() >= 0xffff, "UetNic: at most 65535 PDCs per NIC");
    Ptr<UetPdc> pdc = CreateObject<UetPdc>();
    pdc->m_nic = this;
    pdc->m_id = static_cast<uint32_t>(m_tx.size());
    pdc->m_local = m_device->GetIpv4Address();
    pdc->m_remote = remote;
    pdc->m_flowId = flowId;
    if (m_ccFactory.GetTypeId() == TypeId())
    {
        m_ccFactory.SetTypeId(m_ccType);
    }
    if (m_lbFactory.GetTypeId() == TypeId())
    {
        m_lbFactory.SetTypeId(m_lbType);
    }
    pdc->m_cc = m_ccFactory.Create<UetCongestionOps>();
    pdc->m_lb = m_lbFactory.Create<UetLoadBalancer>();
    InitCongestionControl(pdc);
    pdc->m_lb->Init(m_paths, m_seed ^ FabricMix32(pdc->m_id + 1));
    m_tx.push_back(pdc);
    return pdc;
}

uint32_t
UetNic::GetNPdcs() const
{
    return static_cast<uint32_t>(m_tx.size());
}

void
UetNic::InitCongestionControl(Ptr<UetPdc> pdc)
{
    UetCcState& s = pdc->m_state;
    s = UetCcState();
    s.mss = m_mtu;
    s.lineRate = m_device->GetDataRate();
    s.networkRtt = m_networkRtt;
    s.baseRtt = m_networkRtt;
    s.trimming = m_trimming;
    s.mtuWire = GetDataWireBytes(m_mtu) + kPdsCcState;
    pdc->m_cc->Init(s);
}

void
UetNic::RestartCongestionControl(Ptr<UetPdc> pdc)
{
    NS_ABORT_MSG_IF(pdc->m_nic != this || pdc->m_una != pdc->m_psnEnd || !pdc->m_retx.empty(),
                    "UetNic::RestartCongestionControl: the PDC is not this NIC's or not idle");
    pdc->m_cc = m_ccFactory.Create<UetCongestionOps>(); // a new PDC's: no state carried over
    InitCongestionControl(pdc);
}

Time
UetNic::GetPostLatency() const
{
    return m_postLatency;
}

Ptr<UetPdc>
UetNic::GetPdc(uint32_t id) const
{
    return id < m_tx.size() ? m_tx[id] : nullptr;
}

void
UetNic::SetReceiveCallback(Callback<void, const UetMessage&> cb)
{
    m_receiveCb = cb;
}

uint32_t
UetNic::GetMtu() const
{
    return m_mtu;
}

uint32_t
UetNic::GetDataWireBytes(uint32_t payload) const
{
    FabricFrame f;
    f.l3Bytes = kDataHeaders + payload;
    return m_dev->WireBytes(f);
}

uint32_t
UetNic::GetAckWireBytes() const
{
    FabricFrame f;
    f.l3Bytes = kAck;
    return m_dev->WireBytes(f);
}

const UetNicCounters&
UetNic::GetCounters() const
{
    return m_counters;
}

Ptr<UetCreditScheduler>
UetNic::GetCreditScheduler() const
{
    return m_credits;
}

uint64_t
UetNic::Post(UetPdc* pdc, uint64_t bytes)
{
    NS_ABORT_MSG_IF(bytes == 0, "UetNic: empty message");
    const uint64_t pkts = (bytes + m_mtu - 1) / m_mtu;
    NS_ABORT_MSG_IF(pkts > 0x7fffffffULL, "UetNic: message of " << bytes << " bytes too large");
    UetPdc::TxMsg m;
    m.bytes = bytes;
    m.pkts = static_cast<uint32_t>(pkts);
    m.unacked = m.pkts;
    m.readyStep = (Simulator::Now() + m_postLatency).GetTimeStep();
    pdc->m_msgs.push_back(m);
    pdc->m_psnEnd += m.pkts;
    pdc->m_newBytes += bytes;
    const uint64_t id = pdc->m_nextMsgId++;
    Activate(pdc);
    MaybeRequestCredit(pdc);
    return id;
}

uint64_t
UetNic::Backlog(int64_t now) const
{
    return m_rxDrainEnd <= now ? 0
                               : static_cast<uint64_t>(double(m_rxRate.GetBitRate()) / 8 *
                                                       TimeStep(m_rxDrainEnd - now).GetSeconds());
}

int64_t
UetNic::Drain(uint32_t bytes)
{
    const int64_t now = Simulator::Now().GetTimeStep();
    m_rxDrainEnd = std::max(m_rxDrainEnd, now) + m_rxRate.CalculateBytesTxTime(bytes).GetTimeStep();
    m_counters.peakReceiveBacklog = std::max(m_counters.peakReceiveBacklog, Backlog(now));
    return m_rxDrainEnd;
}

uint8_t
UetNic::ReceiverPressure()
{
    const double backlog = double(Backlog(Simulator::Now().GetTimeStep()));
    const double bdp = double(m_dev->GetDataRate().GetBitRate()) / 8 * m_networkRtt.GetSeconds();
    const double high = m_bpHigh > 0 ? double(m_bpHigh) : bdp;
    const double low = m_bpLow > 0 ? double(m_bpLow) : std::min(bdp / 4, high / 2);
    if (backlog <= low)
    {
        return 0;
    }
    // UEC 1.0's scale: 0 (none) .. 127 (full), linear in the backlog between low and high
    const double p = backlog >= high ? 127.0 : 127.0 * (backlog - low) / (high - low);
    return static_cast<uint8_t>(std::ceil(p));
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-swift.h"

#include "rdma-congestion-registry.h"
#include "rdma-nic.h"
#include "rdma-queue-pair.h"

#include "ns3/double.h"
#include "ns3/fabric-telemetry.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaSwift");
NS_OBJECT_ENSURE_REGISTERED(RdmaSwift);

TypeId
RdmaSwift::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaSwift")
            .SetParent<RdmaCongestionOps>()
            .SetGroupName("AiFabric")
            .AddConstructor<RdmaSwift>()
            .AddAttribute("BaseTarget",
                          "Target delay (time) of a path without switches, NIC latencies "
                          "included (our choice for 100-400 Gb/s: 2 us).",
                          TimeValue(MicroSeconds(2)),
                          MakeTimeAccessor(&RdmaSwift::m_baseTarget),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PerHopTarget",
                          "Target delay (time) added per switch on the path, h (our choice: "
                          "1.5 us).",
                          TimeValue(NanoSeconds(1500)),
                          MakeTimeAccessor(&RdmaSwift::m_perHop),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Hops",
                          "Switches on the path (0: measured per ACK, from echoed telemetry or "
                          "else the ACK's TTL).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaSwift::m_hopsAttr),
                          MakeUintegerChecker<uint32_t>(0, 64))
            .AddAttribute("FsRange",
                          "Flow-scaling range (time): the most a small window adds to the "
                          "target (our choice: 5 us).",
                          TimeValue(MicroSeconds(5)),
                          MakeTimeAccessor(&RdmaSwift::m_fsRange),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("FsMinCwnd",
                          "Window (packets) at and below which flow scaling adds FsRange (0.1, "
                          "htsim).",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&RdmaSwift::m_fsMinCwnd),
                          MakeDoubleChecker<double>(1e-6))
            .AddAttribute("FsMaxCwnd",
                          "Window (packets) from which flow scaling adds nothing (100, htsim).",
                          DoubleValue(100),
                          MakeDoubleAccessor(&RdmaSwift::m_fsMaxCwnd),
                          MakeDoubleChecker<double>(1e-6))
            .AddAttribute("Ai",
                          "Additive increase (packets per round trip; 1, htsim).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RdmaSwift::m_ai),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("Beta",
                          "Multiplicative decrease constant beta (dimensionless; 0.8, htsim).",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&RdmaSwift::m_beta),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("MaxMdf",
                          "Largest multiplicative decrease per event (fraction; 0.5, htsim).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&RdmaSwift::m_maxMdf),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("MinCwnd",
                          "Smallest window (packets; 0.001).",
                          DoubleValue(0.001),
                          MakeDoubleAccessor(&RdmaSwift::m_minCwnd),
                          MakeDoubleChecker<double>(1e-9))
            .AddAttribute("MaxCwnd",
                          "Largest window (packets; 0: line rate x target delay / PathMtu).",
                          DoubleValue(0),
                          MakeDoubleAccessor(&RdmaSwift::m_maxCwndAttr),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("InitialCwnd",
                          "Window at start (packets; 0: line rate x BaseTarget (+ Hops x "
                          "PerHopTarget) / PathMtu).",
                          DoubleValue(0),
                          MakeDoubleAccessor(&RdmaSwift::m_initialCwnd),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("RetxResetThreshold",
                          "Retransmission timeouts in a row after which cwnd = MinCwnd (5, "
                          "htsim).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RdmaSwift::m_retxResetThreshold),
                          MakeUintegerChecker<uint32_t>(1))
            .AddTraceSource("Cwnd",
                            "Swift's congestion window (packets).",
                            MakeTraceSourceAccessor(&RdmaSwift::m_cwnd),
                            "ns3::TracedValueCallback::Double")
            .AddTraceSource("Delay",
                            "Every ACK's RTT sample and the target delay it was held against.",
                            MakeTraceSourceAccessor(&RdmaSwift::m_delayTrace),
                            "ns3::RdmaSwift::DelayTracedCallback");
    return tid;
}

RdmaSwift::RdmaSwift() = default;
RdmaSwift::~RdmaSwift() = default;

std::string
RdmaSwift::GetName() const
{
    return "swift";
}

double
RdmaSwift::GetCwnd() const
{
    return m_cwnd.Get();
}

Time
RdmaSwift::GetTargetDelay() const
{
    return m_target;
}

Time
RdmaSwift::GetLastDelay() const
{
    return m_lastDelay;
}

Time
RdmaSwift::ComputeTargetDelay(double cwnd, uint32_t hops) const
{
    const double fsMax = m_fsRange.GetSeconds();
    const double fs = std::clamp(m_fsA / std::sqrt(cwnd) + m_fsB, 0.0, fsMax);
    return m_baseTarget + m_perHop * static_cast<int64_t>(hops) + Seconds(fs);
}

double
RdmaSwift::MaxCwnd(Time t) const
{
    if (m_maxCwndAttr > 0)
    {
        return m_maxCwndAttr;
    }
    return std::max(m_lineBps / 8 * t.GetSeconds() / m_mtu, 1.0);
}

void
RdmaSwift::Init(Ptr<RdmaQueuePair> qp)
{
    m_lineBps = static_cast<double>(qp->GetLineRate().GetBitRate());
    if (Ptr<RdmaNic> nic = qp->GetNic())
    {
        m_mtu = nic->GetPathMtu();
        m_pktWireBytes = nic->GetMaxPacketWireBytes();
    }
    if (m_pktWireBytes == 0)
    {
        m_pktWireBytes = m_mtu;
    }
    const double range = m_fsRange.GetSeconds();
    const double lo = 1 / std::sqrt(m_fsMinCwnd);
    const double hi = 1 / std::sqrt(m_fsMaxCwnd);
    m_fsA = lo > hi ? range / (lo - hi) : 0;
    m_fsB = -m_fsA * hi;
    const Time t0 = m_baseTarget + m_perHop * static_cast<int64_t>(m_hopsAttr);
    const double w0 = m_initialCwnd > 0 ? m_initialCwnd : MaxCwnd(t0);
    m_cwnd = w0;
    Apply(qp, w0, w0);
}

bool
RdmaSwift::CanDecrease() const
{
    return Simulator::Now().GetTimeStep() - m_lastDecreaseStep >= m_lastDelay.GetTimeStep();
}

void
RdmaSwift::AckReceived(Ptr<RdmaQueuePair> qp, const RdmaAck& ack)
{
    const double prev = m_cwnd.Get();
    if (ack.nak)
    {
        // Go-back-N found a hole: Swift's fast recovery.
        m_retransmitCount = 0;
        Apply(qp, prev, CanDecrease() ? prev * (1 - m_maxMdf) : prev);
        return;
    }
    if (ack.newlyAcked == 0 || !ack.rtt.IsStrictlyPositive())
    {
        return;
    }
    m_retransmitCount = 0;
    m_lastDelay = ack.rtt;
    const uint32_t hops = m_hopsAttr != 0 ? m_hopsAttr
                          : ack.telemetry ? ack.telemetry->GetNHops()
                                          : ack.hops;
    m_target = ComputeTargetDelay(prev, hops);
    m_delayTrace(ack.rtt, m_target);
    double next = prev;
    if (ack.rtt < m_target)
    {
        const double n = ack.newlyAcked;
        next = prev >= 1 ? prev + m_ai * n / prev : prev + m_ai * n;
    }
    else if (CanDecrease())
    {
        const double d = ack.rtt.GetSeconds();
        const double over = (ack.rtt - m_target).GetSeconds();
        next = prev * std::max(1 - m_beta * over / d, 1 - m_maxMdf);
    }
    Apply(qp, prev, next);
}

void
RdmaSwift::Timeout(Ptr<RdmaQueuePair> qp)
{
    const double prev = m_cwnd.Get();
    double next = prev;
    if (++m_retransmitCount >= m_retxResetThreshold)
    {
        next = m_minCwnd;
    }
    else if (CanDecrease())
    {
        next = prev * (1 - m_maxMdf);
    }
    Apply(qp, prev, next);
}

void
RdmaSwift::Apply(Ptr<RdmaQueuePair> qp, double prevCwnd, double cwnd)
{
    const Time t = m_target.IsStrictlyPositive()
                       ? m_target
                       : m_baseTarget + m_perHop * static_cast<int64_t>(m_hopsAttr);
    const double hi = std::max(MaxCwnd(t), m_minCwnd);
    const double w = std::clamp(cwnd, m_minCwnd, hi);
    if (w != m_cwnd.Get())
    {
        m_cwnd = w;
    }
    if (w < prevCwnd)
    {
        m_lastDecreaseStep = Simulator::Now().GetTimeStep();
    }
    if (w >= 1)
    {
        qp->SetWindow(static_cast<uint64_t>(std::llround(w * m_mtu)));
        qp->SetRate(qp->GetLineRate());
        if (m_paced)
        {
            m_paced = false;
            qp->RestartPacing();
        }
        return;
    }
    // Below one packet: one packet in flight, spaced by delay / cwnd.
    qp->SetWindow(1);
    if (m_lastDelay.IsStrictlyPositive())
    {
        const double bps = w * m_pktWireBytes * 8 / m_lastDelay.GetSeconds();
        qp->SetRate(DataRate(static_cast<uint64_t>(std::max(bps, 1.0))));
        m_paced = true;
    }
    NS_LOG_DEBUG("cwnd " << w << " paced at " << qp->GetRate());
}

namespace
{

// RTT-based, as TIMELY: every packet acknowledged (no ACK-coalescing wait in the samples).
const bool g_swiftRegistered = RdmaCongestionRegistry::Add([] {
    RdmaCongestionControlInfo e;
    e.name = "swift";
    e.typeId = "ns3::RdmaSwift";
    e.help = "RTT-based (Swift), no switch support, every packet acknowledged";
    e.nicAttributes = {{"AckInterval", "0s"}};
    return e;
}());

} // namespace

} // namespace ns3

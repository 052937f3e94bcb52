// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-timely.h"

#include "rdma-congestion-registry.h"
#include "rdma-queue-pair.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaTimely");
NS_OBJECT_ENSURE_REGISTERED(RdmaTimely);

TypeId
RdmaTimely::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaTimely")
            .SetParent<RdmaCongestionOps>()
            .SetGroupName("AiFabric")
            .AddConstructor<RdmaTimely>()
            .AddAttribute("TLow",
                          "RTT (time) below which the rate grows by delta whatever the "
                          "gradient (TIMELY paper and HPCC simulator: 50 us).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&RdmaTimely::m_tLow),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("THigh",
                          "RTT (time) above which the rate drops by beta x (1 - THigh / rtt) "
                          "(paper and HPCC simulator: 500 us).",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&RdmaTimely::m_tHigh),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MinRtt",
                          "Time that normalizes the RTT gradient (paper and HPCC simulator: "
                          "20 us).",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&RdmaTimely::m_minRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("Beta",
                          "Multiplicative decrease factor beta (dimensionless; 0.8).",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&RdmaTimely::m_beta),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("Alpha",
                          "EWMA weight of the newest RTT difference (dimensionless; 0.875: "
                          "rtt_diff = (1 - a) rtt_diff + a new_diff).",
                          DoubleValue(0.875),
                          MakeDoubleAccessor(&RdmaTimely::m_alpha),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("AddStep",
                          "Additive increase delta (bit/s per update; 0: 10 Mb/s x line rate / "
                          "10 Gb/s, the HPCC simulator's run.py).",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&RdmaTimely::m_addStepAttr),
                          MakeDataRateChecker())
            .AddAttribute("HaiThreshold",
                          "Consecutive increases (updates) after which a negative gradient adds "
                          "HaiMultiplier x delta (hyperactive increase; 5).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RdmaTimely::m_haiThreshold),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("HaiMultiplier",
                          "N of the hyperactive increase N x delta (paper: 5; the HPCC "
                          "simulator's RateHAI = 5 x RateAI).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RdmaTimely::m_haiMultiplier),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MinRate",
                          "Floor of the rate (HPCC simulator attribute: 100 Mb/s).",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&RdmaTimely::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("SegmentBytes",
                          "When to update: 0 = once per round trip, on the first ACK past the "
                          "PSN that was next to send at the previous update (HPCC simulator); "
                          "> 0 = once per this many newly acknowledged payload bytes (the "
                          "paper's 16-64 KB completion events).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaTimely::m_segmentBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddTraceSource("RateBps",
                            "TIMELY's rate (bit/s, before rounding to the queue pair's).",
                            MakeTraceSourceAccessor(&RdmaTimely::m_rateBps),
                            "ns3::TracedValueCallback::Double")
            .AddTraceSource("RttDiff",
                            "The EWMA of RTT differences, rtt_diff (seconds).",
                            MakeTraceSourceAccessor(&RdmaTimely::m_rttDiff),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

RdmaTimely::RdmaTimely() = default;
RdmaTimely::~RdmaTimely() = default;

std::string
RdmaTimely::GetName() const
{
    return "timely";
}

double
RdmaTimely::GetRateBps() const
{
    return m_rateBps.Get();
}

double
RdmaTimely::GetRttDiff() const
{
    return m_rttDiff.Get();
}

double
RdmaTimely::GetAddStepBps() const
{
    return m_delta;
}

uint32_t
RdmaTimely::GetIncreaseStreak() const
{
    return m_incStreak;
}

void
RdmaTimely::Init(Ptr<RdmaQueuePair> qp)
{
    m_lineBps = static_cast<double>(qp->GetLineRate().GetBitRate());
    m_delta = m_addStepAttr.GetBitRate() != 0 ? static_cast<double>(m_addStepAttr.GetBitRate())
                                              : 10e6 * m_lineBps / 10e9;
    m_rateBps = m_lineBps; // start at line rate, as the HPCC simulator
    qp->SetRate(qp->GetLineRate());
}

void
RdmaTimely::AckReceived(Ptr<RdmaQueuePair> qp, const RdmaAck& ack)
{
    if (ack.nak || ack.newlyAcked == 0 || !ack.rtt.IsStrictlyPositive())
    {
        return;
    }
    if (m_segmentBytes == 0)
    {
        if (ack.ackedPsn <= m_lastUpdatePsn)
        {
            return;
        }
        m_lastUpdatePsn = qp->GetSndNxt();
    }
    else
    {
        m_bytesSinceUpdate += ack.newlyAckedBytes;
        if (m_bytesSinceUpdate < m_segmentBytes)
        {
            return;
        }
        m_bytesSinceUpdate = 0;
    }
    Update(qp, ack.rtt);
}

void
RdmaTimely::Update(Ptr<RdmaQueuePair> qp, Time rttTime)
{
    const double rtt = rttTime.GetSeconds();
    if (!m_havePrev)
    {
        m_prevRtt = rtt;
        m_havePrev = true;
        return;
    }
    const double newDiff = rtt - m_prevRtt;
    m_prevRtt = rtt;
    m_rttDiff = (1 - m_alpha) * m_rttDiff.Get() + m_alpha * newDiff;
    const double gradient = m_rttDiff.Get() / m_minRtt.GetSeconds();
    double rate = m_rateBps.Get();
    if (rttTime < m_tLow)
    {
        rate += m_delta;
        ++m_incStreak;
    }
    else if (rttTime > m_tHigh)
    {
        rate *= 1 - m_beta * (1 - m_tHigh.GetSeconds() / rtt);
        m_incStreak = 0;
    }
    else if (gradient <= 0)
    {
        const double n = m_incStreak >= m_haiThreshold ? m_haiMultiplier : 1;
        rate += n * m_delta;
        ++m_incStreak;
    }
    else
    {
        rate *= std::max(0.0, 1 - m_beta * gradient);
        m_incStreak = 0;
    }
    rate = std::clamp(rate,
                      std::min(static_cast<double>(m_minRate.GetBitRate()), m_lineBps),
                      m_lineBps);
    NS_LOG_DEBUG("rtt " << rttTime << " gradient " << gradient << " rate " << rate);
    m_rateBps = rate;
    qp->SetRate(DataRate(static_cast<uint64_t>(rate + 0.5)));
}

namespace
{

// RTT-based: every packet acknowledged, so that no ACK-coalescing wait (2 us by default,
// comparable to a 400G fabric's whole delay target) enters the RTT samples; the HPCC simulator
// acks every packet for TIMELY too.
const bool g_timelyRegistered = RdmaCongestionRegistry::Add([] {
    RdmaCongestionControlInfo e;
    e.name = "timely";
    e.typeId = "ns3::RdmaTimely";
    e.help = "RTT-based (TIMELY), no switch support, every packet acknowledged";
    e.nicAttributes = {{"AckInterval", "0s"}};
    return e;
}());

} // namespace

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "uet-nscc.h"

#include "uet-registry.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("UetNscc");
NS_OBJECT_ENSURE_REGISTERED(UetNscc);

TypeId
UetNscc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::UetNscc")
            .SetParent<UetCongestionOps>()
            .SetGroupName("AiFabric")
            .AddConstructor<UetNscc>()
            .AddAttribute("ReferenceRate",
                          "Line rate of NSCC's reference network (htsim: 100 Gb/s).",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&UetNscc::m_refRate),
                          MakeDataRateChecker())
            .AddAttribute("ReferenceRtt",
                          "RTT of NSCC's reference network (htsim: 12 us; BDP_ref 150 KB).",
                          TimeValue(MicroSeconds(12)),
                          MakeTimeAccessor(&UetNscc::m_refRtt),
                          MakeTimeChecker())
            .AddAttribute("TargetDelay",
                          "Target queueing delay; 0 = TargetDelayTrimming or TargetDelayLossy "
                          "x network RTT.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&UetNscc::m_target),
                          MakeTimeChecker())
            .AddAttribute("TargetDelayTrimming",
                          "Target as a fraction of the network RTT when switches trim (htsim "
                          "0.75).",
                          DoubleValue(0.75),
                          MakeDoubleAccessor(&UetNscc::m_targetTrimming),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("TargetDelayLossy",
                          "Target as a fraction of the network RTT without trimming (htsim 1.0).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&UetNscc::m_targetLossy),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("Gamma",
                          "Multiplicative-decrease factor (htsim 0.8): cwnd x max(1 - Gamma "
                          "(D - target) / D, 0.5).",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&UetNscc::m_gamma),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("FairIncrease",
                          "Fair increase in MSS x a per acked byte, applied / cwnd (htsim 5).",
                          DoubleValue(5),
                          MakeDoubleAccessor(&UetNscc::m_fairMss),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("Eta",
                          "Additive increase in MSS x a per network RTT (htsim 0.15).",
                          DoubleValue(0.15),
                          MakeDoubleAccessor(&UetNscc::m_etaMss),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("ProportionalGain",
                          "alpha = gain x MSS x a x b / target (htsim 4).",
                          DoubleValue(4),
                          MakeDoubleAccessor(&UetNscc::m_propGain),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("FastIncreaseScale",
                          "Fast increase: cwnd += scale x a x acked bytes (htsim 0.25).",
                          DoubleValue(0.25),
                          MakeDoubleAccessor(&UetNscc::m_fastScale),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("FastIncreaseDelay",
                          "Delay below which a window of ACKs enables fast increase (htsim 1 us).",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&UetNscc::m_fastDelay),
                          MakeTimeChecker())
            .AddAttribute("DelayEwma",
                          "Weight of a new sample in the delay average (htsim 0.0125).",
                          DoubleValue(0.0125),
                          MakeDoubleAccessor(&UetNscc::m_delayEwma),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("QuickAdaptGate",
                          "Quick adapt runs if less than maxCwnd >> gate bytes were delivered "
                          "in its period (htsim 3).",
                          UintegerValue(3),
                          MakeUintegerAccessor(&UetNscc::m_qaGate),
                          MakeUintegerChecker<uint32_t>(0, 31))
            .AddAttribute("QuickAdaptFactor",
                          "Quick adapt also triggers on a delay above factor x target (htsim 4).",
                          DoubleValue(4),
                          MakeDoubleAccessor(&UetNscc::m_qaFactor),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("AdjustMtus",
                          "Pending increases are applied every this many MTU acked (htsim 8) "
                          "or once per network RTT.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&UetNscc::m_adjustMtus),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MaxWindowBdps",
                          "Initial and maximum window in BDPs (htsim 1.5).",
                          DoubleValue(1.5),
                          MakeDoubleAccessor(&UetNscc::m_maxBdps),
                          MakeDoubleChecker<double>(0.01));
    return tid;
}

std::string
UetNscc::GetName() const
{
    return "nscc";
}

void
UetNscc::Init(UetCcState& s)
{
    const double rttS = s.networkRtt.GetSeconds();
    const double bdp = s.lineRate.GetBitRate() / 8.0 * rttS;
    const double bdpRef = m_refRate.GetBitRate() / 8.0 * m_refRtt.GetSeconds();
    m_networkRttS = rttS;
    m_a = bdpRef > 0 ? bdp / bdpRef : 1.0;
    m_targetS = m_target.IsStrictlyPositive()
                    ? m_target.GetSeconds()
                    : rttS * (s.trimming ? m_targetTrimming : m_targetLossy);
    const double b = m_targetS / m_refRtt.GetSeconds();
    m_alpha = m_targetS > 0 ? m_propGain * s.mss * m_a * b / m_targetS : 0;
    m_fi = m_fairMss * s.mss * m_a;
    m_eta = m_etaMss * s.mss * m_a;
    m_fastInc = m_fastScale * m_a;
    s.minCwnd = s.mss;
    s.maxCwnd = std::max<uint64_t>(s.mss, static_cast<uint64_t>(std::llround(m_maxBdps * bdp)));
    s.cwnd = s.maxCwnd;
    m_lastAdjust = Simulator::Now().GetTimeStep();
}

void
UetNscc::Bound(UetCcState& s) const
{
    s.cwnd = std::min(std::max(s.cwnd, s.minCwnd), s.maxCwnd);
}

void
UetNscc::UpdateAverage(double delay)
{
    m_avgDelay = m_delayEwma * delay + (1 - m_delayEwma) * m_avgDelay;
}

bool
UetNscc::QuickAdapt(UetCcState& s, bool loss, bool ecn, double delay)
{
    const int64_t now = Simulator::Now().GetTimeStep();
    bool done = false;
    if (m_ignored < m_toIgnore && ecn)
    {
        done = true; // the bytes in flight at the last quick adapt carry stale marks
    }
    else if (now > m_qaEnd)
    {
        if (m_qaEnd != 0 && (m_triggerQa || loss || delay > m_qaFactor * m_targetS) &&
            m_achieved < (s.maxCwnd >> m_qaGate))
        {
            s.cwnd = std::max<uint64_t>(m_achieved, s.minCwnd);
            m_toIgnore = s.inFlight;
            m_ignored = 0;
            m_triggerQa = false;
            done = true;
        }
        m_achieved = 0;
        m_qaEnd = now + (s.baseRtt + Seconds(m_targetS)).GetTimeStep();
    }
    if (done)
    {
        m_inc = 0;
        m_received = 0;
    }
    return done;
}

void
UetNscc::Fulfil(UetCcState& s)
{
    const int64_t now = Simulator::Now().GetTimeStep();
    s.cwnd = static_cast<uint64_t>(std::max(0.0, double(s.cwnd) + m_inc / double(s.cwnd)));
    if (now - m_lastAdjust >= Seconds(m_networkRttS).GetTimeStep())
    {
        s.cwnd += static_cast<uint64_t>(m_eta);
        m_lastAdjust = now;
    }
    m_inc = 0;
    m_received = 0;
}

void
UetNscc::AckReceived(UetCcState& s, const UetAckSample& ack)
{
    const int64_t now = Simulator::Now().GetTimeStep();
    if (ack.rtt.IsStrictlyPositive() && ack.rtt < s.baseRtt)
    {
        s.baseRtt = ack.rtt;
    }
    const double delay = std::max(0.0, (ack.rtt - s.baseRtt).GetSeconds());
    UpdateAverage(delay);
    m_achieved += ack.newlyAckedBytes;
    m_received += ack.newlyAckedBytes;
    m_ignored += ack.newlyAckedBytes;
    const double acked = double(ack.newlyAckedBytes);
    if (ack.receiverPressure > 0)
    {
        // the target's back-pressure: newly acknowledged bytes x p / 128 off the window
        // (UEC 1.0's 0..127 scale; htsim applies the same cut on its inverted 0..255 scale)
        const uint64_t cut = (ack.newlyAckedBytes * ack.receiverPressure) >> 7;
        s.cwnd = s.cwnd > s.minCwnd + cut ? s.cwnd - cut : s.minCwnd;
    }
    if (QuickAdapt(s, false, ack.ecn, delay))
    {
        Bound(s);
        return; // the window was just set to what was delivered (htsim returns here too)
    }
    {
        if (!ack.ecn && delay >= m_targetS)
        {
            m_inc += m_fi * acked; // fair increase
        }
        else if (!ack.ecn)
        {
            // proportional increase, or fast increase after a window of near-zero delay
            bool fast = false;
            if (delay < m_fastDelay.GetSeconds())
            {
                m_fiCount += ack.newlyAckedBytes;
                if (m_fiCount > s.cwnd || m_increase)
                {
                    s.cwnd += static_cast<uint64_t>(acked * m_fastInc);
                    m_increase = true;
                    fast = true;
                }
            }
            else
            {
                m_fiCount = 0;
            }
            if (!fast)
            {
                m_increase = false;
                m_inc += m_alpha * acked * (m_targetS - delay);
            }
        }
        else if (delay >= m_targetS)
        {
            // multiplicative decrease on the delay average, at most once per base RTT
            m_increase = false;
            m_fiCount = 0;
            if (m_avgDelay > m_targetS && now - m_lastDec > s.baseRtt.GetTimeStep())
            {
                const double f = std::max(1 - m_gamma * (m_avgDelay - m_targetS) / m_avgDelay, 0.5);
                s.cwnd = static_cast<uint64_t>(double(s.cwnd) * f);
                m_lastDec = now;
            }
        }
        // else: ECN below the target: no change; the load balancer switches path
    }
    Bound(s);
    if (m_received > uint64_t(m_adjustMtus) * s.mss ||
        now - m_lastAdjust > Seconds(m_networkRttS).GetTimeStep())
    {
        Fulfil(s);
    }
    Bound(s);
}

void
UetNscc::NackReceived(UetCcState& s, uint32_t bytes, bool lastHop)
{
    m_ignored += bytes;
    // A trim says a queue is at least full: count it as a delay of one network RTT.
    UpdateAverage(m_networkRttS);
    m_triggerQa = true;
    // With receiver credit (NSCC + RCCC) the last hop is the credit's to pace: a trim there
    // does not shrink the window (htsim).
    if (!QuickAdapt(s, true, true, 0) && !(lastHop && s.useCredit))
    {
        s.cwnd = s.cwnd > bytes ? s.cwnd - bytes : 0;
        Bound(s);
    }
}

void
UetNscc::Timeout(UetCcState& s, uint64_t lostBytes)
{
    m_triggerQa = true;
    s.cwnd = s.cwnd > lostBytes ? s.cwnd - lostBytes : 0;
    Bound(s);
}

Time
UetNscc::GetTargetDelay() const
{
    return Seconds(m_targetS);
}

double
UetNscc::GetScalingA() const
{
    return m_a;
}

double
UetNscc::GetAlpha() const
{
    return m_alpha;
}

double
UetNscc::GetFairIncrease() const
{
    return m_fi;
}

double
UetNscc::GetEta() const
{
    return m_eta;
}

double
UetNscc::GetPendingIncrease() const
{
    return m_inc;
}

Time
UetNscc::GetAverageDelay() const
{
    return Seconds(m_avgDelay);
}

namespace
{

const bool g_nsccRegistered = UetCongestionRegistry::Add([] {
    UetCongestionInfo e;
    e.name = "nscc";
    e.typeId = "ns3::UetNscc";
    e.help = "NSCC, a sender window from ECN and delay";
    e.isDefault = true;
    return e;
}());

} // namespace

} // namespace ns3

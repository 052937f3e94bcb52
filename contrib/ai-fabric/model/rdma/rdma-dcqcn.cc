// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-dcqcn.h"

#include "rdma-congestion-registry.h"
#include "rdma-queue-pair.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaDcqcn");
NS_OBJECT_ENSURE_REGISTERED(RdmaDcqcn);

TypeId
RdmaDcqcn::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaDcqcn")
            .SetParent<RdmaCongestionOps>()
            .SetGroupName("AiFabric")
            .AddConstructor<RdmaDcqcn>()
            .AddAttribute("Preset",
                          "Default parameter set: 'paper' (SIGCOMM'15 at 40G; RateAI / RateHAI "
                          "40 / 200 Mb/s x rate / 40G), 'nvidia' (ConnectX firmware) or "
                          "'production' (the HPCC simulator's vendor values, scaled with the "
                          "line rate: RateAI / RateHAI 5 / 50 Mb/s x rate / 25G). Parameters "
                          "left at 0 take the preset's value.",
                          StringValue("paper"),
                          MakeStringAccessor(&RdmaDcqcn::m_preset),
                          MakeStringChecker())
            .AddAttribute("ClampTargetRate",
                          "On a rate cut, the target rate takes the current rate: 0 = preset "
                          "(paper: always; nvidia, production: only after a timer increase "
                          "since the last cut: ConnectX's clamp_tgt_rate 0 with "
                          "clamp_tgt_rate_after_time_inc 1, the HPCC simulator's "
                          "CLAMP_TARGET_RATE 0), 1 = always, 2 = only after a timer increase.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaDcqcn::m_clampTarget),
                          MakeUintegerChecker<uint32_t>(0, 2))
            .AddAttribute("G",
                          "Alpha gain g (0 = preset: 1/256 paper, 1019/1024-complement nvidia).",
                          DoubleValue(0),
                          MakeDoubleAccessor(&RdmaDcqcn::m_g),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("AlphaUpdatePeriod",
                          "Alpha decay period without CNPs (0 = preset: 55 us / 1 us).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaDcqcn::m_alphaPeriod),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RateReduceMonitorPeriod",
                          "At most one rate decrease per period (0 = preset: per CNP / 4 us).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaDcqcn::m_reduceMonitor),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RateIncreaseTimer",
                          "Rate increase timer (0 = preset: 55 us / 300 us).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaDcqcn::m_increaseTimer),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("ByteCounter",
                          "Bytes per byte-counter stage (0 = preset: 10 MB / 32767 B).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaDcqcn::m_byteCounter),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("FastRecoverySteps",
                          "F, fast-recovery stages (0 = preset: 5 / 1).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaDcqcn::m_fastRecoverySteps),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RateAI",
                          "Additive increase step (0 = preset: paper 40 Mb/s x rate / 40G, nvidia "
                          "5 Mb/s, production 5 Mb/s x rate / 25G).",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&RdmaDcqcn::m_rai),
                          MakeDataRateChecker())
            .AddAttribute("RateHAI",
                          "Hyper increase step (0 = preset: paper 200 Mb/s x rate / 40G, nvidia "
                          "50 Mb/s, production 50 Mb/s x rate / 25G).",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&RdmaDcqcn::m_rhai),
                          MakeDataRateChecker())
            .AddAttribute("MinRate",
                          "Floor of the current rate (0 = preset: 100 Mb/s / 1 Mb/s).",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&RdmaDcqcn::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("MaxRateDecrease",
                          "Largest fraction cut per decrease event (0 = preset: 1 / 0.5).",
                          DoubleValue(0),
                          MakeDoubleAccessor(&RdmaDcqcn::m_maxDecrease),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("InitialAlpha",
                          "Alpha at start (0 = preset: 1).",
                          DoubleValue(0),
                          MakeDoubleAccessor(&RdmaDcqcn::m_initialAlpha),
                          MakeDoubleChecker<double>(0, 1))
            .AddTraceSource("Alpha",
                            "DCQCN alpha.",
                            MakeTraceSourceAccessor(&RdmaDcqcn::m_alpha),
                            "ns3::TracedValueCallback::Double")
            .AddTraceSource("TargetRate",
                            "DCQCN target rate Rt (bit/s).",
                            MakeTraceSourceAccessor(&RdmaDcqcn::m_targetBps),
                            "ns3::TracedValueCallback::Uint64");
    return tid;
}

RdmaDcqcn::RdmaDcqcn() = default;
RdmaDcqcn::~RdmaDcqcn() = default;

std::string
RdmaDcqcn::GetName() const
{
    return "dcqcn";
}

RdmaDcqcn::Params
RdmaDcqcn::GetParams(DataRate lineRate) const
{
    Params p;
    if (m_preset == "paper")
    {
        p.g = 1.0 / 256;
        p.alphaPeriod = MicroSeconds(55);
        p.reduceMonitor = Time(0);
        p.increaseTimer = MicroSeconds(55);
        p.byteCounter = 10ULL * 1000 * 1000;
        p.fastRecoverySteps = 5;
        // 40 / 200 Mb/s on the paper's 40G testbed, scaled with the line rate as the
        // production preset's steps are: the same fraction of the link per increase (at 400G
        // a 40 Mb/s step is 0.01%, and a queue pair cut to a few Gb/s took ~100 ms back).
        const double scale = lineRate.GetBitRate() > 0 ? lineRate.GetBitRate() / 40e9 : 1.0;
        p.rai = DataRate(uint64_t(40e6 * scale));
        p.rhai = DataRate(uint64_t(200e6 * scale));
        p.minRate = DataRate("100Mbps");
        p.maxDecrease = 1.0;
        p.initialAlpha = 1.0;
    }
    else if (m_preset == "production")
    {
        // The HPCC simulator's vendor DCQCN (run.py, rdma-hw.cc; facts.md): NVIDIA's timers,
        // g 1/256, F 1, no byte counter, a 100 Mb/s floor; RateAI/RateHAI scale with the line
        // rate in Init.
        p.g = 1.0 / 256;
        p.alphaPeriod = MicroSeconds(1);
        p.reduceMonitor = MicroSeconds(4);
        p.increaseTimer = MicroSeconds(300);
        p.byteCounter = kNoByteCounter;
        p.fastRecoverySteps = 1;
        // 5 / 50 Mb/s at 25G, × line rate / 25G.
        const double scale = lineRate.GetBitRate() > 0 ? lineRate.GetBitRate() / 25e9 : 1.0;
        p.rai = DataRate(uint64_t(5e6 * scale));
        p.rhai = DataRate(uint64_t(50e6 * scale));
        p.minRate = DataRate("100Mbps");
        p.maxDecrease = 1.0;
        p.initialAlpha = 1.0;
        p.clampTargetAlways = false;
    }
    else
    {
        NS_ABORT_MSG_UNLESS(m_preset == "nvidia",
                            "RdmaDcqcn::Preset must be 'paper', 'nvidia' or 'production' (got '"
                                << m_preset << "')");
        p.g = 5.0 / 1024; // DCE_TCP_G = 1019: alpha keeps 1019/1024 per update
        p.alphaPeriod = MicroSeconds(1);
        p.reduceMonitor = MicroSeconds(4);
        p.increaseTimer = MicroSeconds(300);
        p.byteCounter = 32767;
        p.fastRecoverySteps = 1;
        p.rai = DataRate("5Mbps");
        p.rhai = DataRate("50Mbps");
        p.minRate = DataRate("1Mbps");
        p.maxDecrease = 0.5;
        p.initialAlpha = 1.0;
        // clamp_tgt_rate 0, clamp_tgt_rate_after_time_inc 1 (DOCA "DCQCN CC Parameters").
        p.clampTargetAlways = false;
    }
    if (m_g > 0)
    {
        p.g = m_g;
    }
    if (m_alphaPeriod.IsStrictlyPositive())
    {
        p.alphaPeriod = m_alphaPeriod;
    }
    if (m_reduceMonitor.IsStrictlyPositive())
    {
        p.reduceMonitor = m_reduceMonitor;
    }
    if (m_increaseTimer.IsStrictlyPositive())
    {
        p.increaseTimer = m_increaseTimer;
    }
    if (m_byteCounter > 0)
    {
        p.byteCounter = m_byteCounter;
    }
    if (m_fastRecoverySteps > 0)
    {
        p.fastRecoverySteps = m_fastRecoverySteps;
    }
    if (m_rai.GetBitRate() > 0)
    {
        p.rai = m_rai;
    }
    if (m_rhai.GetBitRate() > 0)
    {
        p.rhai = m_rhai;
    }
    if (m_minRate.GetBitRate() > 0)
    {
        p.minRate = m_minRate;
    }
    if (m_maxDecrease > 0)
    {
        p.maxDecrease = m_maxDecrease;
    }
    if (m_initialAlpha > 0)
    {
        p.initialAlpha = m_initialAlpha;
    }
    if (m_clampTarget > 0)
    {
        p.clampTargetAlways = m_clampTarget == 1;
    }
    return p;
}

void
RdmaDcqcn::Init(Ptr<RdmaQueuePair> qp)
{
    m_qp = qp;
    m_p = GetParams(qp->GetLineRate());
    m_alpha = m_p.initialAlpha;
    qp->SetRate(qp->GetLineRate());
    m_targetBps = qp->GetLineRate().GetBitRate();
}

void
RdmaDcqcn::Stop()
{
    // Remove (not just cancel) so a finished simulation does not run on to dead timers.
    m_alphaEvent.Remove();
    m_increaseEvent.Remove();
    m_qp = nullptr;
}

double
RdmaDcqcn::GetAlpha() const
{
    return m_alpha;
}

DataRate
RdmaDcqcn::GetTargetRate() const
{
    return DataRate(m_targetBps.Get());
}

void
RdmaDcqcn::EnsureTimers()
{
    const int64_t now = Simulator::Now().GetTimeStep();
    if (!m_alphaEvent.IsPending())
    {
        // Apply the decay of the periods that passed while the timer was stopped.
        const int64_t period = m_p.alphaPeriod.GetTimeStep();
        const int64_t missed = period > 0 ? (now - m_alphaStampStep) / period : 0;
        if (missed > 0 && m_alphaStampStep > 0)
        {
            m_alpha = m_alpha * std::pow(1.0 - m_p.g, double(std::min<int64_t>(missed, 100000)));
        }
        m_alphaStampStep = now;
        m_alphaEvent.Set(Simulator::Schedule(m_p.alphaPeriod, &RdmaDcqcn::AlphaTimer, this));
    }
    if (!m_increaseEvent.IsPending())
    {
        m_increaseDeadline = now + m_p.increaseTimer.GetTimeStep();
        m_increaseEvent.Set(
            Simulator::Schedule(m_p.increaseTimer, &RdmaDcqcn::IncreaseTimer, this));
    }
}

void
RdmaDcqcn::CnpReceived(Ptr<RdmaQueuePair> qp)
{
    EnsureTimers(); // first: brings alpha up to date if its timer was stopped
    m_cnpSinceAlphaUpdate = true;
    const int64_t now = Simulator::Now().GetTimeStep();
    if (now - m_lastDecreaseStep < m_p.reduceMonitor.GetTimeStep())
    {
        EnsureTimers();
        return;
    }
    m_lastDecreaseStep = now;
    const double rc = double(qp->GetRate().GetBitRate());
    const double cut = std::min(m_alpha.Get() / 2.0, m_p.maxDecrease);
    // Only a timer increase since the last cut moves the target (ConnectX's
    // clamp_tgt_rate_after_time_inc; the HPCC simulator tests its timer stage): increases by
    // the byte counter alone leave it, so a burst of cuts does not ratchet it down.
    if (m_p.clampTargetAlways || m_timerStage != 0)
    {
        m_targetBps = static_cast<uint64_t>(rc);
    }
    const double next = std::max(rc * (1.0 - cut), double(m_p.minRate.GetBitRate()));
    const DataRate old = qp->GetRate();
    qp->SetRate(DataRate(static_cast<uint64_t>(next)));
    qp->RetimePacing(old);
    m_timerStage = 0;
    m_byteStage = 0;
    m_bytesSinceStage = 0;
    // Restart the increase timer from this decrease (lazily: the pending event re-arms itself).
    EnsureTimers();
    m_increaseDeadline = now + m_p.increaseTimer.GetTimeStep();
}

bool
RdmaDcqcn::Idle() const
{
    // Everything posted has been acknowledged: stop the timers (PacketSent restarts them).
    return m_qp->GetSndUna() == m_qp->GetPsnEnd();
}

void
RdmaDcqcn::AlphaTimer()
{
    m_alphaEvent.Expire();
    if (!m_qp || Idle())
    {
        return;
    }
    // alpha = (1 - g) alpha + g if a CNP arrived in the last period, else (1 - g) alpha.
    m_alpha = (1.0 - m_p.g) * m_alpha + (m_cnpSinceAlphaUpdate ? m_p.g : 0.0);
    m_cnpSinceAlphaUpdate = false;
    m_alphaStampStep = Simulator::Now().GetTimeStep();
    // At line rate the decay continues analytically (EnsureTimers) without events.
    if (m_qp->GetRate() < m_qp->GetLineRate())
    {
        m_alphaEvent.Set(Simulator::Schedule(m_p.alphaPeriod, &RdmaDcqcn::AlphaTimer, this));
    }
}

void
RdmaDcqcn::IncreaseTimer()
{
    m_increaseEvent.Expire();
    if (!m_qp || Idle())
    {
        return;
    }
    const int64_t now = Simulator::Now().GetTimeStep();
    if (now < m_increaseDeadline)
    {
        m_increaseEvent.Set(Simulator::Schedule(TimeStep(m_increaseDeadline - now),
                                                &RdmaDcqcn::IncreaseTimer,
                                                this));
        return;
    }
    ++m_timerStage;
    Increase();
    if (m_qp->GetRate() < m_qp->GetLineRate())
    {
        m_increaseDeadline = now + m_p.increaseTimer.GetTimeStep();
        m_increaseEvent.Set(
            Simulator::Schedule(m_p.increaseTimer, &RdmaDcqcn::IncreaseTimer, this));
    }
    else
    {
        m_timerStage = 0;
        m_byteStage = 0;
    }
}

void
RdmaDcqcn::PacketSent(Ptr<RdmaQueuePair> qp, uint32_t wireBytes)
{
    if (qp->GetRate() >= qp->GetLineRate())
    {
        return;
    }
    if (!m_increaseEvent.IsPending() || !m_alphaEvent.IsPending())
    {
        EnsureTimers(); // resume after an idle period
    }
    m_bytesSinceStage += wireBytes;
    if (m_bytesSinceStage >= m_p.byteCounter)
    {
        m_bytesSinceStage = 0;
        ++m_byteStage;
        Increase();
    }
}

uint32_t
RdmaDcqcn::LowStage() const
{
    // Without a byte counter (the production preset) the timer alone moves the stages, as in
    // the HPCC simulator: fast recovery, then additive, then hyper increase.
    return m_p.byteCounter == kNoByteCounter ? m_timerStage : std::min(m_timerStage, m_byteStage);
}

void
RdmaDcqcn::Increase()
{
    const double line = double(m_qp->GetLineRate().GetBitRate());
    double rt = double(m_targetBps.Get());
    const double rc = double(m_qp->GetRate().GetBitRate());
    const uint32_t f = m_p.fastRecoverySteps;
    const uint32_t hi = std::max(m_timerStage, m_byteStage);
    const uint32_t lo = LowStage();
    if (hi < f)
    {
        // fast recovery: move halfway back to the target
    }
    else if (lo > f)
    {
        rt += double(lo - f) * double(m_p.rhai.GetBitRate());
    }
    else
    {
        rt += double(m_p.rai.GetBitRate());
    }
    rt = std::min(rt, line);
    m_targetBps = static_cast<uint64_t>(rt);
    const DataRate old = m_qp->GetRate();
    m_qp->SetRate(DataRate(static_cast<uint64_t>(std::min(line, (rt + rc) / 2.0 + 0.5))));
    m_qp->RetimePacing(old);
}

namespace
{

/// DCQCN is worth its name only if ECN marks before PFC pauses (PFC: the rocev2 fabric).
AttributeList
DcqcnSwitchDefaults(const RdmaCcContext& c)
{
    AttributeList a;
    if (c.fabric == "rocev2")
    {
        a.emplace_back("ns3::SwitchBufferManager::EcnBelowXoff", "true");
    }
    return a;
}

const bool g_dcqcnRegistered = RdmaCongestionRegistry::Add([] {
    RdmaCongestionControlInfo e;
    e.name = "dcqcn";
    e.typeId = "ns3::RdmaDcqcn";
    e.help = "the SIGCOMM'15 paper's DCQCN; on rocev2 every dcqcn keeps ECN Kmax below the "
             "switches' first XOFF";
    e.switchDefaults = DcqcnSwitchDefaults;
    e.autoOn = {"*"};
    return e;
}());

// ConnectX firmware's DCQCN: one CNP per 4 us per queue pair at most, as ConnectX paces them.
const bool g_dcqcnNvidiaRegistered = RdmaCongestionRegistry::Add([] {
    RdmaCongestionControlInfo e;
    e.name = "dcqcn-nvidia";
    e.typeId = "ns3::RdmaDcqcn";
    e.help = "NVIDIA ConnectX firmware's DCQCN (a CNP every 4 us at most)";
    e.attributes = {{"Preset", "nvidia"}};
    e.nicAttributes = {{"CnpInterval", "4us"}};
    e.switchDefaults = DcqcnSwitchDefaults;
    e.autoOn = {"rocev2"};
    return e;
}());

// The HPCC simulator's receiver flags congestion on every ACK of a marked packet and its sender
// cuts at most every 4 us: one CNP per 4 us per queue pair, as ConnectX paces them. At 50 us,
// alpha (updated every 1 us) decayed to ~0.02 between CNPs and the cuts shrank to ~1%: the
// preset reacted and changed nothing.
const bool g_dcqcnProductionRegistered = RdmaCongestionRegistry::Add([] {
    RdmaCongestionControlInfo e;
    e.name = "dcqcn-production";
    e.typeId = "ns3::RdmaDcqcn";
    e.help = "the HPCC simulator's DCQCN; also sets the switches' ECN to 100/400 KB x "
             "link/25G, Pmax 0.2";
    e.attributes = {{"Preset", "production"}};
    e.nicAttributes = {{"CnpInterval", "4us"}};
    e.switchDefaults = [](const RdmaCcContext& c) {
        // The HPCC simulator's production marking: 100 / 400 KB x link / 25G, Pmax 0.2.
        AttributeList a = DcqcnSwitchDefaults(c);
        const double scale = c.linkGbps / 25.0;
        a.emplace_back("ns3::SwitchBufferManager::EcnKmin",
                       std::to_string(uint64_t(100e3 * scale)));
        a.emplace_back("ns3::SwitchBufferManager::EcnKmax",
                       std::to_string(uint64_t(400e3 * scale)));
        a.emplace_back("ns3::SwitchBufferManager::EcnPmax", "0.2");
        return a;
    };
    return e;
}());

} // namespace

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-hpcc.h"

#include "rdma-congestion-registry.h"
#include "rdma-queue-pair.h"

#include "ns3/double.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaHpcc);

TypeId
RdmaHpcc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaHpcc")
            .SetParent<RdmaCongestionOps>()
            .SetGroupName("AiFabric")
            .AddConstructor<RdmaHpcc>()
            .AddAttribute("TargetUtilization",
                          "eta, the target of the normalized inflight bytes U (HPCC: 0.95).",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&RdmaHpcc::m_eta),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("MaxStage",
                          "Additive increases in a row before a multiplicative adjustment "
                          "(HPCC simulator default 5).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&RdmaHpcc::m_maxStage),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RateAI",
                          "Additive increase as a rate; W_AI = RateAI x T (0: 10 Mb/s x line "
                          "rate / 25 Gb/s, the HPCC simulator's run.py).",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&RdmaHpcc::m_rai),
                          MakeDataRateChecker())
            .AddAttribute("MinRate",
                          "Floor of the rate (HPCC simulator: 100 Mb/s).",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&RdmaHpcc::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("BaseRtt",
                          "T, the base RTT (0: the queue pair's, else the smallest sample).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaHpcc::m_baseRttAttr),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("Utilization",
                            "HPCC's normalized inflight bytes U.",
                            MakeTraceSourceAccessor(&RdmaHpcc::m_u),
                            "ns3::TracedValueCallback::Double")
            .AddTraceSource("ReferenceWindow",
                            "HPCC's reference window Wc (bytes).",
                            MakeTraceSourceAccessor(&RdmaHpcc::m_wc),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

RdmaHpcc::RdmaHpcc() = default;
RdmaHpcc::~RdmaHpcc() = default;

std::string
RdmaHpcc::GetName() const
{
    return "hpcc";
}

bool
RdmaHpcc::WantsTelemetry() const
{
    return true;
}

double
RdmaHpcc::GetUtilization() const
{
    return m_u.Get();
}

double
RdmaHpcc::GetReferenceWindow() const
{
    return m_wc.Get();
}

Time
RdmaHpcc::GetBaseRtt() const
{
    return m_t;
}

void
RdmaHpcc::Init(Ptr<RdmaQueuePair> qp)
{
    m_lineBps = static_cast<double>(qp->GetLineRate().GetBitRate());
    qp->SetRate(qp->GetLineRate());
    m_t = m_baseRttAttr;
    UpdateAdditiveStep();
    if (m_t.IsStrictlyPositive())
    {
        Apply(qp, m_lineBps / 8 * m_t.GetSeconds());
        m_wc = qp->GetWindow();
    }
}

bool
RdmaHpcc::MeasureInflight(const FabricIntStack& st, double& u) const
{
    if (!m_haveLast || st.GetNHops() != m_last.GetNHops() || st.GetNHops() == 0)
    {
        return false;
    }
    const double t = m_t.GetSeconds();
    double umax = 0;
    double tau = 0;
    for (uint32_t i = 0; i < st.GetNHops(); ++i)
    {
        const FabricIntHop& now = st.GetHop(i);
        const FabricIntHop& prev = m_last.GetHop(i);
        const double dt = TimeStep(now.timeStep - prev.timeStep).GetSeconds();
        if (dt <= 0 || now.txBytes < prev.txBytes)
        {
            continue; // the same packet's record, or a reordered echo
        }
        const double b = static_cast<double>(now.rateBps);
        const double txRate = (now.txBytes - prev.txBytes) * 8.0 / dt;
        const double qlen = std::min(now.qlenBytes, prev.qlenBytes);
        const double ui = qlen * 8.0 / (b * t) + txRate / b;
        if (ui > umax)
        {
            umax = ui;
            tau = dt;
        }
    }
    if (tau <= 0)
    {
        return false;
    }
    tau = std::min(tau, t);
    u = (1 - tau / t) * m_u.Get() + tau / t * umax;
    return true;
}

void
RdmaHpcc::AckReceived(Ptr<RdmaQueuePair> qp, const RdmaAck& ack)
{
    if (!m_baseRttAttr.IsStrictlyPositive())
    {
        // T from the path if the helper knew it, else the smallest RTT seen so far.
        Time t = qp->GetBaseRtt();
        if (!t.IsStrictlyPositive() && ack.rtt.IsStrictlyPositive())
        {
            t = m_t.IsStrictlyPositive() ? std::min(m_t, ack.rtt) : ack.rtt;
        }
        if (t.IsStrictlyPositive() && t != m_t)
        {
            const bool first = !m_t.IsStrictlyPositive();
            m_t = t;
            UpdateAdditiveStep();
            if (first)
            {
                m_wc = m_lineBps / 8 * m_t.GetSeconds();
                Apply(qp, m_wc);
            }
        }
    }
    if (!ack.telemetry || !m_t.IsStrictlyPositive())
    {
        return;
    }
    double u = 0;
    if (MeasureInflight(*ack.telemetry, u))
    {
        m_u = u;
        const bool updateWc = ack.ackedPsn > m_lastUpdatePsn;
        double w;
        if (u >= m_eta || m_incStage >= m_maxStage)
        {
            w = m_wc.Get() / (u / m_eta) + m_wai;
            if (updateWc)
            {
                m_incStage = 0;
            }
        }
        else
        {
            w = m_wc.Get() + m_wai;
            if (updateWc)
            {
                ++m_incStage;
            }
        }
        Apply(qp, w);
        if (updateWc)
        {
            m_wc = static_cast<double>(qp->GetWindow());
            m_lastUpdatePsn = qp->GetSndNxt();
        }
    }
    m_last = *ack.telemetry;
    m_haveLast = true;
}

void
RdmaHpcc::UpdateAdditiveStep()
{
    m_wai = (m_rai.GetBitRate() != 0 ? m_rai.GetBitRate() : 10e6 * m_lineBps / 25e9) / 8 *
            m_t.GetSeconds();
}

void
RdmaHpcc::Apply(Ptr<RdmaQueuePair> qp, double w)
{
    const double t = m_t.GetSeconds();
    const double lo = m_minRate.GetBitRate() / 8.0 * t;
    const double hi = m_lineBps / 8 * t;
    w = std::clamp(w, std::max(lo, 1.0), std::max(hi, 1.0));
    w = std::round(w);
    qp->SetWindow(static_cast<uint64_t>(w));
    qp->SetRate(DataRate(static_cast<uint64_t>(w * 8 / t)));
}

namespace
{

// HPCC reacts per ACK: every packet is acknowledged, as in the HPCC simulator.
const bool g_hpccRegistered = RdmaCongestionRegistry::Add([] {
    RdmaCongestionControlInfo e;
    e.name = "hpcc";
    e.typeId = "ns3::RdmaHpcc";
    e.help = "in-band telemetry, rocev2, every packet acknowledged";
    e.nicAttributes = {{"AckInterval", "0s"}};
    e.check = [](const RdmaCcContext& c) -> std::string {
        return c.fabric == "infiniband"
                   ? "needs fabric rocev2 (its in-band telemetry is an Ethernet switch feature)"
                   : "";
    };
    return e;
}());

} // namespace

} // namespace ns3

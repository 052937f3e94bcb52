// SPDX-License-Identifier: GPL-2.0-only
#include "uet-credit-scheduler.h"

#include "uet-header-sizes.h"

#include "ns3/double.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(UetCreditScheduler);

TypeId
UetCreditScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::UetCreditScheduler")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<UetCreditScheduler>()
            .AddAttribute("RateFraction",
                          "Credit is paced at this fraction of the line rate (htsim 0.99: just "
                          "below the line rate).",
                          DoubleValue(0.99),
                          MakeDoubleAccessor(&UetCreditScheduler::m_fraction),
                          MakeDoubleChecker<double>(0.01, 10.0))
            .AddAttribute("GrantBytes",
                          "Wire bytes of credit per turn, a multiple of 256 (htsim: 4 MSS, "
                          "16 KiB, \"as per default in UEC spec\").",
                          UintegerValue(16384),
                          MakeUintegerAccessor(&UetCreditScheduler::m_grantBytes),
                          MakeUintegerChecker<uint32_t>(256, 1U << 24))
            .AddAttribute("IdleCreditBdps",
                          "Idle credit a satisfied PDC may get while nobody waits, in BDPs of "
                          "this NIC (htsim: the configured maximum window, 1.5; 0: none).",
                          DoubleValue(1.5),
                          MakeDoubleAccessor(&UetCreditScheduler::m_idleBdps),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("IdleGapBytes",
                          "A turn that grants nothing waits the time of this many bytes "
                          "(htsim 1024).",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&UetCreditScheduler::m_idleGap),
                          MakeUintegerChecker<uint32_t>(1))
            .AddTraceSource("Grant",
                            "A CREDIT left: (target PDC id, bytes granted now, cumulative).",
                            MakeTraceSourceAccessor(&UetCreditScheduler::m_grantTrace),
                            "ns3::UetCreditScheduler::GrantTracedCallback");
    return tid;
}

UetCreditScheduler::UetCreditScheduler() = default;
UetCreditScheduler::~UetCreditScheduler() = default;

void
UetCreditScheduler::DoDispose()
{
    m_timer.Cancel();
    m_send = MakeNullCallback<void, uint16_t, uint64_t>();
    m_pdcs.clear();
    m_active.clear();
    m_idle.clear();
    Object::DoDispose();
}

void
UetCreditScheduler::Setup(DataRate lineRate,
                          Time networkRtt,
                          Callback<void, uint16_t, uint64_t> send)
{
    NS_ABORT_MSG_IF(m_grantBytes % uetwire::kCreditUnit != 0,
                    "UetCreditScheduler: GrantBytes must be a multiple of "
                        << uetwire::kCreditUnit << " (got " << m_grantBytes << ")");
    m_rate = lineRate;
    m_bytesPerSecond = lineRate.GetBitRate() / 8.0 * m_fraction;
    const double bdp = lineRate.GetBitRate() / 8.0 * networkRtt.GetSeconds();
    m_idleCap = static_cast<uint64_t>(std::llround(m_idleBdps * bdp));
    m_send = send;
}

UetCreditScheduler::Pdc&
UetCreditScheduler::Get(uint16_t pdc)
{
    if (pdc >= m_pdcs.size())
    {
        m_pdcs.resize(pdc + 1);
    }
    return m_pdcs[pdc];
}

void
UetCreditScheduler::Request(uint16_t pdc, uint64_t target)
{
    Pdc& p = Get(pdc);
    if (target <= p.target)
    {
        return;
    }
    p.target = target;
    if (p.granted >= p.target || p.state == ACTIVE)
    {
        return; // idle credit already covers it, or it is in the round
    }
    p.state = ACTIVE; // an IDLE entry left in m_idle is skipped when met
    p.idleGranted = 0;
    m_active.push_back(pdc);
    ++m_nActive;
    Start();
}

void
UetCreditScheduler::Start()
{
    if (!m_timer.IsPending())
    {
        m_due = Simulator::Now().GetSeconds();
        m_timer.Set(Simulator::ScheduleNow(&UetCreditScheduler::Turn, this));
    }
}

void
UetCreditScheduler::Turn()
{
    m_timer.Expire();
    uint64_t grant = 0;
    if (!m_active.empty())
    {
        const uint16_t id = m_active.front();
        m_active.pop_front();
        Pdc& p = m_pdcs[id];
        grant = std::min<uint64_t>(m_grantBytes, p.target > p.granted ? p.target - p.granted : 0);
        if (grant > 0)
        {
            p.granted += grant;
            ++m_credits;
            m_grantTrace(id, static_cast<uint32_t>(grant), p.granted);
            m_send(id, p.granted);
        }
        if (p.granted < p.target)
        {
            m_active.push_back(id);
        }
        else
        {
            p.state = IDLE;
            p.idleGranted = 0;
            --m_nActive;
            if (m_idleCap > 0 && !p.inIdleQueue)
            {
                p.inIdleQueue = true;
                m_idle.push_back(id);
            }
        }
    }
    else
    {
        // nobody waits: idle credit to a satisfied PDC
        while (!m_idle.empty() && m_pdcs[m_idle.front()].state != IDLE)
        {
            m_pdcs[m_idle.front()].inIdleQueue = false;
            m_idle.pop_front(); // stale: it asked again meanwhile
        }
        if (m_idle.empty())
        {
            return; // nothing to do: no event until the next request
        }
        const uint16_t id = m_idle.front();
        m_idle.pop_front();
        Pdc& p = m_pdcs[id];
        grant = m_grantBytes;
        p.granted += grant;
        p.idleGranted += grant;
        ++m_credits;
        m_grantTrace(id, static_cast<uint32_t>(grant), p.granted);
        m_send(id, p.granted);
        if (p.idleGranted < m_idleCap)
        {
            m_idle.push_back(id);
        }
        else
        {
            p.inIdleQueue = false;
            p.state = NONE;
        }
    }
    // The next turn after this one's bytes at the credit rate, counted from when this turn was
    // due (not from its rounded event time), so that the pace does not drift.
    const double bytes = grant > 0 ? double(grant) : double(m_idleGap);
    m_due += bytes / m_bytesPerSecond;
    const Time at = std::max(Simulator::Now(), Seconds(m_due));
    m_timer.Set(Simulator::Schedule(at - Simulator::Now(), &UetCreditScheduler::Turn, this));
}

uint64_t
UetCreditScheduler::GetTarget(uint16_t pdc) const
{
    return pdc < m_pdcs.size() ? m_pdcs[pdc].target : 0;
}

uint64_t
UetCreditScheduler::GetGranted(uint16_t pdc) const
{
    return pdc < m_pdcs.size() ? m_pdcs[pdc].granted : 0;
}

uint32_t
UetCreditScheduler::GetNActive() const
{
    return m_nActive;
}

double
UetCreditScheduler::GetCreditRate() const
{
    return m_bytesPerSecond;
}

uint64_t
UetCreditScheduler::GetCreditsSent() const
{
    return m_credits;
}

} // namespace ns3

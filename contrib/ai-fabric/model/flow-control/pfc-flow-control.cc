// SPDX-License-Identifier: GPL-2.0-only
#include "pfc-flow-control.h"

#include "pfc-header.h"

#include "ns3/fabric-net-device.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcFlowControl");

namespace
{

/// Set or clear bit `prio` of `mask`.
void
SetBit(uint8_t& mask, uint8_t prio, bool on)
{
    const uint8_t bit = static_cast<uint8_t>(1U << (prio & 7));
    mask = on ? static_cast<uint8_t>(mask | bit) : static_cast<uint8_t>(mask & ~bit);
}

} // namespace

NS_OBJECT_ENSURE_REGISTERED(PfcFlowControl);

TypeId
PfcFlowControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PfcFlowControl")
            .SetParent<FabricFlowControl>()
            .SetGroupName("AiFabric")
            .AddConstructor<PfcFlowControl>()
            .AddAttribute("EnabledPriorities",
                          "Bitmask of PFC-enabled (lossless) priorities; bit p = priority p. "
                          "Default 0x08: priority 3, the usual RoCE lossless class. 0 = PFC off.",
                          UintegerValue(0x08),
                          MakeUintegerAccessor(&PfcFlowControl::m_enabled),
                          MakeUintegerChecker<uint8_t>())
            .AddAttribute("PauseQuanta",
                          "Pause time sent in XOFF frames, in quanta of 512 bit-times "
                          "(65535 = 84 us at 400 Gb/s).",
                          UintegerValue(0xffff),
                          MakeUintegerAccessor(&PfcFlowControl::m_pauseQuanta),
                          MakeUintegerChecker<uint16_t>(1, 0xffff))
            .AddAttribute("RefreshInterval",
                          "How often a held PAUSE is re-sent; 0 = half the pause time.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&PfcFlowControl::m_refreshInterval),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("PauseSent",
                            "A PFC frame was sent upstream (priority, quanta; 0 = resume).",
                            MakeTraceSourceAccessor(&PfcFlowControl::m_pauseSentTrace),
                            "ns3::PfcFlowControl::PauseTracedCallback")
            .AddTraceSource("PauseReceived",
                            "A PFC frame was received (priority, quanta; 0 = resume).",
                            MakeTraceSourceAccessor(&PfcFlowControl::m_pauseReceivedTrace),
                            "ns3::PfcFlowControl::PauseTracedCallback");
    return tid;
}

PfcFlowControl::PfcFlowControl() = default;
PfcFlowControl::~PfcFlowControl() = default;

void
PfcFlowControl::DoDispose()
{
    for (uint8_t p = 0; p < 8; ++p)
    {
        m_expire[p].Cancel();
        m_refresh[p].Cancel();
    }
    FabricFlowControl::DoDispose();
}

bool
PfcFlowControl::IsLossless(uint8_t prio) const
{
    return (m_enabled >> (prio & 7)) & 1U;
}

bool
PfcFlowControl::CountsTraffic() const
{
    return false;
}

Time
PfcFlowControl::GetPausedTime(uint8_t prio) const
{
    const uint8_t p = prio & 7;
    return m_pausedTotal[p] + (IsPaused(p) ? Simulator::Now() - m_pausedSince[p] : Time(0));
}

bool
PfcFlowControl::IsPaused(uint8_t prio) const
{
    return (m_pausedMask >> (prio & 7)) & 1U;
}

bool
PfcFlowControl::IsHoldingPause(uint8_t prio) const
{
    return (m_holdingMask >> (prio & 7)) & 1U;
}

uint64_t
PfcFlowControl::GetPauseFramesSent() const
{
    return m_pauseSent;
}

uint64_t
PfcFlowControl::GetResumeFramesSent() const
{
    return m_resumeSent;
}

uint64_t
PfcFlowControl::GetPauseFramesReceived() const
{
    return m_pauseReceived;
}

void
PfcFlowControl::ReceiveControl(const FabricFrame& frame)
{
    if (frame.kind != FabricFrame::PFC || !frame.packet || !m_device)
    {
        return;
    }
    PfcHeader h;
    frame.packet->PeekHeader(h);
    if (h.GetOpcode() != PfcHeader::OPCODE)
    {
        return;
    }
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (!h.IsEnabled(p) || !IsLossless(p))
        {
            continue;
        }
        ++m_pauseReceived;
        uint16_t q = h.GetQuanta(p);
        m_pauseReceivedTrace(p, q);
        m_expire[p].Cancel();
        if (q != 0)
        {
            m_lastPause[p] = Simulator::Now();
        }
        if (q == 0 || IsIgnoringPause(p))
        {
            Expire(p);
            continue;
        }
        if (!IsPaused(p))
        {
            m_pausedSince[p] = Simulator::Now();
        }
        m_pausedMask |= static_cast<uint8_t>(1U << p);
        m_device->SetTxBlocked(p, true);
        Time d = m_device->BitTimes(uint64_t(q) * 512);
        m_expire[p] = Simulator::Schedule(d, &PfcFlowControl::Expire, this, p);
    }
}

void
PfcFlowControl::Expire(uint8_t prio)
{
    if (IsPaused(prio))
    {
        m_pausedTotal[prio & 7] += Simulator::Now() - m_pausedSince[prio & 7];
    }
    m_pausedMask &= static_cast<uint8_t>(~(1U << prio));
    if (m_device)
    {
        m_device->SetTxBlocked(prio, false);
    }
}

void
PfcFlowControl::SetIngressCongested(uint8_t prio, bool congested)
{
    if (!IsLossless(prio) || !m_device)
    {
        return;
    }
    SetBit(m_congestedMask, prio, congested);
    UpdateHold(prio & 7);
}

void
PfcFlowControl::SetStorm(uint8_t prio, bool on)
{
    if (!IsLossless(prio) || !m_device)
    {
        return;
    }
    SetBit(m_stormMask, prio, on);
    UpdateHold(prio & 7);
}

bool
PfcFlowControl::IsStorming(uint8_t prio) const
{
    return (m_stormMask >> (prio & 7)) & 1U;
}

void
PfcFlowControl::SetIgnorePause(uint8_t prio, bool ignore)
{
    const uint8_t p = prio & 7;
    SetBit(m_ignoreMask, p, ignore);
    if (ignore && IsPaused(p))
    {
        m_expire[p].Cancel();
        Expire(p);
    }
}

bool
PfcFlowControl::IsIgnoringPause(uint8_t prio) const
{
    return (m_ignoreMask >> (prio & 7)) & 1U;
}

Time
PfcFlowControl::GetPausedSince(uint8_t prio) const
{
    return m_pausedSince[prio & 7];
}

Time
PfcFlowControl::GetLastPauseReceived(uint8_t prio) const
{
    return m_lastPause[prio & 7];
}

void
PfcFlowControl::UpdateHold(uint8_t prio)
{
    const bool want = ((m_congestedMask | m_stormMask) >> prio) & 1U;
    if (want == IsHoldingPause(prio))
    {
        return;
    }
    if (want)
    {
        m_holdingMask |= static_cast<uint8_t>(1U << prio);
        SendPause(prio, m_pauseQuanta);
        m_refresh[prio] = Simulator::Schedule(RefreshEvery(), &PfcFlowControl::Refresh, this, prio);
    }
    else
    {
        m_holdingMask &= static_cast<uint8_t>(~(1U << prio));
        m_refresh[prio].Cancel();
        SendPause(prio, 0);
    }
}

Time
PfcFlowControl::RefreshEvery() const
{
    return m_refreshInterval.IsZero() ? m_device->BitTimes(uint64_t(m_pauseQuanta) * 512 / 2)
                                      : m_refreshInterval;
}

void
PfcFlowControl::Refresh(uint8_t prio)
{
    if (!IsHoldingPause(prio) || !m_device)
    {
        return;
    }
    SendPause(prio, m_pauseQuanta);
    m_refresh[prio] = Simulator::Schedule(RefreshEvery(), &PfcFlowControl::Refresh, this, prio);
}

void
PfcFlowControl::SendPause(uint8_t prio, uint16_t quanta)
{
    PfcHeader h;
    h.SetPause(prio, quanta);
    FabricFrame f;
    f.kind = FabricFrame::PFC;
    f.priority = 7;
    f.packet = Create<Packet>();
    f.packet->AddHeader(h);
    if (quanta > 0)
    {
        ++m_pauseSent;
    }
    else
    {
        ++m_resumeSent;
    }
    m_pauseSentTrace(prio, quanta);
    m_device->SendControlFrame(std::move(f));
}

uint64_t
PfcFlowControl::DefaultResponseBits(DataRate rate)
{
    uint64_t bps = rate.GetBitRate();
    if (bps <= 10000000000ULL)
    {
        return 3840ULL * 8;
    }
    if (bps <= 100000000000ULL)
    {
        return 201728ULL;
    }
    return 463360ULL;
}

uint64_t
PfcFlowControl::ComputeHeadroom(DataRate rate,
                                double cableMeters,
                                uint32_t mtuBytes,
                                uint64_t responseBits,
                                uint64_t interfaceBits)
{
    if (responseBits == 0)
    {
        responseBits = DefaultResponseBits(rate);
    }
    const double bytesPerSecond = static_cast<double>(rate.GetBitRate()) / 8.0;
    const double cableBytes = 2.0 * cableMeters * 5e-9 * bytesPerSecond; // both directions
    const double pfcFrame = 84.0;
    double total = 2.0 * mtuBytes + pfcFrame + cableBytes + (interfaceBits + responseBits) / 8.0;
    return static_cast<uint64_t>(std::ceil(total));
}

} // namespace ns3

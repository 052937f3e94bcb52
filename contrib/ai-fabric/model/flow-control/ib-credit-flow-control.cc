// SPDX-License-Identifier: GPL-2.0-only
#include "ib-credit-flow-control.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/fabric-net-device.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbCreditFlowControl");
NS_OBJECT_ENSURE_REGISTERED(IbCreditFlowControl);

TypeId
IbCreditFlowControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::IbCreditFlowControl")
            .SetParent<FabricFlowControl>()
            .SetGroupName("AiFabric")
            .AddConstructor<IbCreditFlowControl>()
            .AddAttribute("NumDataVls",
                          "Data virtual lanes in use (1..8; ConnectX default NUM_OF_VL = 4, the "
                          "device has 8 queues). VL15 (management) is the control queue.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&IbCreditFlowControl::m_numDataVls),
                          MakeUintegerChecker<uint32_t>(1, 8))
            .AddAttribute("RxBufferBytes",
                          "Receive buffer per data VL, advertised as credits (64-byte blocks). "
                          "Must exceed rate x credit round trip for line rate (about 40 KB at "
                          "400 Gb/s over 50 m). Switch buffer sizes are UNCONFIRMED.",
                          UintegerValue(131072),
                          MakeUintegerAccessor(&IbCreditFlowControl::m_rxBufferBytes),
                          MakeUintegerChecker<uint32_t>(BLOCK_BYTES))
            .AddAttribute("CreditUpdateBlocks",
                          "Send a flow-control packet once this many blocks were released since "
                          "the last one on the VL, or the VL's buffer is empty (1 = on every "
                          "release).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&IbCreditFlowControl::m_updateBlocks),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("CreditUpdateDelay",
                          "Longest time released blocks below CreditUpdateBlocks wait before "
                          "an FCP returns them (IBA: at most 65,536 symbol times).",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&IbCreditFlowControl::m_updateDelay),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("CreditRefreshInterval",
                          "Re-send the FCP of every VL that received data this often while data "
                          "keeps arriving (IBA: at least every 65,536 symbol times, ~0.6 us at "
                          "NDR); 0 = off (FCPs are never lost here).",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&IbCreditFlowControl::m_refreshInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MaxPacketBytes",
                          "Largest link packet (LRH..VCRC) the transmitter must have credits for "
                          "before it sends on a VL; 0 = the device MTU plus LRH and VCRC.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&IbCreditFlowControl::m_maxPacketBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("SlToVl",
                          "SL to VL table: up to 16 comma-separated VLs for SL 0, 1, ...; empty "
                          "= SL mod NumDataVls. Applied by host adapters; fabric-wide.",
                          StringValue(""),
                          MakeStringAccessor(&IbCreditFlowControl::SetSlToVl,
                                             &IbCreditFlowControl::GetSlToVl),
                          MakeStringChecker())
            .AddAttribute("FecnThreshold",
                          "Egress queue bytes of a VL at which a switch port marks FECN (IBA "
                          "A10 Threshold; 0 = marking off). Default UNCONFIRMED.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&IbCreditFlowControl::m_fecnThreshold),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MarkVictims",
                          "Also mark when the port lacks credits (a victim of downstream "
                          "congestion; A10 Victim_Mask).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&IbCreditFlowControl::m_markVictims),
                          MakeBooleanChecker())
            .AddAttribute("MarkingRate",
                          "Eligible packets left unmarked between two marks (A10 Marking_Rate; "
                          "0 = mark every eligible packet).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&IbCreditFlowControl::m_markingRate),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MinMarkBytes",
                          "Packets shorter than this are never marked (A10 Packet_Size).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&IbCreditFlowControl::m_minMarkBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("CreditsAvailable",
                            "Transmit side: credits (blocks) available on a VL changed.",
                            MakeTraceSourceAccessor(&IbCreditFlowControl::m_creditsTrace),
                            "ns3::IbCreditFlowControl::CreditsTracedCallback")
            .AddTraceSource("CreditStall",
                            "Transmit side: a VL that waited for credits may send again "
                            "(VL, time waited).",
                            MakeTraceSourceAccessor(&IbCreditFlowControl::m_stallTrace),
                            "ns3::IbCreditFlowControl::StallTracedCallback");
    return tid;
}

IbCreditFlowControl::IbCreditFlowControl()
{
    for (uint8_t sl = 0; sl < 16; ++sl)
    {
        m_slToVl[sl] = 0xff; // unset: SL mod NumDataVls
    }
}

IbCreditFlowControl::~IbCreditFlowControl() = default;

void
IbCreditFlowControl::DoDispose()
{
    for (auto& e : m_flush)
    {
        e.Cancel();
    }
    m_refresh.Cancel();
    FabricFlowControl::DoDispose();
}

void
IbCreditFlowControl::SetSlToVl(std::string table)
{
    for (uint8_t sl = 0; sl < 16; ++sl)
    {
        m_slToVl[sl] = 0xff;
    }
    std::istringstream in(table);
    std::string item;
    uint8_t sl = 0;
    while (std::getline(in, item, ','))
    {
        NS_ABORT_MSG_IF(sl >= 16, "IbCreditFlowControl::SlToVl: at most 16 entries");
        const int vl = std::stoi(item);
        NS_ABORT_MSG_IF(vl < 0 || vl > 7, "IbCreditFlowControl::SlToVl: VL must be 0..7");
        m_slToVl[sl++] = static_cast<uint8_t>(vl);
    }
}

std::string
IbCreditFlowControl::GetSlToVl() const
{
    std::ostringstream out;
    for (uint8_t sl = 0; sl < 16 && m_slToVl[sl] != 0xff; ++sl)
    {
        out << (sl ? "," : "") << unsigned(m_slToVl[sl]);
    }
    return out.str();
}

uint8_t
IbCreditFlowControl::GetVl(uint8_t sl) const
{
    const uint8_t vl = m_slToVl[sl & 15];
    return vl == 0xff ? static_cast<uint8_t>((sl & 15) % m_numDataVls) : vl;
}

bool
IbCreditFlowControl::IsLossless(uint8_t) const
{
    return true;
}

uint32_t
IbCreditFlowControl::GetNumDataVls() const
{
    return m_numDataVls;
}

uint32_t
IbCreditFlowControl::GetRxBufferBlocks() const
{
    return m_rxBufferBytes / BLOCK_BYTES;
}

void
IbCreditFlowControl::InitTx()
{
    NS_ABORT_MSG_IF(!m_device, "IbCreditFlowControl: not installed on a device");
    FabricNetDevice* peer = m_device->GetPeer();
    NS_ABORT_MSG_IF(!peer, "IbCreditFlowControl: the device is not attached to a link");
    Ptr<IbCreditFlowControl> peerFc = DynamicCast<IbCreditFlowControl>(peer->GetFlowControl());
    NS_ABORT_MSG_IF(!peerFc,
                    "IbCreditFlowControl: the peer port has no IbCreditFlowControl (both ends "
                    "of an InfiniBand link need credits)");
    m_maxPacketBlocks =
        Blocks(m_maxPacketBytes ? m_maxPacketBytes
                                : uint32_t(m_device->GetMtu()) + m_device->GetL2OverheadBytes());
    NS_ABORT_MSG_IF(peerFc->GetRxBufferBlocks() < m_maxPacketBlocks,
                    "IbCreditFlowControl::RxBufferBytes ("
                        << peerFc->m_rxBufferBytes << ") must hold one largest packet ("
                        << m_maxPacketBlocks * BLOCK_BYTES << " bytes)");
    for (uint8_t vl = 0; vl < 8; ++vl)
    {
        // Link training has exchanged the initial credits: the peer's whole buffer.
        m_txLimit[vl] = peerFc->m_rxReleased[vl] + peerFc->GetRxBufferBlocks();
    }
    m_txInit = true;
}

uint64_t
IbCreditFlowControl::GetCreditsAvailable(uint8_t vl) const
{
    vl &= 7;
    return m_txLimit[vl] > m_txSent[vl] ? m_txLimit[vl] - m_txSent[vl] : 0;
}

void
IbCreditFlowControl::UpdateBlocked(uint8_t vl)
{
    const bool blocked = m_txLimit[vl] < m_txSent[vl] + m_maxPacketBlocks;
    const uint8_t bit = static_cast<uint8_t>(1U << vl);
    if (blocked == bool(m_blockedMask & bit))
    {
        return;
    }
    const int64_t now = Simulator::Now().GetTimeStep();
    if (blocked)
    {
        m_blockedMask |= bit;
        m_stallStart[vl] = now;
        ++m_stalls[vl];
        m_device->SetTxBlocked(vl, true);
    }
    else
    {
        m_blockedMask &= static_cast<uint8_t>(~bit);
        m_stallSteps[vl] += now - m_stallStart[vl];
        if (!m_stallTrace.IsEmpty())
        {
            m_stallTrace(vl, TimeStep(now - m_stallStart[vl]));
        }
        m_device->SetTxBlocked(vl, false);
    }
}

void
IbCreditFlowControl::NotifyTransmit(uint8_t prio, uint32_t wireBytes)
{
    if (!m_txInit)
    {
        InitTx();
    }
    const uint8_t vl = prio & 7;
    m_txSent[vl] += Blocks(wireBytes - m_device->GetPhyOverheadBytes());
    if (!m_creditsTrace.IsEmpty())
    {
        m_creditsTrace(vl, GetCreditsAvailable(vl));
    }
    UpdateBlocked(vl);
}

void
IbCreditFlowControl::ReceiveControl(const FabricFrame& frame)
{
    if (frame.aux[3] != FCP_MAGIC)
    {
        return;
    }
    if (!m_txInit)
    {
        InitTx();
    }
    ++m_fcpsReceived;
    const uint8_t vl = frame.aux[0] & 7;
    const uint64_t limit = uint64_t(frame.aux[1]) | (uint64_t(frame.aux[2]) << 32);
    if (limit <= m_txLimit[vl])
    {
        return;
    }
    m_txLimit[vl] = limit;
    if (!m_creditsTrace.IsEmpty())
    {
        m_creditsTrace(vl, GetCreditsAvailable(vl));
    }
    UpdateBlocked(vl);
}

void
IbCreditFlowControl::NotifyReceive(uint8_t prio, uint32_t bytes)
{
    const uint8_t vl = prio & 7;
    m_rxUsed[vl] += Blocks(bytes);
    if (m_refreshInterval.IsStrictlyPositive())
    {
        m_activeMask |= static_cast<uint8_t>(1U << vl);
        if (!m_refresh.IsPending())
        {
            m_refresh.Set(
                Simulator::Schedule(m_refreshInterval, &IbCreditFlowControl::Refresh, this));
        }
    }
    m_rxMax[vl] = std::max(m_rxMax[vl], m_rxUsed[vl]);
    if (m_rxUsed[vl] > GetRxBufferBlocks())
    {
        ++m_overruns; // every packet that lands above the advertised buffer, not only new peaks
    }
}

void
IbCreditFlowControl::NotifyLost(uint8_t prio, uint32_t bytes)
{
    // ABR resynchronization: the lost packet's blocks count as received and released.
    const uint8_t vl = prio & 7;
    m_rxUsed[vl] += Blocks(bytes);
    NotifyRelease(vl, bytes);
}

void
IbCreditFlowControl::NotifyRelease(uint8_t prio, uint32_t bytes)
{
    const uint8_t vl = prio & 7;
    const uint32_t b = Blocks(bytes);
    m_rxUsed[vl] = m_rxUsed[vl] > b ? m_rxUsed[vl] - b : 0;
    m_rxReleased[vl] += b;
    // Return credits at once when enough are pending, when the VL's buffer has drained (nothing
    // more would be released soon), or when no delay is allowed; otherwise within the delay.
    if (m_rxReleased[vl] - m_rxAdvertised[vl] >= m_updateBlocks || m_rxUsed[vl] == 0 ||
        m_updateDelay.IsZero())
    {
        m_flush[vl].Cancel();
        SendFcp(vl);
    }
    else if (!m_flush[vl].IsPending())
    {
        m_flush[vl].Set(Simulator::Schedule(m_updateDelay, &IbCreditFlowControl::Flush, this, vl));
    }
}

void
IbCreditFlowControl::Flush(uint8_t vl)
{
    m_flush[vl].Expire();
    if (m_rxReleased[vl] > m_rxAdvertised[vl])
    {
        SendFcp(vl);
    }
}

void
IbCreditFlowControl::Refresh()
{
    m_refresh.Expire();
    // Only while data arrives: a VL that went quiet stops refreshing until it is used again.
    const uint8_t active = m_activeMask;
    m_activeMask = 0;
    if (active == 0)
    {
        return;
    }
    for (uint8_t vl = 0; vl < 8; ++vl)
    {
        if ((active >> vl) & 1U)
        {
            SendFcp(vl);
        }
    }
    m_refresh.Set(Simulator::Schedule(m_refreshInterval, &IbCreditFlowControl::Refresh, this));
}

void
IbCreditFlowControl::SendFcp(uint8_t vl)
{
    if (!m_device)
    {
        return;
    }
    m_rxAdvertised[vl] = m_rxReleased[vl];
    const uint64_t fccl = m_rxReleased[vl] + GetRxBufferBlocks();
    FabricFrame f;
    f.kind = FabricFrame::CONTROL;
    f.l3Bytes = FCP_BYTES;
    f.priority = vl;
    f.aux[0] = vl;
    f.aux[1] = static_cast<uint32_t>(fccl);
    f.aux[2] = static_cast<uint32_t>(fccl >> 32);
    f.aux[3] = FCP_MAGIC;
    f.txTimeStep = Simulator::Now().GetTimeStep();
    ++m_fcpsSent;
    m_device->SendControlFrame(std::move(f));
}

void
IbCreditFlowControl::SetIngressCongested(uint8_t, bool)
{
    // InfiniBand has no pause frames: the credit loop alone holds the upstream back.
}

bool
IbCreditFlowControl::ShouldMarkFecn(uint8_t vl, uint32_t queueBytes, uint32_t bytes)
{
    vl &= 7;
    if (m_fecnThreshold == 0 || queueBytes < m_fecnThreshold || bytes < m_minMarkBytes)
    {
        return false;
    }
    if (!m_markVictims && ((m_blockedMask >> vl) & 1U))
    {
        return false; // no credits: this port is a victim, not the root of the congestion
    }
    if (m_markingRate != 0 && m_markCounter[vl]++ < m_markingRate)
    {
        return false;
    }
    m_markCounter[vl] = 0;
    ++m_fecnMarks;
    return true;
}

uint8_t
IbCreditFlowControl::GetCreditedMask() const
{
    return 0xff;
}

void
IbCreditFlowControl::SetCreditUpdateBlocks(uint32_t blocks)
{
    m_updateBlocks = blocks;
}

uint32_t
IbCreditFlowControl::GetRxOccupancy(uint8_t vl) const
{
    return m_rxUsed[vl & 7];
}

uint32_t
IbCreditFlowControl::GetRxMaxOccupancy(uint8_t vl) const
{
    return m_rxMax[vl & 7];
}

uint64_t
IbCreditFlowControl::GetBlocksReleased(uint8_t vl) const
{
    return m_rxReleased[vl & 7];
}

uint64_t
IbCreditFlowControl::GetOverruns() const
{
    return m_overruns;
}

Time
IbCreditFlowControl::GetStallTime(uint8_t vl) const
{
    vl &= 7;
    int64_t steps = m_stallSteps[vl];
    if ((m_blockedMask >> vl) & 1U)
    {
        steps += Simulator::Now().GetTimeStep() - m_stallStart[vl];
    }
    return TimeStep(steps);
}

uint64_t
IbCreditFlowControl::GetStalls(uint8_t vl) const
{
    return m_stalls[vl & 7];
}

uint64_t
IbCreditFlowControl::GetFcpsSent() const
{
    return m_fcpsSent;
}

uint64_t
IbCreditFlowControl::GetFcpsReceived() const
{
    return m_fcpsReceived;
}

uint64_t
IbCreditFlowControl::GetFecnMarks() const
{
    return m_fecnMarks;
}

} // namespace ns3

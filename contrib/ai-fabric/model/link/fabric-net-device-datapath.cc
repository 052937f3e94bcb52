// SPDX-License-Identifier: GPL-2.0-only
// FabricNetDevice's per-frame path: enqueue, egress arbitration, transmission on the cable,
// reception, delivery to the host's clients and to ns-3's IPv4 stack (NetDevice::Send). One
// translation unit (about 650 lines) so that the per-frame calls between these steps stay
// inlinable; the device's configuration and NetDevice API are in fabric-net-device.cc, captures in
// fabric-net-device-capture.cc.
#include "fabric-channel.h"
#include "fabric-egress-scheduler.h"
#include "fabric-ethernet-header.h"
#include "fabric-net-device.h"
#include "strict-priority-egress-scheduler.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/fabric-clock.h"
#include "ns3/fabric-enum-accessor.h"
#include "ns3/fabric-flow-control.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/ib-lrh-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/link-level-retry.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pfc-header.h"
#include "ns3/pointer.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/tcp-header.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

namespace ns3
{

// ---------------------------------------------------------------- transmit path

inline void
FabricNetDevice::ArmTxComplete(int64_t now)
{
    if (HasPendingTx() && !m_txEventPending)
    {
        m_txEventPending = true;
        FabricSimulatorImpl::ScheduleFast(m_busyUntil - now, m_txComplete);
    }
}

bool
FabricNetDevice::Enqueue(FabricFrame&& frame)
{
    if (frame.kind != FabricFrame::DATA)
    {
        SendControlFrame(std::move(frame));
        return true;
    }
    if (!m_linkUp)
    {
        DropFrame(frame, FabricDropReason::LINK_DOWN);
        return false;
    }
    const uint8_t p = frame.priority & 7;
    if ((m_discardMask >> p) & 1U)
    {
        if (m_receiver)
        {
            m_receiver->NotifyDequeue(this, frame);
        }
        DropFrame(frame, FabricDropReason::PFC_WATCHDOG);
        return false;
    }
    const uint32_t bytes = BufferBytes(frame);
    if (m_txQueueLimit != 0 && m_queueBytes[p] + bytes > m_txQueueLimit)
    {
        DropFrame(frame, FabricDropReason::TX_QUEUE_FULL);
        return false;
    }
    if (m_traced & TRACED_ENQUEUE)
    {
        m_enqueueTrace(frame);
    }
    // An idle port whose queues hold nothing it could send sends the frame at once, as
    // TransmitFrames would after DequeueNext chose it, without the copy into and out of the
    // queue: the queue's slot is usually out of the cache on a large fabric.
    if (!m_txEventPending && m_ctrlQueue.Empty() &&
        ((m_nonEmptyMask | m_sourceReadyMask) & ~m_blockedMask) == 0 &&
        !((m_blockedMask >> p) & 1U) && !(m_traced & TRACED_QUEUE_LENGTH) && m_channel)
    {
        const int64_t now = FabricClock::NowStep();
        if (now >= m_busyUntil)
        {
            SendUnqueued(frame, p, now);
            return true;
        }
    }
    m_queueBytes[p] += bytes;
    m_queue[p].PushBack(std::move(frame));
    m_nonEmptyMask |= static_cast<uint8_t>(1U << p);
    if (m_traced & TRACED_QUEUE_LENGTH)
    {
        m_queueLengthTrace(p, m_queueBytes[p]);
    }
    TryTransmit();
    return true;
}

void
FabricNetDevice::SendUnqueued(FabricFrame& frame, uint8_t p, int64_t now)
{
    if (m_receiver)
    {
        m_receiver->NotifyDequeue(this, frame);
    }
    if (m_schedCountsSent)
    {
        m_scheduler->NotifySent(p, WireBytes(frame));
    }
    StartTransmission(frame, now == m_busyUntil, now);
    ArmTxComplete(now);
}

void
FabricNetDevice::SendControlFrame(FabricFrame&& frame)
{
    m_ctrlQueue.PushBack(std::move(frame));
    TryTransmit();
}

void
FabricNetDevice::AddFrameSource(FabricFrameSource* source, uint8_t prio)
{
    m_sources[prio & 7].push_back(source);
}

void
FabricNetDevice::RemoveFrameSource(FabricFrameSource* source)
{
    for (auto& v : m_sources)
    {
        for (size_t i = 0; i < v.size(); ++i)
        {
            if (v[i] == source)
            {
                v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
                break;
            }
        }
    }
}

void
FabricNetDevice::WakeSource(uint8_t prio)
{
    m_sourceReadyMask |= static_cast<uint8_t>(1U << (prio & 7));
    TryTransmit();
}

void
FabricNetDevice::SetTxBlocked(uint8_t prio, bool blocked)
{
    const uint8_t bit = static_cast<uint8_t>(1U << (prio & 7));
    if (blocked)
    {
        m_fcBlockedMask |= bit;
        m_blockedMask |= bit;
    }
    else
    {
        m_fcBlockedMask &= static_cast<uint8_t>(~bit);
        m_blockedMask = m_llrFull ? 0xff : m_fcBlockedMask;
        TryTransmit();
    }
}

void
FabricNetDevice::SetLinkRetryBlocked(bool full)
{
    m_llrFull = full;
    m_blockedMask = full ? 0xff : m_fcBlockedMask;
    if (!full)
    {
        TryTransmit();
    }
}

void
FabricNetDevice::QueueReplay(FabricFrame&& frame)
{
    m_ctrlQueue.PushBack(std::move(frame));
    TryTransmit();
}

void
FabricNetDevice::ClearQueuedReplays()
{
    // Rare (a NACK during a replay): rebuild the control queue without its data frames.
    const size_t n = m_ctrlQueue.Size();
    FabricFrame f;
    for (size_t i = 0; i < n; ++i)
    {
        m_ctrlQueue.PopFrontInto(f);
        if (f.kind != FabricFrame::DATA)
        {
            m_ctrlQueue.PushBack(std::move(f));
        }
    }
}

void
FabricNetDevice::SetTxDiscard(uint8_t prio, bool discard)
{
    const uint8_t p = prio & 7;
    const uint8_t bit = static_cast<uint8_t>(1U << p);
    if (!discard)
    {
        m_discardMask &= static_cast<uint8_t>(~bit);
        return;
    }
    m_discardMask |= bit;
    FabricFrame f;
    while (!m_queue[p].Empty())
    {
        m_queue[p].PopFrontInto(f);
        m_queueBytes[p] -= BufferBytes(f);
        if (m_receiver)
        {
            m_receiver->NotifyDequeue(this, f);
        }
        DropFrame(f, FabricDropReason::PFC_WATCHDOG);
    }
    m_nonEmptyMask &= static_cast<uint8_t>(~bit);
    if (m_traced & TRACED_QUEUE_LENGTH)
    {
        m_queueLengthTrace(p, 0);
    }
}

bool
FabricNetDevice::IsTxDiscarding(uint8_t prio) const
{
    return (m_discardMask >> (prio & 7)) & 1U;
}

void
FabricNetDevice::ForEachQueued(uint8_t prio, const std::function<void(const FabricFrame&)>& f) const
{
    const FabricFrameQueue& q = m_queue[prio & 7];
    for (uint32_t i = 0; i < q.Size(); ++i)
    {
        f(q.At(i));
    }
}

bool
FabricNetDevice::IsTxBlocked(uint8_t prio) const
{
    return (m_blockedMask >> (prio & 7)) & 1U;
}

bool
FabricNetDevice::DequeueNext(TxFrame& out)
{
    if (!m_ctrlQueue.Empty())
    {
        out.TakeFront(m_ctrlQueue);
        return true;
    }
    for (;;)
    {
        const uint8_t eligible =
            static_cast<uint8_t>((m_nonEmptyMask | m_sourceReadyMask) & ~m_blockedMask);
        if (eligible == 0)
        {
            return false;
        }
        uint8_t p;
        if ((eligible & (eligible - 1)) == 0)
        {
            p = FabricEgressScheduler::HighestBit(eligible);
        }
        else
        {
            uint32_t head[8];
            for (uint8_t q = 0; q < 8; ++q)
            {
                head[q] = ((m_nonEmptyMask >> q) & 1U)
                              ? WireBytes(m_queue[q].Front())
                              : uint32_t(m_mtu) + m_l2Overhead + m_phyOverhead;
            }
            p = m_scheduler->Select(eligible, head);
        }
        const uint8_t bit = static_cast<uint8_t>(1U << p);
        if (m_nonEmptyMask & bit)
        {
            out.TakeFront(m_queue[p]);
            m_queueBytes[p] -= BufferBytes(*out);
            if (m_queue[p].Empty())
            {
                m_nonEmptyMask &= static_cast<uint8_t>(~bit);
            }
            if (m_traced & TRACED_QUEUE_LENGTH)
            {
                m_queueLengthTrace(p, m_queueBytes[p]);
            }
            if (m_receiver)
            {
                m_receiver->NotifyDequeue(this, *out);
            }
        }
        else
        {
            auto& v = m_sources[p];
            bool got = false;
            const size_t n = v.size();
            for (size_t i = 0; i < n && !got; ++i)
            {
                size_t idx = m_sourceRr[p] + i;
                idx = idx >= n ? idx - n : idx;
                if (v[idx]->PullFrame(p, out.ForSource()))
                {
                    m_sourceRr[p] = static_cast<uint32_t>(idx + 1 >= n ? 0 : idx + 1);
                    got = true;
                }
            }
            if (!got)
            {
                m_sourceReadyMask &= static_cast<uint8_t>(~bit);
                continue;
            }
        }
        if (m_schedCountsSent)
        {
            m_scheduler->NotifySent(p, WireBytes(*out));
        }
        return true;
    }
}

void
FabricNetDevice::TryTransmit()
{
    if (m_txEventPending || !m_channel)
    {
        return;
    }
    const int64_t now = FabricClock::NowStep();
    if (now < m_busyUntil)
    {
        ArmTxComplete(now);
        return;
    }
    TransmitFrames(now == m_busyUntil, now);
}

void
FabricNetDevice::TransmitComplete()
{
    m_txEventPending = false;
    TransmitFrames(true, FabricClock::NowStep());
}

void
FabricNetDevice::TransmitFrames(bool continueEpoch, int64_t now)
{
    TxFrame f;
    bool sent = false;
    while (DequeueNext(f))
    {
        if (!m_linkUp)
        {
            DropFrame(*f, FabricDropReason::LINK_DOWN);
            continue;
        }
        const bool control = (*f).kind != FabricFrame::DATA;
        StartTransmission(*f, continueEpoch, now);
        continueEpoch = true;
        sent = true;
        // A link-level control frame that ends within this time step (an IB credit update is
        // 6 bytes) is followed back to back by the next frame, at its exact femtosecond end,
        // without an event of its own.
        if (!control || m_busyUntil > now + 1)
        {
            break;
        }
    }
    if (sent)
    {
        ArmTxComplete(now);
    }
}

void
FabricNetDevice::StartTransmission(FabricFrame& frame, bool continueEpoch, int64_t now)
{
    const uint32_t wire = WireBytes(frame);
    if (!continueEpoch)
    {
        m_epochStep = now;
        m_offsetFs = 0;
    }
    // m_offsetFs < m_fsPerStep here, so the first bit leaves during step m_epochStep.
    const int64_t firstBitStep = m_epochStep;
    m_offsetFs += static_cast<int64_t>(wire) * m_fsPerByte;
    const int64_t whole = m_offsetFs / m_fsPerStep;
    m_epochStep += whole;
    m_offsetFs -= whole * m_fsPerStep;
    const int64_t endStep = m_epochStep + (m_offsetFs > 0 ? 1 : 0);
    m_busyUntil = endStep;

    ++m_counters.txFrames;
    m_counters.txBytes += wire;
    if (frame.kind == FabricFrame::DATA)
    {
        ++m_counters.txDataFrames;
        if (m_hooks & (HOOK_FC_COUNTS | HOOK_LLR))
        {
            if (m_hooks & HOOK_FC_COUNTS)
            {
                m_flowControl->NotifyTransmit(frame.priority & 7, wire);
            }
            if (m_hooks & HOOK_LLR)
            {
                m_llr->NotifyTransmit(frame, wire);
            }
        }
    }
    else if (frame.kind == FabricFrame::PFC)
    {
        ++m_counters.pfcFramesTx;
    }
    if (m_traced & TRACED_MAC_TX)
    {
        m_macTxTrace(frame);
    }
    if (m_traced & (TRACED_SNIFFER | TRACED_PROMISC_SNIFFER))
    {
        Sniff(frame, true);
    }
    m_channel->Transmit(this, frame, firstBitStep, endStep, now);
}

// ---------------------------------------------------------------- receive path

void
FabricNetDevice::Receive(FabricFrame& frame)
{
    if (!m_linkUp)
    {
        if (frame.kind == FabricFrame::DATA)
        {
            m_flowControl->NotifyLost(frame.priority & 7, BufferBytes(frame));
        }
        DropFrame(frame, FabricDropReason::LINK_DOWN);
        return;
    }
    if (frame.kind != FabricFrame::DATA)
    {
        if (m_controlErrorRate > 0.0 && m_errorRng->GetValue() < m_controlErrorRate)
        {
            DropFrame(frame, FabricDropReason::CORRUPT);
            return;
        }
        ++m_counters.rxFrames;
        m_counters.rxBytes += WireBytes(frame);
        if (frame.kind == FabricFrame::PFC)
        {
            ++m_counters.pfcFramesRx;
        }
        if (m_traced & (TRACED_SNIFFER | TRACED_PROMISC_SNIFFER))
        {
            Sniff(frame, false);
        }
        if (frame.kind == FabricFrame::ORDERED_SET)
        {
            if (m_llr)
            {
                m_llr->ReceiveOrderedSet(frame);
            }
            return;
        }
        m_flowControl->ReceiveControl(frame);
        return;
    }
    if ((m_hooks & HOOK_RX_CHECKS) && !ReceiveChecked(frame))
    {
        return;
    }
    ++m_counters.rxFrames;
    ++m_counters.rxDataFrames;
    m_counters.rxBytes += WireBytes(frame);
    if (m_traced & TRACED_MAC_RX)
    {
        m_macRxTrace(frame);
    }
    if (m_traced & (TRACED_SNIFFER | TRACED_PROMISC_SNIFFER))
    {
        Sniff(frame, false);
    }
    if (m_receiver)
    {
        m_receiver->ReceiveFrame(this, frame);
    }
    else
    {
        DeliverLocal(frame);
    }
}

// Out of line: ports without bit errors, filter or LLR never come here.
[[gnu::noinline]] bool
FabricNetDevice::ReceiveChecked(FabricFrame& frame)
{
    const bool corrupt = (m_errorRate > 0.0 && m_errorRng->GetValue() < m_errorRate) ||
                         (!m_rxFilter.IsNull() && m_rxFilter(frame));
    if (m_llr)
    {
        // LLR discards a corrupt frame and every frame after it until the replay brings the
        // expected one: none enters the buffer, so what their sender reserved comes back.
        if (m_llr->Receive(frame, corrupt))
        {
            return true;
        }
        m_flowControl->NotifyLost(frame.priority & 7, BufferBytes(frame));
        if (corrupt)
        {
            DropFrame(frame, FabricDropReason::CORRUPT);
        }
        return false;
    }
    if (corrupt)
    {
        m_flowControl->NotifyLost(frame.priority & 7, BufferBytes(frame));
        DropFrame(frame, FabricDropReason::CORRUPT);
        return false;
    }
    return true;
}

void
FabricNetDevice::DeliverLocal(FabricFrame& frame)
{
    const uint8_t p = frame.priority & 7;
    const uint32_t bytes = BufferBytes(frame);
    // A host consumes at once: its receive buffer is released immediately.
    if (m_hooks & HOOK_FC_COUNTS)
    {
        m_flowControl->NotifyReceive(p, bytes);
        m_flowControl->NotifyRelease(p, bytes);
    }
    if (frame.protocol == 17)
    {
        for (auto& h : m_udpHandlers)
        {
            if (h.first == frame.dstPort)
            {
                h.second(this, frame);
                return;
            }
        }
    }
    if (frame.protocol == 6 && !m_tcpHandler.IsNull())
    {
        m_tcpHandler(this, frame);
        return;
    }
    if (!m_rxCallback.IsNull() && !m_ipHandler.IsNull())
    {
        m_ipHandler(frame.ToL3Packet());
        return;
    }
    if (!m_rxCallback.IsNull())
    {
        Ptr<Packet> pkt = frame.ToL3Packet();
        FabricNetDevice* peer = GetPeer();
        Address from = peer ? Address(peer->m_address) : Address(Mac48Address::GetBroadcast());
        if (!m_promiscCallback.IsNull())
        {
            m_promiscCallback(this, pkt, 0x0800, from, m_address, NetDevice::PACKET_HOST);
        }
        m_rxCallback(this, pkt, 0x0800, from);
        return;
    }
    DropFrame(frame, FabricDropReason::NO_LISTENER);
}

void
FabricNetDevice::SetIpReceiveHandler(Callback<void, Ptr<Packet>> handler)
{
    m_ipHandler = handler;
}

void
FabricNetDevice::DeliverToStack(Ptr<Packet> packet)
{
    if (m_rxCallback.IsNull())
    {
        return;
    }
    FabricNetDevice* peer = GetPeer();
    Address from = peer ? Address(peer->m_address) : Address(Mac48Address::GetBroadcast());
    m_rxCallback(this, packet, 0x0800, from);
}

bool
FabricNetDevice::Send(Ptr<Packet> packet, const Address&, uint16_t protocolNumber)
{
    if (protocolNumber != 0x0800)
    {
        return false; // the fabric carries IPv4 only
    }
    Ipv4Header ip;
    Ptr<Packet> copy = packet->Copy();
    copy->RemoveHeader(ip);
    FabricFrame f;
    f.kind = FabricFrame::DATA;
    f.src = ip.GetSource().Get();
    f.dst = ip.GetDestination().Get();
    f.protocol = ip.GetProtocol();
    f.dscp = static_cast<uint8_t>(ip.GetDscp());
    f.ecn = static_cast<uint8_t>(ip.GetEcn());
    f.ttl = ip.GetTtl();
    f.priority = static_cast<uint8_t>(f.dscp >> 3); // class selector -> 802.1p
    f.l3Bytes = packet->GetSize();
    f.payloadBytes = copy->GetSize();
    if (f.protocol == 17)
    {
        UdpHeader udp;
        copy->PeekHeader(udp);
        f.srcPort = udp.GetSourcePort();
        f.dstPort = udp.GetDestinationPort();
        f.payloadBytes -= 8;
    }
    else if (f.protocol == 6)
    {
        TcpHeader tcp;
        copy->PeekHeader(tcp);
        f.srcPort = tcp.GetSourcePort();
        f.dstPort = tcp.GetDestinationPort();
        f.seq = tcp.GetSequenceNumber().GetValue();
        f.payloadBytes -= tcp.GetSerializedSize();
    }
    f.txTimeStep = Simulator::Now().GetTimeStep();
    f.packet = packet;
    f.ComputeFlowHash();
    return Enqueue(std::move(f));
}

bool
FabricNetDevice::SendFrom(Ptr<Packet> packet,
                          const Address&,
                          const Address& dest,
                          uint16_t protocolNumber)
{
    return Send(packet, dest, protocolNumber);
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "link-level-retry.h"

#include "fabric-channel.h"
#include "fabric-net-device.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LinkLevelRetry");
NS_OBJECT_ENSURE_REGISTERED(LinkLevelRetry);

namespace
{

/// Serial-number order of 32-bit sequences: true if a comes after b.
bool
SeqAfter(uint32_t a, uint32_t b)
{
    return static_cast<int32_t>(a - b) > 0;
}

} // namespace

TypeId
LinkLevelRetry::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LinkLevelRetry")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<LinkLevelRetry>()
            .AddAttribute("MaxOutstandingFrames",
                          "Replay buffer limit in frames (UEC 1.0 LLR register default 2047).",
                          UintegerValue(2047),
                          MakeUintegerAccessor(&LinkLevelRetry::m_maxFrames),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MaxOutstandingBytes",
                          "Replay buffer limit in wire bytes (UEC: about the link's BDP). 0 = "
                          "twice the bytes the link sends in one ACK round trip (propagation "
                          "both ways, the partner's receive latency, AckSpacingBytes and one "
                          "largest frame), so that an error-free link never waits for ACKs.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&LinkLevelRetry::m_maxBytes),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ReplayTimeout",
                          "Replay the whole buffer when no ACK or NACK made progress for this "
                          "long (UEC: at most 65,535 ns). 0 = twice the ACK round trip plus one "
                          "largest frame, at most 65,535 ns.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&LinkLevelRetry::m_replayTimeout),
                          MakeTimeChecker(Time(0), NanoSeconds(65535)))
            .AddAttribute("AckSpacingBytes",
                          "The receive side sends an LLR_ACK once this many bytes arrived in "
                          "sequence since its last one (SAI LLR profile CTLOS_TARGET_SPACING "
                          "default 2048), or this many bytes' serialization time after the "
                          "first unacknowledged frame on a quiet link.",
                          UintegerValue(2048),
                          MakeUintegerAccessor(&LinkLevelRetry::m_ackSpacing),
                          MakeUintegerChecker<uint32_t>(1))
            .AddTraceSource("Replay",
                            "A replay started (first sequence, frames, by the replay timer).",
                            MakeTraceSourceAccessor(&LinkLevelRetry::m_replayTrace),
                            "ns3::LinkLevelRetry::ReplayTracedCallback");
    return tid;
}

LinkLevelRetry::LinkLevelRetry() = default;
LinkLevelRetry::~LinkLevelRetry() = default;

void
LinkLevelRetry::DoDispose()
{
    m_timer.Cancel();
    m_ackTimer.Cancel();
    m_replay.Clear();
    m_device = nullptr;
    Object::DoDispose();
}

void
LinkLevelRetry::SetDevice(FabricNetDevice* device)
{
    m_device = device;
    m_init = false;
}

Time
LinkLevelRetry::GetReplayRoundTrip(uint32_t frameWireBytes) const
{
    NS_ABORT_MSG_IF(!m_device || !m_device->GetPeer(), "LinkLevelRetry: not on an attached link");
    const Time prop = DynamicCast<FabricChannel>(m_device->GetChannel())->GetDelay();
    // The corrupted copy arrives; its NACK goes back (8 bytes, propagation); the replay is sent
    // (W bytes) and arrives (propagation, the partner's receive latency again).
    return m_device->BitTimes(CTLOS_BYTES * 8) + prop +
           m_device->BitTimes(uint64_t(frameWireBytes) * 8) + prop +
           m_device->GetPeer()->GetReceiveLatency();
}

void
LinkLevelRetry::Init()
{
    NS_ABORT_MSG_IF(!m_device, "LinkLevelRetry: not installed on a device");
    FabricNetDevice* peer = m_device->GetPeer();
    NS_ABORT_MSG_IF(!peer, "LinkLevelRetry: the device is not attached to a link");
    NS_ABORT_MSG_IF(!peer->GetLinkRetry(),
                    "LinkLevelRetry: the link partner has no LinkLevelRetry (LLR needs both ends)");
    const uint32_t maxFrame = uint32_t(m_device->GetMtu()) + m_device->GetL2OverheadBytes() +
                              m_device->GetPhyOverheadBytes();
    const Time prop = DynamicCast<FabricChannel>(m_device->GetChannel())->GetDelay();
    const Time ackDelay = m_device->BitTimes(uint64_t(m_ackSpacing) * 8);
    m_ackDelaySteps = std::max<int64_t>(1, ackDelay.GetTimeStep());
    // From a frame's last bit leaving to its ACK arriving, at worst: the frame to the partner,
    // the wait for AckSpacingBytes, an ACK queued behind one largest frame, the way back.
    const Time ackRtt = prop + peer->GetReceiveLatency() + ackDelay +
                        m_device->BitTimes(uint64_t(maxFrame) * 8) +
                        m_device->BitTimes(CTLOS_BYTES * 8) + prop;
    m_bufferBytes = m_maxBytes > 0 ? m_maxBytes
                                   : 2 * uint64_t(std::ceil(m_device->GetDataRate().GetBitRate() *
                                                            ackRtt.GetSeconds() / 8)) +
                                         2 * maxFrame;
    Time timeout = m_replayTimeout;
    if (timeout.IsZero())
    {
        timeout =
            std::min(ackRtt * 2 + m_device->BitTimes(uint64_t(maxFrame) * 8), NanoSeconds(65535));
    }
    m_timeoutSteps = timeout.GetTimeStep();
    m_init = true;
}

Time
LinkLevelRetry::GetReplayTimeout() const
{
    return TimeStep(m_timeoutSteps);
}

uint64_t
LinkLevelRetry::GetReplayBufferBytes() const
{
    return m_bufferBytes;
}

void
LinkLevelRetry::Store(FabricFrame& frame, uint32_t wireBytes)
{
    if (!m_init)
    {
        Init();
    }
    frame.LinkSeq() = m_nextSeq;
    m_nextSeq = m_nextSeq + 1 == 0 ? 1 : m_nextSeq + 1;
    m_replay.EmplaceBack(FabricFrame(frame), wireBytes);
    m_replayBytes += wireBytes;
    ++m_counters.framesSent;
    m_maxSeen = std::max<uint32_t>(m_maxSeen, uint32_t(m_replay.Size()));
    if (m_replay.Size() == 1)
    {
        m_deadline = Simulator::Now().GetTimeStep() + m_timeoutSteps;
        if (!m_timer.IsPending())
        {
            m_timer.Set(
                Simulator::Schedule(TimeStep(m_timeoutSteps), &LinkLevelRetry::ReplayTimer, this));
        }
    }
    UpdateFull();
}

void
LinkLevelRetry::UpdateFull()
{
    const uint32_t maxFrame = uint32_t(m_device->GetMtu()) + m_device->GetL2OverheadBytes() +
                              m_device->GetPhyOverheadBytes();
    const bool full = m_replay.Size() >= m_maxFrames || m_replayBytes + maxFrame > m_bufferBytes;
    if (full == m_full)
    {
        return;
    }
    m_full = full;
    if (full)
    {
        ++m_counters.fullStalls;
    }
    m_device->SetLinkRetryBlocked(full);
}

void
LinkLevelRetry::Acknowledge(uint32_t seq)
{
    bool progress = false;
    while (!m_replay.Empty() && !SeqAfter(m_replay.Front().frame.LinkSeq(), seq))
    {
        m_replayBytes -= m_replay.Front().bytes;
        m_replay.PopFront();
        progress = true;
    }
    if (progress)
    {
        m_deadline = Simulator::Now().GetTimeStep() + m_timeoutSteps;
        UpdateFull();
    }
}

void
LinkLevelRetry::ReplayTimer()
{
    m_timer.Expire();
    if (m_replay.Empty())
    {
        return;
    }
    const int64_t now = Simulator::Now().GetTimeStep();
    if (now < m_deadline)
    {
        m_timer.Set(
            Simulator::Schedule(TimeStep(m_deadline - now), &LinkLevelRetry::ReplayTimer, this));
        return;
    }
    ++m_counters.timerReplays;
    StartReplay(true);
}

void
LinkLevelRetry::StartReplay(bool timer)
{
    m_device->ClearQueuedReplays();
    m_replaysQueued = 0;
    for (uint32_t i = 0; i < m_replay.Size(); ++i)
    {
        ++m_replaysQueued; // first: the device may send it at once
        m_device->QueueReplay(FabricFrame(m_replay.At(i).frame));
    }
    ++m_counters.replays;
    if (!m_replayTrace.IsEmpty() && !m_replay.Empty())
    {
        m_replayTrace(m_replay.Front().frame.LinkSeq(), uint32_t(m_replay.Size()), timer);
    }
    m_deadline = Simulator::Now().GetTimeStep() + m_timeoutSteps;
    if (!m_replay.Empty() && !m_timer.IsPending())
    {
        m_timer.Set(
            Simulator::Schedule(TimeStep(m_timeoutSteps), &LinkLevelRetry::ReplayTimer, this));
    }
}

void
LinkLevelRetry::ReceiveOrderedSet(const FabricFrame& frame)
{
    if (!m_init)
    {
        Init();
    }
    const uint32_t seq = frame.aux[1];
    if (frame.aux[0] == ACK)
    {
        ++m_counters.acksReceived;
        Acknowledge(seq);
        return;
    }
    ++m_counters.nacksReceived;
    Acknowledge(seq);
    if (!m_replay.Empty())
    {
        StartReplay(false);
    }
}

bool
LinkLevelRetry::Receive(const FabricFrame& frame, bool corrupt)
{
    if (!m_init)
    {
        Init();
    }
    const uint32_t seq = frame.LinkSeq();
    if (corrupt)
    {
        ++m_counters.framesBad;
        if (m_rxInit)
        {
            return false; // no sequence to NACK from yet: the partner's replay timer recovers
        }
        // The expected frame corrupt: NACK it, again if it was the replay itself (the sequence
        // in the preamble is taken as intact; the FCS covers the frame).
        const bool expected = seq == m_expected;
        if (expected)
        {
            ++m_counters.badExpected;
        }
        if (!m_nackSent || expected)
        {
            SendOrderedSet(NACK, m_expected - 1);
            m_nackSent = true;
        }
        return false;
    }
    if (m_rxInit)
    {
        m_expected = seq;
        m_rxInit = false;
        m_nackSent = false;
    }
    if (seq != m_expected)
    {
        ++m_counters.framesDiscarded;
        if (SeqAfter(seq, m_expected))
        {
            if (!m_nackSent) // a frame is missing
            {
                SendOrderedSet(NACK, m_expected - 1);
                m_nackSent = true;
            }
        }
        else if (!m_nackSent && !m_ackTimer.IsPending())
        {
            // A duplicate (a timer replay after a lost ACK): acknowledge again, soon.
            m_ackTimer.Set(
                Simulator::Schedule(TimeStep(m_ackDelaySteps), &LinkLevelRetry::AckFlush, this));
        }
        return false;
    }
    m_expected = m_expected + 1 == 0 ? 1 : m_expected + 1;
    m_nackSent = false;
    ++m_counters.framesAccepted;
    m_unackedBytes += m_device->WireBytes(frame);
    if (m_unackedBytes >= m_ackSpacing)
    {
        m_ackTimer.Cancel();
        m_unackedBytes = 0;
        SendOrderedSet(ACK, seq);
    }
    else if (!m_ackTimer.IsPending())
    {
        m_ackTimer.Set(
            Simulator::Schedule(TimeStep(m_ackDelaySteps), &LinkLevelRetry::AckFlush, this));
    }
    return true;
}

void
LinkLevelRetry::AckFlush()
{
    m_ackTimer.Expire();
    if (m_nackSent || m_rxInit)
    {
        return;
    }
    m_unackedBytes = 0;
    SendOrderedSet(ACK, m_expected - 1);
}

void
LinkLevelRetry::SendOrderedSet(OsType type, uint32_t seq)
{
    FabricFrame f;
    f.kind = FabricFrame::ORDERED_SET;
    f.l3Bytes = CTLOS_BYTES;
    f.aux[0] = type;
    f.aux[1] = seq;
    f.aux[3] = MAGIC;
    f.txTimeStep = Simulator::Now().GetTimeStep();
    if (type == ACK)
    {
        ++m_counters.acksSent;
    }
    else
    {
        ++m_counters.nacksSent;
    }
    m_device->SendControlFrame(std::move(f));
}

void
LinkLevelRetry::Reset()
{
    m_timer.Cancel();
    m_ackTimer.Cancel();
    if (m_device)
    {
        m_device->ClearQueuedReplays();
    }
    // Whatever the partner did not get was dropped there as link-down: only forget the copies.
    m_replay.Clear();
    m_replayBytes = 0;
    m_replaysQueued = 0;
    if (m_full && m_device)
    {
        m_full = false;
        m_device->SetLinkRetryBlocked(false);
    }
    m_rxInit = true;
    m_nackSent = false;
    m_unackedBytes = 0;
}

const LinkRetryCounters&
LinkLevelRetry::GetCounters() const
{
    return m_counters;
}

uint32_t
LinkLevelRetry::GetOutstandingFrames() const
{
    return uint32_t(m_replay.Size());
}

uint64_t
LinkLevelRetry::GetOutstandingBytes() const
{
    return m_replayBytes;
}

uint32_t
LinkLevelRetry::GetMaxOutstandingSeen() const
{
    return m_maxSeen;
}

} // namespace ns3

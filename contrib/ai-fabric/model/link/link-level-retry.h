// SPDX-License-Identifier: GPL-2.0-only
#ifndef LINK_LEVEL_RETRY_H
#define LINK_LEVEL_RETRY_H

#include "fabric-frame.h"
#include "fabric-ring.h"

#include "ns3/fabric-timer.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

namespace ns3
{

class FabricNetDevice;

/// Counters of one LinkLevelRetry (plain integers; read them at the end of a run).
struct LinkRetryCounters
{
    // transmit side
    uint64_t framesSent{0};     //!< data frames sent for the first time (given a sequence)
    uint64_t framesReplayed{0}; //!< data frames sent again from the replay buffer
    uint64_t replays{0};        //!< replays started (NACK or replay timer)
    uint64_t timerReplays{0};   //!< of which started by the replay timer
    uint64_t acksReceived{0};
    uint64_t nacksReceived{0};
    uint64_t fullStalls{0}; //!< times the replay buffer was full and held new frames back
    // receive side
    uint64_t framesAccepted{0};  //!< good frames with the expected sequence, handed on
    uint64_t framesBad{0};       //!< frames with a bad FCS (corrupt), discarded
    uint64_t badExpected{0};     //!< of which carried the expected sequence (each one NACKed)
    uint64_t framesDiscarded{0}; //!< good frames out of sequence (missing or duplicate), discarded
    uint64_t acksSent{0};
    uint64_t nacksSent{0};
};

/**
 * \ingroup ai-fabric
 * Link-level retry (LLR) of Ultra Ethernet (UEC 1.0 link layer), on one FabricNetDevice: a frame
 * corrupted on the link is replayed by the link, not recovered end to end.
 *
 * Transmit side: every data frame gets the next sequence number (carried in the preamble: no
 * extra wire bytes) and a copy of it enters a replay buffer until the link partner acknowledges
 * it. The buffer holds at most MaxOutstandingFrames frames and MaxOutstandingBytes bytes; while
 * it is full no new data frame leaves (link-level control frames and replays still do). An
 * LLR_NACK carrying sequence s acknowledges up to s and replays every buffered frame after s,
 * ahead of new data (go-back-N); the replay timer replays the whole buffer when ReplayTimeout
 * passes without an ACK or NACK making progress (a lost last frame or a lost NACK).
 *
 * Receive side: a frame with a bad FCS (the device's ReceiveErrorRate or receive filter), or a
 * good one whose sequence is not the expected one, is discarded; the first such frame after
 * normal reception sends an LLR_NACK with the last good sequence, and no ACK or NACK follows
 * until the expected frame arrives (duplicates from a timer replay are discarded quietly),
 * except another NACK if the replayed expected frame itself arrives corrupt.
 * Frames received in sequence are acknowledged cumulatively by LLR_ACK once AckSpacingBytes have
 * arrived since the last ACK, or, on a quiet link, AckSpacingBytes' serialization time after the
 * first unacknowledged frame. ACK and NACK are control ordered sets of the PCS: 8 bytes on the
 * wire (one 64b/66b block), sent ahead of data, never subject to flow control.
 *
 * Both ends of a link need one (LLR is negotiated per link). A link going down empties the
 * replay buffer (what the partner had not received was dropped there, reason link-down) and
 * the receive side accepts the next frame's sequence as the new start (LLR re-initialisation).
 *
 * Not modelled: REPLAY_COUNT_MAX, the FLUSH state and the data-age and PCS-lost timeouts (the
 * replay timer keeps replaying), poisoned frames, the INIT handshake, sequence wrap. Replays pass
 * PFC pauses and CBFC credits (a replayed frame consumes credits again; the discarded copy's
 * credits were returned by the receiver).
 */
class LinkLevelRetry : public Object
{
  public:
    static TypeId GetTypeId();
    LinkLevelRetry();
    ~LinkLevelRetry() override;

    /// Wire bytes of an LLR_ACK / LLR_NACK control ordered set (one 66-bit block's 8 bytes).
    static constexpr uint32_t CTLOS_BYTES = 8;

    /// Called by the device when LLR is installed on it.
    void SetDevice(FabricNetDevice* device);

    /// Transmit side: data `frame` of `wireBytes` starts transmission (new or replayed).
    void NotifyTransmit(FabricFrame& frame, uint32_t wireBytes)
    {
        if (m_replaysQueued > 0)
        {
            // Replays wait in the device's control queue, which is always served first: while
            // some are queued, the next data frame on the wire is one of them.
            --m_replaysQueued;
            ++m_counters.framesReplayed;
            return;
        }
        Store(frame, wireBytes);
    }

    /**
     * Receive side: a data frame arrived; `corrupt` if its FCS is bad.
     * \return true if it is accepted (in sequence and intact), false if it is discarded
     */
    bool Receive(const FabricFrame& frame, bool corrupt);

    /// An LLR_ACK / LLR_NACK from the link partner arrived.
    void ReceiveOrderedSet(const FabricFrame& frame);

    /// The link went down: empty the replay buffer, restart the receive sequence.
    void Reset();

    /// \return true if `frame` is an LLR control ordered set
    static bool IsOrderedSet(const FabricFrame& frame)
    {
        return frame.kind == FabricFrame::ORDERED_SET && frame.aux[3] == MAGIC;
    }

    const LinkRetryCounters& GetCounters() const;
    /// Frames and bytes in the replay buffer now, and the most frames it ever held.
    uint32_t GetOutstandingFrames() const;
    uint64_t GetOutstandingBytes() const;
    uint32_t GetMaxOutstandingSeen() const;
    /// The replay timeout in use (ReplayTimeout, or the automatic value).
    Time GetReplayTimeout() const;
    /// The replay buffer's byte limit in use (MaxOutstandingBytes, or the automatic value).
    uint64_t GetReplayBufferBytes() const;
    /**
     * The delay one replay adds to a frame on an idle link: from the corrupted copy's arrival
     * to its replay's, the NACK's 8 bytes, propagation back, the frame's `frameWireBytes`
     * again, propagation and the partner's receive latency.
     */
    Time GetReplayRoundTrip(uint32_t frameWireBytes) const;

    /// Signature of the Replay trace: the first sequence replayed, frames replayed, by timer.
    typedef void (*ReplayTracedCallback)(uint32_t firstSeq, uint32_t frames, bool timer);

  protected:
    void DoDispose() override;

  private:
    static constexpr uint32_t MAGIC = 0x11e0a000; //!< aux[3] of an LLR ordered set

    enum OsType : uint32_t
    {
        ACK = 1,
        NACK = 2,
    };

    struct Stored
    {
        Stored(FabricFrame&& f, uint32_t b)
            : frame(std::move(f)),
              bytes(b)
        {
        }

        FabricFrame frame;
        uint32_t bytes;
    };

    void Init();
    void Store(FabricFrame& frame, uint32_t wireBytes);
    void Acknowledge(uint32_t seq);
    void StartReplay(bool timer);
    void ReplayTimer();
    void SendOrderedSet(OsType type, uint32_t seq);
    void AckFlush();
    void UpdateFull();

    FabricNetDevice* m_device{nullptr};
    bool m_init{false};
    // configuration
    uint32_t m_maxFrames{2047};
    uint64_t m_maxBytes{0};
    uint64_t m_bufferBytes{0}; //!< m_maxBytes, or the automatic value
    Time m_replayTimeout;
    int64_t m_timeoutSteps{0};
    uint32_t m_ackSpacing{2048};
    int64_t m_ackDelaySteps{0};
    // transmit side
    uint32_t m_nextSeq{1};
    FabricRing<Stored> m_replay; //!< unacknowledged frames, oldest first
    uint64_t m_replayBytes{0};
    uint32_t m_replaysQueued{0}; //!< replays handed to the device and not yet sent
    uint32_t m_maxSeen{0};
    bool m_full{false};
    int64_t m_deadline{0}; //!< replay timer: replay when no progress by then
    FabricTimer m_timer;
    // receive side
    uint32_t m_expected{1};
    bool m_rxInit{false}; //!< accept the next frame's sequence as the start (after Reset)
    bool m_nackSent{false};
    uint32_t m_unackedBytes{0};
    FabricTimer m_ackTimer;

    LinkRetryCounters m_counters;
    TracedCallback<uint32_t, uint32_t, bool> m_replayTrace;
};

} // namespace ns3

#endif // LINK_LEVEL_RETRY_H

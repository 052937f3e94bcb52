// SPDX-License-Identifier: GPL-2.0-only
#ifndef LINUX_TCP_SENDER_H
#define LINUX_TCP_SENDER_H

#include "linux-tcp-congestion.h"
#include "linux-tcp-segment.h"

#include "ns3/event-id.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <deque>

namespace ns3
{

class LinuxTcpStack;
struct FabricFrame;

/// Linux's icsk_ca_state.
enum class LinuxTcpCaState : uint8_t
{
    OPEN = 0,
    DISORDER = 1,
    CWR = 2,
    RECOVERY = 3,
    LOSS = 4
};

/// Per-connection sender counters (Linux MIB names in comments).
struct LinuxTcpSenderStats
{
    uint64_t segmentsSent{0};
    uint64_t retransmits{0};         //!< TCPRetransSegs
    uint64_t timeouts{0};            //!< TCPTimeouts
    uint64_t tlpProbes{0};           //!< TCPLossProbes
    uint64_t tlpRecoveries{0};       //!< TCPLossProbeRecovery
    uint64_t rackLosses{0};          //!< segments RACK marked lost
    uint64_t lostRetransmits{0};     //!< TCPLostRetransmit (a retransmission marked lost again)
    uint64_t fastRetransmits{0};     //!< entries into Recovery (TCPSackRecovery)
    uint64_t dsacksReceived{0};      //!< TCPDSACKRecv
    uint64_t spuriousRetransmits{0}; //!< retransmissions a D-SACK proved unnecessary
    uint64_t ecnReductions{0};       //!< entries into CWR on ECE
};

/**
 * \ingroup ai-fabric
 * The sending half of one Linux TCP connection (data flows one way, as in NCCL's socket
 * transport where every socket carries one direction): the retransmission queue as a
 * scoreboard of segments, SACK processing, RACK loss detection (RFC 8985, net/ipv4/tcp_recovery.c),
 * the tail loss probe (tcp_schedule_loss_probe, tcp_send_loss_probe, tcp_process_tlp_ack), the
 * RTO timer with backoff (tcp_retransmit_timer, tcp_rearm_rto), the RTT estimator
 * (tcp_rtt_estimator: RTO = SRTT + max(mdev terms, rto_min)), PRR during Recovery and CWR
 * (tcp_cwnd_reduction), the congestion-state machine (Open, Disorder, CWR, Recovery, Loss),
 * the cwnd-limited test that gates window growth, restart after idle, and ECN reactions.
 * Segments are sent as the NIC pulls them (TSO bursts of up to the autosized segment count,
 * tcp_tso_autosize); no pacing (CUBIC and DCTCP under fq_codel are not paced).
 */
class LinuxTcpSender
{
  public:
    LinuxTcpSender(LinuxTcpStack* stack, uint32_t id, Ptr<LinuxTcpCongestionOps> cc);
    ~LinuxTcpSender();

    /// Where the segments go (set once, by LinuxTcpStack::Connect).
    void SetPeer(uint32_t localAddr,
                 uint32_t remoteAddr,
                 uint16_t srcPort,
                 uint16_t dstPort,
                 uint32_t peerEndpoint,
                 uint32_t mss,
                 uint32_t peerWindow);

    /// The application wrote `bytes` into the send buffer (the caller checked the space).
    void Write(uint64_t bytes);
    /// Free send-buffer space.
    uint64_t GetSendSpace() const;
    /// Bytes written and not yet acknowledged.
    uint64_t GetUnacked() const;

    /// Something may be sent now.
    bool CanSend() const;
    /// Build the next segment into `out`; false if nothing may be sent.
    bool NextFrame(FabricFrame& out, bool& burstDone);
    /// An ACK for this connection.
    void ReceiveAck(const LinuxTcpRxSegment& ack);

    const LinuxTcpSenderStats& GetStats() const;
    LinuxTcpCaState GetCaState() const;
    uint32_t GetCwnd() const;
    uint32_t GetSsThresh() const;
    int64_t GetSrttNs() const;
    /// The current RTO in time steps (with backoff).
    int64_t GetRtoNs() const;
    uint32_t GetPacketsInFlight() const;
    uint32_t GetId() const;
    Ptr<LinuxTcpCongestionOps> GetCongestionOps() const;

  private:
    struct Seg
    {
        uint64_t start;
        uint32_t len;
        uint8_t flags;
        int64_t xmitNs; //!< last (re)transmission
    };

    static constexpr uint8_t SACKED = 1;
    static constexpr uint8_t LOST = 2;
    static constexpr uint8_t RETRANS = 4;      //!< a retransmission is in flight
    static constexpr uint8_t EVER_RETRANS = 8; //!< retransmitted at least once

    enum class Timer : uint8_t
    {
        NONE,
        RETRANS,
        LOSS_PROBE,
        REO
    };

    static uint32_t Pending(uint8_t flags)
    {
        return (flags & (LOST | RETRANS | SACKED)) == LOST ? 1 : 0;
    }

    uint32_t InFlight() const;
    size_t FindSeg(uint64_t seq) const;
    void FillFrame(FabricFrame& f, const Seg& s, bool retransmission);
    bool NextLost(size_t& idx) const;
    void OnSent(uint32_t n, bool newData);

    void CleanRtxQueue(uint64_t ack,
                       int64_t now,
                       uint32_t& newlyAcked,
                       int64_t& firstAckt,
                       int64_t& lastAckt,
                       bool& retransAcked);
    void SackTag(uint64_t start,
                 uint64_t end,
                 int64_t now,
                 uint32_t& newlySacked,
                 int64_t& firstSackt);
    void RackAdvance(const Seg& s, int64_t now);
    uint32_t RackReoWnd() const;
    void RackDetectLoss(int64_t now, int64_t& reoTimeout, uint32_t& newlyLost);
    void DupThreshDetectLoss(uint32_t& newlyLost);
    void MarkLost(Seg& s);
    void UpdateRtt(int64_t seqRtt);
    void SetRto();

    void FastRetransAlert(bool snduAdvanced,
                          uint32_t newlyAckedSacked,
                          uint32_t& newlyLost,
                          bool ece,
                          bool dubious,
                          int64_t now);
    void EnterRecovery();
    void EnterCwr();
    void InitCwndReduction();
    void EndCwndReduction();
    void CwndReduction(uint32_t newlyAckedSacked, uint32_t newlyLost, bool snduAdvanced);
    void ProcessTlpAck(uint64_t ack, bool snduAdvanced, bool dsack, bool sackedData);
    bool IsCwndLimited() const;

    bool ScheduleLossProbe(bool advancingRto, int64_t now);
    void RearmRto(int64_t now);
    void SetTimer(Timer kind, int64_t expiry);
    void TimerFired();
    void RetransmitTimeout(int64_t now);
    void SendLossProbe(int64_t now);
    int64_t Jiffies(int64_t ns) const;

    LinuxTcpStack* m_stack;
    uint32_t m_id;
    Ptr<LinuxTcpCongestionOps> m_ccOps;
    LinuxTcpCcState m_cc;
    LinuxTcpSenderStats m_stats;

    // addressing
    uint32_t m_local{0};
    uint32_t m_remote{0};
    uint16_t m_srcPort{0};
    uint16_t m_dstPort{0};
    uint32_t m_peerEndpoint{0};
    uint32_t m_flowHash{0};

    // sequence space (bytes)
    uint64_t m_written{0}; //!< write_seq
    uint64_t m_sndUna{0};
    uint64_t m_sndNxt{0};
    uint64_t m_sndWnd{0}; //!< peer's receive window
    uint64_t m_highSeq{0};
    uint64_t m_tlpHighSeq{0};
    bool m_tlpRetrans{false};
    bool m_tlpForce{false};    //!< the probe must go out whatever cwnd says
    int64_t m_tlpProbeIdx{-1}; //!< segment to retransmit as the probe (-1: new data)
    std::deque<Seg> m_rtx;     //!< [snd_una, snd_nxt)
    size_t m_lostHint{0};      //!< no LOST && !RETRANS segment before this index

    // scoreboard counts (segments)
    uint32_t m_sackedOut{0};
    uint32_t m_lostOut{0};
    uint32_t m_retransOut{0};
    uint32_t m_lostPending{0}; //!< LOST segments neither SACKed nor being retransmitted
    uint64_t m_highSacked{0};  //!< highest SACKed end (fack)

    // congestion state
    LinuxTcpCaState m_state{LinuxTcpCaState::OPEN};
    uint32_t m_priorCwnd{0};
    uint32_t m_prrDelivered{0};
    uint32_t m_prrOut{0};
    bool m_isCwndLimited{false};
    uint32_t m_maxPacketsOut{0};
    uint64_t m_cwndUsageSeq{0};
    int64_t m_lastSendNs{0}; //!< lsndtime
    uint32_t m_burstLeft{0};
    bool m_cwrPending{false}; //!< send CWR on the next data segment

    // RTT and timers
    int64_t m_srtt8{0}; //!< 8 x SRTT, ns (srtt_us << 3)
    int64_t m_mdev4{0}; //!< mdev_us (4 x mean deviation)
    int64_t m_mdevMax{0};
    int64_t m_rttvar{0};
    uint64_t m_rttSeq{0};
    int64_t m_minRtt{0};
    int64_t m_rto{0}; //!< icsk_rto, ns (jiffies-rounded)
    uint32_t m_backoff{0};
    Timer m_timer{Timer::NONE};
    int64_t m_timerExpiry{0};
    int64_t m_eventAt{-1}; //!< when the scheduled event fires (-1: none)
    EventId m_event;

    // RACK
    int64_t m_rackMstamp{0};
    uint64_t m_rackEndSeq{0};
    int64_t m_rackRtt{0};
    bool m_reordSeen{false};
    uint32_t m_reoWndSteps{1};
};

} // namespace ns3

#endif // LINUX_TCP_SENDER_H

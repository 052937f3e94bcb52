// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_QUEUE_PAIR_H
#define RDMA_QUEUE_PAIR_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/fabric-telemetry.h"
#include "ns3/fabric-timer.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"
#include "ns3/traced-value.h"

#include <deque>
#include <map>

namespace ns3
{

class RdmaNic;
class RdmaCongestionOps;
class RdmaLossRecovery;

/// A work completion (the completion-queue entry of the model).
struct RdmaCompletion
{
    enum Status : uint8_t
    {
        SUCCESS = 0,        //!< every byte acknowledged (requester) / arrived (responder)
        RETRY_EXCEEDED = 1, //!< the retry limit was exhausted; the queue pair is in error
        FLUSHED = 2,        //!< the queue pair entered error before this request was sent
    };

    uint32_t qpn{0};
    uint64_t wrId{0};
    uint64_t bytes{0};
    Status status{SUCCESS};
    Time posted;    //!< requester: when posted; responder: when the first packet arrived
    Time completed; //!< when the completion was generated

    static const char* StatusName(Status s);
};

/**
 * \ingroup ai-fabric
 * One reliable-connected RDMA queue pair, both directions of its state: as a requester it holds
 * the send queue (posted SEND / RDMA WRITE messages), PSN pointers, the retransmission timer
 * and the traced rate that congestion control acts on; as a responder it holds the expected PSN,
 * out-of-order packets (selective repeat), ACK coalescing and CNP pacing.
 *
 * Created in connected pairs by RdmaHelper::Connect; driven by its RdmaNic. The application
 * posts with PostWrite/PostSend and learns completion through SetCompletionCallback
 * (requester: all bytes acknowledged) and SetReceiveCallback (responder: a message fully
 * arrived in memory), or through the Completion/Receive trace sources.
 *
 * Not modelled: memory registration and keys, RDMA READ and atomics, UD/UC transports, SRQs,
 * receive-queue exhaustion (RNR NAK): the responder always has a buffer.
 */
class RdmaQueuePair : public Object
{
  public:
    static TypeId GetTypeId();
    RdmaQueuePair();
    ~RdmaQueuePair() override;

    enum Verb : uint8_t
    {
        WRITE = 0,
        SEND = 1,
    };

    /// Post an RDMA WRITE of `bytes` (> 0). \return the work request id
    uint64_t PostWrite(uint64_t bytes);
    /// Post a SEND of `bytes` (> 0). \return the work request id
    uint64_t PostSend(uint64_t bytes);
    /// Requester completions (one per posted request).
    void SetCompletionCallback(Callback<void, const RdmaCompletion&> cb);
    /// Responder completions (one per message received in full).
    void SetReceiveCallback(Callback<void, const RdmaCompletion&> cb);

    /// Weighted round robin among the NIC's queue pairs: packets per turn (>= 1).
    void SetWeight(uint32_t weight);
    uint32_t GetQpn() const;
    uint32_t GetPeerQpn() const;
    Ipv4Address GetLocalAddress() const;
    Ipv4Address GetRemoteAddress() const;
    uint8_t GetPriority() const;
    uint16_t GetUdpSourcePort() const;
    Ptr<RdmaNic> GetNic() const;
    /// The NIC port this queue pair sends on now.
    uint32_t GetPort() const;
    /// The port it was created on (it returns there after a failover).
    uint32_t GetHomePort() const;
    bool IsError() const;

    /// Current sending rate (set by congestion control).
    DataRate GetRate() const;
    void SetRate(DataRate rate);
    /// The NIC's line rate (the ceiling of SetRate).
    DataRate GetLineRate() const;
    /**
     * Window (set by congestion control): the NIC sends a data packet only while the payload
     * bytes in flight are below it, so it may overshoot by at most one packet; one packet is
     * always allowed when nothing is in flight. 0: no window (the default).
     */
    void SetWindow(uint64_t bytes);
    uint64_t GetWindow() const;
    /**
     * Drop the pacing gap the last packet left at the old rate: the next packet may leave now
     * (at the current rate from then on). For congestion control leaving a slow paced regime
     * (a sub-packet window that grew back to a packet); the NIC never calls it by itself.
     */
    void RestartPacing();
    /**
     * The rate changed from `oldRate` to the current one: stretch or shrink the wait left before
     * the next packet by old / new, so that the last packet's gap follows the new rate (the HPCC
     * simulator's ChangeRate). Without it a queue pair cut to 1 Mb/s keeps the 33 ms gap of a
     * 4 KiB packet however fast it recovers.
     */
    void RetimePacing(DataRate oldRate);
    /// Payload bytes sent (up to GetSndNxt()) and not acknowledged.
    uint64_t GetBytesInFlight() const;
    /// The path's unloaded round-trip time if the helper that connected the pair set it, else 0.
    Time GetBaseRtt() const;
    void SetBaseRtt(Time rtt);
    Ptr<RdmaCongestionOps> GetCongestionOps() const;
    Ptr<RdmaLossRecovery> GetLossRecovery() const;

    /// Requester state: oldest unacknowledged PSN.
    uint32_t GetSndUna() const;
    /// Requester state: next PSN to send (go-back-N rewinds it).
    uint32_t GetSndNxt() const;
    void SetSndNxt(uint32_t psn);
    /// Requester state: one past the highest PSN ever sent.
    uint32_t GetSndMax() const;
    /// Requester state: one past the last PSN of all posted messages.
    uint32_t GetPsnEnd() const;

    /// Statistics of this queue pair.
    struct Stats
    {
        uint64_t dataPackets{0};
        uint64_t retransmittedPackets{0};
        uint64_t timeouts{0};
        uint64_t nacksReceived{0};
        uint64_t nacksSent{0};
        uint64_t acksSent{0};
        uint64_t cnpsReceived{0};
        uint64_t cnpsSent{0};
        uint64_t ecnMarkedReceived{0};
        uint64_t bytesCompleted{0};
        uint64_t messagesCompleted{0};
        uint64_t bytesReceived{0};
        uint64_t messagesReceived{0};
    };

    const Stats& GetStats() const;

    typedef void (*CompletionTracedCallback)(const RdmaCompletion& c);

  protected:
    void DoDispose() override;

  private:
    friend class RdmaNic;

    struct Message
    {
        uint64_t wrId{0};
        uint64_t bytes{0};
        Verb verb{WRITE};
        uint32_t firstPsn{0};
        uint32_t lastPsn{0};
        uint64_t streamOffset{0}; //!< payload bytes posted on this queue pair before it
        Time posted;
        int64_t readyStep{0}; //!< data readable by the NIC (PCIe / host copy done)
    };

    struct OooPacket
    {
        uint32_t payload{0};
        uint8_t opcode{0};
    };

    uint64_t Post(Verb verb, uint64_t bytes);
    /// Payload bytes before `psn` in this queue pair's stream (psn >= the oldest queued one).
    uint64_t StreamOffset(uint32_t psn) const;

    // identity
    RdmaNic* m_nic{nullptr};
    uint32_t m_port{0};     //!< the NIC port it sends on
    uint32_t m_homePort{0}; //!< the port it was created on (or migrated to)
    uint32_t m_qpn{0};
    uint32_t m_peerQpn{0};
    Ipv4Address m_local;
    Ipv4Address m_remote;
    uint8_t m_priority{3};
    uint8_t m_dscp{26};
    uint16_t m_udpSport{49152};
    uint32_t m_flowId{0}; //!< node id << 16 | QPN: the flowId of this QP's frames
    // What every frame of this queue pair carries, fixed at creation (FillHeaderFields): the
    // addresses as host-order words and the flow hash of its 5-tuple (data, ACK, NAK and CNP
    // frames share it: same addresses, UDP ports and protocol).
    uint32_t m_localBits{0};
    uint32_t m_remoteBits{0};
    uint32_t m_flowHash{0};
    uint32_t m_weight{1};
    bool m_error{false};
    bool m_active{false}; //!< on the NIC's active list

    // requester
    std::deque<Message> m_sendQueue;
    uint64_t m_nextWrId{1};
    uint32_t m_sndUna{0};
    uint32_t m_sndNxt{0};
    uint32_t m_sndMax{0};
    uint32_t m_psnEnd{0};
    uint32_t m_retries{0};
    FabricTimer m_rto;
    int64_t m_rtoDeadline{0}; //!< the timer expires at this step (the event re-arms lazily)
    int64_t m_nextTxStep{0};  //!< pacing: earliest next transmission (time step + fs fraction)
    int64_t m_nextTxFs{0};
    uint64_t m_bytesPosted{0};
    TracedValue<uint64_t> m_rateBps;
    TracedValue<uint64_t> m_window{0};
    bool m_telemetry{false}; //!< congestion control asked for in-band telemetry
    Time m_baseRtt;
    DataRate m_lineRate;
    uint64_t m_lineRateBps{0}; //!< m_lineRate in bit/s (read per packet by the pacer)
    Ptr<RdmaCongestionOps> m_cc;
    Ptr<RdmaLossRecovery> m_recovery;
    Callback<void, const RdmaCompletion&> m_completionCb;
    TracedCallback<const RdmaCompletion&> m_completionTrace;

    // responder
    uint32_t m_epsn{0};
    uint32_t m_msn{0};
    bool m_nackSent{false};
    std::map<uint32_t, OooPacket> m_ooo;
    uint64_t m_rxMsgBytes{0};
    Time m_rxMsgFirst;
    bool m_ackPending{false};
    FabricTimer m_ackTimer;
    int64_t m_lastCnpStep{INT64_MIN / 2};
    int64_t m_rxEchoStep{0};    //!< send time of the newest data packet (echoed in ACKs)
    uint32_t m_replyPort{0};    //!< the port the newest data packet came in on (ACKs, CNPs)
    FabricIntRef m_rxTelemetry; //!< its telemetry (echoed in ACKs)
    Callback<void, const RdmaCompletion&> m_receiveCb;
    TracedCallback<const RdmaCompletion&> m_receiveTrace;

    Stats m_stats;
};

} // namespace ns3

#endif // RDMA_QUEUE_PAIR_H

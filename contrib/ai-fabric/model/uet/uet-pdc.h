// SPDX-License-Identifier: GPL-2.0-only
#ifndef UET_PDC_H
#define UET_PDC_H

#include "uet-congestion-ops.h"
#include "uet-load-balancer.h"

#include "ns3/callback.h"
#include "ns3/fabric-timer.h"
#include "ns3/ipv4-address.h"
#include "ns3/object.h"

#include <deque>

namespace ns3
{

class UetNic;

/// Counters of one sending PDC.
struct UetPdcStats
{
    uint64_t dataPackets{0};     //!< data packets sent, retransmissions included
    uint64_t retransmissions{0}; //!< data packets sent again
    uint64_t timeouts{0};        //!< retransmission-timer expiries that declared packets lost
    uint64_t trimNacks{0};       //!< NACKs received for trimmed packets
    uint64_t rodNacks{0};        //!< ROD out-of-order NACKs received
    uint64_t acks{0};            //!< ACKs received
    uint64_t evChanges{0};       //!< packets sent on another EV than the PDC's previous packet
    uint64_t bytesAcked{0};      //!< payload bytes acknowledged
    uint64_t messages{0};        //!< messages completed (every byte acknowledged)
    uint64_t credits{0};         //!< CREDITs received (RCCC)
    uint64_t creditRequests{0};  //!< CREDIT_REQUESTs sent (RCCC)
};

/**
 * \ingroup ai-fabric
 * The initiator side of one UET packet delivery context (PDC): a sequence of messages to one
 * peer, segmented into packets with per-packet PSNs, each packet on the entropy value its load
 * balancer picks, within the window its congestion control sets. Created by UetNic::CreatePdc;
 * UetNic runs its data path (this object holds the state). The PDC is established by its
 * first packet (SYN, no handshake): until an ACK returns the target's PDC id, data packets
 * carry SYN.
 */
class UetPdc : public Object
{
  public:
    static TypeId GetTypeId();
    UetPdc();
    ~UetPdc() override;

    /**
     * Post a message of `bytes` (> 0). \return its message id (0, 1, ... per PDC); the target's
     * NIC reports it with this id, and the completion callback when every byte is acknowledged.
     */
    uint64_t Send(uint64_t bytes);
    /// Called with (message id, bytes) when a message is fully acknowledged.
    void SetCompletionCallback(Callback<void, uint64_t, uint64_t> cb);

    uint32_t GetId() const;
    Ipv4Address GetRemote() const;
    uint32_t GetFlowId() const;
    Ptr<UetCongestionOps> GetCongestionControl() const;
    Ptr<UetLoadBalancer> GetLoadBalancer() const;
    const UetCcState& GetCcState() const;
    const UetPdcStats& GetStats() const;
    /// Messages posted and not yet fully acknowledged.
    uint32_t GetPendingMessages() const;
    /// \return true if a packet exceeded its retransmissions (the PDC stopped)
    bool IsFailed() const;
    /// RCCC: wire bytes of credit the target granted so far, and the last credit target sent.
    uint64_t GetCreditGranted() const;
    uint64_t GetCreditTarget() const;

  protected:
    void DoDispose() override;

  private:
    friend class UetNic;

    /// State of one sent PSN.
    enum PktState : uint8_t
    {
        IN_FLIGHT = 0,
        LOST = 1, //!< queued for retransmission
        ACKED = 2,
    };

    struct TxPkt
    {
        int64_t sentStep{0};
        uint64_t msgId{0};
        uint32_t payload{0};
        uint16_t ev{0};
        uint8_t state{IN_FLIGHT};
        uint8_t sends{0};
        uint32_t msgPkts{0};
        bool last{false};
    };

    struct TxMsg
    {
        uint64_t bytes{0};
        uint32_t pkts{0};
        uint32_t unacked{0};
        int64_t readyStep{0}; //!< the NIC can read it from then (UetNic PostLatency)
    };

    TxPkt& Pkt(uint32_t psn)
    {
        return m_pkts[psn - m_una];
    }

    UetNic* m_nic{nullptr};
    uint32_t m_id{0};
    uint16_t m_dpdcid{0xffff}; //!< the target's PDC id (0xffff: not known yet, send SYN)
    Ipv4Address m_local;
    Ipv4Address m_remote;
    uint32_t m_flowId{0};
    Ptr<UetCongestionOps> m_cc;
    Ptr<UetLoadBalancer> m_lb;
    UetCcState m_state;
    UetPdcStats m_stats;
    Callback<void, uint64_t, uint64_t> m_completionCb;

    std::deque<TxMsg> m_msgs; //!< messages m_msgBase ...
    uint64_t m_msgBase{0};
    uint64_t m_nextMsgId{0};
    uint64_t m_sendMsg{0};    //!< the message the next new packet belongs to
    uint32_t m_sendPkt{0};    //!< its index in that message
    uint32_t m_una{0};        //!< oldest PSN not acknowledged
    uint32_t m_sndNxt{0};     //!< next new PSN
    uint32_t m_psnEnd{0};     //!< one past the last PSN of the messages posted
    std::deque<TxPkt> m_pkts; //!< PSNs m_una .. m_sndNxt - 1
    std::deque<uint32_t> m_retx;
    FabricTimer m_rto;
    uint16_t m_lastEv{0};
    uint64_t m_newBytes{0};      //!< payload bytes posted and not sent yet
    uint64_t m_lostBytes{0};     //!< payload bytes queued for retransmission ...
    uint32_t m_lostPkts{0};      //!< ... in this many packets
    uint64_t m_creditTarget{0};  //!< RCCC: the credit target last told the target (wire bytes)
    uint64_t m_creditGranted{0}; //!< RCCC: credit the target granted so far (wire bytes)
    bool m_active{false};
    bool m_failed{false};
};

} // namespace ns3

#endif // UET_PDC_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef UET_NIC_H
#define UET_NIC_H

#include "uet-credit-scheduler.h"
#include "uet-pdc.h"

#include "ns3/fabric-net-device.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <unordered_map>
#include <vector>

namespace ns3
{

/// NIC-wide UET counters.
struct UetNicCounters
{
    uint64_t dataPackets{0};     //!< data packets sent (retransmissions included)
    uint64_t retransmissions{0}; //!< data packets sent again
    uint64_t timeouts{0};        //!< retransmission-timer expiries that declared packets lost
    uint64_t acksSent{0};
    uint64_t nacksSent{0};
    uint64_t trimmedReceived{0}; //!< trimmed data packets that arrived (answered by a NACK)
    uint64_t trimNacks{0};       //!< NACKs for trimmed packets received
    uint64_t rodNacks{0};        //!< ROD out-of-order NACKs received
    uint64_t evChanges{0};       //!< packets on another EV than their PDC's previous one
    uint64_t duplicates{0};      //!< data packets received twice (spurious retransmissions)
    uint64_t messagesDelivered{0};
    uint64_t failedPdcs{0};         //!< PDCs stopped after MaxRetransmissions
    uint64_t creditsSent{0};        //!< RCCC CREDITs this NIC's scheduler sent (target side)
    uint64_t creditsReceived{0};    //!< RCCC CREDITs received (initiator side)
    uint64_t creditRequestsSent{0}; //!< RCCC CREDIT_REQUESTs sent (initiator side)
    uint64_t peakReceiveBacklog{0}; //!< ReceiveRate: most payload bytes waiting for memory
    uint64_t pressuredAcks{0};      //!< ACKs sent with back-pressure (> 0)
};

/// A message that arrived in full at its target (UetNic's receive callback).
struct UetMessage
{
    Ipv4Address src;    //!< the initiator's address
    uint32_t flowId{0}; //!< the initiator PDC's flow id (UetNic::CreatePdc)
    uint16_t pdc{0};    //!< the initiator's PDC id (with `src`: which PDC sent it)
    uint64_t msgId{0};  //!< per-PDC message number (UetPdc::Send's return)
    uint64_t bytes{0};
    Time first;     //!< first packet's arrival
    Time completed; //!< in memory (after DeliverLatency)
};

/**
 * \ingroup ai-fabric
 * Ultra Ethernet Transport (UEC 1.0) in a host NIC: the packet delivery sub-layer (PDS) and the
 * WRITE/SEND message semantics a collective library needs, beside ns-3's IPv4 stack and the
 * RDMA engine. Attached to the host's FabricNetDevice it handles UDP port 4793 and is pulled by
 * the device as a FabricFrameSource on DataPriority.
 *
 * Initiator (UetPdc): a message is segmented into Mtu-payload packets (IPv4 20 + UDP 8 + PDS
 * request 12 + SES standard 44 bytes of headers, uetwire), each with its PSN and an entropy
 * value from the PDC's load balancer in the UDP source port (switches' ECMP hashes it: one EV,
 * one path); sent while the window of the PDC's congestion control allows; the last packet of
 * a message and every retransmission request an ACK. ACKs carry the cumulative PSN and a 64-bit
 * SACK bitmap; a NACK for a trimmed packet (code TRIMMED or TRIMMED_LAST_HOP) makes it resent
 * at once; the retransmission timer (RetransmitTimeout, per packet) resends what it declares
 * lost. RUD (reliable unordered, default) lets packets land in any order; ROD (Ordered = true)
 * accepts only the next PSN and NACKs (ROD_OOO) the rest, and the sender goes back to it.
 *
 * Target: a PDC is set up by its first packet (SYN; no handshake RTT) and answered with the
 * target's PDC id. ACKs are coalesced: one per AckBytes (16 KiB) of data, and at once for a
 * CE-marked packet, an ACK request, the PDC's first packet, a duplicate, and every packet
 * while an ACK-requested message is incomplete. Messages complete when all their packets are
 * in, reported in posting order per PDC (UetMessage) after DeliverLatency.
 *
 * Receiver credit (RCCC, a congestion control that sets UetCcState::useCredit, UetRccc): a
 * PDC sends only while it has credit and spends each packet's wire bytes of it; its data
 * packets carry the PDS CC state (4 B more) with its credit target, and when it is out of
 * credit with something to send and a higher target it sends a CREDIT_REQUEST (a PDS control
 * packet). The target's UetCreditScheduler (one per NIC, made on the first credit target)
 * answers with CREDITs paced at its line rate; the initiator's CC turns them into credit.
 *
 * Not modelled: RUDI/UUD, the CC-state ACK fields beyond ECN and the echoed timestamp
 * (receiver back-pressure), credit carried in ACK_CC (CREDITs are separate control packets),
 * SES matching, rendezvous and READ/atomics, several NIC ports, the PDC close handshake,
 * security headers, PSN wrap-around (PSNs are 32-bit).
 */
class UetNic : public Object
{
  public:
    static TypeId GetTypeId();
    UetNic();
    ~UetNic() override;

    /// Attach to the host's fabric port (UetHelper::Install does it).
    void Attach(Ptr<FabricNetDevice> device);
    Ptr<FabricNetDevice> GetDevice() const;

    void SetCongestionControl(ObjectFactory factory);
    void SetLoadBalancer(ObjectFactory factory);

    /// A new PDC towards `remote`; `flowId` comes back with every message at the target.
    Ptr<UetPdc> CreatePdc(Ipv4Address remote, uint32_t flowId = 0);
    uint32_t GetNPdcs() const;
    Ptr<UetPdc> GetPdc(uint32_t id) const;

    /// Called for every message that arrived in full at this NIC.
    void SetReceiveCallback(Callback<void, const UetMessage&> cb);

    /**
     * Give an idle PDC (nothing in flight or queued) fresh congestion-control state, as a new
     * PDC would start with (FlowWorkload reuses PDCs between flows this way).
     */
    void RestartCongestionControl(Ptr<UetPdc> pdc);
    /// From a message being posted to the NIC being able to read it (PostLatency).
    Time GetPostLatency() const;
    uint32_t GetMtu() const;
    /// Wire bytes of a data packet of `payload` bytes (headers, Ethernet framing, IFG).
    uint32_t GetDataWireBytes(uint32_t payload) const;
    /// Wire bytes of an ACK.
    uint32_t GetAckWireBytes() const;
    const UetNicCounters& GetCounters() const;
    /// RCCC's target side (null until a PDC asked this NIC for credit).
    Ptr<UetCreditScheduler> GetCreditScheduler() const;

    typedef void (*PdcPsnTracedCallback)(uint32_t pdc, uint32_t psn);
    typedef void (*PdcTracedCallback)(uint32_t pdc);

    /// Used by UetPdc::Send.
    uint64_t Post(UetPdc* pdc, uint64_t bytes);

  protected:
    void DoDispose() override;

  private:
    /// The device pulls data frames through this.
    class Source : public FabricFrameSource
    {
      public:
        bool PullFrame(uint8_t /* prio */, FabricFrame& out) override
        {
            return nic->PullFrame(out);
        }

        UetNic* nic{nullptr};
    };

    /// The target side of a PDC.
    struct RxPdc
    {
        uint32_t src{0};
        uint16_t spdcid{0};
        uint16_t id{0};
        uint32_t rcvNxt{0};        //!< every PSN below has arrived
        uint32_t highest{0};       //!< one past the highest PSN arrived (bounds the SACK scan)
        std::vector<uint8_t> seen; //!< PSNs rcvNxt .. rcvNxt + size - 1 (index psn & mask)
        uint32_t bytesSinceAck{0};
        bool ackReqPending{false}; //!< an ACK-requested message is not complete yet
        uint32_t ackReqPsn{0};     //!< ... up to this PSN
        bool rodNackSent{false};
        uint16_t lastEv{0};     //!< EV of the last data packet (what a delayed ACK echoes)
        int64_t lastEcho{0};    //!< its send time
        uint32_t lastPsn{0};    //!< its PSN
        bool unreported{false}; //!< PSNs beyond rcvNxt arrived since the last ACK ...
        uint32_t unrepLo{0};    //!< ... the lowest of them
        uint32_t unrepHi{0};    //!< ... the highest of them
        FabricTimer ackTimer;   //!< AckDelay: acknowledges what coalescing holds back

        struct Msg
        {
            uint32_t left{0};
            bool known{false};
            uint64_t bytes{0};
            int64_t firstStep{0};
            int64_t drainStep{0}; //!< ReceiveRate: when its last byte is in memory
        };

        std::deque<Msg> msgs; //!< messages msgBase ...
        uint64_t msgBase{0};
        uint32_t flowId{0};
    };

    /// Fresh congestion-control state for `pdc` (its CC's Init with this NIC's parameters).
    void InitCongestionControl(Ptr<UetPdc> pdc);
    bool PullFrame(FabricFrame& out);
    bool FillData(UetPdc* pdc, FabricFrame& out, int64_t now);
    void Activate(UetPdc* pdc);
    void Receive(FabricNetDevice* device, const FabricFrame& f);
    void HandleData(const FabricFrame& f);
    /// ReceiveRate: queue `bytes` of payload for memory; \return when they are in it.
    int64_t Drain(uint32_t bytes);
    /// The back-pressure an ACK carries now (0..127).
    uint8_t ReceiverPressure();
    /// ReceiveRate: payload bytes received and not yet in memory at `now` (time steps).
    uint64_t Backlog(int64_t now) const;
    void HandleAck(UetPdc* pdc, const FabricFrame& f);
    void HandleNack(UetPdc* pdc, const FabricFrame& f);
    RxPdc* FindRx(const FabricFrame& f);
    /// The target PDC of `f`, set up if `f` is its first packet (`created` says so).
    RxPdc* GetOrCreateRx(const FabricFrame& f, bool& created);
    void HandleCredit(UetPdc* pdc, const FabricFrame& f);
    void HandleCreditRequest(const FabricFrame& f);
    /// A credit target arrived for `rx` (RCCC): the scheduler takes it.
    void CreditTargetArrived(RxPdc& rx, uint64_t target);
    void SendCredit(uint16_t rx, uint64_t granted);
    /// RCCC: what the PDC still has to send, for its credit target.
    UetCreditDemand Demand(const UetPdc* pdc) const;
    /// RCCC: out of credit with something to send and a higher target: tell the target.
    void MaybeRequestCredit(UetPdc* pdc);
    bool MarkSeen(RxPdc& rx, uint32_t psn);
    void CountMessagePacket(RxPdc& rx, const FabricFrame& f);
    void SendAck(RxPdc& rx, const FabricFrame& f, bool ecn);
    void AckTimeout(uint16_t id);
    /// Acknowledge up to the last data packet coalescing held back (rx.lastPsn, lastEv, ...).
    void AckLastPacket(RxPdc& rx);
    void SendNack(RxPdc& rx, const FabricFrame& f, uint8_t code, uint32_t psn);
    void FillReply(RxPdc& rx, const FabricFrame& data, FabricFrame& out) const;
    void Acked(UetPdc* pdc, uint32_t psn);
    void NotifyComplete(Ptr<UetPdc> pdc, uint64_t msgId, uint64_t bytes);
    void MarkLost(UetPdc* pdc, uint32_t psn);
    void AdvanceUna(UetPdc* pdc);
    void ArmRto(UetPdc* pdc, int64_t deadline);
    void OnRto(UetPdc* pdc);
    void Fail(UetPdc* pdc);
    void DeliverMessage(UetMessage m);
    void ScheduleWake(int64_t step);
    void Wake();

    Ptr<FabricNetDevice> m_device;
    FabricNetDevice* m_dev{nullptr};
    Source m_source;
    std::vector<Ptr<UetPdc>> m_tx;
    std::vector<UetPdc*> m_active;
    size_t m_rr{0};
    std::vector<RxPdc> m_rx;
    std::unordered_map<uint64_t, uint16_t> m_rxIndex; //!< (src << 16 | spdcid) -> m_rx index
    Callback<void, const UetMessage&> m_receiveCb;
    FabricTimer m_wake;
    int64_t m_wakeStep{0};
    Ptr<UetCreditScheduler> m_credits;
    uint16_t m_creditEv{0}; //!< EVs of CREDITs: sprayed in turn

    // attributes
    uint32_t m_mtu{4096};
    uint32_t m_ackBytes{16384};
    Time m_ackDelay;
    bool m_ordered{false};
    Time m_rtoTime;
    uint32_t m_maxRetx{32};
    Time m_networkRtt;
    bool m_trimming{true};
    uint16_t m_paths{64};
    uint8_t m_dataPriority{2};
    uint8_t m_ackPriority{6};
    Time m_postLatency;
    Time m_deliverLatency;
    DataRate m_rxRate;       //!< ReceiveRate (0: payload goes to memory as it arrives)
    uint64_t m_bpLow{0};     //!< BackPressureLow (bytes of backlog)
    uint64_t m_bpHigh{0};    //!< BackPressureHigh
    int64_t m_rxDrainEnd{0}; //!< when the payload received so far is all in memory
    ObjectFactory m_ccFactory;
    ObjectFactory m_lbFactory;
    TypeId m_ccType;
    TypeId m_lbType;
    uint32_t m_seed{0};

    UetNicCounters m_counters;
    TracedCallback<uint32_t, uint32_t> m_trimNackTrace;
    TracedCallback<uint32_t, uint32_t> m_timeoutTrace;
    TracedCallback<uint32_t> m_pdcFailedTrace;
};

} // namespace ns3

#endif // UET_NIC_H

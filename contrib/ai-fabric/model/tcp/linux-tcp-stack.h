// SPDX-License-Identifier: GPL-2.0-only
#ifndef LINUX_TCP_STACK_H
#define LINUX_TCP_STACK_H

#include "linux-tcp-receiver.h"
#include "linux-tcp-sender.h"

#include "ns3/fabric-net-device.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"
#include "ns3/type-id.h"

#include <deque>
#include <memory>
#include <vector>

namespace ns3
{

class HostStackCostModel;

/// The TCP settings every connection of a stack uses (LinuxTcpStack's attributes).
struct LinuxTcpConfig
{
    int64_t rtoMinNs{200000000};    //!< TCP_RTO_MIN (HZ / 5)
    int64_t rtoInitNs{1000000000};  //!< TCP_TIMEOUT_INIT (1 s)
    int64_t rtoMaxNs{120000000000}; //!< TCP_RTO_MAX (120 s)
    int64_t delAckNs{40000000};     //!< TCP_DELACK_MIN (HZ / 25)
    int64_t jiffyNs{1000000};       //!< 1 / HZ (HZ = 1000)
    int64_t tlpMinNs{2000000};      //!< TCP_TIMEOUT_MIN_US (2 ms)
    uint32_t initCwnd{10};          //!< TCP_INIT_CWND
    uint32_t reordering{3};         //!< sysctl tcp_reordering
    uint32_t tsoMaxBytes{65536};    //!< GSO_LEGACY_MAX_SIZE
    uint32_t groMaxBytes{65536};    //!< GRO_LEGACY_MAX_SIZE
    uint32_t bufferBytes{4194304};  //!< send and receive buffer
    uint32_t quickAcks{16};         //!< TCP_MAX_QUICKACKS
    uint8_t wscale{7};              //!< window scale fitting bufferBytes
    uint8_t priority{0};
    uint8_t dscp{0};
    bool tlp{true};                //!< tcp_early_retrans = 3
    bool rack{true};               //!< tcp_recovery & TCP_RACK_LOSS_DETECTION
    bool slowStartAfterIdle{true}; //!< tcp_slow_start_after_idle
};

/// Told by a LinuxTcpStack when a sender has buffer space or a receiver has data to read.
class LinuxTcpListener
{
  public:
    virtual ~LinuxTcpListener() = default;
    /// Acknowledged data freed send-buffer space on the sender Connect was given `cookie` for.
    virtual void SendSpace(uint64_t cookie);
    /// The receiver Connect was given `cookie` for has new in-order data to read.
    virtual void Readable(uint64_t cookie);
};

/// Sums over a stack's connections.
struct LinuxTcpStackCounters
{
    uint64_t segmentsSent{0};
    uint64_t retransmits{0};
    uint64_t timeouts{0};
    uint64_t tlpProbes{0};
    uint64_t tlpRecoveries{0};
    uint64_t rackLosses{0};
    uint64_t lostRetransmits{0};
    uint64_t fastRetransmits{0};
    uint64_t spuriousRetransmits{0};
    uint64_t dsacksReceived{0};
    uint64_t ecnReductions{0};
    uint64_t acksSent{0};
    uint64_t groUnits{0}; //!< GRO units handed to TCP (data and ACKs)
    uint64_t rxFrames{0}; //!< TCP frames received
    uint64_t interrupts{0};
};

/**
 * \ingroup ai-fabric
 * A host's kernel TCP as Linux runs it, on the fabric's own event model: segments are frames
 * the NIC pulls (no ns-3 IPv4 or Packet on the data path), like the RDMA engine. Aggregated to
 * the host Node and attached to its FabricNetDevice, it owns the host's connection endpoints
 * (LinuxTcpSender, LinuxTcpReceiver) and the receive path between the NIC and TCP: with a
 * HostStackCostModel on the node, frames wait for the interrupt (rx-usecs / rx-frames), the
 * interrupt and per-packet softirq work run on a core, and GRO merges in-order segments of a
 * flow up to GroMaxBytes into one unit that TCP processes (and acknowledges) once; without one,
 * every frame reaches TCP on arrival.
 *
 * Connections are established when Connect is called (the handshake is not simulated: NCCL
 * opens its sockets when the communicator is created, before any step). Every constant is an
 * attribute whose help names the kernel source it comes from.
 */
class LinuxTcpStack : public Object, public FabricFrameSource
{
  public:
    static TypeId GetTypeId();
    LinuxTcpStack();
    ~LinuxTcpStack() override;

    /// Attach to the host's fabric port; takes its TCP frames.
    void Attach(Ptr<FabricNetDevice> device);
    Ptr<FabricNetDevice> GetDevice() const;

    /// The two ends of a connection: a sender here, a receiver at the peer.
    struct Connection
    {
        uint32_t sender{0};
        uint32_t receiver{0};
    };

    /**
     * Open a connection from this host to `peer` (data flows this -> peer). `listener` (not
     * owned) hears of send space here and of readable data at the peer, with `cookie`.
     */
    Connection Connect(Ptr<LinuxTcpStack> peer,
                       uint16_t dstPort,
                       LinuxTcpListener* listener,
                       uint64_t cookie);

    /// Write up to `bytes` into `sender`'s send buffer. \return bytes accepted
    uint64_t Send(uint32_t sender, uint64_t bytes);
    /// Read up to `bytes` of in-order data from `receiver`. \return bytes read
    uint64_t Read(uint32_t receiver, uint64_t bytes);

    LinuxTcpSender& GetSender(uint32_t id);
    LinuxTcpReceiver& GetReceiver(uint32_t id);
    uint32_t GetNSenders() const;
    uint32_t GetNReceivers() const;
    LinuxTcpStackCounters GetCounters() const;
    const LinuxTcpConfig& GetConfig() const;
    uint32_t GetMss() const;

    bool PullFrame(uint8_t prio, FabricFrame& out) override;

    // ---- called by the endpoints
    /// A sender has something to send.
    void MakeReady(uint32_t sender);
    /// Send a pure ACK.
    void SendAckFrame(FabricFrame&& f);
    void NotifySendSpace(uint32_t sender);
    void NotifyReadable(uint32_t receiver);
    void NotifyTimeout(uint32_t sender);
    void NotifyLossProbe(uint32_t sender);
    void NotifyRecovery(uint32_t sender);

    typedef void (*SenderTracedCallback)(uint32_t sender);

  protected:
    void DoDispose() override;
    void DoInitialize() override;

  private:
    void SyncConfig();
    static Ptr<LinuxTcpCongestionOps> CreateCongestionOps(TypeId tid);
    void ReceiveTcp(FabricNetDevice* dev, const FabricFrame& f);
    void Interrupt();
    void DeliverBatch();
    void Process(const LinuxTcpRxSegment& s);

    LinuxTcpConfig m_cfg;
    Time m_rtoMin;
    Time m_rtoInit;
    Time m_rtoMax;
    Time m_delAck;
    Time m_tlpMin;
    Time m_jiffy;
    uint32_t m_segmentSize{0};
    uint32_t m_initCwnd{10};
    uint32_t m_reordering{3};
    uint32_t m_tsoMax{65536};
    uint32_t m_groMax{65536};
    uint32_t m_buffer{4 << 20};
    uint32_t m_quickAcks{16};
    bool m_tlp{true};
    bool m_rack{true};
    bool m_ssAfterIdle{true};
    uint8_t m_priority{0};
    TypeId m_ccType;

    Ptr<FabricNetDevice> m_dev;
    HostStackCostModel* m_cost{nullptr};
    std::vector<std::unique_ptr<LinuxTcpSender>> m_senders;
    std::vector<std::unique_ptr<LinuxTcpReceiver>> m_receivers;
    std::vector<std::pair<LinuxTcpListener*, uint64_t>> m_txListeners;
    std::vector<std::pair<LinuxTcpListener*, uint64_t>> m_rxListeners;
    std::vector<uint8_t> m_inReady;
    std::deque<uint32_t> m_ready;
    uint16_t m_nextPort{32768};

    // receive path with interrupt moderation and GRO
    std::vector<LinuxTcpRxSegment> m_ring;      //!< waiting for an interrupt
    std::deque<LinuxTcpRxSegment> m_processing; //!< being processed by an interrupt
    std::deque<uint32_t> m_batches;             //!< GRO units per interrupt in m_processing
    uint32_t m_batchOpen{0};                    //!< units of the batch being built
    EventId m_irq;
    bool m_irqPending{false};
    uint64_t m_interrupts{0};
    uint64_t m_groUnits{0};
    uint64_t m_rxFrames{0};

    TracedCallback<uint32_t> m_timeoutTrace;
    TracedCallback<uint32_t> m_lossProbeTrace;
    TracedCallback<uint32_t> m_recoveryTrace;
};

} // namespace ns3

#endif // LINUX_TCP_STACK_H

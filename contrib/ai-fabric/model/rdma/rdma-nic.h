// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_NIC_H
#define RDMA_NIC_H

#include "rdma-queue-pair.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/fabric-net-device.h"
#include "ns3/latency-histogram.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <vector>

namespace ns3
{

/// NIC-wide RDMA counters (sums over its queue pairs, plus NIC-level events).
struct RdmaNicCounters
{
    uint64_t dataPacketsSent{0};
    uint64_t retransmittedPackets{0};
    uint64_t acksSent{0};
    uint64_t nacksSent{0};
    uint64_t cnpsSent{0};
    uint64_t cnpsReceived{0};
    uint64_t timeouts{0};
    uint64_t qpErrors{0};
    uint64_t unknownQp{0};
    uint64_t outOfOrderPackets{0}; //!< data packets that arrived ahead of a gap (reordering, loss)
    uint64_t portChanges{0};       //!< queue pairs moved to another port (failover, migration)
};

/**
 * \ingroup ai-fabric
 * The RDMA engine of a host NIC: RoCEv2 reliable-connected transport offloaded in the NIC,
 * beside (not through) ns-3's IPv4 stack. Aggregated to the host Node and attached to its
 * FabricNetDevice (or devices: one per port), it handles UDP port 4791 itself and is pulled by
 * each port's device as a FabricFrameSource, so queue pairs never build NIC queues.
 *
 * Requester: messages are segmented into path-MTU packets with real header sizes (IPv4 20,
 * UDP 8, BTH 12, RETH 16 on WRITE first/only, ICRC 4; frames add Ethernet/802.1Q/FCS), 24-bit
 * PSNs on the wire, the acknowledge-request bit on each message's last packet, per-QP pacing at
 * the rate congestion control sets (femtosecond-exact, like the link), round robin over queue
 * pairs with per-QP weights, and a retransmission timer (RetransmitTimeout, optional
 * exponential backoff, RetryCount retries) after which the queue pair enters the error state:
 * its requests complete with RETRY_EXCEEDED/FLUSHED, QpError fires, and no timer is left, so a
 * simulation can never hang on a dead peer.
 *
 * Responder: in-order delivery, ACKs coalesced over AckInterval (immediately on acknowledge
 * requests, duplicates and filled gaps), NAKs for gaps (loss recovery decides whether
 * out-of-order packets are kept), CNPs (BTH opcode 0x81, DSCP CnpDscp) for ECN-CE-marked
 * packets at most once per CnpInterval per queue pair.
 *
 * Host path: NicTxLatency before the first packet of a message and ReceiveLatency on the NIC's
 * port (NicRxLatency); PCIe: the NIC reads GPU memory over PCIe P2P (GpuDirect, PcieLatency)
 * and writes received data the same way; without GPUDirect the data also crosses PCIe through
 * a host bounce buffer (PcieLatency + bytes / PcieBandwidth each side). The NIC sends no faster
 * than min(line rate, PcieBandwidth).
 *
 * Ports: a NIC has one port, or several (Attach once per port: HPN's dual-plane 2 x 200G NIC,
 * ConnectX-8's multi-plane ports), all with the host's one address. A queue pair sends on one
 * port (its home port, chosen at creation by PortSelection, or given: NCCL's merged multi-port
 * NIC stripes a connection's queue pairs over the ports), each port arbitrating among its own
 * queue pairs; packets arrive on any port. With PortFailover, a queue pair whose port's link goes
 * down moves to the next port that is up (a RoCE LAG's port failover; HPN keeps the QP context on
 * both ports) and returns when its home port comes back; frames lost with the link are
 * retransmitted as any loss. With MigrateOnTimeout it also moves after each retransmission
 * timeout (InfiniBand's automatic path migration): the way around a failure beyond its own link.
 * A responder answers (ACK, NAK, CNP) on the port the data came in on, so the reply crosses the
 * plane the data did, which reaches the requester (HPN keeps port p's traffic in plane p).
 *
 * InfiniBand: on a port whose LinkLayer is InfiniBand the same engine is a host channel
 * adapter: packets carry LRH (+GRH with UseGrh) + BTH instead of Ethernet/IPv4/UDP + BTH, the
 * destination is the peer's LID (the host address the topology helper assigned), the queue
 * pair's VL comes from its service level (DSCP / 8) through the port's SL-to-VL table, and CNPs
 * use the IBA Annex A10 opcode 0x80 (BECN). Queue pairs, loss recovery and completions are
 * unchanged.
 *
 * Not modelled: memory registration, RDMA READ and atomics, UD/UC, RNR, NIC caches (QP/MTT
 * misses), PCIe credit flow control and ordering.
 */
class RdmaNic : public Object
{
  public:
    static TypeId GetTypeId();
    RdmaNic();
    ~RdmaNic() override;

    /// How CreateQueuePair picks the home port of a queue pair when given none.
    enum PortSelection : uint8_t
    {
        PORT_ROUND_ROBIN = 0, //!< ports in turn, in creation order (ConnectX LAG's QP affinity)
        PORT_HASH = 1,        //!< a hash of the queue pair's flow (UDP source port entropy)
    };

    /// CreateQueuePair's port argument: let PortSelection choose.
    static constexpr uint32_t kAnyPort = UINT32_MAX;

    /**
     * Attach to a fabric port of the host (done by RdmaHelper::Install): once per port, in port
     * order (port p of a multi-plane fabric's NIC is in plane p). Every port has the host's
     * address and the same link layer.
     */
    void Attach(Ptr<FabricNetDevice> device);
    /// The device of port `port` (the first by default).
    Ptr<FabricNetDevice> GetDevice(uint32_t port = 0) const;
    uint32_t GetNPorts() const;

    /**
     * Create a local queue pair towards `remote` (connect it with Connect()), sending on port
     * `port` (kAnyPort: PortSelection's choice; a port whose link is down is passed over with
     * PortFailover).
     */
    Ptr<RdmaQueuePair> CreateQueuePair(Ipv4Address remote,
                                       uint8_t dscp = 0,
                                       uint32_t port = kAnyPort);
    /// Connect two queue pairs created on two NICs (each becomes the other's peer).
    static void Connect(Ptr<RdmaQueuePair> a, Ptr<RdmaQueuePair> b);
    uint32_t GetNQueuePairs() const;
    Ptr<RdmaQueuePair> GetQueuePair(uint32_t qpn) const;

    void SetCongestionControl(ObjectFactory factory);
    void SetLossRecovery(ObjectFactory factory);

    uint32_t GetPathMtu() const;
    /// \return true if the NIC's port is InfiniBand (a host channel adapter), false for RoCEv2
    bool IsInfiniBand() const;
    /// Bytes before the BTH: IPv4 20 + UDP 8 on RoCEv2; GRH 40 or nothing on InfiniBand.
    uint32_t NetworkHeaderBytes() const;
    /// Wire bytes of a full data packet: path MTU payload with every header and link overhead.
    uint32_t GetMaxPacketWireBytes() const;
    /**
     * Wire bytes of the data packet of a WRITE that carries `payload` bytes: the first (or
     * only) packet of a message carries the RETH; `telemetry` adds the in-band telemetry header.
     */
    uint32_t GetDataWireBytes(uint32_t payload, bool first, bool telemetry) const;
    /// Wire bytes of an ACK (with the echoed telemetry header if `telemetry`).
    uint32_t GetAckWireBytes(bool telemetry) const;
    /**
     * Give an idle queue pair (nothing posted or in flight) a fresh congestion-control
     * instance from the NIC's factory, rate at line rate, no window and no pacing gap left
     * from the last packet, as a new queue pair starts: a new flow reusing a connection starts
     * like a new one. Also what makes a base
     * RTT set after creation (RdmaQueuePair::SetBaseRtt) reach Init.
     */
    void RestartCongestionControl(Ptr<RdmaQueuePair> qp);
    /// Delay from posting `bytes` to the first byte being readable by the NIC.
    Time GetRequesterDelay(uint64_t bytes) const;
    /// Delay from the last byte arriving to the message being in GPU memory.
    Time GetResponderDelay(uint64_t bytes) const;
    const RdmaNicCounters& GetCounters() const;

    /// Record the one-way latency (send to NIC arrival) of every data packet received.
    void SetLatencyHistogram(Ptr<LatencyHistogram> h);

    // Used by RdmaQueuePair.
    void Activate(RdmaQueuePair* qp);
    void FlushQueuePair(RdmaQueuePair* qp);

    typedef void (*QpErrorTracedCallback)(uint32_t qpn);
    typedef void (*PortChangeTracedCallback)(uint32_t qpn, uint32_t from, uint32_t to);

  protected:
    void DoDispose() override;

  private:
    /// A port: its device, and the arbitration among the queue pairs sending on it (pulled by
    /// its device as a FabricFrameSource).
    class Port : public FabricFrameSource
    {
      public:
        bool PullFrame(uint8_t prio, FabricFrame& out) override
        {
            return nic->PullFrame(*this, prio, out);
        }

        RdmaNic* nic{nullptr};
        uint32_t index{0};
        Ptr<FabricNetDevice> device;
        FabricNetDevice* dev{nullptr};
        std::vector<RdmaQueuePair*> active;
        size_t rr{0};
        uint32_t rrBurst{0};
        uint8_t prioMask{0}; //!< priorities registered with the device
        FabricTimer wakeEvent;
        int64_t wakeStep{0};
    };

    bool PullFrame(Port& port, uint8_t prio, FabricFrame& out);
    /// Register the NIC as port `port`'s frame source for priority `prio` (once).
    void AddSource(Port& port, uint8_t prio);
    /// The first port after `from` (cyclically) whose link is up, or `from`.
    uint32_t NextLivePort(uint32_t from) const;
    /// Send `qp` on port `to` from now on.
    void MoveQueuePair(RdmaQueuePair* qp, uint32_t to);
    /// Port `port`'s link went down or came up (PortFailover).
    void PortLinkChanged(uint32_t port);
    void Receive(FabricNetDevice* device, const FabricFrame& frame);
    void HandleData(RdmaQueuePair* qp, const FabricFrame& f, uint32_t port);
    void HandleAck(RdmaQueuePair* qp, const FabricFrame& f);
    void Consume(RdmaQueuePair* qp, uint32_t payload, uint8_t opcode);
    bool AdvanceUna(RdmaQueuePair* qp, uint32_t cumulative, const FabricFrame& f, bool nak);
    void SendAck(RdmaQueuePair* qp, bool nak, uint32_t psn, uint32_t sack);
    void SendAckNow(RdmaQueuePair* qp);
    void AckTimer(RdmaQueuePair* qp);
    void SendCnp(RdmaQueuePair* qp);
    void FillHeaderFields(RdmaQueuePair* qp,
                          FabricFrame& f,
                          uint8_t opcode,
                          uint8_t dscp,
                          uint8_t priority) const;
    /// A congestion-control instance from the factory for `qp`, initialised.
    void StartCongestionControl(Ptr<RdmaQueuePair> qp);
    void ArmRto(RdmaQueuePair* qp, bool restart);
    void OnRto(RdmaQueuePair* qp);
    void EnterError(RdmaQueuePair* qp);
    void Complete(RdmaQueuePair* qp,
                  uint64_t wrId,
                  uint64_t bytes,
                  Time posted,
                  RdmaCompletion::Status st);
    void DeliverReceive(Ptr<RdmaQueuePair> qp, RdmaCompletion c);
    void ScheduleWake(Port& port, int64_t step);
    void Wake(uint32_t port);
    const RdmaQueuePair::Message* FindMessage(const RdmaQueuePair* qp, uint32_t psn) const;
    uint8_t PriorityOf(uint8_t dscp) const;

    std::vector<std::unique_ptr<Port>> m_ports;
    Ptr<LatencyHistogram> m_latency;
    FabricNetDevice* m_dev{nullptr}; //!< port 0's device (framing and addresses of every port)
    std::vector<Ptr<RdmaQueuePair>> m_qps; //!< index = qpn - 1
    uint32_t m_nextPort{0};                //!< PORT_ROUND_ROBIN's next port

    // attributes
    uint32_t m_pathMtu{4096};
    uint8_t m_dataDscp{26};
    uint8_t m_cnpDscp{48};
    uint8_t m_cnpPriority{6}; //!< priority (VL on InfiniBand) of CNPs, from m_cnpDscp
    Time m_ackInterval;
    Time m_cnpInterval;
    Time m_becnInterval;
    Time m_rto;
    uint32_t m_retryCount{7};
    bool m_backoff{false};
    Time m_nicTxLatency;
    Time m_nicRxLatency;
    Time m_pcieLatency;
    DataRate m_pcieBandwidth;
    bool m_gpuDirect{true};
    bool m_useGrh{false};
    bool m_ib{false};
    ObjectFactory m_ccFactory;
    ObjectFactory m_recoveryFactory;
    TypeId m_ccType;
    TypeId m_recoveryType;
    PortSelection m_portSelection{PORT_ROUND_ROBIN};
    bool m_portFailover{true};
    bool m_migrateOnTimeout{false};

    RdmaNicCounters m_counters;
    TracedCallback<uint32_t> m_qpErrorTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t> m_portChangeTrace;
    TracedCallback<const RdmaCompletion&> m_completionTrace;
};

} // namespace ns3

#endif // RDMA_NIC_H

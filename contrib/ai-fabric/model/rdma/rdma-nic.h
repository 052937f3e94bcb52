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
};

/**
 * \ingroup ai-fabric
 * The RDMA engine of a host NIC: RoCEv2 reliable-connected transport offloaded in the NIC,
 * beside (not through) ns-3's IPv4 stack. Aggregated to the host Node and attached to its
 * FabricNetDevice, it handles UDP port 4791 itself and is pulled by the device as a
 * FabricFrameSource, so queue pairs never build NIC queues.
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
class RdmaNic : public Object, public FabricFrameSource
{
  public:
    static TypeId GetTypeId();
    RdmaNic();
    ~RdmaNic() override;

    /// Attach to the host's fabric port (done by RdmaHelper::Install).
    void Attach(Ptr<FabricNetDevice> device);
    Ptr<FabricNetDevice> GetDevice() const;

    /// Create a local queue pair towards `remote` (connect it with Connect()).
    Ptr<RdmaQueuePair> CreateQueuePair(Ipv4Address remote, uint8_t dscp = 0);
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

    // FabricFrameSource
    bool PullFrame(uint8_t prio, FabricFrame& out) override;

    typedef void (*QpErrorTracedCallback)(uint32_t qpn);

  protected:
    void DoDispose() override;

  private:
    void Receive(FabricNetDevice* device, const FabricFrame& frame);
    void HandleData(RdmaQueuePair* qp, const FabricFrame& f);
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
    void ScheduleWake(int64_t step);
    void Wake();
    const RdmaQueuePair::Message* FindMessage(const RdmaQueuePair* qp, uint32_t psn) const;
    uint8_t PriorityOf(uint8_t dscp) const;

    Ptr<FabricNetDevice> m_device;
    Ptr<LatencyHistogram> m_latency;
    FabricNetDevice* m_dev{nullptr};
    std::vector<Ptr<RdmaQueuePair>> m_qps; //!< index = qpn - 1
    std::vector<RdmaQueuePair*> m_active;
    size_t m_rr{0};
    uint32_t m_rrBurst{0};
    uint8_t m_prioMask{0};
    FabricTimer m_wakeEvent;
    int64_t m_wakeStep{0};

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

    RdmaNicCounters m_counters;
    TracedCallback<uint32_t> m_qpErrorTrace;
    TracedCallback<const RdmaCompletion&> m_completionTrace;
};

} // namespace ns3

#endif // RDMA_NIC_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_NET_DEVICE_H
#define FABRIC_NET_DEVICE_H

#include "fabric-frame.h"
#include "fabric-ring.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/fabric-flagged-trace.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <array>
#include <functional>
#include <vector>

namespace ns3
{

class FabricChannel;
class FabricFlowControl;
class FabricEgressScheduler;
class LinkLevelRetry;
class FabricNetDevice;
class UniformRandomVariable;
class Node;

/**
 * \ingroup ai-fabric
 * Whoever owns a FabricNetDevice's received frames: a FabricSwitch on switch nodes, or a host
 * client. Called directly (one virtual call), not through ns-3 Callbacks.
 */
class FabricFrameReceiver
{
  public:
    virtual ~FabricFrameReceiver() = default;
    /// A data frame arrived on `device`.
    virtual void ReceiveFrame(FabricNetDevice* device, FabricFrame& frame) = 0;
    /**
     * `frame`, previously enqueued on `device`, starts transmission (its buffer is released).
     * The receiver may still write the frame's in-band telemetry (a switch's egress pipeline).
     */
    virtual void NotifyDequeue(FabricNetDevice* device, FabricFrame& frame);
};

/**
 * \ingroup ai-fabric
 * A producer that a FabricNetDevice pulls frames from when the wire is free, so that sources
 * (the RDMA engine, test traffic) never build long NIC queues: they are asked for the next frame
 * exactly when it can be sent. A source calls FabricNetDevice::WakeSource when it has data again.
 */
class FabricFrameSource
{
  public:
    virtual ~FabricFrameSource() = default;
    /// Fill `out` with the next frame of priority `prio` if one is ready now; else return false.
    virtual bool PullFrame(uint8_t prio, FabricFrame& out) = 0;
};

/// Per-device counters (plain integers; read them at the end of a run).
struct FabricDeviceCounters
{
    uint64_t txFrames{0};
    uint64_t txBytes{0}; //!< wire bytes including preamble, IFG and FCS
    uint64_t txDataFrames{0};
    uint64_t rxFrames{0};
    uint64_t rxBytes{0};
    uint64_t rxDataFrames{0};
    uint64_t pfcFramesTx{0};
    uint64_t pfcFramesRx{0};
    std::array<uint64_t, static_cast<size_t>(FabricDropReason::COUNT)> drops{};
};

/// A device's egress queue: frames in cache-line-aligned slots (FabricRing's CellAlign).
using FabricFrameQueue = FabricRing<FabricFrame, 64>;

/**
 * \ingroup ai-fabric
 * A full-duplex point-to-point port for AI-cluster fabrics (used by hosts and switches):
 * Ethernet by default, InfiniBand with LinkLayer = InfiniBand (LRH 8 + VCRC 2 bytes around each
 * packet, no preamble, IFG or minimum size; credits instead of PFC).
 *
 * Models: serialization at line rate counting every wire byte (preamble+SFD+IFG 20 B, Ethernet
 * header 14 B, 802.1Q tag 4 B, FCS 4 B, 64 B minimum frame) with sub-tick accuracy (transmit
 * times are accumulated in femtoseconds so back-to-back frames never drift), propagation delay,
 * eight priority egress queues plus a control queue (PFC frames go first), a pluggable egress
 * scheduler and a pluggable link-level flow control (PfcFlowControl, IbCreditFlowControl), random
 * corruption loss on receive, link down/up, a receive-side forwarding latency and cut-through
 * for switch ports.
 *
 * Hot path: frames are FabricFrame descriptors kept in ring buffers; a busy port has at most one
 * pending transmit event and its channel at most one pending delivery event per direction.
 * No header is serialized per hop; real Ethernet frames (or IB packets) are built only when a
 * pcap/ascii sink is attached (Sniffer traces) or when a frame leaves for ns-3's IPv4 stack.
 *
 * Not modelled: auto-negotiation, FEC latency and symbol errors (use ReceiveErrorRate), MAC
 * learning (forwarding is L3 in FabricSwitch), jumbo-frame fragmentation (frames above the MTU
 * are the sender's bug and are sent as is).
 */
class alignas(64) FabricNetDevice : public NetDevice // per-frame state in the first lines
{
  public:
    static TypeId GetTypeId();
    FabricNetDevice();
    ~FabricNetDevice() override;

    // ---- fabric API ----
    /// Attach to a channel (done by FabricLinkHelper).
    void Attach(Ptr<FabricChannel> channel);
    /// \return the device on the other end of the link (null if not attached)
    FabricNetDevice* GetPeer() const;

    /**
     * Queue a frame for transmission on its priority. Switches call this after admission;
     * hosts for frames that do not come from a FabricFrameSource.
     * \return false if the frame was dropped (tx queue limit or link down)
     */
    bool Enqueue(FabricFrame&& frame);
    /// Send a link-level control frame ahead of all data (used by flow control).
    void SendControlFrame(FabricFrame&& frame);

    /// Register a frame source pulled for priority `prio`.
    void AddFrameSource(FabricFrameSource* source, uint8_t prio);
    /// Remove a registered frame source.
    void RemoveFrameSource(FabricFrameSource* source);
    /// A source of priority `prio` has frames ready again.
    void WakeSource(uint8_t prio);

    /// Block or unblock transmission of priority `prio` (link-level flow control).
    void SetTxBlocked(uint8_t prio, bool blocked);
    bool IsTxBlocked(uint8_t prio) const;
    /**
     * Discard priority `prio` instead of sending it (a PFC watchdog's drop action): what is
     * queued on it now and what is enqueued on it later is dropped (reason pfc-watchdog), each
     * frame handed to the receiver's NotifyDequeue first so a switch frees its buffer.
     */
    void SetTxDiscard(uint8_t prio, bool discard);
    bool IsTxDiscarding(uint8_t prio) const;
    /// Visit the frames queued on priority `prio`, head first (diagnostics; not per frame).
    void ForEachQueued(uint8_t prio, const std::function<void(const FabricFrame&)>& f) const;

    /// Set who receives data frames (a FabricSwitch, or a host client). Not owned.
    void SetFrameReceiver(FabricFrameReceiver* receiver);
    FabricFrameReceiver* GetFrameReceiver() const;

    /// Host side: deliver UDP frames with destination port `port` to `cb` (fast path).
    void RegisterUdpHandler(uint16_t port, Callback<void, FabricNetDevice*, const FabricFrame&> cb);
    /// Deliver every TCP frame (protocol 6) for this host to `cb` instead of ns-3's IPv4 stack
    /// (LinuxTcpStack); a null callback restores the IPv4 path.
    void SetTcpHandler(Callback<void, FabricNetDevice*, const FabricFrame&> cb);

    /// Index of this device on its switch (set by FabricSwitch::AddPort).
    void SetPortIndex(uint16_t index);

    uint16_t GetPortIndex() const
    {
        return m_portIndex;
    }

    /// The IPv4 address of a host NIC (set by the topology helper).
    void SetIpv4Address(Ipv4Address a);
    Ipv4Address GetIpv4Address() const;

    void SetVlanTagged(bool tagged);
    bool IsVlanTagged() const;
    /// Receive-side latency added to every data frame (a switch's port-to-port latency).
    void SetReceiveLatency(Time latency);
    Time GetReceiveLatency() const;

    void SetDataRate(DataRate rate);
    DataRate GetDataRate() const;
    /// \return the time to send `bits` at this device's rate
    Time BitTimes(uint64_t bits) const;

    /// The link layer a port speaks.
    enum LinkLayer : uint8_t
    {
        ETHERNET = 0,   //!< Ethernet: preamble+IFG 20 B, header 14 (+4 802.1Q), FCS 4, 64 B minimum
        INFINIBAND = 1, //!< InfiniBand: LRH 8 + VCRC 2 around the packet, no minimum, no IFG
    };

    /**
     * \return wire bytes of `frame` on this link (Ethernet: including preamble, IFG, FCS,
     * padding; InfiniBand: LRH, VCRC and IbFramingBytes)
     */
    uint32_t WireBytes(const FabricFrame& frame) const
    {
        if (frame.kind != FabricFrame::DATA)
        {
            return ControlWireBytes(frame);
        }
        uint32_t l2 = frame.l3Bytes + m_l2Overhead;
        return (l2 < m_minFrame ? m_minFrame : l2) + m_phyOverhead;
    }

    /**
     * \return bytes of `frame` as a buffer holds it: the link-layer packet without preamble,
     * IFG or IB symbol framing (what switch buffers and IB credits count)
     */
    uint32_t BufferBytes(const FabricFrame& frame) const
    {
        return WireBytes(frame) - m_phyOverhead;
    }

    /**
     * Per-frame link-layer overhead in bytes around the network packet, excluding preamble/IFG:
     * Ethernet 14 + 4 FCS (+4 802.1Q); InfiniBand LRH 8 + VCRC 2.
     */
    uint32_t GetL2OverheadBytes() const;

    /// Per-frame physical-layer bytes (Ethernet preamble+SFD+IFG 20; IB IbFramingBytes).
    uint32_t GetPhyOverheadBytes() const
    {
        return m_phyOverhead;
    }

    void SetLinkLayer(LinkLayer ll);

    LinkLayer GetLinkLayer() const
    {
        return m_linkLayer;
    }

    void SetFlowControl(Ptr<FabricFlowControl> fc);
    Ptr<FabricFlowControl> GetFlowControl() const;
    /**
     * Install link-level retry (UEC LLR) on this port, or remove it (null). Both ends of a link
     * need it. Without it the per-frame path does not change.
     */
    void SetLinkRetry(Ptr<LinkLevelRetry> llr);
    Ptr<LinkLevelRetry> GetLinkRetry() const;
    /// LLR: the replay buffer is full (no new data frame may leave) or has room again.
    void SetLinkRetryBlocked(bool full);
    /// LLR: send `frame` again, ahead of new data (it waits in the control queue).
    void QueueReplay(FabricFrame&& frame);
    /// LLR: forget the replays still waiting in the control queue.
    void ClearQueuedReplays();
    void SetScheduler(Ptr<FabricEgressScheduler> s);
    Ptr<FabricEgressScheduler> GetScheduler() const;

    /**
     * Drop chosen received data frames (reason 'corrupt'): `filter` returns true for a frame
     * that must be lost. For targeted loss experiments (e.g. the last packet of a message);
     * random loss is ReceiveErrorRate. A null callback removes the filter.
     */
    void SetReceiveFilter(Callback<bool, const FabricFrame&> filter);

    /**
     * Hand the received IP packets bound for ns-3's IPv4 stack to `handler` instead, which
     * passes them on with DeliverToStack when it wants to (a host's receive path in between:
     * HostStackCostModel's interrupt moderation sets it). The link layer knows nothing of what
     * is above; a null callback restores direct delivery.
     */
    void SetIpReceiveHandler(Callback<void, Ptr<Packet>> handler);
    /// Deliver a received IPv4 packet to ns-3's stack now (by the IP receive handler).
    void DeliverToStack(Ptr<Packet> packet);

    /// Bring the link end down or up (frames sent or arriving while down drop as link-down).
    void SetLinkUp(bool up);

    /// Bytes queued on priority `prio` (egress queue; excludes frame sources).
    uint32_t GetQueueBytes(uint8_t prio) const;
    /// Frames queued on priority `prio`.
    uint32_t GetQueueFrames(uint8_t prio) const;
    const FabricDeviceCounters& GetCounters() const;
    /// Count and trace a drop of `frame` for `reason` on this device.
    void DropFrame(const FabricFrame& frame, FabricDropReason reason);

    /// Receive-side latency (switch port-to-port latency) in time steps.
    int64_t GetRxLatencySteps() const
    {
        return m_rxLatencySteps;
    }

    /// IsLinkUp() without the virtual call (the switch asks once per forwarded frame).
    bool IsUp() const
    {
        return m_linkUp && m_channel;
    }

    /// Receive side: hand a frame on after its first bit arrives instead of its last.
    void SetCutThrough(bool cutThrough);

    bool IsCutThrough() const
    {
        return m_cutThrough;
    }

    /// Called by the channel when a frame has arrived.
    void Receive(FabricFrame& frame);

    /// Assign RNG streams (error model); \return number of streams used.
    int64_t AssignStreams(int64_t stream);

    /**
     * \return the link-layer packet `frame` stands for, as pcap shows it: an Ethernet frame
     * (header + L3 packet), or on InfiniBand ports LRH (+GRH) + BTH ... ICRC + VCRC; null for
     * InfiniBand link packets (credit updates), which captures omit.
     */
    Ptr<Packet> MaterializeEthernet(const FabricFrame& frame, bool outgoing) const;
    /// The pcap data link type of this port: 1 (Ethernet) or 197 (ERF records of InfiniBand).
    uint32_t GetPcapDataLinkType() const;

    typedef void (*FrameTracedCallback)(const FabricFrame& frame);
    typedef void (*DropTracedCallback)(const FabricFrame& frame, FabricDropReason reason);
    typedef void (*QueueLengthTracedCallback)(uint8_t prio, uint32_t bytes);

    // ---- NetDevice API ----
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsBridge() const override;
    bool IsPointToPoint() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

  protected:
    void DoDispose() override;
    void DoInitialize() override;

  private:
    uint32_t ControlWireBytes(const FabricFrame& frame) const;
    /// Receive side when HOOK_RX_CHECKS is set: bit errors, the filter, LLR. \return accept
    bool ReceiveChecked(FabricFrame& frame);
    void SetErrorRate(double rate);
    double GetErrorRate() const;
    /// Recompute HOOK_RX_CHECKS from the error rate, the filter and LLR.
    void UpdateHooks();
    Ptr<Packet> MaterializeInfiniBand(const FabricFrame& frame) const;
    void Sniff(const FabricFrame& frame, bool outgoing);
    void TryTransmit();
    void TransmitComplete();
    /// Send what may be sent now (`now`: the current time step).
    void TransmitFrames(bool continueEpoch, int64_t now);

    /**
     * The frame TransmitFrames sends, constructed on first use: moved in from a queue (not
     * zeroed first, as a default-constructed local frame was: a 104-byte store per hop), or
     * default-constructed for a source to fill. Later dequeues of the same call reuse it.
     */
    class TxFrame
    {
      public:
        TxFrame() = default;
        TxFrame(const TxFrame&) = delete;
        TxFrame& operator=(const TxFrame&) = delete;

        ~TxFrame()
        {
            if (m_frame != nullptr)
            {
                m_frame->~FabricFrame();
            }
        }

        /// \return the frame (after a successful DequeueNext)
        FabricFrame& operator*() const
        {
            return *m_frame;
        }

        /// Take the front frame of `q`.
        void TakeFront(FabricFrameQueue& q)
        {
            if (m_frame == nullptr)
            {
                m_frame = q.PopFrontTo(m_raw);
            }
            else
            {
                q.PopFrontInto(*m_frame);
            }
        }

        /// \return the frame for a source to fill (default-constructed the first time)
        FabricFrame& ForSource()
        {
            if (m_frame == nullptr)
            {
                m_frame = new (m_raw) FabricFrame();
            }
            return *m_frame;
        }

      private:
        alignas(FabricFrame) unsigned char m_raw[sizeof(FabricFrame)];
        FabricFrame* m_frame{nullptr};
    };

    bool DequeueNext(TxFrame& out);
    void StartTransmission(FabricFrame& frame, bool continueEpoch, int64_t now);
    void DeliverLocal(FabricFrame& frame);
    void UpdateRateConstants();
    /// Tell the channel that CutThrough or ReceiveLatency changed.
    void ReceiveTimingChanged();
    void UpdateFraming();
    void SetIbFramingBytes(uint32_t bytes);
    uint32_t GetIbFramingBytes() const;

    /// Send `frame` of priority `p` on an idle port with nothing else to send (Enqueue's
    /// shortcut): what TransmitFrames does for the frame DequeueNext would have taken.
    void SendUnqueued(FabricFrame& frame, uint8_t p, int64_t now);

    bool HasPendingTx() const
    {
        return !m_ctrlQueue.Empty() || (m_nonEmptyMask | m_sourceReadyMask) != 0;
    }

    /// Schedule TransmitComplete at the end of the frame on the wire if anything waits to be
    /// sent and it is not scheduled yet.
    void ArmTxComplete(int64_t now);

    // Members are grouped by use. The first group is everything the per-frame path reads or
    // writes, ordered so that receiving a frame reads the first two cache lines and sending one
    // a few more: on a large fabric each port's state is usually out of the L2 cache by the time
    // its next frame comes, so every line a hop touches costs a cache miss. Configuration and
    // rarely used state follow.

    // per-frame state: receive side (and the flags both sides test)
    bool m_linkUp{true};
    bool m_txEventPending{false};
    uint8_t m_hooks{0};            //!< HOOK_* bits: which optional per-frame steps run
    bool m_schedCountsSent{false}; //!< m_scheduler->CountsSent(), asked when it is installed
    uint8_t m_nonEmptyMask{0};
    uint8_t m_blockedMask{0};
    uint8_t m_discardMask{0}; //!< SetTxDiscard: priorities dropped instead of sent
    uint8_t m_sourceReadyMask{0};
    uint8_t m_traced{0}; //!< TRACED_* bits: which per-frame trace sources have sinks
    bool m_cutThrough{false};
    uint16_t m_portIndex{0};
    uint32_t m_l2Overhead{22};
    uint32_t m_minFrame{64};
    uint32_t m_phyOverhead{20};
    FabricFrameReceiver* m_receiver{nullptr};
    double m_errorRate{0.0};
    Callback<bool, const FabricFrame&> m_rxFilter;
    FabricDeviceCounters m_counters;
    // per-frame state: transmit side
    Ptr<FabricChannel> m_channel;
    Ptr<FabricEgressScheduler> m_scheduler;
    Ptr<FabricFlowControl> m_flowControl;
    Ptr<EventImpl> m_txComplete; //!< the TransmitComplete event, scheduled again for each frame
    // transmit timing: exact end of the last frame = m_epochStep + m_offsetFs (fs)
    int64_t m_fsPerByte{0}; //!< femtoseconds per wire byte
    int64_t m_fsPerStep{0}; //!< femtoseconds per ns-3 time step
    int64_t m_busyUntil{0};
    int64_t m_epochStep{0};
    int64_t m_offsetFs{0};
    uint32_t m_txQueueLimit{0}; //!< bytes per priority, 0 = unlimited
    std::array<uint32_t, 8> m_queueBytes{};
    FabricFrameQueue m_ctrlQueue;
    std::array<FabricFrameQueue, 8> m_queue;

    // configuration and owners
    Ptr<Node> m_node;
    FabricNetDevice* m_peer{nullptr};
    uint32_t m_ifIndex{0};
    Mac48Address m_address;
    uint16_t m_mtu{4200};
    Ipv4Address m_ipv4;
    DataRate m_rate;
    bool m_vlanTagged{true};
    LinkLayer m_linkLayer{ETHERNET};
    uint32_t m_ibFraming{0}; //!< IbFramingBytes attribute
    std::array<std::vector<FabricFrameSource*>, 8> m_sources;
    std::array<uint32_t, 8> m_sourceRr{};
    Callback<void, Ptr<Packet>> m_ipHandler; //!< SetIpReceiveHandler; null: direct delivery
    Ptr<UniformRandomVariable> m_errorRng;
    double m_controlErrorRate{0.0}; //!< ControlErrorRate: received control frames lost
    Time m_rxLatency;
    int64_t m_rxLatencySteps{0};
    std::vector<std::pair<uint16_t, Callback<void, FabricNetDevice*, const FabricFrame&>>>
        m_udpHandlers;
    Callback<void, FabricNetDevice*, const FabricFrame&> m_tcpHandler;
    NetDevice::ReceiveCallback m_rxCallback;
    NetDevice::PromiscReceiveCallback m_promiscCallback;
    std::vector<Callback<void>> m_linkChangeCallbacks;
    TracedCallback<const FabricFrame&, FabricDropReason> m_dropTrace;
    Ptr<LinkLevelRetry> m_llr;
    uint8_t m_fcBlockedMask{0}; //!< priorities the flow control blocks (SetTxBlocked)
    bool m_llrFull{false};      //!< LLR's replay buffer is full: every priority is blocked

    enum : uint8_t
    {
        HOOK_FC_COUNTS = 1, //!< m_flowControl->CountsTraffic(), asked when it is installed
        HOOK_LLR = 2,       //!< link-level retry installed
        HOOK_RX_CHECKS = 4, //!< received data frames pass ReceiveChecked (errors, filter, LLR)
    };

    // per-frame trace sources: each keeps its bit of m_traced up to date
    enum : uint8_t
    {
        TRACED_MAC_TX = 1,
        TRACED_MAC_RX = 2,
        TRACED_ENQUEUE = 4,
        TRACED_QUEUE_LENGTH = 8,
        TRACED_SNIFFER = 16,
        TRACED_PROMISC_SNIFFER = 32,
    };

    FabricFlaggedTrace<const FabricFrame&> m_macTxTrace;
    FabricFlaggedTrace<const FabricFrame&> m_macRxTrace;
    FabricFlaggedTrace<const FabricFrame&> m_enqueueTrace;
    FabricFlaggedTrace<uint8_t, uint32_t> m_queueLengthTrace;
    FabricFlaggedTrace<Ptr<const Packet>> m_snifferTrace;
    FabricFlaggedTrace<Ptr<const Packet>> m_promiscSnifferTrace;
};

} // namespace ns3

#endif // FABRIC_NET_DEVICE_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_SWITCH_H
#define FABRIC_SWITCH_H

#include "fabric-routing-table.h"
#include "switch-buffer-manager.h"

#include "ns3/fabric-net-device.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <array>
#include <vector>

namespace ns3
{

class FabricFlowControl;
class IbCreditFlowControl;

/// Per-switch counters.
struct FabricSwitchCounters
{
    uint64_t forwarded{0};
    uint64_t ecnMarks{0};
    uint64_t trims{0}; //!< UET data frames trimmed to their headers instead of dropped
    std::array<uint64_t, static_cast<size_t>(FabricDropReason::COUNT)> drops{};
};

/**
 * \ingroup ai-fabric
 * An L3 datacenter switch, aggregated to a Node that holds its FabricNetDevice ports.
 *
 * Per frame: TTL decrement, forwarding-table lookup on the IPv4 destination, ECMP choice among
 * equal-cost ports by the frame's 5-tuple hash mixed with a per-switch seed (so tiers do not
 * polarise), admission by the SwitchBufferManager (PFC XOFF/XON sent through the ingress port's
 * flow control, ECN marking, drops with a reason), and enqueue on the egress port's priority
 * queue. The buffer is released when the frame starts transmission. Ultra Ethernet: with the
 * buffer manager's TrimEnabled, a UET data frame the buffer refuses is trimmed (payload cut to
 * TrimBytes, marked trimmed -- at the last hop when the egress port faces a host -- and
 * queued on TrimPriority) instead of dropped; with EcnOnDequeue marks are decided as frames
 * leave their queue. Port-to-port latency and
 * cut-through/store-and-forward are set on the ports' receive side (one event per hop).
 *
 * InfiniBand: ports whose flow control is IbCreditFlowControl bypass the shared-buffer
 * manager. Each ingress VL holds what its credits allow (lossless by construction), the egress
 * port marks FECN per IBA Annex A10 (IbCreditFlowControl::ShouldMarkFecn), and forwarding uses
 * a linear forwarding table indexed by destination LID (BuildLinearForwardingTable, filled by
 * the topology helper) or adaptive routing (PathSelection). Ethernet ports with UEC's CBFC
 * (CbfcFlowControl) hold their credited VCs the same way (and mark ECN on dequeue from the
 * egress queue's length when the buffer manager marks on dequeue); their other VCs go through
 * the shared buffer.
 *
 * Not modelled: MAC learning/L2 switching, ARP, ACLs and a switch CPU. ns-3's Ipv4
 * routing is never consulted on switches.
 */
class FabricSwitch : public Object, public FabricFrameReceiver
{
  public:
    static TypeId GetTypeId();
    FabricSwitch();
    ~FabricSwitch() override;

    /// Add a port; sets the device's receiver, latency and cut-through. \return its index
    uint16_t AddPort(Ptr<FabricNetDevice> device);
    uint16_t GetNPorts() const;
    Ptr<FabricNetDevice> GetPort(uint16_t i) const;

    FabricRoutingTable& GetRoutingTable();
    const FabricRoutingTable& GetRoutingTable() const;
    Ptr<SwitchBufferManager> GetBufferManager() const;
    void SetBufferManager(Ptr<SwitchBufferManager> bm);

    /**
     * Size the buffer manager for the ports added so far, computing each port's PFC headroom
     * from its link (rate, cable, MTU) unless fixed. Called automatically on the first frame.
     */
    void ConfigureBuffer();
    /**
     * What ConfigureBuffer would refuse for the ports added so far (a fixed BufferSize too small
     * for their reserved space and PFC headroom, EcnKmax < EcnKmin), without configuring.
     */
    SwitchBufferManager::ConfigProblem CheckBufferConfig();

    /// How the switch picks among equal-cost egress ports.
    enum PathSelection : uint8_t
    {
        ECMP = 0,     //!< hash of the 5-tuple and a per-switch seed (static per flow)
        LFT = 1,      //!< linear forwarding table by destination (InfiniBand); D-mod-K if unset
        ADAPTIVE = 2, //!< per packet, the equal-cost port with the least bytes queued on the VL
        FLOWLET = 3,  //!< per flowlet (a gap > FlowletGap starts one): a random port (LetFlow)
        SPRAY = 4,    //!< per packet, a random equal-cost port (oblivious packet spraying)
    };

    /// \return the egress port the switch would pick for `frame`, or -1 if there is no route
    int32_t SelectEgressPort(const FabricFrame& frame) const;

    /**
     * Fill the linear forwarding table for destinations (LIDs) firstLid..lastLid from the
     * routing table: each destination gets one port of its equal-cost group, assigned round
     * robin in LID order so the destinations are spread evenly over the group (what OpenSM's
     * min-hop/fat-tree routing engines balance). Used when PathSelection is Lft.
     */
    void BuildLinearForwardingTable(uint32_t firstLid, uint32_t lastLid);
    /// \return the LFT entry of `lid` (-1: none)
    int32_t GetLftPort(uint32_t lid) const;

    /// Whether BuildLinearForwardingTable has filled a table (InfiniBand fabrics).
    bool HasLinearForwardingTable() const
    {
        return !m_lft.empty();
    }

    uint32_t GetEcmpSeed() const;
    const FabricSwitchCounters& GetCounters() const;

    // FabricFrameReceiver
    void ReceiveFrame(FabricNetDevice* device, FabricFrame& frame) override;
    void NotifyDequeue(FabricNetDevice* device, FabricFrame& frame) override;

    typedef void (*DropTracedCallback)(const FabricFrame& frame, FabricDropReason reason);
    typedef void (*EcnMarkTracedCallback)(const FabricFrame& frame, uint16_t egressPort);

    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;
    void DoInitialize() override;
    void NotifyNewAggregate() override;

  private:
    void Drop(const FabricFrame& frame, FabricDropReason reason);
    void DropOnIngress(FabricNetDevice* ingress, const FabricFrame& frame, FabricDropReason reason);
    uint16_t Choose(const FabricFrame& frame, const uint16_t* ports, uint32_t n) const;
    /// FLOWLET: the flow's port while its packets come closer than FlowletGap, else a new one.
    uint16_t ChooseFlowlet(const FabricFrame& frame, const uint16_t* ports, uint32_t n) const;
    /// A pseudo-random number (xorshift32 seeded from the ECMP seed; deterministic per run).
    uint32_t NextRandom() const;
    /// Cache port i's flow control (and whether it is InfiniBand) and its lossless priorities.
    void UpdatePortFlowControl(uint16_t i);
    /// PFC headroom of one lossless priority and the lossless mask of every port.
    void GetPortHeadroom(std::vector<uint64_t>& headroom, std::vector<uint8_t>& lossless);
    /// The buffer refused a trimmable (UET data) frame: cut it to its headers and queue it.
    void Trim(uint16_t in, uint16_t out, FabricNetDevice* outDev, FabricFrame& frame);
    void ReceiveCredited(FabricNetDevice* outDev, uint16_t in, uint16_t out, FabricFrame& frame);
    void PushTelemetry(FabricNetDevice* device, FabricFrame& frame) const;

    /// What the per-frame path needs of a port, in one record (one cache line holds two).
    struct PortInfo
    {
        FabricNetDevice* dev{nullptr};
        FabricFlowControl* fc{nullptr};
        IbCreditFlowControl* ib{nullptr}; //!< non-null on credit ports (InfiniBand, UEC CBFC)
        uint8_t losslessMask{0};
        uint8_t creditMask{0}; //!< ib->GetCreditedMask(): priorities that travel on credits
        bool fcCounts{true};   //!< fc->CountsTraffic()
    };

    std::vector<Ptr<FabricNetDevice>> m_ports;
    std::vector<PortInfo> m_port; //!< per-port view of m_ports for the per-frame path
    std::vector<uint16_t> m_lft;  //!< linear forwarding table, 0xffff = none
    uint32_t m_lftBase{0};
    PathSelection m_pathSelection{ECMP};

    /// One flowlet-table slot: the flow's hash (tag), its port, when its last packet passed.
    struct Flowlet
    {
        uint32_t tag{0};
        uint16_t port{0xffff};
        int64_t lastStep{0};
    };

    Time m_flowletGap;
    uint32_t m_flowletSlots{4096};
    mutable std::vector<Flowlet> m_flowlets; //!< FLOWLET only, sized on first use
    mutable uint32_t m_rng{0};               //!< FLOWLET and SPRAY
    FabricRoutingTable m_routes;
    Ptr<SwitchBufferManager> m_buffer;
    uint32_t m_seed{0};
    Time m_latency;
    bool m_cutThrough{true};
    FabricSwitchCounters m_counters;
    TracedCallback<const FabricFrame&, FabricDropReason> m_dropTrace;
    TracedCallback<const FabricFrame&, uint16_t> m_ecnTrace;
    TracedCallback<const FabricFrame&, uint16_t> m_trimTrace;
};

} // namespace ns3

#endif // FABRIC_SWITCH_H

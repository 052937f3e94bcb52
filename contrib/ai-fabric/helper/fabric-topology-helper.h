// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_TOPOLOGY_HELPER_H
#define FABRIC_TOPOLOGY_HELPER_H

#include "fabric-link-helper.h"
#include "fabric-topology.h"

#include "ns3/data-rate.h"
#include "ns3/fabric-net-device.h"
#include "ns3/ipv4-address.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"

#include <functional>
#include <stdexcept>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Thrown by topology helpers for invalid parameters. what() is one line that names the
 * parameter and its allowed range, e.g. "Servers must be >= 1 (got 0)".
 */
class FabricConfigError : public std::invalid_argument
{
  public:
    FabricConfigError(const std::string& parameter, const std::string& message)
        : std::invalid_argument(parameter + " " + message),
          m_parameter(parameter)
    {
    }

    const std::string& GetParameter() const
    {
        return m_parameter;
    }

  private:
    std::string m_parameter;
};

/**
 * \ingroup ai-fabric
 * Common part of the topology helpers: servers × GPUs (one host node and one NIC per GPU), link
 * rates and cable lengths, the IPv4 numbering of hosts (consecutive from Network + 1), and the
 * factories for switches, buffer managers and link devices (through GetLinkHelper()).
 *
 * Build() validates every parameter first and throws FabricConfigError without creating
 * anything if one is out of range. One check needs the built switches: a fixed BufferSize
 * (SetBufferAttribute) that cannot hold a switch's reserved space and PFC headroom is reported
 * by Build as FabricConfigError("BufferSize", ...) after the nodes exist (discard them). With
 * BufferSize 0 (the default) the buffer is sized for the links' headroom, so every rate and
 * cable length Validate accepts builds.
 */
class FabricTopologyHelper : public Object
{
  public:
    static TypeId GetTypeId();
    FabricTopologyHelper();
    ~FabricTopologyHelper() override;

    /// Set an attribute of every FabricSwitch built (e.g. "PortToPortLatency").
    void SetSwitchAttribute(std::string name, const AttributeValue& value);
    /// Set an attribute of every SwitchBufferManager built (e.g. "EcnKmin").
    void SetBufferAttribute(std::string name, const AttributeValue& value);
    /// Ethernet or InfiniBand fabric (the LinkLayer attribute).
    void SetLinkLayer(FabricNetDevice::LinkLayer ll);
    FabricNetDevice::LinkLayer GetLinkLayer() const;
    /// The link helper: device, channel, flow-control and scheduler settings, pcap/ascii.
    FabricLinkHelper& GetLinkHelper();

    /**
     * Which rank of |ns3|'s distributed simulator runs each node (the node's system id, fixed
     * when the node is created): `f(role, index)` is asked for every host ("host", host index)
     * and switch (its role, e.g. "leaf", and its switch index) as Build creates them. Cables
     * between nodes of two ranks then carry frames as MPI messages (FabricChannel). Unset, every
     * node is on rank 0.
     */
    void SetSystemIdOf(std::function<uint32_t(const std::string& role, uint32_t index)> f);

    /**
     * Deal the nodes to `ranks` MPI ranks so that only switch-to-switch cables cross ranks: the
     * topology's groups (a leaf and its hosts in a leaf-spine fat-tree, a pod in a k-ary
     * fat-tree, a block of servers with its leaf on every rail and plane in a rail-optimized
     * fat-tree) go to ranks in contiguous, as equal as possible runs; the switches above them
     * round robin. With fewer groups than ranks (a rail-optimized fat-tree of one leaf per
     * rail: every server under the same leaves), whole servers go to ranks in contiguous runs
     * and every switch round robin: host cables are cut too, and the lookahead shrinks to a
     * host cable's delay. Replaces SetSystemIdOf; 1 puts every node on rank 0.
     * \throws FabricConfigError ("Ranks") at Build (CheckPartition)
     */
    void SetPartition(uint32_t ranks);
    /**
     * Whether SetPartition's ranks can be dealt: at most the topology's groups or, cutting host
     * cables, its servers; each server's GPUs on one rank (NVLink is not carried between
     * ranks); no in-network aggregation.
     * \throws FabricConfigError ("Ranks") if not
     */
    void CheckPartition() const;
    /**
     * With Ranks above 1, that every two ranks share a cut cable (messages between ranks travel
     * with their frames: FabricRankMailbox::Broadcast, which the runner's runs use). A script
     * whose ranks only exchange frames needs no such cable.
     * \throws FabricConfigError ("Ranks") if two do not
     */
    void CheckRankCables(const FabricTopology& topo) const;
    /// Groups SetPartition deals to ranks (0: this topology has no such groups).
    virtual uint32_t GetPartitionGroups() const;
    /// The system id (MPI rank) Build gives a host ("host", index) or switch (role, switch
    /// index): SetPartition's or SetSystemIdOf's, 0 when neither is set.
    uint32_t GetSystemIdOf(const std::string& role, uint32_t index) const;

    /// \throws FabricConfigError if a parameter is invalid (including EcnKmax < EcnKmin)
    void Validate() const;
    /// Build the topology. \throws FabricConfigError if a parameter is invalid
    Ptr<FabricTopology> Build();

  protected:
    /// Subclass check; throw FabricConfigError naming the parameter.
    virtual void DoValidate() const = 0;
    /// Subclass build on a topology whose hosts already exist.
    virtual void DoBuild(Ptr<FabricTopology> topo) = 0;
    virtual std::string GetKind() const = 0;
    /// Switches DoBuild will create, known before it runs (aggregation nodes are endpoints,
    /// numbered before the switches); 0 = this topology has no in-network aggregation.
    virtual uint32_t PlannedSwitches() const;
    /**
     * The partition group of a node SetPartition deals to ranks: a host ("host", host index) or
     * switch (role, switch index). \return false for a node without a group (upper tiers)
     */
    virtual bool GetPartitionGroup(const std::string& role, uint32_t index, uint32_t& group) const;

    uint32_t NewSwitch(Ptr<FabricTopology> topo, const std::string& role);
    /// A new node on the rank SetSystemIdOf gives it (rank 0 when unset).
    Ptr<Node> NewNode(const std::string& role, uint32_t index) const;
    void Connect(Ptr<FabricTopology> topo,
                 uint32_t a,
                 uint32_t b,
                 DataRate rate,
                 double cableMeters);
    DataRate GetFabricRate() const;
    uint32_t GetNHosts() const;

    /// Down/up ports of a leaf with `radix` ports at `oversubscription` (down:up).
    static void SplitRadix(uint32_t radix, double oversubscription, uint32_t& down, uint32_t& up);

    uint32_t m_servers{16};
    uint32_t m_gpusPerServer{8};
    DataRate m_linkRate{"400Gbps"};
    DataRate m_fabricRate{0};
    double m_hostCable{3.0};
    double m_fabricCable{50.0};
    Ipv4Address m_network{"10.0.0.0"};
    FabricNetDevice::LinkLayer m_linkLayer{FabricNetDevice::ETHERNET};
    FabricLinkHelper m_link;
    ObjectFactory m_switchFactory;
    ObjectFactory m_bufferFactory;
    int64_t m_ecnKmin{-1}; //!< EcnKmin/EcnKmax given to SetBufferAttribute, or -1
    int64_t m_ecnKmax{-1};
    bool m_aggregation{false};                                          //!< InNetworkAggregation
    std::function<uint32_t(const std::string&, uint32_t)> m_systemIdOf; //!< null: all on rank 0
    uint32_t m_partitionRanks{0}; //!< SetPartition's ranks (0: SetSystemIdOf or neither)
};

} // namespace ns3

#endif // FABRIC_TOPOLOGY_HELPER_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_TOPOLOGY_H
#define FABRIC_TOPOLOGY_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/object.h"

#include <string>
#include <vector>

namespace ns3
{

class FabricNetDevice;
class FabricSwitch;
struct FabricFrame;

/// One cable of a built topology. Vertices: hosts are 0..H-1, switches H..H+S-1.
struct FabricLinkInfo
{
    uint32_t a{0};
    uint32_t b{0};
    Ptr<FabricNetDevice> devA;
    Ptr<FabricNetDevice> devB;
};

/**
 * \ingroup ai-fabric
 * A built fabric: hosts (one NIC each, with one port or, on a multi-plane fabric, one port per
 * plane), switches, cables, addresses and forwarding tables.
 * Produced by the topology helpers (RailOptimizedFatTreeHelper, FatTreeHelper,
 * StarTopologyHelper); forwarding tables come from the graph (shortest paths, all equal-cost
 * next hops), never from ns-3's global routing.
 *
 * Vertices are numbered endpoints first, then switches. Endpoints are the hosts (GPUs, indices
 * 0 .. GetNHosts()-1) followed by in-network aggregation nodes (SHARP), one per switch when the
 * helper's InNetworkAggregation is on: endpoint GetNHosts()+k is the aggregation engine of
 * switch k, hung off it by its own port. Host queries (GetHostNode, GetHostDevice,
 * GetHostAddress, FindHost) take any endpoint index; GetNHosts() and GetHosts() count GPUs only.
 */
class FabricTopology : public Object
{
  public:
    static TypeId GetTypeId();
    FabricTopology();
    ~FabricTopology() override;

    // --- building (used by helpers) ---
    uint32_t AddHost(Ptr<Node> node, Ipv4Address address);
    /// Add the aggregation node of the next switch to be added (after every host, before any
    /// switch): aggregator k belongs to switch k. \return its endpoint index
    uint32_t AddAggregator(Ptr<Node> node, Ipv4Address address);
    uint32_t AddSwitch(Ptr<Node> node, Ptr<FabricSwitch> sw, const std::string& role);
    /// Record a cable between vertices a and b and the devices at each end. A host's cables are
    /// its NIC's ports, in the order they are added (each gets the host's address).
    void AddLink(uint32_t a, uint32_t b, Ptr<FabricNetDevice> devA, Ptr<FabricNetDevice> devB);
    /**
     * Compute and install all switch forwarding tables (ECMP over all shortest paths) over the
     * links that are up. With ValleyFree (the default) only up-then-down paths count, tiers
     * coming from the switches' roles (GetTier): what eBGP in
     * a Clos converges to (RFC 7938: a spine does not carry traffic between two of its leaves
     * through another leaf), so a failure shrinks ECMP groups and may leave a destination
     * unreachable from some switches rather than creating down-up detours. In an intact Clos
     * both rules give the same tables.
     */
    void PopulateRoutes();
    /// Set both ends of link l up or down (frames on or for a down link are dropped, reason
    /// link-down); routes change only at the next PopulateRoutes.
    void SetLinkUp(uint32_t l, bool up);
    /// \return false if either end of link l is down
    bool IsLinkUp(uint32_t l) const;
    /// The links of vertex v (a switch's: all its ports' cables).
    std::vector<uint32_t> GetVertexLinks(uint32_t v) const;
    /// The tier of vertex v: hosts 0, leaf / edge / star switch 1, spine / aggregation 2, core
    /// 3 (another role: its hop distance from the nearest host in the intact fabric).
    uint32_t GetTier(uint32_t v) const;
    void SetServerShape(uint32_t servers, uint32_t gpusPerServer);
    void SetBisectionBandwidth(double bps);
    void SetKind(const std::string& kind);

    // --- queries ---
    const std::string& GetKind() const;
    uint32_t GetNHosts() const;
    /// Hosts and aggregation nodes: the switches' vertex indices start here.
    uint32_t GetNEndpoints() const;
    uint32_t GetNAggregators() const;
    /// \return the endpoint index of switch j's aggregation node, or UINT32_MAX
    uint32_t GetAggregatorOf(uint32_t j) const;
    uint32_t GetNSwitches() const;
    uint32_t GetNLinks() const;
    uint32_t GetNServers() const;
    uint32_t GetGpusPerServer() const;
    Ptr<Node> GetHostNode(uint32_t i) const;
    /// The first port of host i's NIC (its only one on a single-plane fabric).
    Ptr<FabricNetDevice> GetHostDevice(uint32_t i) const;
    /// Port `port` of host i's NIC (port p is in plane p of a multi-plane fabric).
    Ptr<FabricNetDevice> GetHostDevice(uint32_t i, uint32_t port) const;
    /// The ports of host i's NIC: one, or one per plane.
    uint32_t GetNHostPorts(uint32_t i) const;
    /// A host's NIC rate: the sum of its ports' rates (bit/s).
    uint64_t GetHostRate(uint32_t i) const;
    Ipv4Address GetHostAddress(uint32_t i) const;
    /// \return the host index of GPU `gpu` of server `server`
    uint32_t GetHostIndex(uint32_t server, uint32_t gpu) const;
    Ptr<Node> GetHost(uint32_t server, uint32_t gpu) const;
    /// \return host index of an address, or -1
    int32_t FindHost(Ipv4Address a) const;
    Ptr<Node> GetSwitchNode(uint32_t j) const;
    Ptr<FabricSwitch> GetSwitch(uint32_t j) const;
    const std::string& GetSwitchRole(uint32_t j) const;
    uint32_t CountSwitches(const std::string& role) const;
    /// The GPU hosts (no aggregation node)
    NodeContainer GetHosts() const;
    /// The hosts, then the aggregation nodes: the ranks a transport to aggregators needs
    NodeContainer GetEndpoints() const;
    NodeContainer GetSwitches() const;
    const std::vector<FabricLinkInfo>& GetLinks() const;
    /// Bisection bandwidth (bit/s) by the Clos bound the helper computed.
    double GetBisectionBandwidth() const;

    /**
     * Follow the forwarding tables (with each switch's ECMP hash) from port `port` of host `src`
     * for `frame`.
     * \return vertex ids visited, starting with src; ends with the destination host if reached
     */
    std::vector<uint32_t> TracePath(uint32_t src,
                                    const FabricFrame& frame,
                                    uint32_t port = 0) const;
    /**
     * The plane of each switch: the connected parts of the intact switch graph (a single-plane
     * fabric has one; a multi-plane one a part per plane, joined only through hosts' ports).
     */
    uint32_t GetSwitchPlane(uint32_t j) const;
    uint32_t GetNPlanes() const;

    /**
     * Maximum flow (bit/s) from the hosts in `from` to the hosts in `to`, each host limited by
     * its NIC rate and each cable direction by its rate (Dinic's algorithm). With a balanced
     * split it is the bisection bandwidth of that cut.
     */
    double MaxFlow(const std::vector<uint32_t>& from, const std::vector<uint32_t>& to) const;

    /**
     * Fix the random streams of every device (error model) and switch (ECN marking), so a run
     * depends only on the seed and run number. \return the number of streams used
     */
    int64_t AssignStreams(int64_t stream);

    /// One line: kind, hosts, switches by role, links, bisection.
    std::string Describe() const;

    /**
     * A vertex's name: hosts "gpu<i>", aggregation nodes "sharp<k>", switches their role and
     * ordinal in it ("leaf0", "spine3", "core1"), in the order the helper added them.
     */
    std::string GetVertexName(uint32_t v) const;
    /// \return the vertex of a name (GetVertexName's), or -1
    int32_t FindVertex(const std::string& name) const;
    /**
     * A link's name: its ends' names, "gpu5-leaf0", "leaf0-spine2"; the k-th further cable
     * between the same two switches gets ".k" ("leaf0-spine0.1").
     */
    const std::string& GetLinkName(uint32_t l) const;
    /// \return the link of a name (GetLinkName's), or -1
    int32_t FindLink(const std::string& name) const;
    /// Line rate of link l (bit/s), from its first device.
    uint64_t GetLinkRate(uint32_t l) const;

  protected:
    void DoDispose() override;

  private:
    struct Adj
    {
        uint32_t peer;
        uint32_t link;
    };

    std::string m_kind;
    NodeContainer m_hostNodes; //!< hosts, then aggregation nodes
    uint32_t m_aggregators{0};
    NodeContainer m_switchNodes;
    std::vector<std::vector<Ptr<FabricNetDevice>>> m_hostDev; //!< per endpoint: its NIC's ports
    std::vector<Ipv4Address> m_hostAddr;
    std::vector<Ptr<FabricSwitch>> m_switches;
    std::vector<std::string> m_roles;
    std::vector<uint32_t> m_roleOrdinal; //!< per switch: its index among its role's switches
    mutable std::vector<std::string> m_linkNames; //!< built on first use
    bool m_valleyFree{true};
    std::vector<uint32_t> m_tier;          //!< per vertex (first PopulateRoutes)
    mutable std::vector<uint32_t> m_plane; //!< per switch: its part of the intact switch graph
    mutable uint32_t m_planes{0};
    void ComputeTiers();
    void ComputePlanes() const;
    void NameLinks() const;
    std::vector<FabricLinkInfo> m_links;
    std::vector<std::vector<Adj>> m_adj;
    uint32_t m_servers{0};
    uint32_t m_gpusPerServer{1};
    double m_bisection{0};
};

} // namespace ns3

#endif // FABRIC_TOPOLOGY_H

// SPDX-License-Identifier: GPL-2.0-only
#include "rail-optimized-fat-tree-helper.h"

#include "fabric-topology-registry.h"

#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RailOptimizedFatTreeHelper);

namespace
{

template <typename T>
std::string
Str(T v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

uint32_t
CeilDiv(uint64_t a, uint64_t b)
{
    return b ? static_cast<uint32_t>((a + b - 1) / b) : 0;
}

} // namespace

TypeId
RailOptimizedFatTreeHelper::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RailOptimizedFatTreeHelper")
            .SetParent<FabricTopologyHelper>()
            .SetGroupName("AiFabric")
            .AddConstructor<RailOptimizedFatTreeHelper>()
            .AddAttribute("LeafRadix",
                          "Ports per leaf switch (64 = a 64x400G Quantum-2 / Spectrum class "
                          "switch).",
                          UintegerValue(64),
                          MakeUintegerAccessor(&RailOptimizedFatTreeHelper::m_leafRadix),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("SpineRadix",
                          "Ports per spine and core switch; 0 = LeafRadix.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RailOptimizedFatTreeHelper::m_spineRadix),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Spines",
                          "Spine switches per pod (per plane); 0 = one per leaf uplink.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RailOptimizedFatTreeHelper::m_spines),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Oversubscription",
                          "Leaf downlink:uplink capacity ratio (>= 1; 1 = non-blocking).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RailOptimizedFatTreeHelper::m_oversubscription),
                          MakeDoubleChecker<double>())
            .AddAttribute(
                "SpineOversubscription",
                "Spine downlink:uplink capacity ratio with three tiers (>= 1; 1 = non-blocking; "
                "two tiers: spines have no uplinks).",
                DoubleValue(1.0),
                MakeDoubleAccessor(&RailOptimizedFatTreeHelper::m_spineOversubscription),
                MakeDoubleChecker<double>())
            .AddAttribute("Tiers",
                          "Switch tiers: 2 (leaf, spine), 3 (leaf, spine, core) or 0 = 2 when "
                          "the spines have the ports for every leaf, else 3.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RailOptimizedFatTreeHelper::m_tiers),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Planes",
                          "Fabric planes (1..8): every NIC has a port in each, of LinkRate / "
                          "Planes (HPN's dual plane: 2 x 200G), and each plane is a whole "
                          "rail fat-tree sharing no switch with another.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RailOptimizedFatTreeHelper::m_planes),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

RailOptimizedFatTreeHelper::RailOptimizedFatTreeHelper() = default;

std::string
RailOptimizedFatTreeHelper::GetKind() const
{
    return "rail-fat-tree";
}

RailOptimizedFatTreeHelper::Shape
RailOptimizedFatTreeHelper::ComputeShape(uint32_t tiers, bool& fits) const
{
    Shape s;
    s.tiers = tiers;
    const uint32_t planes = std::max<uint32_t>(1, m_planes);
    s.railsPerPlane = m_gpusPerServer;
    uint32_t up = 0;
    SplitRadix(m_leafRadix, m_oversubscription, s.leafDown, up);
    s.leavesPerRail = CeilDiv(m_servers, s.leafDown);
    s.leaves = s.leavesPerRail * m_gpusPerServer * planes;
    fits = true;
    const uint32_t leavesPerPlane = s.leavesPerRail * s.railsPerPlane;
    if (leavesPerPlane <= 1 || s.leafDown == 0)
    {
        return s; // one leaf per plane: everything turns there
    }
    const uint32_t hostsPerLeaf = std::min(m_servers, s.leafDown);
    const uint32_t need =
        static_cast<uint32_t>(std::ceil(double(hostsPerLeaf) / m_oversubscription - 1e-9));
    s.leafUplinks = std::max<uint32_t>(1, std::min(up, need));
    s.spinesPerPod = m_spines ? m_spines : s.leafUplinks;
    const uint32_t perSpine = CeilDiv(s.leafUplinks, s.spinesPerPod); // leaf-to-spine links
    const uint32_t spineRadix = m_spineRadix ? m_spineRadix : m_leafRadix;
    if (tiers == 2)
    {
        s.railGroups = 1;
        s.railsPerGroup = s.railsPerPlane;
        s.blocksPerPod = s.leavesPerRail;
        s.podsPerPlane = 1;
        s.spines = planes * s.spinesPerPod;
        fits = uint64_t(leavesPerPlane) * perSpine <= spineRadix;
        return s;
    }
    uint32_t spineDown = 0;
    uint32_t spineUp = 0;
    SplitRadix(spineRadix, m_spineOversubscription, spineDown, spineUp);
    const uint32_t leavesPerPod = spineDown / perSpine;
    if (leavesPerPod == 0 || spineUp == 0)
    {
        fits = false;
        return s;
    }
    if (leavesPerPod >= s.railsPerPlane)
    {
        s.railGroups = 1;
        s.railsPerGroup = s.railsPerPlane;
        s.blocksPerPod = std::min(s.leavesPerRail, leavesPerPod / s.railsPerPlane);
    }
    else
    {
        // A pod cannot take a leaf of every rail: groups of rails, balanced.
        s.railGroups = CeilDiv(s.railsPerPlane, leavesPerPod);
        s.railsPerGroup = CeilDiv(s.railsPerPlane, s.railGroups);
        s.railGroups = CeilDiv(s.railsPerPlane, s.railsPerGroup); // no empty group
        s.blocksPerPod = 1;
    }
    s.podsPerPlane = CeilDiv(s.leavesPerRail, s.blocksPerPod) * s.railGroups;
    const uint32_t downUsed = s.blocksPerPod * s.railsPerGroup * perSpine;
    const uint32_t needUp =
        static_cast<uint32_t>(std::ceil(double(downUsed) / m_spineOversubscription - 1e-9));
    s.spineUplinks = std::max<uint32_t>(1, std::min(spineUp, needUp));
    s.spines = planes * s.podsPerPlane * s.spinesPerPod;
    // The fewest cores per spine plane whose ports take every pod's uplinks of that plane.
    s.coresPerGroup = 0;
    for (uint32_t c = 1; c <= s.spineUplinks; ++c)
    {
        if (uint64_t(s.podsPerPlane) * CeilDiv(s.spineUplinks, c) <= spineRadix)
        {
            s.coresPerGroup = c;
            break;
        }
    }
    fits = s.coresPerGroup > 0;
    s.cores = planes * s.spinesPerPod * s.coresPerGroup;
    return s;
}

RailOptimizedFatTreeHelper::Shape
RailOptimizedFatTreeHelper::GetShape() const
{
    bool fits = false;
    if (m_tiers == 2 || m_tiers == 3)
    {
        return ComputeShape(m_tiers, fits);
    }
    Shape s = ComputeShape(2, fits);
    return fits ? s : ComputeShape(3, fits);
}

uint32_t
RailOptimizedFatTreeHelper::GetLeavesPerRail() const
{
    return GetShape().leavesPerRail;
}

uint32_t
RailOptimizedFatTreeHelper::GetUplinksPerLeaf() const
{
    return GetShape().leafUplinks;
}

uint32_t
RailOptimizedFatTreeHelper::GetNSpines() const
{
    return GetShape().spines;
}

uint32_t
RailOptimizedFatTreeHelper::GetNCores() const
{
    return GetShape().cores;
}

uint32_t
RailOptimizedFatTreeHelper::GetTiers() const
{
    return GetShape().tiers;
}

DataRate
RailOptimizedFatTreeHelper::GetPortRate() const
{
    return DataRate(m_linkRate.GetBitRate() / std::max<uint32_t>(1, m_planes));
}

DataRate
RailOptimizedFatTreeHelper::GetSwitchLinkRate() const
{
    return m_fabricRate.GetBitRate() > 0 ? m_fabricRate : GetPortRate();
}

uint32_t
RailOptimizedFatTreeHelper::PlannedSwitches() const
{
    const Shape s = GetShape();
    return s.leaves + s.spines + s.cores;
}

void
RailOptimizedFatTreeHelper::DoValidate() const
{
    if (!(m_oversubscription >= 1.0) || !std::isfinite(m_oversubscription))
    {
        throw FabricConfigError("Oversubscription",
                                "must be >= 1 (got " + Str(m_oversubscription) + ")");
    }
    if (!(m_spineOversubscription >= 1.0) || !std::isfinite(m_spineOversubscription))
    {
        throw FabricConfigError("SpineOversubscription",
                                "must be >= 1 (got " + Str(m_spineOversubscription) + ")");
    }
    if (m_tiers != 0 && m_tiers != 2 && m_tiers != 3)
    {
        throw FabricConfigError("Tiers", "must be 0 (auto), 2 or 3 (got " + Str(m_tiers) + ")");
    }
    if (m_planes < 1 || m_planes > 8)
    {
        throw FabricConfigError("Planes", "must be in [1, 8] (got " + Str(m_planes) + ")");
    }
    if (m_aggregation && m_planes > 1)
    {
        throw FabricConfigError("InNetworkAggregation",
                                "needs Planes 1: SHARP trees per plane are not modelled (got " +
                                    Str(m_planes) + " planes)");
    }
    if (m_leafRadix < 2)
    {
        throw FabricConfigError("LeafRadix", "must be >= 2 (got " + Str(m_leafRadix) + ")");
    }
    uint32_t down = 0;
    uint32_t up = 0;
    SplitRadix(m_leafRadix, m_oversubscription, down, up);
    if (down < 1 || up < 1)
    {
        throw FabricConfigError("LeafRadix",
                                "of " + Str(m_leafRadix) + " leaves no up or down port at " +
                                    "oversubscription " + Str(m_oversubscription));
    }
    const uint32_t spineRadix = m_spineRadix ? m_spineRadix : m_leafRadix;
    bool fits2 = false;
    const Shape two = ComputeShape(2, fits2);
    if (two.leafUplinks > 0 && m_spines > two.leafUplinks)
    {
        throw FabricConfigError("Spines",
                                "must be <= uplinks per leaf (" + Str(two.leafUplinks) + ") (got " +
                                    Str(m_spines) + ")");
    }
    const std::string planes = m_planes > 1 ? " in " + Str(m_planes) + " planes" : "";
    const uint32_t perSpine = two.leafUplinks ? CeilDiv(two.leafUplinks, two.spinesPerPod) : 1;
    if (m_tiers == 2 && !fits2)
    {
        // Largest server count that still fits: leaves per rail <= spineRadix / (G' * perSpine)
        const uint64_t maxLeavesPerRail = spineRadix / (uint64_t(two.railsPerPlane) * perSpine);
        throw FabricConfigError("Servers",
                                "must be <= " + Str(maxLeavesPerRail * down) +
                                    " for a 2-tier rail fabric of radix-" + Str(m_leafRadix) +
                                    " leaves and radix-" + Str(spineRadix) + " spines with " +
                                    Str(m_gpusPerServer) + " GPUs per server" + planes + " (got " +
                                    Str(m_servers) + "; Tiers 3 or 0 builds more)");
    }
    if (m_tiers == 2 || (m_tiers == 0 && fits2))
    {
        return;
    }
    uint32_t spineDown = 0;
    uint32_t spineUp = 0;
    SplitRadix(spineRadix, m_spineOversubscription, spineDown, spineUp);
    if (spineDown < perSpine || spineUp < 1)
    {
        throw FabricConfigError("SpineRadix",
                                "of " + Str(spineRadix) +
                                    " leaves a spine no up port or too few "
                                    "down ports at spine oversubscription " +
                                    Str(m_spineOversubscription));
    }
    bool fits3 = false;
    ComputeShape(3, fits3);
    if (!fits3)
    {
        // At most spineRadix pods per plane (one link from each pod's spine j to each core).
        const uint32_t leavesPerPod = spineDown / perSpine;
        uint64_t maxServers = 0;
        if (leavesPerPod >= two.railsPerPlane)
        {
            maxServers = uint64_t(spineRadix) * (leavesPerPod / two.railsPerPlane) * down;
        }
        else
        {
            const uint32_t perGroup =
                CeilDiv(two.railsPerPlane, CeilDiv(two.railsPerPlane, leavesPerPod));
            maxServers = uint64_t(spineRadix / CeilDiv(two.railsPerPlane, perGroup)) * down;
        }
        throw FabricConfigError("Servers",
                                "must be <= " + Str(maxServers) +
                                    " for a 3-tier rail fabric of radix-" + Str(m_leafRadix) +
                                    " leaves and radix-" + Str(spineRadix) +
                                    " spines and cores with " + Str(m_gpusPerServer) +
                                    " GPUs per server" + planes + " (got " + Str(m_servers) + ")");
    }
}

uint32_t
RailOptimizedFatTreeHelper::GetPartitionGroups() const
{
    return GetShape().leavesPerRail;
}

bool
RailOptimizedFatTreeHelper::GetPartitionGroup(const std::string& role,
                                              uint32_t index,
                                              uint32_t& group) const
{
    // DoBuild: server srv's GPU g connects to leaf (plane, rail g, block srv / leafDown); the
    // leaves come first, block fastest.
    const Shape s = GetShape();
    if (role == "host")
    {
        group = (index / m_gpusPerServer) / std::max<uint32_t>(1, s.leafDown);
        return true;
    }
    if (role == "leaf")
    {
        group = index % s.leavesPerRail;
        return true;
    }
    return false;
}

void
RailOptimizedFatTreeHelper::DoBuild(Ptr<FabricTopology> topo)
{
    const Shape s = GetShape();
    const uint32_t down = s.leafDown;
    const uint32_t leavesPerRail = s.leavesPerRail;
    const uint32_t u = s.leafUplinks;
    const uint32_t planes = std::max<uint32_t>(1, m_planes);
    const uint32_t leavesPerPlane = leavesPerRail * m_gpusPerServer;
    // Leaves plane by plane, rail-major inside a plane.
    std::vector<uint32_t> leaf(size_t(leavesPerPlane) * planes);
    for (uint32_t l = 0; l < leaf.size(); ++l)
    {
        leaf[l] = NewSwitch(topo, "leaf");
    }
    // Spines pod by pod (pods plane by plane), then cores spine plane by spine plane.
    std::vector<uint32_t> spine(s.spines);
    for (uint32_t i = 0; i < s.spines; ++i)
    {
        spine[i] = NewSwitch(topo, "spine");
    }
    std::vector<uint32_t> core(s.cores);
    for (uint32_t i = 0; i < s.cores; ++i)
    {
        core[i] = NewSwitch(topo, "core");
    }
    // NIC port p of every GPU is in plane p: a host's ports are its cables in plane order.
    for (uint32_t srv = 0; srv < m_servers; ++srv)
    {
        for (uint32_t g = 0; g < m_gpusPerServer; ++g)
        {
            const uint32_t host = srv * m_gpusPerServer + g;
            for (uint32_t p = 0; p < planes; ++p)
            {
                Connect(topo,
                        host,
                        leaf[size_t(p) * leavesPerPlane + size_t(g) * leavesPerRail + srv / down],
                        GetPortRate(),
                        m_hostCable);
            }
        }
    }
    if (u > 0)
    {
        for (uint32_t l = 0; l < leaf.size(); ++l)
        {
            const uint32_t plane = l / leavesPerPlane;
            const uint32_t g = (l % leavesPerPlane) / leavesPerRail;
            const uint32_t k = l % leavesPerRail;
            const uint32_t group = g / s.railsPerGroup;
            const uint32_t pod =
                plane * s.podsPerPlane + (k / s.blocksPerPod) * s.railGroups + group;
            for (uint32_t j = 0; j < u; ++j)
            {
                Connect(topo,
                        leaf[l],
                        spine[size_t(pod) * s.spinesPerPod + j % s.spinesPerPod],
                        GetSwitchLinkRate(),
                        m_fabricCable);
            }
        }
    }
    for (uint32_t i = 0; i < s.spines && s.cores > 0; ++i)
    {
        const uint32_t plane = i / (s.podsPerPlane * s.spinesPerPod);
        const uint32_t j = i % s.spinesPerPod;
        const size_t group = (size_t(plane) * s.spinesPerPod + j) * s.coresPerGroup;
        for (uint32_t k = 0; k < s.spineUplinks; ++k)
        {
            Connect(topo,
                    spine[i],
                    core[group + k % s.coresPerGroup],
                    GetSwitchLinkRate(),
                    m_fabricCable);
        }
    }
    const double hostBw = double(GetNHosts()) * double(m_linkRate.GetBitRate());
    const double fabricBps = double(GetSwitchLinkRate().GetBitRate());
    double bisection = hostBw;
    if (u > 0)
    {
        bisection = std::min(bisection, double(leaf.size()) * u * fabricBps);
    }
    if (s.cores > 0 && s.podsPerPlane > 1)
    {
        bisection = std::min(bisection, double(s.spines) * s.spineUplinks * fabricBps);
    }
    // One leaf in all: everything turns at the leaf.
    topo->SetBisectionBandwidth(bisection / 2.0);
}

namespace
{

Ptr<RailOptimizedFatTreeHelper>
CreateRailFatTree(const TopologyParams& p)
{
    Ptr<RailOptimizedFatTreeHelper> h = CreateObject<RailOptimizedFatTreeHelper>();
    h->SetAttribute("LeafRadix", UintegerValue(p.leafRadix));
    h->SetAttribute("Oversubscription", DoubleValue(p.oversubscription));
    h->SetAttribute("Tiers", UintegerValue(p.tiers));
    h->SetAttribute("SpineOversubscription", DoubleValue(p.spineOversubscription));
    h->SetAttribute("Planes", UintegerValue(p.planes));
    h->SetAttribute("Servers", UintegerValue(p.servers));
    h->SetAttribute("GpusPerServer", UintegerValue(p.gpusPerServer));
    return h;
}

/// Host ports under one leaf of a rail.
uint32_t
RailLeafDown(const TopologyParams& p)
{
    const double r = p.oversubscription;
    return std::max<uint32_t>(1, uint32_t(p.leafRadix * r / (r + 1)));
}

const bool g_railFatTreeRegistered = FabricTopologyRegistry::Add([] {
    FabricTopologyInfo e;
    e.name = "rail-fat-tree";
    e.help = "rail-optimized fat-tree: GPU i of every server on rail i's leaves, 2 or 3 tiers, "
             "planes";
    e.sharedKeys = {"tiers", "planes", "spine_oversubscription"};
    e.create = [](const TopologyParams& p) -> Ptr<FabricTopologyHelper> {
        return CreateRailFatTree(p);
    };
    e.check = [](const TopologyParams& p) -> std::string {
        Ptr<RailOptimizedFatTreeHelper> h = CreateRailFatTree(p);
        h->SetAttribute("LinkRate", DataRateValue(DataRate(uint64_t(p.linkGbps * 1e9))));
        try
        {
            h->Validate();
        }
        catch (const FabricConfigError&)
        {
            return ""; // the helper's own message names the parameter
        }
        // SHARP's aggregation trees have two levels (leaf, spine): a rail over pods has none.
        const RailOptimizedFatTreeHelper::Shape shape = h->GetShape();
        if (p.sharp && shape.tiers == 3 && shape.leavesPerRail > shape.blocksPerPod)
        {
            return "infiniband.sharp: aggregation trees have two levels (leaf, spine), and a "
                   "rail of this 3-tier fabric spans " +
                   std::to_string((shape.leavesPerRail + shape.blocksPerPod - 1) /
                                  shape.blocksPerPod) +
                   " pods with no spine in common; use at most " +
                   std::to_string(uint64_t(shape.blocksPerPod) * shape.leafDown) +
                   " topology.servers (one pod) or no SHARP";
        }
        return "";
    };
    e.serversPerLeafGroup = RailLeafDown;
    e.aggregationLevels = [](const TopologyParams& p) -> uint32_t {
        // A rail spread over several leaves reduces at a spine too.
        return CreateRailFatTree(p)->GetShape().leavesPerRail > 1 ? 2 : 1;
    };
    e.size = [](const TopologyParams& p) {
        // Every link's two ends: a host port's on a leaf (a port per plane), each leaf uplink's
        // on a leaf and a spine, each spine uplink's (3 tiers) on a spine and a core.
        // Forwarding entries as FabricTopology's routes keep them: the hosts below a switch plus
        // one default route up (a leaf: its hosts; a spine: every host, or its pod's with 3
        // tiers; a core: every host). Every plane has every host.
        const RailOptimizedFatTreeHelper::Shape s = CreateRailFatTree(p)->GetShape();
        const double hosts = double(uint64_t(p.servers) * p.gpusPerServer);
        const double hostPorts = hosts * std::max<uint32_t>(1, p.planes);
        const double leafUp = double(s.leaves) * s.leafUplinks;
        const double spineUp = s.tiers == 3 ? double(s.spines) * s.spineUplinks : 0.0;
        TopologySize size;
        size.switchPorts = static_cast<uint64_t>(hostPorts + 2 * leafUp + 2 * spineUp);
        const double belowSpine =
            s.tiers == 3 ? hosts / std::max<uint32_t>(1, s.podsPerPlane) : hosts;
        size.routes = static_cast<uint64_t>(hostPorts + s.leaves + s.spines * (belowSpine + 1.0) +
                                            s.cores * hosts);
        return size;
    };
    return e;
}());

} // namespace

} // namespace ns3

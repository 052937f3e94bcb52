// SPDX-License-Identifier: GPL-2.0-only
#include "rail-optimized-fat-tree-helper.h"

#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RailOptimizedFatTreeHelper);

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
                          "Ports per spine switch; 0 = LeafRadix.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RailOptimizedFatTreeHelper::m_spineRadix),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Spines",
                          "Number of spine switches; 0 = one per leaf uplink.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RailOptimizedFatTreeHelper::m_spines),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Oversubscription",
                          "Leaf downlink:uplink capacity ratio (>= 1; 1 = non-blocking).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RailOptimizedFatTreeHelper::m_oversubscription),
                          MakeDoubleChecker<double>());
    return tid;
}

RailOptimizedFatTreeHelper::RailOptimizedFatTreeHelper() = default;

std::string
RailOptimizedFatTreeHelper::GetKind() const
{
    return "rail-fat-tree";
}

uint32_t
RailOptimizedFatTreeHelper::GetLeavesPerRail() const
{
    uint32_t down = 0;
    uint32_t up = 0;
    SplitRadix(m_leafRadix, m_oversubscription, down, up);
    return down ? (m_servers + down - 1) / down : 0;
}

uint32_t
RailOptimizedFatTreeHelper::GetUplinksPerLeaf() const
{
    uint32_t down = 0;
    uint32_t up = 0;
    SplitRadix(m_leafRadix, m_oversubscription, down, up);
    const uint32_t leaves = GetLeavesPerRail() * m_gpusPerServer;
    if (leaves <= 1)
    {
        return 0;
    }
    const uint32_t hostsPerLeaf = std::min(m_servers, down);
    const uint32_t need =
        static_cast<uint32_t>(std::ceil(double(hostsPerLeaf) / m_oversubscription - 1e-9));
    return std::max<uint32_t>(1, std::min(up, need));
}

uint32_t
RailOptimizedFatTreeHelper::GetNSpines() const
{
    const uint32_t u = GetUplinksPerLeaf();
    if (u == 0)
    {
        return 0;
    }
    return m_spines ? m_spines : u;
}

uint32_t
RailOptimizedFatTreeHelper::PlannedSwitches() const
{
    return GetLeavesPerRail() * m_gpusPerServer + GetNSpines();
}

void
RailOptimizedFatTreeHelper::DoValidate() const
{
    auto str = [](auto v) {
        std::ostringstream os;
        os << v;
        return os.str();
    };
    if (!(m_oversubscription >= 1.0) || !std::isfinite(m_oversubscription))
    {
        throw FabricConfigError("Oversubscription",
                                "must be >= 1 (got " + str(m_oversubscription) + ")");
    }
    if (m_leafRadix < 2)
    {
        throw FabricConfigError("LeafRadix", "must be >= 2 (got " + str(m_leafRadix) + ")");
    }
    uint32_t down = 0;
    uint32_t up = 0;
    SplitRadix(m_leafRadix, m_oversubscription, down, up);
    if (down < 1 || up < 1)
    {
        throw FabricConfigError("LeafRadix",
                                "of " + str(m_leafRadix) + " leaves no up or down port at " +
                                    "oversubscription " + str(m_oversubscription));
    }
    const uint32_t spineRadix = m_spineRadix ? m_spineRadix : m_leafRadix;
    const uint32_t leaves = GetLeavesPerRail() * m_gpusPerServer;
    const uint32_t u = GetUplinksPerLeaf();
    const uint32_t spines = GetNSpines();
    if (u > 0)
    {
        const uint32_t perSpine = (u + spines - 1) / spines; // links from one leaf to a spine
        const uint64_t portsNeeded = uint64_t(leaves) * perSpine;
        if (portsNeeded > spineRadix)
        {
            // Largest server count that still fits: leaves per rail <= spineRadix / (G * perSpine)
            const uint64_t maxLeavesPerRail = spineRadix / (uint64_t(m_gpusPerServer) * perSpine);
            throw FabricConfigError("Servers",
                                    "must be <= " + str(maxLeavesPerRail * down) +
                                        " for a 2-tier rail fabric of " + "radix-" +
                                        str(m_leafRadix) + " leaves and radix-" + str(spineRadix) +
                                        " spines with " + str(m_gpusPerServer) +
                                        " GPUs per server (got " + str(m_servers) + ")");
        }
        if (m_spines > u)
        {
            throw FabricConfigError("Spines",
                                    "must be <= uplinks per leaf (" + str(u) + ") (got " +
                                        str(m_spines) + ")");
        }
    }
}

void
RailOptimizedFatTreeHelper::DoBuild(Ptr<FabricTopology> topo)
{
    uint32_t down = 0;
    uint32_t up = 0;
    SplitRadix(m_leafRadix, m_oversubscription, down, up);
    const uint32_t leavesPerRail = GetLeavesPerRail();
    const uint32_t u = GetUplinksPerLeaf();
    const uint32_t nSpines = GetNSpines();
    std::vector<uint32_t> leaf(size_t(leavesPerRail) * m_gpusPerServer);
    for (uint32_t g = 0; g < m_gpusPerServer; ++g)
    {
        for (uint32_t k = 0; k < leavesPerRail; ++k)
        {
            leaf[size_t(g) * leavesPerRail + k] = NewSwitch(topo, "leaf");
        }
    }
    std::vector<uint32_t> spine(nSpines);
    for (uint32_t s = 0; s < nSpines; ++s)
    {
        spine[s] = NewSwitch(topo, "spine");
    }
    for (uint32_t srv = 0; srv < m_servers; ++srv)
    {
        for (uint32_t g = 0; g < m_gpusPerServer; ++g)
        {
            const uint32_t host = srv * m_gpusPerServer + g;
            Connect(topo,
                    host,
                    leaf[size_t(g) * leavesPerRail + srv / down],
                    m_linkRate,
                    m_hostCable);
        }
    }
    for (uint32_t l = 0; l < leaf.size(); ++l)
    {
        for (uint32_t j = 0; j < u; ++j)
        {
            Connect(topo, leaf[l], spine[j % nSpines], GetFabricRate(), m_fabricCable);
        }
    }
    const double hostBw = double(GetNHosts()) * double(m_linkRate.GetBitRate());
    const double upBw = double(leaf.size()) * u * double(GetFabricRate().GetBitRate());
    // One leaf in all: everything turns at the leaf.
    topo->SetBisectionBandwidth((leaf.size() <= 1 ? hostBw : std::min(hostBw, upBw)) / 2.0);
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
// FabricTopology's forwarding: tiers, link state, route computation over the live links
// (valley-free or any shortest path) and path tracing through the tables.
#include "fabric-topology.h"

#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"

#include <algorithm>
#include <limits>
#include <map>
#include <queue>

namespace ns3
{

void
FabricTopology::ComputeTiers()
{
    // Tiers from the switches' roles (a leaf without hosts is still a leaf); a role the helpers
    // do not use takes its hop distance from the nearest host.
    const uint32_t h = GetNEndpoints();
    const uint32_t n = h + GetNSwitches();
    m_tier.assign(n, std::numeric_limits<uint32_t>::max());
    std::queue<uint32_t> q;
    for (uint32_t v = 0; v < h; ++v)
    {
        m_tier[v] = 0;
        q.push(v);
    }
    while (!q.empty())
    {
        const uint32_t v = q.front();
        q.pop();
        for (const Adj& e : m_adj[v])
        {
            if (m_tier[e.peer] == std::numeric_limits<uint32_t>::max())
            {
                m_tier[e.peer] = m_tier[v] + 1;
                q.push(e.peer);
            }
        }
    }
    static const std::map<std::string, uint32_t> byRole =
        {{"leaf", 1}, {"edge", 1}, {"switch", 1}, {"spine", 2}, {"aggregation", 2}, {"core", 3}};
    for (uint32_t j = 0; j < m_roles.size(); ++j)
    {
        const auto it = byRole.find(m_roles[j]);
        if (it != byRole.end())
        {
            m_tier[h + j] = it->second;
        }
    }
}

void
FabricTopology::ComputePlanes() const
{
    // Connected parts of the switch graph with every cable up (hosts do not join them).
    const uint32_t h = GetNEndpoints();
    constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
    m_plane.assign(GetNSwitches(), kNone);
    m_planes = 0;
    for (uint32_t j = 0; j < GetNSwitches(); ++j)
    {
        if (m_plane[j] != kNone)
        {
            continue;
        }
        std::queue<uint32_t> q;
        m_plane[j] = m_planes;
        q.push(j);
        while (!q.empty())
        {
            const uint32_t v = q.front();
            q.pop();
            for (const Adj& e : m_adj[h + v])
            {
                if (e.peer >= h && m_plane[e.peer - h] == kNone)
                {
                    m_plane[e.peer - h] = m_planes;
                    q.push(e.peer - h);
                }
            }
        }
        ++m_planes;
    }
}

uint32_t
FabricTopology::GetSwitchPlane(uint32_t j) const
{
    if (m_plane.size() != GetNSwitches())
    {
        ComputePlanes();
    }
    return m_plane.at(j);
}

uint32_t
FabricTopology::GetNPlanes() const
{
    if (m_plane.size() != GetNSwitches())
    {
        ComputePlanes();
    }
    return m_planes;
}

uint32_t
FabricTopology::GetTier(uint32_t v) const
{
    return v < m_tier.size() ? m_tier[v] : 0;
}

void
FabricTopology::SetLinkUp(uint32_t l, bool up)
{
    const FabricLinkInfo& li = m_links.at(l);
    li.devA->SetLinkUp(up);
    li.devB->SetLinkUp(up);
}

bool
FabricTopology::IsLinkUp(uint32_t l) const
{
    const FabricLinkInfo& li = m_links.at(l);
    return li.devA->IsLinkUp() && li.devB->IsLinkUp();
}

std::vector<uint32_t>
FabricTopology::GetVertexLinks(uint32_t v) const
{
    std::vector<uint32_t> links;
    for (const Adj& e : m_adj.at(v))
    {
        links.push_back(e.link);
    }
    return links;
}

void
FabricTopology::PopulateRoutes()
{
    const uint32_t h = GetNEndpoints();
    const uint32_t n = h + GetNSwitches();
    if (m_tier.size() != n)
    {
        ComputeTiers();
    }
    for (auto& sw : m_switches)
    {
        sw->GetRoutingTable().Clear();
    }
    constexpr uint32_t kInf = std::numeric_limits<uint32_t>::max();
    std::vector<bool> up(m_links.size());
    for (uint32_t l = 0; l < m_links.size(); ++l)
    {
        up[l] = IsLinkUp(l);
    }
    // Local port index on vertex v of link l.
    auto portOn = [this](uint32_t v, uint32_t l) -> uint16_t {
        const FabricLinkInfo& li = m_links[l];
        return li.a == v ? li.devA->GetPortIndex() : li.devB->GetPortIndex();
    };
    // Group destination hosts by the switch they attach to (over live links): one search per
    // attachment switch. A host whose link is down has no route.
    std::map<uint32_t, std::vector<uint32_t>> byAttach;
    for (uint32_t d = 0; d < h; ++d)
    {
        for (const Adj& e : m_adj[d])
        {
            if (e.peer >= h && up[e.link])
            {
                byAttach[e.peer].push_back(d);
            }
        }
    }
    // Switches by tier, highest first (valley-free routes are settled top down).
    std::vector<uint32_t> order;
    for (uint32_t s = h; s < n; ++s)
    {
        order.push_back(s);
    }
    std::stable_sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) {
        return m_tier[a] > m_tier[b];
    });
    // In a plane (a connected part of the intact switch graph; a multi-plane fabric has one per
    // NIC port), every endpoint with a port there attached (none behind a down link) and none
    // on two of its switches: then a switch that routes every root of its plane may replace its
    // most common upward group by a default route (0.0.0.0/0 to that group), as a Clos's leaves
    // and spines do. Lookups of every endpoint of the plane return the same ports as with host
    // routes alone; the tables shrink from endpoints x switches entries to the hosts below each
    // switch (a 16,384-GPU fabric: 21 M to ~4 M). Only upward groups: an unknown address (or
    // one with no port in the plane) climbs to the top tier and is dropped there (never loops).
    const uint32_t planes = GetNPlanes();
    std::vector<uint32_t> ports(size_t(h) * planes, 0);    // intact ports per (endpoint, plane)
    std::vector<uint32_t> attached(size_t(h) * planes, 0); // live attachments
    for (uint32_t d = 0; d < h; ++d)
    {
        for (const Adj& e : m_adj[d])
        {
            if (e.peer >= h)
            {
                ++ports[size_t(d) * planes + m_plane[e.peer - h]];
            }
        }
    }
    for (const auto& kv : byAttach)
    {
        for (uint32_t d : kv.second)
        {
            ++attached[size_t(d) * planes + m_plane[kv.first - h]];
        }
    }
    std::vector<uint8_t> defaults(planes, 1);
    for (size_t i = 0; i < ports.size(); ++i)
    {
        if (ports[i] > 0 && attached[i] != 1)
        {
            defaults[i % planes] = 0;
        }
    }
    constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
    const uint32_t nRoots = static_cast<uint32_t>(byAttach.size());
    const uint32_t nSw = n - h;

    // Per switch: its distinct next-hop sets, and per root the set it uses (kNone: no route).
    struct Group
    {
        std::vector<uint16_t> ports;
        bool upward; //!< every port leads to a higher tier
    };

    std::vector<std::vector<Group>> groups(nSw);
    std::vector<uint32_t> rootGroup(size_t(nSw) * nRoots, kNone);
    std::vector<const std::vector<uint32_t>*> rootHosts;
    std::vector<uint32_t> rootVertex;
    std::vector<uint32_t> dist(n);
    std::vector<uint32_t> down(n);
    std::vector<uint16_t> group;
    for (const auto& kv : byAttach)
    {
        const uint32_t root = kv.first;
        const uint32_t ri = static_cast<uint32_t>(rootVertex.size());
        rootVertex.push_back(root);
        rootHosts.push_back(&kv.second);
        std::fill(dist.begin(), dist.end(), kInf);
        std::queue<uint32_t> q;
        if (m_valleyFree)
        {
            // down[v]: hops from v to the root going down only (a search up from the root).
            std::fill(down.begin(), down.end(), kInf);
            down[root] = 0;
            q.push(root);
            while (!q.empty())
            {
                const uint32_t v = q.front();
                q.pop();
                for (const Adj& e : m_adj[v])
                {
                    if (e.peer >= h && up[e.link] && m_tier[e.peer] > m_tier[v] &&
                        down[e.peer] == kInf)
                    {
                        down[e.peer] = down[v] + 1;
                        q.push(e.peer);
                    }
                }
            }
            // dist[v]: down if v can go down, else one more than its best upper neighbour.
            for (uint32_t v : order)
            {
                dist[v] = down[v];
                if (dist[v] != kInf)
                {
                    continue;
                }
                for (const Adj& e : m_adj[v])
                {
                    if (e.peer >= h && up[e.link] && m_tier[e.peer] > m_tier[v] &&
                        dist[e.peer] != kInf)
                    {
                        dist[v] = std::min(dist[v], dist[e.peer] + 1);
                    }
                }
            }
        }
        else
        {
            dist[root] = 0;
            q.push(root);
            while (!q.empty())
            {
                const uint32_t v = q.front();
                q.pop();
                for (const Adj& e : m_adj[v])
                {
                    if (e.peer >= h && up[e.link] && dist[e.peer] == kInf)
                    {
                        dist[e.peer] = dist[v] + 1;
                        q.push(e.peer);
                    }
                }
            }
        }
        for (uint32_t s = h; s < n; ++s)
        {
            if (s == root || dist[s] == kInf)
            {
                continue; // the root's own ports are per host (below); unreachable: no route
            }
            group.clear();
            bool upward = true;
            const bool goDown = m_valleyFree && down[s] != kInf;
            for (const Adj& e : m_adj[s])
            {
                if (e.peer < h || !up[e.link])
                {
                    continue;
                }
                // Valley-free: down along down-only paths while one exists, else up only.
                const bool next = !m_valleyFree ? dist[e.peer] + 1 == dist[s]
                                  : goDown
                                      ? m_tier[e.peer] < m_tier[s] && down[e.peer] + 1 == down[s]
                                      : m_tier[e.peer] > m_tier[s] && dist[e.peer] + 1 == dist[s];
                if (next)
                {
                    group.push_back(portOn(s, e.link));
                    upward = upward && m_tier[e.peer] > m_tier[s];
                }
            }
            if (group.empty())
            {
                continue; // no next hop: no route, as an erased host route
            }
            // The same switch lists its ports in one order: equal sets are equal vectors.
            auto& g = groups[s - h];
            uint32_t k = 0;
            while (k < g.size() && g[k].ports != group)
            {
                ++k;
            }
            if (k == g.size())
            {
                g.push_back(Group{group, upward});
            }
            rootGroup[size_t(s - h) * nRoots + ri] = k;
        }
    }
    std::vector<uint64_t> weight;
    for (uint32_t s = h; s < n; ++s)
    {
        FabricRoutingTable& table = m_switches[s - h]->GetRoutingTable();
        const auto& g = groups[s - h];
        const uint32_t* rg = &rootGroup[size_t(s - h) * nRoots];
        // The default: the upward group that serves the most endpoints, if every root has a
        // route from here.
        uint32_t def = kNone;
        const uint32_t plane = m_plane[s - h];
        if (defaults[plane])
        {
            weight.assign(g.size(), 0);
            bool all = true;
            for (uint32_t ri = 0; ri < nRoots && all; ++ri)
            {
                if (rootVertex[ri] == s || m_plane[rootVertex[ri] - h] != plane)
                {
                    continue;
                }
                all = rg[ri] != kNone;
                if (all)
                {
                    weight[rg[ri]] += rootHosts[ri]->size();
                }
            }
            for (uint32_t k = 0; k < g.size() && all; ++k)
            {
                if (g[k].upward && (def == kNone || weight[k] > weight[def]))
                {
                    def = k;
                }
            }
        }
        for (uint32_t ri = 0; ri < nRoots; ++ri)
        {
            if (rootVertex[ri] == s)
            {
                for (uint32_t d : *rootHosts[ri])
                {
                    group.clear();
                    for (const Adj& e : m_adj[s])
                    {
                        if (e.peer == d && up[e.link])
                        {
                            group.push_back(portOn(s, e.link));
                        }
                    }
                    table.AddHostRoute(m_hostAddr[d], group);
                }
                continue;
            }
            if (rg[ri] == kNone || rg[ri] == def)
            {
                continue;
            }
            for (uint32_t d : *rootHosts[ri])
            {
                table.AddHostRoute(m_hostAddr[d], g[rg[ri]].ports);
            }
        }
        if (def != kNone)
        {
            table.AddPrefixRoute(Ipv4Address(0u), Ipv4Mask(0u), g[def].ports);
        }
    }
}

std::vector<uint32_t>
FabricTopology::TracePath(uint32_t src, const FabricFrame& frame, uint32_t port) const
{
    std::vector<uint32_t> path{src};
    const uint32_t h = GetNEndpoints();
    if (port >= m_adj[src].size())
    {
        return path;
    }
    uint32_t v = m_adj[src][port].peer; // a host's cables are its ports, in order
    for (uint32_t hop = 0; hop < 64; ++hop)
    {
        path.push_back(v);
        if (v < h)
        {
            return path;
        }
        int32_t port = m_switches[v - h]->SelectEgressPort(frame);
        if (port < 0)
        {
            return path;
        }
        Ptr<FabricNetDevice> out = m_switches[v - h]->GetPort(static_cast<uint16_t>(port));
        uint32_t next = v;
        for (const Adj& e : m_adj[v])
        {
            const FabricLinkInfo& li = m_links[e.link];
            if ((li.a == v && li.devA == out) || (li.b == v && li.devB == out))
            {
                next = e.peer;
                break;
            }
        }
        if (next == v)
        {
            return path;
        }
        v = next;
    }
    return path;
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-routing-table.h"

#include <algorithm>

namespace ns3
{

uint32_t
FabricRoutingTable::Intern(const std::vector<uint16_t>& ports)
{
    std::vector<uint16_t> sorted = ports;
    std::sort(sorted.begin(), sorted.end());
    for (uint32_t g = 0; g < m_groupSize.size(); ++g)
    {
        if (m_groupSize[g] == sorted.size() &&
            std::equal(sorted.begin(), sorted.end(), m_groupPorts.begin() + m_groupOffset[g]))
        {
            return g;
        }
    }
    m_groupOffset.push_back(static_cast<uint32_t>(m_groupPorts.size()));
    m_groupSize.push_back(static_cast<uint32_t>(sorted.size()));
    m_groupPorts.insert(m_groupPorts.end(), sorted.begin(), sorted.end());
    return static_cast<uint32_t>(m_groupSize.size() - 1);
}

void
FabricRoutingTable::AddHostRoute(Ipv4Address dst, const std::vector<uint16_t>& ports)
{
    if (ports.empty())
    {
        m_host.erase(dst.Get());
    }
    else
    {
        m_host[dst.Get()] = Intern(ports);
    }
    m_dirty = true;
}

void
FabricRoutingTable::AddPrefixRoute(Ipv4Address network,
                                   Ipv4Mask mask,
                                   const std::vector<uint16_t>& ports)
{
    if (ports.empty())
    {
        return;
    }
    Prefix p{network.Get() & mask.Get(), mask.Get(), Intern(ports)};
    m_prefixes.push_back(p);
    std::stable_sort(m_prefixes.begin(), m_prefixes.end(), [](const Prefix& a, const Prefix& b) {
        return a.mask > b.mask;
    });
    m_dirty = true;
}

void
FabricRoutingTable::Clear()
{
    m_groupPorts.clear();
    m_groupOffset.clear();
    m_groupSize.clear();
    m_host.clear();
    m_prefixes.clear();
    m_dense.clear();
    m_denseValid = false;
    m_dirty = false;
}

void
FabricRoutingTable::Compile() const
{
    m_dirty = false;
    m_dense.clear();
    m_denseValid = false;
    m_denseBase = 0;
    if (m_host.empty())
    {
        m_denseValid = true;
        return;
    }
    uint32_t lo = UINT32_MAX;
    uint32_t hi = 0;
    for (const auto& kv : m_host)
    {
        lo = std::min(lo, kv.first);
        hi = std::max(hi, kv.first);
    }
    const uint64_t span = uint64_t(hi) - lo + 1;
    // Dense when it costs at most 16 entries per route (and 128 MiB at the very most).
    if (span <= 16 * uint64_t(m_host.size()) + 1024 && span <= (16u << 20))
    {
        m_denseBase = lo;
        m_dense.assign(span, DenseEntry{});
        for (const auto& kv : m_host)
        {
            const uint32_t g = kv.second;
            if (m_groupSize[g] > UINT16_MAX)
            {
                // A group wider than 65,535 ports does not fit an entry: keep the hash map.
                m_dense.clear();
                m_denseBase = 0;
                return;
            }
            DenseEntry& e = m_dense[kv.first - lo];
            e.offset = m_groupOffset[g];
            e.size = static_cast<uint16_t>(m_groupSize[g]);
            e.port = m_groupSize[g] == 1 ? m_groupPorts[m_groupOffset[g]] : 0;
        }
        m_denseValid = true;
    }
}

const uint16_t*
FabricRoutingTable::LookupPrefix(uint32_t dst, uint32_t& n) const
{
    for (const auto& p : m_prefixes)
    {
        if ((dst & p.mask) == p.network)
        {
            n = m_groupSize[p.group];
            return &m_groupPorts[m_groupOffset[p.group]];
        }
    }
    n = 0;
    return nullptr;
}

std::vector<uint16_t>
FabricRoutingTable::GetPorts(Ipv4Address dst) const
{
    uint32_t n = 0;
    const uint16_t* p = Lookup(dst.Get(), n);
    return n ? std::vector<uint16_t>(p, p + n) : std::vector<uint16_t>();
}

uint32_t
FabricRoutingTable::GetNHostRoutes() const
{
    return static_cast<uint32_t>(m_host.size());
}

uint32_t
FabricRoutingTable::GetNGroups() const
{
    return static_cast<uint32_t>(m_groupSize.size());
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_ROUTING_TABLE_H
#define FABRIC_ROUTING_TABLE_H

#include "ns3/ipv4-address.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A switch forwarding table: IPv4 destination -> a group of equal-cost egress ports.
 *
 * Host (/32) routes are compiled into a dense array indexed by address when the addresses are
 * compact (the topology helpers number hosts consecutively), so a lookup is one subtraction and
 * one load (a second for a group of several ports); otherwise a hash map. Prefix routes are matched
 * longest-prefix-first after that. Port groups are interned: a 1,024-host table holds only a
 * handful of distinct groups.
 */
class FabricRoutingTable
{
  public:
    /// Add (or replace) a route to one host.
    void AddHostRoute(Ipv4Address dst, const std::vector<uint16_t>& ports);
    /// Add a prefix route (longest prefix wins, after host routes).
    void AddPrefixRoute(Ipv4Address network, Ipv4Mask mask, const std::vector<uint16_t>& ports);
    void Clear();

    /**
     * \param dst destination address (host order)
     * \param n set to the number of equal-cost ports (0: no route)
     * \return pointer to the ports (valid until the table changes)
     */
    const uint16_t* Lookup(uint32_t dst, uint32_t& n) const
    {
        if (m_dirty)
        {
            Compile();
        }
        const uint32_t off = dst - m_denseBase;
        if (off < m_dense.size())
        {
            const DenseEntry& e = m_dense[off];
            if (e.size != 0)
            {
                n = e.size;
                return e.size == 1 ? &e.port : &m_groupPorts[e.offset];
            }
            return LookupPrefix(dst, n); // no host route (AddHostRoute keeps none without ports)
        }
        uint32_t g = 0;
        if (!m_denseValid)
        {
            auto it = m_host.find(dst);
            if (it != m_host.end())
            {
                g = it->second + 1;
            }
        }
        if (g == 0)
        {
            return LookupPrefix(dst, n);
        }
        n = m_groupSize[g - 1];
        return &m_groupPorts[m_groupOffset[g - 1]];
    }

    /// \return the equal-cost ports towards `dst` (empty: no route)
    std::vector<uint16_t> GetPorts(Ipv4Address dst) const;
    uint32_t GetNHostRoutes() const;
    uint32_t GetNGroups() const;

  private:
    struct Prefix
    {
        uint32_t network;
        uint32_t mask;
        uint32_t group;
    };

    uint32_t Intern(const std::vector<uint16_t>& ports);
    void Compile() const;
    const uint16_t* LookupPrefix(uint32_t dst, uint32_t& n) const;

    std::vector<uint16_t> m_groupPorts;
    std::vector<uint32_t> m_groupOffset;
    std::vector<uint32_t> m_groupSize;
    std::unordered_map<uint32_t, uint32_t> m_host; //!< address -> group
    std::vector<Prefix> m_prefixes;                //!< longest mask first

    /// A host route in the dense array: its group's size and offset in m_groupPorts, and its
    /// port when the group has one (a switch's downward routes), so that a lookup is one load
    /// (two for several ports), not three dependent ones through the group arrays.
    struct DenseEntry
    {
        uint32_t offset{0};
        uint16_t size{0}; //!< 0: no host route (the prefixes decide)
        uint16_t port{0}; //!< the port, when size is 1
    };

    mutable std::vector<DenseEntry> m_dense;
    mutable uint32_t m_denseBase{0};
    mutable bool m_denseValid{false};
    mutable bool m_dirty{false};
};

} // namespace ns3

#endif // FABRIC_ROUTING_TABLE_H

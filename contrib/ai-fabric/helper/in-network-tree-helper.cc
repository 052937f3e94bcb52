// SPDX-License-Identifier: GPL-2.0-only
#include "in-network-tree-helper.h"

#include "fabric-topology-helper.h"

#include <algorithm>
#include <iterator>
#include <set>

namespace ns3
{

InNetworkTree
InNetworkTreeHelper::Build(Ptr<FabricTopology> topo)
{
    const uint32_t n = topo->GetNHosts();
    const uint32_t e = topo->GetNEndpoints();
    const uint32_t g = std::max<uint32_t>(1, topo->GetGpusPerServer());
    if (topo->GetNAggregators() != topo->GetNSwitches())
    {
        throw FabricConfigError("InNetworkAggregation",
                                "the topology was built without aggregation nodes");
    }
    InNetworkTree t;
    t.gpus = n;
    t.leafOf.assign(n, UINT32_MAX);
    t.parent.assign(topo->GetNAggregators(), UINT32_MAX);
    std::vector<std::set<uint32_t>> above(topo->GetNSwitches()); // switch neighbours
    for (const FabricLinkInfo& l : topo->GetLinks())
    {
        if (l.a < n && l.b >= e)
        {
            t.leafOf[l.a] = n + (l.b - e);
        }
        else if (l.b < n && l.a >= e)
        {
            t.leafOf[l.b] = n + (l.a - e);
        }
        else if (l.a >= e && l.b >= e)
        {
            above[l.a - e].insert(l.b - e);
            above[l.b - e].insert(l.a - e);
        }
    }
    for (uint32_t rail = 0; rail < g; ++rail)
    {
        std::set<uint32_t> leaves; // switch indices
        for (uint32_t r = rail; r < n; r += g)
        {
            leaves.insert(t.leafOf[r] - n);
        }
        if (leaves.size() < 2)
        {
            continue; // the one leaf is the root
        }
        std::vector<uint32_t> common(above[*leaves.begin()].begin(), above[*leaves.begin()].end());
        for (uint32_t leaf : leaves)
        {
            std::vector<uint32_t> keep;
            std::set_intersection(common.begin(),
                                  common.end(),
                                  above[leaf].begin(),
                                  above[leaf].end(),
                                  std::back_inserter(keep));
            common.swap(keep);
        }
        if (common.empty())
        {
            throw FabricConfigError("InNetworkAggregation",
                                    "rail " + std::to_string(rail) +
                                        "'s leaves share no switch to reduce at (aggregation "
                                        "trees have two levels, leaf and spine: a rail over "
                                        "the pods of a 3-tier fabric has no spine in common)");
        }
        const uint32_t root = n + common[rail % common.size()];
        for (uint32_t leaf : leaves)
        {
            if (t.parent[leaf] != UINT32_MAX && t.parent[leaf] != root)
            {
                throw FabricConfigError("InNetworkAggregation",
                                        "switch " + std::to_string(leaf) +
                                            " serves rails with different aggregation roots");
            }
            t.parent[leaf] = root;
        }
    }
    const std::string err = t.Check(n, g);
    if (!err.empty())
    {
        throw FabricConfigError("InNetworkAggregation", err);
    }
    return t;
}

} // namespace ns3

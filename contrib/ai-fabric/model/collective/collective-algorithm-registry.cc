// SPDX-License-Identifier: GPL-2.0-only
#include "collective-algorithm-registry.h"

#include <algorithm>

namespace ns3
{

template <>
std::vector<CollectiveAlgorithmInfo>&
CollectiveAlgorithmRegistry::Entries()
{
    static std::vector<CollectiveAlgorithmInfo> entries;
    return entries;
}

bool
CollectiveAlgorithmInfo::Implements(const std::string& collective) const
{
    return collectives.empty() ||
           std::find(collectives.begin(), collectives.end(), collective) != collectives.end();
}

} // namespace ns3

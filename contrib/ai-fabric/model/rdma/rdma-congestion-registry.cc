// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-congestion-registry.h"

namespace ns3
{

template <>
std::vector<RdmaCongestionControlInfo>&
RdmaCongestionRegistry::Entries()
{
    static std::vector<RdmaCongestionControlInfo> entries;
    return entries;
}

const RdmaCongestionControlInfo*
AutoCongestionControl(const std::string& fabric)
{
    const RdmaCongestionControlInfo* fallback = nullptr;
    for (const auto& e : RdmaCongestionRegistry::All())
    {
        for (const auto& f : e.autoOn)
        {
            if (f == fabric)
            {
                return &e;
            }
            if (f == "*")
            {
                fallback = &e;
            }
        }
    }
    return fallback;
}

} // namespace ns3

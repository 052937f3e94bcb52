// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-loss-recovery-registry.h"

#include "ns3/abort.h"

namespace ns3
{

template <>
std::vector<RdmaLossRecoveryInfo>&
RdmaLossRecoveryRegistry::Entries()
{
    static std::vector<RdmaLossRecoveryInfo> entries;
    return entries;
}

const std::string&
DefaultLossRecovery()
{
    for (const auto& e : RdmaLossRecoveryRegistry::All())
    {
        if (e.isDefault)
        {
            return e.name;
        }
    }
    NS_ABORT_MSG("no RDMA loss recovery registered as the default");
}

} // namespace ns3

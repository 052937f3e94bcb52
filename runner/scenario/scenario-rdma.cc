// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-rdma.h"

#include "fabric-registry.h"
#include "scenario-plugins.h"

#include "ns3/rdma-loss-recovery-registry.h"

#include <string>

namespace aifabric
{

void
ResolveRdma(const nlohmann::json& j, RunConfig& r)
{
    r.lossRecovery = j["loss_recovery"];
    const nlohmann::json& rdma = j["rdma"];
    r.retransmitTimeoutMs = rdma["retransmit_timeout_ms"];
    const nlohmann::json& mtu = rdma["path_mtu"];
    r.pathMtu = mtu.is_string() ? static_cast<uint32_t>(std::stoul(mtu.get<std::string>()))
                                : mtu.get<uint32_t>();
    r.reorderThreshold = rdma["reorder_threshold"];
    const ns3::RdmaLossRecoveryInfo* lr = ns3::RdmaLossRecoveryRegistry::Find(r.lossRecovery);
    if (r.reorderThreshold > 0 && FabricOf(r).rdmaKeys && lr && !lr->keepsOutOfOrder)
    {
        const std::string keeping = NamesWhere<ns3::RdmaLossRecoveryRegistry>(
            [](const ns3::RdmaLossRecoveryInfo& e) { return e.keepsOutOfOrder; },
            " or ");
        throw ScenarioError("rdma.reorder_threshold: needs loss_recovery " + keeping + " (" +
                            r.lossRecovery + " keeps no out-of-order packet to wait for; got " +
                            std::to_string(r.reorderThreshold) + ")");
    }
}

} // namespace aifabric

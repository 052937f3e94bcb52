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
    r.fabric.lossRecovery = j["loss_recovery"];
    const nlohmann::json& rdma = j["rdma"];
    r.fabric.rdma.retransmitTimeoutMs = rdma["retransmit_timeout_ms"];
    const nlohmann::json& mtu = rdma["path_mtu"];
    r.fabric.rdma.pathMtu = mtu.is_string()
                                ? static_cast<uint32_t>(std::stoul(mtu.get<std::string>()))
                                : mtu.get<uint32_t>();
    r.fabric.rdma.reorderThreshold = rdma["reorder_threshold"];
    const ns3::RdmaLossRecoveryInfo* lr =
        ns3::RdmaLossRecoveryRegistry::Find(r.fabric.lossRecovery);
    if (r.fabric.rdma.reorderThreshold > 0 && FabricOf(r).rdmaKeys && lr && !lr->keepsOutOfOrder)
    {
        const std::string keeping = NamesWhere<ns3::RdmaLossRecoveryRegistry>(
            [](const ns3::RdmaLossRecoveryInfo& e) { return e.keepsOutOfOrder; },
            " or ");
        throw ScenarioError("rdma.reorder_threshold: needs loss_recovery " + keeping + " (" +
                            r.fabric.lossRecovery +
                            " keeps no out-of-order packet to wait for; got " +
                            std::to_string(r.fabric.rdma.reorderThreshold) + ")");
    }
}

} // namespace aifabric

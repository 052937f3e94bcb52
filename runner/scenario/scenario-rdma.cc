// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-rdma.h"

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
    if (r.reorderThreshold > 0 && r.fabric != "tcp" && r.lossRecovery != "selective-repeat")
    {
        throw ScenarioError(
            "rdma.reorder_threshold: needs loss_recovery selective-repeat (go-back-n "
            "keeps no out-of-order packet to wait for; got " +
            std::to_string(r.reorderThreshold) + ")");
    }
}

} // namespace aifabric

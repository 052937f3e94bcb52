// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-tcp.h"

#include "scenario-tuning.h"

#include <algorithm>
#include <cctype>

namespace aifabric
{

namespace
{

/// A TCP algorithm's short name from the TypeId an attribute names ("ns3::TcpDctcp" -> dctcp,
/// "ns3::LinuxTcpCubic" -> cubic, "ns3::TcpPrrRecovery" -> prr with suffix "Recovery").
std::string
TcpAlgorithmName(const std::vector<std::pair<std::string, std::string>>& attributes,
                 const std::string& typeId,
                 const std::string& attribute,
                 const std::string& suffix)
{
    std::string name = AttributeText(attributes, typeId, attribute);
    for (const std::string prefix : {"ns3::", "LinuxTcp", "Tcp"})
    {
        if (name.rfind(prefix, 0) == 0)
        {
            name.erase(0, prefix.size());
        }
    }
    if (!suffix.empty() && name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
    {
        name.erase(name.size() - suffix.size());
    }
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) {
        return static_cast<char>(std::tolower(ch));
    });
    return name;
}

} // namespace

void
ResolveTcp(const nlohmann::json& j, RunConfig& r)
{
    const nlohmann::json& t = j["tcp"];
    r.tcpHostCosts = t["host_costs"];
    r.tcpCores = t["cores"];
    r.tcpStack = t["stack"];
    r.tcpTlp = t["tlp"];
    r.tcpRack = t["rack"];
    r.tcpSocketsPerPeer = t["sockets_per_peer"];
    r.tcpThreads = t["threads"];
    if (r.tcpSocketsPerPeer % r.tcpThreads != 0)
    {
        throw ScenarioError("tcp.sockets_per_peer: must be a multiple of tcp.threads (got " +
                            std::to_string(r.tcpSocketsPerPeer) + " sockets over " +
                            std::to_string(r.tcpThreads) + " threads)");
    }
    if (r.tcpStack == "ns3")
    {
        if (r.tcpSocketsPerPeer != 1 || r.tcpThreads != 1)
        {
            throw ScenarioError("tcp.sockets_per_peer: NCCL's multi-socket transport needs "
                                "tcp.stack linux (tcp.stack ns3 opens one socket per "
                                "connection: sockets_per_peer and threads must be 1)");
        }
        // ns-3's TCP has neither (its documentation, through ns-3.48).
        r.tcpTlp = false;
        r.tcpRack = false;
        r.resolved["tcp"]["tlp"] = false;
        r.resolved["tcp"]["rack"] = false;
    }
    if (r.fabric != "tcp")
    {
        return;
    }
    // The RDMA fields do not apply: report what the TCP stack runs instead.
    if (r.tcpStack == "ns3")
    {
        r.congestionControl =
            TcpAlgorithmName(r.attributes, "ns3::TcpL4Protocol", "SocketType", "");
        r.lossRecovery =
            TcpAlgorithmName(r.attributes, "ns3::TcpL4Protocol", "RecoveryType", "Recovery");
    }
    else
    {
        r.congestionControl =
            TcpAlgorithmName(r.attributes, "ns3::LinuxTcpStack", "CongestionControl", "");
        r.lossRecovery = std::string(r.tcpRack ? "rack" : "sack") + (r.tcpTlp ? "-tlp" : "");
    }
    r.resolved["congestion_control"] = r.congestionControl;
    r.resolved["loss_recovery"] = r.lossRecovery;
}

} // namespace aifabric

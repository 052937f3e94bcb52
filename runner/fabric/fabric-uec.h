// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_FABRIC_UEC_H
#define AI_FABRIC_FABRIC_UEC_H

// Everything the runner knows about `fabric: uec` (Ultra Ethernet), in one place: its keys
// (schema and defaults), their resolution and checks, the switch and NIC set-up, and its
// summary counters. The rest of the runner only calls these functions.

#include "scenario-enums.h"

#include "ns3/collective-transport.h"
#include "ns3/fabric-link-helper.h"
#include "ns3/fabric-topology.h"
#include "ns3/latency-histogram.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace aifabric
{

struct KeySpec;
struct RunConfig;

/// The resolved `uec.*` keys.
struct UecConfig
{
    std::string cc;            //!< uec.cc: a name in UetCongestionRegistry
    std::string loadBalancing; //!< uec.load_balancing: a name in UetLoadBalancerRegistry
    bool trimming{};
    uint32_t trimBytes{};
    UecPds pds{};
    bool pfc{};
    double ecnMinBdp{};
    double ecnMaxBdp{};
    double rtoUs{};        //!< 0: htsim's 15 us + 6 network RTTs
    double networkRttUs{}; //!< 0: the unloaded RTT of the fabric's longest path
    uint32_t entropyValues{};
    uint32_t ackBytes{};
    double receiveGbps{}; //!< uec.receive_gbps: UetNic::ReceiveRate (0: off)
    uint32_t mtu{};
    bool linkRetry{};         //!< uec.link_retry: LLR on every link
    bool creditFlowControl{}; //!< uec.credit_flow_control: CBFC instead of PFC
};

/// The `uec.*` keys of the schema.
std::vector<KeySpec> UecSchemaKeys();
/// Read `uec.*` into `r.fabric.uec`.
void ResolveUec(const nlohmann::json& j, RunConfig& r);
/// What `fabric: uec` cannot combine with, and what it runs in place of the RDMA fields.
void FinishUec(RunConfig& r);
/**
 * Switches (trimming, ECN on dequeue between uec.ecn_min_bdp and uec.ecn_max_bdp of the BDP,
 * lossy unless uec.pfc) and UET NICs on every host. \return the collective transport over them
 */
ns3::Ptr<ns3::CollectiveTransport> InstallUec(const RunConfig& c,
                                              ns3::Ptr<ns3::FabricTopology> topo,
                                              ns3::Ptr<ns3::LatencyHistogram> latency);
/// PFC's enabled priorities on a uec fabric (0: lossy).
uint32_t UecPfcPriorities(const RunConfig& c);
/**
 * Before the fabric is built: UEC's link options on the link helper (LLR on every link with
 * uec.link_retry; CBFC on UET's data class with uec.credit_flow_control, else PFC as uec.pfc).
 */
void ConfigureUecLinks(const RunConfig& c, ns3::FabricLinkHelper& link);
/// The summary's `uec` block: trims, NACKs, timeouts, retransmissions, EV changes, ...
nlohmann::json UecSummary(ns3::Ptr<ns3::FabricTopology> topo);

} // namespace aifabric

#endif

// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_CONGESTION_REGISTRY_H
#define RDMA_CONGESTION_REGISTRY_H

#include "ns3/plugin-registry.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/// What a congestion control's Check() and switch settings see of the run.
struct RdmaCcContext
{
    std::string fabric;          //!< the scenario's fabric name
    double linkGbps;             //!< the fabric's link rate, Gb/s
    const PluginKeyValues& keys; //!< the entry's own keys
};

/// Attribute name -> value (an ns-3 StringValue's text), in the order they are set.
using AttributeList = std::vector<std::pair<std::string, std::string>>;

/**
 * What the scenario level knows of one RDMA congestion control (a "congestion_control" value):
 * the RdmaCongestionOps TypeId it builds and its preset, what it needs of the NICs (an ACK per
 * packet, a CNP interval) and of the switches (ECN thresholds), on which fabric "auto" picks it,
 * and its one Check(). Registered next to its class (rdma-hpcc.cc registers "hpcc"); the runner
 * iterates RdmaCongestionRegistry and names none of them.
 */
struct RdmaCongestionControlInfo
{
    std::string name;            //!< scenario name, e.g. "hpcc"
    std::string typeId;          //!< the RdmaCongestionOps subclass, e.g. "ns3::RdmaHpcc"
    std::string help;            //!< one clause for --help
    AttributeList attributes;    //!< attributes of typeId (a preset)
    AttributeList nicAttributes; //!< RdmaNic attributes it needs ("AckInterval" "0s": per packet)
    std::vector<PluginKey> keys; //!< its own scenario keys, under rdma.<name>
    /// ns-3 attribute defaults it needs of the switches ("ns3::SwitchBufferManager::EcnKmin").
    std::function<AttributeList(const RdmaCcContext&)> switchDefaults;
    /// Fabrics on which congestion_control "auto" picks it ("*": every fabric no entry names).
    std::vector<std::string> autoOn;
    /// Why it cannot run in this context ("needs fabric infiniband"), or "" when it can.
    std::function<std::string(const RdmaCcContext&)> check;

    /// check(c), or "" without one.
    std::string Check(const RdmaCcContext& c) const
    {
        return check ? check(c) : "";
    }
};

/// The RDMA congestion controls a scenario can name (congestion_control).
using RdmaCongestionRegistry = PluginRegistry<RdmaCongestionControlInfo>;

template <>
std::vector<RdmaCongestionControlInfo>& RdmaCongestionRegistry::Entries();

/// The congestion control congestion_control "auto" picks on `fabric` (null if none).
const RdmaCongestionControlInfo* AutoCongestionControl(const std::string& fabric);

} // namespace ns3

#endif

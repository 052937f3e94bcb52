// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_RUN_TRANSPORTS_H
#define AI_FABRIC_RUN_TRANSPORTS_H

#include "scenario.h"

#include "ns3/collective-transport.h"
#include "ns3/fabric-topology.h"
#include "ns3/latency-histogram.h"
#include "ns3/rdma-nic.h"

#include <vector>

namespace aifabric
{

/// RDMA NICs (RoCEv2, or InfiniBand HCAs: the same engine on IB ports) with the scenario's
/// congestion control, loss recovery and timers on every host and aggregation node, into
/// `nics`. \return the transport over them
ns3::Ptr<ns3::CollectiveTransport> InstallRdma(const RunConfig& c,
                                               ns3::Ptr<ns3::FabricTopology> topo,
                                               ns3::Ptr<ns3::LatencyHistogram> latency,
                                               std::vector<ns3::Ptr<ns3::RdmaNic>>& nics);

} // namespace aifabric

#endif

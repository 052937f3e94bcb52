// SPDX-License-Identifier: GPL-2.0-only
// The fault timeline of a run (faults.events, faults.random) on its fabric.
#ifndef AI_FABRIC_RUN_FAULTS_H
#define AI_FABRIC_RUN_FAULTS_H

#include "scenario.h"

#include "ns3/fabric-fault-injector.h"
#include "ns3/fabric-topology.h"

namespace aifabric
{

/**
 * The fault timeline (faults.events, faults.random) scheduled on `topo`, or null without one. A
 * name that is not in the fabric, a pause-storm `from` that is not an end of its link or a
 * priority without PFC there is bad input (ScenarioError naming faults.events[i].key).
 */
ns3::Ptr<ns3::FabricFaultInjector> BuildFaults(const RunConfig& c,
                                               ns3::Ptr<ns3::FabricTopology> topo);

} // namespace aifabric

#endif // AI_FABRIC_RUN_FAULTS_H

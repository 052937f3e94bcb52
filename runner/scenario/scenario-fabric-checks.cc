// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-fabric-checks.h"

#include "scenario-plugins.h"

#include <cmath>
#include <sstream>
#include <string>

namespace aifabric
{

void
CheckFabricFields(const RunConfig& r)
{
    if (r.fabric == "infiniband" && !r.pfc)
    {
        throw ScenarioError(
            "pfc: InfiniBand is lossless by credit flow control; pfc must stay true "
            "with fabric infiniband (pfc: false applies to rocev2 and tcp)");
    }
    CheckTopology(r);
    if (r.planes > 1 && r.fabric == "tcp")
    {
        throw ScenarioError("topology.planes: " + std::to_string(r.planes) +
                            " planes need an RDMA fabric (rocev2 or infiniband): the kernel TCP "
                            "models send on one NIC port (a bonded interface is not modelled; "
                            "got fabric tcp)");
    }
    if (r.planes > 1 && r.sharp)
    {
        throw ScenarioError("infiniband.sharp: SHARP trees per plane are not modelled; needs "
                            "topology.planes 1 (got " +
                            std::to_string(r.planes) + ")");
    }
    if (r.fabric == "infiniband" && r.loadBalancing != "ecmp" && r.loadBalancing != "adaptive")
    {
        throw ScenarioError("routing.load_balancing: with fabric infiniband must be ecmp (the "
                            "subnet manager's LFT) or adaptive (got " +
                            r.loadBalancing + ")");
    }
    if (r.fabric == "tcp" && r.loadBalancing == "qp-ecmp")
    {
        throw ScenarioError("routing.load_balancing: qp-ecmp needs RDMA queue pairs (fabric "
                            "rocev2); kernel TCP spreads over tcp.sockets_per_peer connections");
    }
    for (size_t i = 0; i < r.faultEvents.size(); ++i)
    {
        if (r.faultEvents[i]["action"] == "pause-storm" && (r.fabric == "infiniband" || !r.pfc))
        {
            throw ScenarioError("faults.events[" + std::to_string(i) +
                                "].action: pause-storm needs PFC (pfc true on rocev2 or tcp; "
                                "InfiniBand has credits, not PAUSE frames)");
        }
    }
    CheckCongestionControl(r);
    if (r.fabric == "infiniband")
    {
        // A full IB packet (4096 + LRH/BTH/RETH/ICRC/VCRC = 4138 B) must fit the buffer.
        const double minKib = std::ceil((4096.0 + 8 + 12 + 16 + 4 + 2) / 64) * 64 / 1024;
        if (r.ibRxBufferKib < minKib)
        {
            std::ostringstream msg;
            msg << "infiniband.rx_buffer_kib: must hold one full packet: >= " << minKib
                << " KiB (got " << r.ibRxBufferKib << ")";
            throw ScenarioError(msg.str());
        }
    }
}

} // namespace aifabric

// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-fabric-checks.h"

#include "fabric-registry.h"
#include "scenario-plugins.h"

#include <cmath>
#include <sstream>
#include <string>

namespace aifabric
{

void
CheckFabricFields(const RunConfig& r)
{
    CheckTopology(r);
    if (r.topology.planes > 1 && r.fabric.infiniband.sharp)
    {
        throw ScenarioError("infiniband.sharp: SHARP trees per plane are not modelled; needs "
                            "topology.planes 1 (got " +
                            std::to_string(r.topology.planes) + ")");
    }
    for (size_t i = 0; i < r.faults.events.size(); ++i)
    {
        if (r.faults.events[i]["action"] == "pause-storm" &&
            (!FabricOf(r).pauseFrames || !r.fabric.pfc))
        {
            const std::string with =
                NamesWhere<FabricRegistry>([](const FabricInfo& f) { return f.pauseFrames; },
                                           " or ");
            throw ScenarioError("faults.events[" + std::to_string(i) +
                                "].action: pause-storm needs PFC's PAUSE frames (pfc true on " +
                                with + "; got fabric " + r.fabric.name +
                                (r.fabric.pfc ? "" : ", pfc false") + ")");
        }
    }
    CheckCongestionControl(r);
}

} // namespace aifabric

// SPDX-License-Identifier: GPL-2.0-only
//
// ai-fabric-topology: build a scenario's fabric and describe it, without simulating.
//
//   ai-fabric topology [SCENARIO.json] [--set key.path=value]... [--list]
//
// Prints the GPU, switch and link counts, the build time and the memory it took; with --list,
// one line per link: NAME END-A END-B GBPS. Exit status: 0, or 2 for bad input (one line naming
// the key), 1 for an internal error.
#include "guarded-main.h"
#include "json-input.h"
#include "run-summary.h"
#include "scenario-args.h"
#include "scenario.h"
#include "simulation-builder.h"
#include "text-util.h"

#include "ns3/fabric-switch.h"
#include "ns3/simulator.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

using namespace aifabric;

namespace
{

void
Usage()
{
    std::cout << "usage: ai-fabric topology [SCENARIO.json] [--set key.path=value]... [--list]\n\n"
                 "Builds the scenario's fabric (of its first run) without simulating and prints "
                 "its GPUs,\nswitches by role, links, bisection, build time and peak memory; "
                 "--list adds one line\nper link: NAME END-A END-B GBPS. Names are those "
                 "fault events use (gpu5-leaf0, leaf0-spine2).\n";
}

} // namespace

int
main(int argc, char** argv)
{
    return GuardedMain([&]() -> int {
        ScenarioArgs args;
        bool list = false;
        for (int i = 1; i < argc; ++i)
        {
            const std::string a = argv[i];
            if (a == "--help" || a == "-h")
            {
                Usage();
                return 0;
            }
            if (a == "--list")
            {
                list = true;
                continue;
            }
            if (!args.Take(argc, argv, i) || !args.out.empty())
            {
                throw ScenarioError(EchoText(a) +
                                    ": unknown option (allowed: --set, --list, --help/-h)");
            }
        }
        const std::vector<RunConfig> runs = ResolveScenario(args.Load());
        const RunConfig& c = runs.front();
        const auto t0 = std::chrono::steady_clock::now();
        ns3::Ptr<ns3::FabricTopology> topo = BuildTopology(c);
        const double buildS =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::map<std::string, uint32_t> linkKinds;
        for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
        {
            const auto& li = topo->GetLinks()[l];
            const bool host = li.a < topo->GetNEndpoints() || li.b < topo->GetNEndpoints();
            ++linkKinds[host ? "host-leaf" : "switch-switch"];
        }
        std::ostringstream os;
        os << topo->Describe() << "\n"
           << "  GPUs " << topo->GetNHosts() << " (" << c.topology.servers << " servers x "
           << c.topology.gpusPerServer << "), switches " << topo->GetNSwitches() << ", links "
           << topo->GetNLinks() << " (" << linkKinds["host-leaf"] << " host-leaf, "
           << linkKinds["switch-switch"] << " switch-switch)\n"
           << "  built in " << Num(buildS, 3) << " s, peak RSS " << Num(PeakRssMb(), 4) << " MB\n";
        std::cout << os.str();
        if (list)
        {
            std::cout << "NAME END-A END-B GBPS\n";
            for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
            {
                const auto& li = topo->GetLinks()[l];
                std::cout << topo->GetLinkName(l) << " " << topo->GetVertexName(li.a) << " "
                          << topo->GetVertexName(li.b) << " " << Num(topo->GetLinkRate(l) / 1e9, 6)
                          << "\n";
            }
        }
        ns3::Simulator::Destroy();
        return 0;
    });
}

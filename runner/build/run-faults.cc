// SPDX-License-Identifier: GPL-2.0-only
#include "run-faults.h"

#include "json-input.h"

#include "ns3/fabric-net-device.h"
#include "ns3/pfc-flow-control.h"
#include "ns3/simulator.h"

using namespace ns3;

namespace aifabric
{

namespace
{

/// The end of `link` that a pause-storm event storms: its nic or switch, or the link's `from`.
uint32_t
StormEnd(const nlohmann::json& j, Ptr<FabricTopology> topo, uint32_t link, const std::string& at)
{
    const FabricLinkInfo& li = topo->GetLinks().at(link);
    if (!j.contains("link"))
    {
        return uint32_t(topo->FindVertex(j.contains("nic") ? j["nic"] : j["switch"]));
    }
    if (!j.contains("from"))
    {
        return li.a;
    }
    const std::string from = j["from"];
    const int32_t v = topo->FindVertex(from);
    if (v < 0 || (uint32_t(v) != li.a && uint32_t(v) != li.b))
    {
        throw ScenarioError(at + "from: '" + EchoText(from) + "' is not an end of link '" +
                            topo->GetLinkName(link) + "' (" + topo->GetVertexName(li.a) + " or " +
                            topo->GetVertexName(li.b) + ")");
    }
    return uint32_t(v);
}

} // namespace

Ptr<FabricFaultInjector>
BuildFaults(const RunConfig& c, Ptr<FabricTopology> topo)
{
    if (c.faults.events.empty() && c.faults.random.mtbfHours <= 0)
    {
        return nullptr;
    }
    Ptr<FabricFaultInjector> inj = CreateObject<FabricFaultInjector>();
    inj->SetTopology(topo);
    inj->SetAttribute("ConvergenceTime", TimeValue(ScenarioMs(c.routing.convergenceMs)));
    inj->AssignStreams(900000);
    for (size_t i = 0; i < c.faults.events.size(); ++i)
    {
        const nlohmann::json& j = c.faults.events[i];
        const std::string at = "faults.events[" + std::to_string(i) + "].";
        FabricFaultEvent e;
        e.at = ScenarioMs(j["at_ms"].get<double>());
        if (j.contains("link"))
        {
            e.target = j["link"];
            const int32_t l = topo->FindLink(e.target);
            if (l < 0)
            {
                throw ScenarioError(at + "link: '" + EchoText(e.target) +
                                    "' is not a link of this fabric (ai-fabric topology --list "
                                    "prints them)");
            }
            e.links = {uint32_t(l)};
        }
        else
        {
            const bool sw = j.contains("switch");
            e.target = j[sw ? "switch" : "nic"];
            const int32_t v = topo->FindVertex(e.target);
            const bool ok = v >= 0 && (sw ? uint32_t(v) >= topo->GetNEndpoints()
                                          : uint32_t(v) < topo->GetNHosts());
            if (!ok)
            {
                throw ScenarioError(at + (sw ? "switch" : "nic") + ": '" + EchoText(e.target) +
                                    "' is not a " + (sw ? "switch" : "GPU") + " of this fabric (" +
                                    (sw ? "leaf0, spine3, ..." : "gpu0, ...") +
                                    "; ai-fabric topology --list)");
            }
            e.links = topo->GetVertexLinks(uint32_t(v));
        }
        const std::string action = j["action"];
        e.action = action == "down"          ? FabricFaultEvent::DOWN
                   : action == "up"          ? FabricFaultEvent::UP
                   : action == "degrade"     ? FabricFaultEvent::DEGRADE
                   : action == "loss"        ? FabricFaultEvent::LOSS
                   : action == "pause-storm" ? FabricFaultEvent::PAUSE_STORM
                                             : FabricFaultEvent::FLAP;
        if (e.action == FabricFaultEvent::PAUSE_STORM)
        {
            e.priority = uint8_t(j.value("priority", 3));
            e.stormEnd = StormEnd(j, topo, e.links.front(), at);
            for (uint32_t l : e.links)
            {
                const FabricLinkInfo& li = topo->GetLinks().at(l);
                Ptr<PfcFlowControl> fc = DynamicCast<PfcFlowControl>(
                    (li.a == e.stormEnd ? li.devA : li.devB)->GetFlowControl());
                if (!fc || !fc->IsLossless(e.priority))
                {
                    throw ScenarioError(at + "priority: " + std::to_string(e.priority) +
                                        " is not a PFC priority of " + topo->GetLinkName(l) +
                                        " (3, RoCE's lossless class; 0 too with fabric tcp)");
                }
            }
        }
        if (e.action == FabricFaultEvent::DEGRADE && j.contains("from"))
        {
            // one direction only: what the `from` end transmits (htsim's -failed)
            e.stormEnd = StormEnd(j, topo, e.links.front(), at);
            e.oneWay = true;
        }
        e.scaleQueue = j.value("scale_queue", false);
        e.gbps = j.value("gbps", 0.0);
        e.rate = j.value("rate", 0.0);
        e.allFrames = j.value("frames", std::string("data")) == "all";
        e.period = ScenarioMs(j.value("period_ms", 0.0));
        e.until = ScenarioMs(j.value("until_ms", 0.0));
        inj->AddEvent(e);
    }
    if (c.faults.random.mtbfHours > 0)
    {
        inj->AddRandomFailures(Seconds(c.faults.random.mtbfHours * 3600),
                               ScenarioMs(c.faults.random.repairMs),
                               c.faults.random.hostLinks,
                               Seconds(c.limits.maxSimSeconds));
    }
    return inj;
}

} // namespace aifabric

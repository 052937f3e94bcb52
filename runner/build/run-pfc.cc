// SPDX-License-Identifier: GPL-2.0-only
#include "run-pfc.h"

#include "fabric-registry.h"
#include "run-ranks.h"
#include "simulation-builder.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/fabric-partition-scheduler.h"
#include "ns3/fabric-switch.h"
#include "ns3/pfc-flow-control.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <sstream>
#include <tuple>
#include <unordered_map>

using namespace ns3;
using json = nlohmann::json;

namespace aifabric
{

namespace
{

/// "a>b": the egress queue of vertex a's port on the link to b.
std::unordered_map<const FabricNetDevice*, std::string>
EgressNames(const FabricTopology& topo)
{
    std::unordered_map<const FabricNetDevice*, std::string> names;
    const auto& links = topo.GetLinks();
    for (size_t l = 0; l < links.size(); ++l)
    {
        const std::string a = topo.GetVertexName(links[l].a);
        const std::string b = topo.GetVertexName(links[l].b);
        names[PeekPointer(links[l].devA)] = a + ">" + b;
        names[PeekPointer(links[l].devB)] = b + ">" + a;
    }
    return names;
}

} // namespace

void
AddPfcHealth(const RunConfig& c, Simulation& sim)
{
    if (!c.fabric.pfc || !FabricOf(c).pauseFrames)
    {
        return;
    }
    const uint32_t n = sim.topo->GetNSwitches();
    // Split across ranks, a rank's PAUSE must reach every rank before the poll it starts.
    const Time delay = FabricPartitionScheduler::IsActive() ? RankMessageDelay(*sim.topo) : Time();
    for (const auto& [key, enabled, ms] :
         {std::tuple{"pfc_watchdog.poll_ms", c.pfcWatchdog.enabled, c.pfcWatchdog.pollMs},
          std::tuple{"pfc_deadlock.poll_ms", c.pfcDeadlock.enabled, c.pfcDeadlock.pollMs}})
    {
        if (enabled && delay.IsStrictlyPositive() && ScenarioMs(ms) <= delay * 2)
        {
            std::ostringstream os;
            os << key << ": in the partition event order (--ranks) must exceed two message "
               << "delays, " << delay.GetNanoSeconds() * 2e-6 << " ms; got " << ms;
            throw ScenarioError(os.str());
        }
    }
    if (c.pfcWatchdog.enabled)
    {
        sim.watchdog = CreateObject<PfcWatchdog>();
        sim.watchdog->SetAttribute("DetectionTime",
                                   TimeValue(ScenarioMs(c.pfcWatchdog.detectionMs)));
        sim.watchdog->SetAttribute("RestorationTime",
                                   TimeValue(ScenarioMs(c.pfcWatchdog.restorationMs)));
        sim.watchdog->SetAttribute("PollInterval", TimeValue(ScenarioMs(c.pfcWatchdog.pollMs)));
        sim.watchdog->SetAttribute(
            "Action",
            EnumValue(c.pfcWatchdog.action == PfcWatchdogAction::DROP      ? PfcWatchdog::DROP
                      : c.pfcWatchdog.action == PfcWatchdogAction::FORWARD ? PfcWatchdog::FORWARD
                                                                           : PfcWatchdog::ALERT));
        for (uint32_t j = 0; j < n; ++j)
        {
            sim.watchdog->Install(sim.topo->GetSwitch(j));
        }
        if (FabricPartitionScheduler::IsActive())
        {
            sim.watchdog->SetPartitioned(delay);
        }
    }
    if (c.pfcDeadlock.enabled)
    {
        sim.deadlock = CreateObject<PfcDeadlockDetector>();
        sim.deadlock->SetAttribute("Threshold", TimeValue(ScenarioMs(c.pfcDeadlock.thresholdMs)));
        sim.deadlock->SetAttribute("PollInterval", TimeValue(ScenarioMs(c.pfcDeadlock.pollMs)));
        sim.deadlock->SetAttribute("StopSimulation",
                                   BooleanValue(c.pfcDeadlock.stop && !c.pfcWatchdog.enabled));
        for (uint32_t j = 0; j < n; ++j)
        {
            sim.deadlock->AddSwitch(sim.topo->GetSwitch(j));
        }
        // In the partition order (--ranks N, or one process with simulation.event_order
        // "partition") both poll as one process would, each rank its own switches.
        if (FabricPartitionScheduler::IsActive())
        {
            sim.deadlock->SetPartitioned(delay);
        }
    }
}

json
PfcSummary(const RunConfig& c, const Simulation& sim)
{
    const FabricTopology& topo = *sim.topo;
    const auto names = EgressNames(topo);
    auto name = [&names](const FabricNetDevice* d) {
        const auto it = names.find(d);
        return it == names.end() ? std::string("?") : it->second;
    };
    json deadlocks = json::array();
    if (sim.deadlock)
    {
        for (const auto& cycle : sim.deadlock->GetDeadlocks())
        {
            json queues = json::array();
            double pausedMs = 1e300;
            for (const PfcDeadlockHop& h : cycle)
            {
                queues.push_back(name(PeekPointer(h.device)));
                pausedMs = std::min(pausedMs, h.pausedFor.GetSeconds() * 1e3);
            }
            deadlocks.push_back(json{{"queues", queues},
                                     {"priority", cycle.front().prio},
                                     {"paused_ms", pausedMs}});
        }
    }

    // Queues paused at the end, longest first (at most 16).
    struct Paused
    {
        std::string queue;
        uint8_t prio;
        double ms;
    };

    std::vector<Paused> paused;
    const Time now = Simulator::Now();
    // Across MPI ranks each rank sees the queues of its own nodes paused: every rank's, in the
    // cables' order (then sorted as on one rank).
    std::vector<std::pair<uint64_t, Paused>> mine; // (device's place in the cables' order, ...)
    uint64_t place = 0;
    for (const auto& li : topo.GetLinks())
    {
        for (const auto& d : {li.devA, li.devB})
        {
            Ptr<PfcFlowControl> fc = DynamicCast<PfcFlowControl>(d->GetFlowControl());
            for (uint8_t p = 0; fc && p < 8; ++p)
            {
                if (fc->IsLossless(p) && fc->IsPaused(p))
                {
                    mine.emplace_back(place * 8 + p,
                                      Paused{name(PeekPointer(d)),
                                             p,
                                             (now - fc->GetPausedSince(p)).GetSeconds() * 1e3});
                }
            }
            ++place;
        }
    }
    if (RunRanks::Split())
    {
        json local = json::array();
        for (const auto& [k, q] : mine)
        {
            local.push_back(json{k, q.queue, q.prio, q.ms});
        }
        mine.clear();
        for (const std::string& text : RunRanks::Gather(local.dump()))
        {
            for (const json& e : json::parse(text))
            {
                mine.emplace_back(
                    e[0].get<uint64_t>(),
                    Paused{e[1].get<std::string>(), e[2].get<uint8_t>(), e[3].get<double>()});
            }
        }
        std::sort(mine.begin(), mine.end(), [](const auto& a, const auto& b) {
            return a.first < b.first;
        });
    }
    for (auto& e : mine)
    {
        paused.push_back(std::move(e.second));
    }
    std::stable_sort(paused.begin(), paused.end(), [](const Paused& a, const Paused& b) {
        return a.ms > b.ms;
    });
    json atEnd = json::array();
    for (size_t i = 0; i < paused.size() && i < 16; ++i)
    {
        atEnd.push_back(json{{"queue", paused[i].queue},
                             {"priority", paused[i].prio},
                             {"paused_ms", paused[i].ms}});
    }
    const auto& w = sim.watchdog;
    // Across ranks each rank's watchdog counts its own switches' queues.
    return json{{"pause_storms", sim.faults ? sim.faults->GetPauseStorms() : 0},
                {"watchdog",
                 {{"enabled", c.pfcWatchdog.enabled},
                  {"storms_detected", RunRanks::Sum(w ? w->GetStormsDetected() : uint64_t(0))},
                  {"restorations", RunRanks::Sum(w ? w->GetRestorations() : uint64_t(0))},
                  {"dropped_frames", RunRanks::Sum(w ? w->GetDroppedFrames() : uint64_t(0))},
                  {"stormed_at_end", RunRanks::Sum(uint64_t(w ? w->GetStormedQueues() : 0))}}},
                {"deadlocks", deadlocks},
                {"paused_queues_at_end", paused.size()},
                {"longest_paused_at_end", atEnd}};
}

std::string
PfcStallReason(const json& s)
{
    if (!s.contains("pfc_health"))
    {
        return "";
    }
    const json& p = s["pfc_health"];
    std::ostringstream os;
    if (!p["deadlocks"].empty())
    {
        const json& d = p["deadlocks"].front();
        if (p["watchdog"]["enabled"].get<bool>())
        {
            os << p["deadlocks"].size() << " PFC deadlock(s) found, the watchdog broke them "
               << p["watchdog"]["storms_detected"] << " times by dropping ("
               << p["watchdog"]["dropped_frames"] << " frames)";
            return os.str();
        }
        os << "PFC deadlock: a cycle of " << d["queues"].size() << " paused queues (priority "
           << d["priority"] << "): ";
        for (size_t i = 0; i < d["queues"].size(); ++i)
        {
            os << (i ? " -> " : "") << d["queues"][i].get<std::string>();
        }
        os << ", each paused " << d["paused_ms"].get<double>()
           << " ms; the run stopped there (pfc_watchdog.enabled breaks deadlocks by dropping)";
        return os.str();
    }
    if (!p["longest_paused_at_end"].empty())
    {
        const json& q = p["longest_paused_at_end"].front();
        os << p["paused_queues_at_end"] << " queue(s) still paused by PFC, longest "
           << q["queue"].get<std::string>() << " (priority " << q["priority"] << ", "
           << q["paused_ms"].get<double>() << " ms)";
        if (p["pause_storms"].get<uint64_t>() > 0 && !p["watchdog"]["enabled"].get<bool>())
        {
            os << ": a pause storm stalls its victims (pfc_watchdog.enabled mitigates it)";
        }
        return os.str();
    }
    return "";
}

} // namespace aifabric

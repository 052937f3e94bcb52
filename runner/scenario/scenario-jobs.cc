// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-jobs.h"

#include "fabric-registry.h"
#include "json-input.h"
#include "scenario-plugins.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <string>

namespace aifabric
{

using nlohmann::json;

namespace
{

/// "jobs[i]." before a job's own error; its servers are jobs[i].servers, not topology's.
ScenarioError
JobError(size_t i, const std::string& what)
{
    std::string msg = what;
    const std::string servers = "topology.servers";
    if (msg.rfind(servers, 0) == 0)
    {
        msg = "servers" + msg.substr(servers.size());
    }
    return ScenarioError("jobs[" + std::to_string(i) + "]." + msg);
}

/// The first `n` free servers in a block starting at a multiple of `align`, or empty.
std::vector<uint32_t>
FreeBlock(const std::vector<bool>& used, uint32_t n, uint32_t align)
{
    for (uint32_t start = 0; start + n <= used.size(); start += align)
    {
        bool free = true;
        for (uint32_t s = start; s < start + n && free; ++s)
        {
            free = !used[s];
        }
        if (free)
        {
            std::vector<uint32_t> v(n);
            std::iota(v.begin(), v.end(), start);
            return v;
        }
    }
    return {};
}

std::vector<uint32_t>
Place(JobPlacement placement,
      std::vector<bool>& used,
      uint32_t n,
      uint32_t group,
      uint32_t seed,
      size_t index)
{
    std::vector<uint32_t> freeServers;
    for (uint32_t s = 0; s < used.size(); ++s)
    {
        if (!used[s])
        {
            freeServers.push_back(s);
        }
    }
    std::vector<uint32_t> chosen;
    if (freeServers.size() < n)
    {
        return chosen;
    }
    if (placement == JobPlacement::CONTIGUOUS)
    {
        chosen = FreeBlock(used, n, 1);
    }
    else if (placement == JobPlacement::RAIL_ALIGNED)
    {
        chosen = FreeBlock(used, n, group);
    }
    else if (placement == JobPlacement::SPREAD)
    {
        for (uint32_t k = 0; k < n; ++k)
        {
            chosen.push_back(freeServers[uint64_t(k) * freeServers.size() / n]);
        }
    }
    else
    {
        std::mt19937_64 rng(uint64_t(seed) * 1000003ULL + index);
        std::shuffle(freeServers.begin(), freeServers.end(), rng);
        chosen.assign(freeServers.begin(), freeServers.begin() + n);
        std::sort(chosen.begin(), chosen.end());
    }
    for (uint32_t s : chosen)
    {
        used[s] = true;
    }
    return chosen;
}

} // namespace

uint32_t
ServersPerLeafGroup(const RunConfig& c)
{
    return TopologyOf(c).serversPerLeafGroup(TopologyParamsOf(c));
}

void
ResolveJobs(const json& j, RunConfig& cluster, const std::function<RunConfig(const json&)>& toRun)
{
    const json& list = j["jobs"];
    if (list.size() > 64)
    {
        throw ScenarioError("jobs: at most 64 jobs (got " + std::to_string(list.size()) + ")");
    }
    std::vector<bool> used(cluster.topology.servers, false);
    const uint32_t group = ServersPerLeafGroup(cluster);
    std::set<std::string> fabrics;
    for (size_t i = 0; i < list.size(); ++i)
    {
        const json& e = list[i];
        JobConfig job;
        job.name = e.value("name", std::string("job") + std::to_string(i));
        for (const auto& other : cluster.jobs)
        {
            if (other.name == job.name)
            {
                throw JobError(i,
                               "name: '" + EchoText(job.name) +
                                   "' is used twice; job names must be unique");
            }
        }
        job.placement = e.value("placement", JobPlacement::CONTIGUOUS);
        job.startMs = e.value("start_ms", 0.0);
        if (!e.contains("servers"))
        {
            throw JobError(i, "servers: missing (the job's number of servers)");
        }
        job.servers = e["servers"].get<uint32_t>();
        json jj = j;
        jj.erase("jobs");
        jj["name"] = job.name;
        jj["topology"]["servers"] = job.servers;
        if (e.contains("fabric"))
        {
            jj["fabric"] = e["fabric"];
        }
        if (e.contains("workload"))
        {
            MergeScenario(jj["workload"], e["workload"]);
        }
        const std::string fabric = jj["fabric"];
        const FabricInfo& own = FabricNamed(fabric);
        const FabricInfo& shared = FabricOf(cluster);
        if (own.linkLayer != shared.linkLayer)
        {
            throw JobError(
                i,
                "fabric: '" + fabric + "' cannot run on a " + cluster.fabric.name + " fabric (" +
                    (own.linkLayerWhy.empty() ? shared.linkLayerWhy : own.linkLayerWhy) + ")");
        }
        const std::string kind = jj["workload"]["kind"];
        if (kind != "collective" && kind != "training" && kind != "chakra")
        {
            throw JobError(i,
                           "workload.kind: a job runs 'collective', 'training' or 'chakra' (got '" +
                               kind + "')");
        }
        if (jj["workload"].contains("background"))
        {
            throw JobError(i, "workload.background: not available beside several jobs");
        }
        try
        {
            job.run = toRun(jj);
        }
        catch (const ScenarioError& err)
        {
            throw JobError(i, err.what());
        }
        if (job.run.fabric.infiniband.sharp)
        {
            throw JobError(i,
                           "infiniband.sharp: SHARP trees span the whole fabric; not "
                           "available with several jobs");
        }
        if (own.checkJob)
        {
            if (const std::string why = own.checkJob(job); !why.empty())
            {
                throw JobError(i, why);
            }
        }
        job.serverIds = Place(job.placement, used, job.servers, group, cluster.seed, i);
        if (job.serverIds.empty())
        {
            const uint32_t freeCount = uint32_t(std::count(used.begin(), used.end(), false));
            throw JobError(i,
                           "servers: " + std::to_string(job.servers) + " " + NameOf(job.placement) +
                               " servers do not fit in the " + std::to_string(freeCount) +
                               " free of topology.servers " +
                               std::to_string(cluster.topology.servers) +
                               (job.placement == JobPlacement::RAIL_ALIGNED
                                    ? " (rail-aligned blocks start every " + std::to_string(group) +
                                          " servers, one leaf group)"
                                    : ""));
        }
        fabrics.insert(fabric);
        cluster.jobs.push_back(std::move(job));
    }
    // Each fabric's transport once, in registry order (the order they are installed in).
    cluster.jobFabrics.clear();
    for (const FabricInfo& f : FabricRegistry::All())
    {
        if (fabrics.count(f.name))
        {
            cluster.jobFabrics.push_back(f.name);
        }
    }
    cluster.jobsBaselines = j.value("jobs_baselines", true);
}

} // namespace aifabric

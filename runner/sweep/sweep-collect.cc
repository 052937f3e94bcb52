// SPDX-License-Identifier: GPL-2.0-only
#include "sweep-collect.h"

#include "file-util.h"
#include "json-input.h"
#include "scenario.h"
#include "sweep-directory.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace aifabric
{

using nlohmann::json;
namespace fs = std::filesystem;

namespace
{

void
Flatten(const json& j, const std::string& prefix, std::vector<std::pair<std::string, json>>& out)
{
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        const std::string k = prefix.empty() ? it.key() : prefix + "." + it.key();
        if (it.value().is_object())
        {
            Flatten(it.value(), k, out);
        }
        else if (!it.value().is_array())
        {
            out.emplace_back(k, it.value());
        }
    }
}

} // namespace

Collected
Collect(const fs::path& dir)
{
    Collected c;
    c.manifest = ReadManifest(dir);
    for (const auto& k : c.manifest["keys"])
    {
        c.keys.push_back(k.get<std::string>());
    }
    for (const auto& k : c.manifest.value("zip_keys", json::array()))
    {
        c.zipKeys.push_back(k.get<std::string>());
    }
    c.fabricSwept = std::find(c.keys.begin(), c.keys.end(), "fabric") != c.keys.end();
    const std::set<std::string> swept(c.keys.begin(), c.keys.end());
    std::set<std::string> seen;
    for (const auto& p : c.manifest["points"])
    {
        ++c.points;
        const std::string id = p["id"].get<std::string>();
        const fs::path summary = dir / id / "summary.json";
        if (!fs::exists(summary))
        {
            ++c.missing;
            continue;
        }
        json s;
        try
        {
            s = ReadJsonFile(summary);
            if (!s.is_object() || !s.contains("runs") || !s["runs"].is_array())
            {
                throw std::runtime_error("no list \"runs\"");
            }
        }
        catch (const std::exception& e)
        {
            // A point's results, not the program, are broken: say which file and what to do.
            throw ScenarioError(summary.string() + ": not a complete point summary (" + e.what() +
                                "); remove " + (dir / id).string() +
                                " and resume the sweep to run that point again");
        }
        for (size_t i = 0; i < s["runs"].size(); ++i)
        {
            // Someone else's file: the fields used by name must have their types.
            const json& run = s["runs"][i];
            const std::string at = summary.string() + ": runs[" + std::to_string(i) + "]";
            if (!run.is_object())
            {
                throw ScenarioError(at + ": must be an object");
            }
            for (const char* field : {"name", "fabric"})
            {
                if (run.contains(field) && !run[field].is_string())
                {
                    throw ScenarioError(at + "." + field + ": must be a string (got " +
                                        Echo(run[field]) + ")");
                }
            }
            Row r;
            r.pointId = id;
            r.seed = p["seed"].get<uint32_t>();
            r.run = run.value("name", std::string());
            r.fabric = run.value("fabric", std::string());
            std::vector<std::pair<std::string, json>> flat;
            Flatten(run, "", flat);
            for (const auto& k : c.keys)
            {
                r.values[k] = p["values"][k];
            }
            for (auto& f : flat)
            {
                if (f.first == "name" || f.first == "fabric")
                {
                    continue;
                }
                if (swept.count(f.first))
                {
                    // A swept key the run reports itself (pfc, loss_recovery, ...): the run's
                    // value is the one it used (a compare entry may override the swept one).
                    r.values[f.first] = f.second;
                    continue;
                }
                if (seen.insert(f.first).second)
                {
                    c.metricColumns.push_back(f.first);
                }
                r.metrics.push_back(f);
            }
            if (c.fabricSwept)
            {
                r.values["fabric"] = r.fabric;
            }
            c.rows.push_back(std::move(r));
        }
    }
    return c;
}

} // namespace aifabric

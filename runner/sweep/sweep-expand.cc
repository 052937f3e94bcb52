// SPDX-License-Identifier: GPL-2.0-only
#include "sweep-expand.h"

#include "file-util.h"
#include "json-input.h"
#include "point-id.h"
#include "scenario-schema.h"
#include "text-util.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace aifabric
{

using nlohmann::json;
using nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace
{

const size_t kMaxPoints = 100000;

/// The key a ScenarioError message names ("faults.drop_rate: must be ..." -> "faults.drop_rate").
std::string
ErrorField(const std::string& msg)
{
    const size_t colon = msg.find(": ");
    if (colon == std::string::npos || msg.substr(0, colon).find(' ') != std::string::npos)
    {
        return "";
    }
    return msg.substr(0, colon);
}

bool
Covers(const std::string& key, const std::string& field)
{
    return !field.empty() && (field == key || field.rfind(key + ".", 0) == 0);
}

json
ApplyAll(json scenario, const ordered_json& assignments)
{
    for (auto it = assignments.begin(); it != assignments.end(); ++it)
    {
        ApplySet(scenario, it.key() + "=" + it.value().dump());
    }
    return scenario;
}

} // namespace

// ---- sweep files

std::vector<std::string>
Sweep::Keys() const
{
    std::vector<std::string> k = gridKeys;
    k.insert(k.end(), zipKeys.begin(), zipKeys.end());
    return k;
}

std::string
Sweep::Describe(const SweepPoint& p) const
{
    std::string s;
    for (const auto& k : Keys())
    {
        s += k + "=" + Text(p.values[k]) + " ";
    }
    return s + "seed=" + std::to_string(p.seed);
}

Sweep
ExpandSweep(const std::string& text, const std::string& defaultName, const std::string& baseDir)
{
    const ordered_json spec = ParseJsonInput<ordered_json>(text, "sweep file");
    if (!spec.is_object())
    {
        throw ScenarioError("sweep file: must be a JSON object with base, grid, zip and seeds");
    }
    const std::vector<std::string> allowed = {"name", "base", "set", "grid", "zip", "seeds"};
    for (auto it = spec.begin(); it != spec.end(); ++it)
    {
        if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end())
        {
            continue;
        }
        size_t bestD = SIZE_MAX;
        const std::string best = ClosestKey(it.key(), allowed, bestD);
        std::string msg = EchoText(it.key()) + ": unknown sweep key";
        if (bestD <= 2)
        {
            msg += " (did you mean '" + best + "'?)";
        }
        throw ScenarioError(msg + "; allowed: name, base, set, grid, zip, seeds");
    }

    Sweep s;
    s.name = defaultName;
    if (spec.contains("name"))
    {
        const auto& n = spec["name"];
        if (!n.is_string() || n.get<std::string>().empty() || n.get<std::string>().size() > 100 ||
            n.get<std::string>().find_first_not_of(
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
                std::string::npos ||
            n.get<std::string>()[0] == '.')
        {
            throw ScenarioError(
                "name: must be 1 to 100 letters, digits, '.', '_' or '-' (not starting with '.')");
        }
        s.name = n.get<std::string>();
    }

    json base = json::object();
    if (spec.contains("base"))
    {
        const auto& b = spec["base"];
        if (b.is_string())
        {
            fs::path p = b.get<std::string>();
            if (p.is_relative())
            {
                p = fs::path(baseDir) / p;
            }
            try
            {
                base = LoadScenarioFile(p.string());
            }
            catch (const ScenarioError& e)
            {
                throw ScenarioError(std::string("base: ") + e.what());
            }
        }
        else if (b.is_object())
        {
            base = json::parse(b.dump());
        }
        else
        {
            throw ScenarioError("base: must be a scenario file name (relative to the sweep file) "
                                "or a scenario object");
        }
    }

    ordered_json set = ordered_json::object();
    if (spec.contains("set"))
    {
        if (!spec["set"].is_object())
        {
            throw ScenarioError(
                "set: must be an object of dotted key -> value (e.g. {\"workload.steps\": 1})");
        }
        set = spec["set"];
    }

    auto readLists = [&](const char* field) {
        std::vector<std::pair<std::string, std::vector<ordered_json>>> lists;
        if (!spec.contains(field))
        {
            return lists;
        }
        const auto& g = spec[field];
        if (!g.is_object())
        {
            throw ScenarioError(std::string(field) +
                                ": must be an object of dotted key -> list of values");
        }
        for (auto it = g.begin(); it != g.end(); ++it)
        {
            const std::string path = std::string(field) + "." + EchoText(it.key());
            if (!it.value().is_array() || it.value().empty())
            {
                throw ScenarioError(path + ": must be a non-empty list of values");
            }
            if (it.key() == "seed")
            {
                throw ScenarioError(path + ": seeds are swept with the sweep's 'seeds' list");
            }
            if (it.key().empty() || it.key().front() == '.' || it.key().back() == '.' ||
                it.key().find("..") != std::string::npos)
            {
                throw ScenarioError(path +
                                    ": must be a dotted scenario key such as faults.drop_rate");
            }
            std::vector<ordered_json> values(it.value().begin(), it.value().end());
            if (std::string(field) == "grid")
            {
                std::set<std::string> seen;
                for (const auto& v : values)
                {
                    if (!seen.insert(CanonicalJson(json::parse(v.dump())).dump()).second)
                    {
                        throw ScenarioError(path + ": value " + Echo(v) +
                                            " is listed twice; values must be distinct");
                    }
                }
            }
            lists.emplace_back(it.key(), values);
        }
        return lists;
    };
    // The seeds first: a bad list is reported as itself, not as a missing grid.
    if (spec.contains("seeds"))
    {
        const auto& sd = spec["seeds"];
        const std::string what =
            "seeds: must be a non-empty list of distinct integers >= 1 and <= 2147483647";
        if (!sd.is_array() || sd.empty())
        {
            throw ScenarioError(what);
        }
        std::set<uint32_t> seen;
        for (const auto& v : sd)
        {
            if (!v.is_number() || std::floor(v.get<double>()) != v.get<double>() ||
                v.get<double>() < 1 || v.get<double>() > 2147483647.0 ||
                !seen.insert(static_cast<uint32_t>(v.get<double>())).second)
            {
                throw ScenarioError(what + " (got " + Echo(v) + ")");
            }
            s.seeds.push_back(static_cast<uint32_t>(v.get<double>()));
        }
    }

    const auto grid = readLists("grid");
    const auto zip = readLists("zip");
    if (grid.empty() && zip.empty())
    {
        throw ScenarioError("grid: empty; give at least one dotted key with a list of values "
                            "(e.g. \"grid\": {\"faults.drop_rate\": [0, 0.0001]})");
    }
    for (const auto& z : zip)
    {
        if (z.second.size() != zip.front().second.size())
        {
            throw ScenarioError("zip." + EchoText(z.first) + ": has " +
                                std::to_string(z.second.size()) + " values but zip." +
                                EchoText(zip.front().first) + " has " +
                                std::to_string(zip.front().second.size()) +
                                "; zipped lists vary together and must have the same length");
        }
        for (const auto& g : grid)
        {
            if (g.first == z.first)
            {
                throw ScenarioError("zip." + EchoText(z.first) +
                                    ": is also a grid key; a key is either in grid or in zip");
            }
        }
    }
    for (const auto& g : grid)
    {
        s.gridKeys.push_back(g.first);
    }
    for (const auto& z : zip)
    {
        s.zipKeys.push_back(z.first);
    }

    // The base with the fixed overrides; its own errors are reported against base/set.
    json fixed;
    auto attribute = [&](const std::string& msg, const SweepPoint* p) -> ScenarioError {
        const std::string field = ErrorField(msg);
        for (const auto& g : s.gridKeys)
        {
            if (Covers(g, field))
            {
                return ScenarioError("grid." + msg);
            }
        }
        for (const auto& z : s.zipKeys)
        {
            if (Covers(z, field))
            {
                return ScenarioError("zip." + msg);
            }
        }
        const std::string where = p ? " (point " + EchoText(s.Describe(*p)) + ")" : "";
        for (auto it = set.begin(); it != set.end(); ++it)
        {
            if (Covers(it.key(), field))
            {
                return ScenarioError("set." + msg + where);
            }
        }
        return ScenarioError((field.empty() ? "base: " : "base.") + msg + where);
    };
    try
    {
        fixed = ApplyAll(base, set);
    }
    catch (const ScenarioError& e)
    {
        throw attribute(e.what(), nullptr);
    }
    if (s.seeds.empty())
    {
        s.seeds.push_back(fixed.contains("seed") && fixed["seed"].is_number_unsigned()
                              ? fixed["seed"].get<uint32_t>()
                              : 1);
    }

    size_t count = s.seeds.size() * (zip.empty() ? 1 : zip.front().second.size());
    for (const auto& g : grid)
    {
        count *= g.second.size();
        if (count > kMaxPoints)
        {
            throw ScenarioError("grid: more than " + std::to_string(kMaxPoints) +
                                " points; split the sweep");
        }
    }

    // Cartesian product of the grid (first key slowest), then the zip entries, then the seeds.
    std::vector<size_t> at(grid.size(), 0);
    const size_t zipN = zip.empty() ? 1 : zip.front().second.size();
    std::map<std::string, size_t> ids;
    bool more = true;
    while (more)
    {
        for (size_t z = 0; z < zipN; ++z)
        {
            for (uint32_t seed : s.seeds)
            {
                SweepPoint p;
                p.index = s.points.size();
                p.seed = seed;
                ordered_json assign = ordered_json::object();
                for (size_t g = 0; g < grid.size(); ++g)
                {
                    assign[grid[g].first] = grid[g].second[at[g]];
                }
                for (const auto& zl : zip)
                {
                    assign[zl.first] = zl.second[z];
                }
                p.values = json::object();
                for (auto it = assign.begin(); it != assign.end(); ++it)
                {
                    p.values[it.key()] = CanonicalJson(json::parse(it.value().dump()));
                }
                std::vector<RunConfig> runs;
                try
                {
                    json scenario = ApplyAll(fixed, assign);
                    scenario["seed"] = seed;
                    p.scenario = CanonicalJson(scenario);
                    runs = ResolveScenario(p.scenario);
                }
                catch (const ScenarioError& e)
                {
                    // Blame the base only when it fails on its own.
                    try
                    {
                        ResolveScenario(fixed);
                    }
                    catch (const ScenarioError& be)
                    {
                        throw attribute(be.what(), nullptr);
                    }
                    throw attribute(e.what(), &p);
                }
                p.id = PointId(runs);
                for (const auto& r : runs)
                {
                    p.runs.push_back(r.name);
                }
                const auto dup = ids.find(p.id);
                if (dup != ids.end())
                {
                    throw ScenarioError("grid: points '" +
                                        EchoText(s.Describe(s.points[dup->second])) + "' and '" +
                                        EchoText(s.Describe(p)) +
                                        "' resolve to the same configuration (id " + p.id +
                                        "); a swept value has no effect (is it overridden by every "
                                        "compare entry?)");
                }
                ids[p.id] = p.index;
                s.points.push_back(std::move(p));
            }
        }
        // Next grid combination: the last key varies fastest.
        more = false;
        for (size_t g = grid.size(); g-- > 0;)
        {
            if (++at[g] < grid[g].second.size())
            {
                more = true;
                break;
            }
            at[g] = 0;
        }
    }
    return s;
}

Sweep
LoadSweep(const std::string& path)
{
    std::string text;
    try
    {
        text = ReadInputFile(path);
    }
    catch (const std::runtime_error& e)
    {
        throw ScenarioError("sweep file '" + EchoText(path) + "': " + e.what());
    }
    Sweep s;
    try
    {
        s = ExpandSweep(text,
                        fs::path(path).stem().string(),
                        fs::absolute(path).parent_path().string());
    }
    catch (const ScenarioError& e)
    {
        const std::string msg = e.what();
        if (msg.rfind("sweep file: ", 0) == 0)
        {
            throw ScenarioError("sweep file '" + EchoText(path) + "': " + msg.substr(12));
        }
        throw;
    }
    s.source = fs::absolute(path).string();
    return s;
}

} // namespace aifabric

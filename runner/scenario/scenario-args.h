// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SCENARIO_ARGS_H
#define AI_FABRIC_SCENARIO_ARGS_H

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace aifabric
{

/**
 * The command-line arguments every scenario program takes: [SCENARIO.json] [--set k=v]...
 * [--out DIR] [--quiet|-q]. A flag matches exactly or as "flag=value" ("--setx" is not
 * "--set"); "--out ''" is refused.
 */
struct ScenarioArgs
{
    std::string file;
    std::string out;
    std::vector<std::string> sets;
    bool quiet{false};

    /**
     * Take argv[i] (and its value, advancing i) if it is one of these arguments.
     * \return false if it is another option (starts with '-'), left for the caller
     * Throws ScenarioError for a missing value, an empty --out or a second scenario file.
     */
    bool Take(int argc, char** argv, int& i);

    /// The scenario file (or {} without one) with every --set applied.
    nlohmann::json Load() const;
    /// The scenario's name, else the file's stem, else "run".
    std::string Name(const nlohmann::json& scenario) const;
};

/// The value of flag argv[i] ("--flag=value" or "--flag value", advancing i); throws
/// ScenarioError naming the flag when there is none.
std::string FlagValue(int argc, char** argv, int& i, const std::string& flag);

/// Whether argv[i] is `flag` or "flag=...".
bool IsFlag(const std::string& arg, const std::string& flag);

} // namespace aifabric

#endif

// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-args.h"

#include "json-input.h"
#include "scenario.h"

#include <filesystem>

namespace aifabric
{

bool
IsFlag(const std::string& arg, const std::string& flag)
{
    return arg == flag || (flag.rfind("--", 0) == 0 && arg.rfind(flag + "=", 0) == 0);
}

std::string
FlagValue(int argc, char** argv, int& i, const std::string& flag)
{
    const std::string a = argv[i];
    if (a.size() > flag.size() && a[flag.size()] == '=')
    {
        return a.substr(flag.size() + 1);
    }
    if (i + 1 >= argc)
    {
        throw ScenarioError(flag + ": needs a value");
    }
    return argv[++i];
}

bool
ScenarioArgs::Take(int argc, char** argv, int& i)
{
    const std::string a = argv[i];
    if (a == "--quiet" || a == "-q")
    {
        quiet = true;
    }
    else if (IsFlag(a, "--set"))
    {
        sets.push_back(FlagValue(argc, argv, i, "--set"));
    }
    else if (IsFlag(a, "--out"))
    {
        out = FlagValue(argc, argv, i, "--out");
        if (out.empty())
        {
            throw ScenarioError("--out: needs a non-empty directory path");
        }
    }
    else if (a.rfind("-", 0) == 0 && a != "-")
    {
        return false;
    }
    else if (file.empty())
    {
        file = a;
    }
    else
    {
        throw ScenarioError(EchoText(a) + ": only one scenario file may be given");
    }
    return true;
}

nlohmann::json
ScenarioArgs::Load() const
{
    nlohmann::json scenario = file.empty() ? nlohmann::json::object() : LoadScenarioFile(file);
    for (const auto& s : sets)
    {
        ApplySet(scenario, s);
    }
    return scenario;
}

std::string
ScenarioArgs::Name(const nlohmann::json& scenario) const
{
    std::string name = scenario.value("name", std::string());
    if (name.empty())
    {
        name = file.empty() ? "run" : std::filesystem::path(file).stem().string();
    }
    return name;
}

} // namespace aifabric

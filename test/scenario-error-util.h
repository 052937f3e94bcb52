// SPDX-License-Identifier: GPL-2.0-only
// A scenario's validation error as a string, for tests that check the one line a bad value gets.
#ifndef AI_FABRIC_SCENARIO_ERROR_UTIL_H
#define AI_FABRIC_SCENARIO_ERROR_UTIL_H

#include "scenario.h"

#include <string>

/// ResolveScenario's error for `j`, or "no error".
inline std::string
ScenarioErrorOf(const nlohmann::json& j)
{
    try
    {
        aifabric::ResolveScenario(j);
    }
    catch (const aifabric::ScenarioError& e)
    {
        return e.what();
    }
    return "no error";
}

#endif // AI_FABRIC_SCENARIO_ERROR_UTIL_H

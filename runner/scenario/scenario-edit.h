// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SCENARIO_EDIT_H
#define AI_FABRIC_SCENARIO_EDIT_H

// Edits of a scenario's JSON before it is resolved: merging a file over the defaults, --set.

#include <nlohmann/json.hpp>
#include <string>

namespace aifabric
{

/// Merge `over` into `base`: objects key by key, recursively; anything else replaces.
void MergeScenario(nlohmann::json& base, const nlohmann::json& over);

/**
 * Apply "--set key.path=value": the value is parsed as JSON when it is valid JSON (numbers,
 * true/false, quoted strings, objects), else taken as a string.
 */
void ApplySet(nlohmann::json& scenario, const std::string& assignment);

} // namespace aifabric

#endif

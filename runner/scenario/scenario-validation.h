// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SCENARIO_VALIDATION_H
#define AI_FABRIC_SCENARIO_VALIDATION_H

#include <nlohmann/json.hpp>
#include <string>

namespace aifabric
{

/**
 * Check every key of `j` (at dotted `prefix`) against the schema: known key, right type, value
 * in range or among the allowed values; `compare` entries are checked the same way when
 * `allowCompare`. Throws ScenarioError naming the first bad key.
 */
void Validate(const nlohmann::json& j, const std::string& prefix, bool allowCompare);

} // namespace aifabric

#endif

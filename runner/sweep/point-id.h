// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_POINT_ID_H
#define AI_FABRIC_POINT_ID_H

#include "scenario.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace aifabric
{

/// FNV-1a, 64 bit, of a byte string.
uint64_t Fnv1a64(const std::string& bytes);

/**
 * The canonical form used for point ids: object keys sorted (nlohmann::json does that),
 * no whitespace, and a floating-point number with an integral value below 2^53 written as an
 * integer, so that 0 and 0.0 (or 4 and 4.0) give the same id.
 */
nlohmann::json CanonicalJson(const nlohmann::json& j);

/// 16 hex digits: FNV-1a 64 of the canonical JSON list of the runs' resolved configurations.
std::string PointId(const std::vector<RunConfig>& runs);

} // namespace aifabric

#endif

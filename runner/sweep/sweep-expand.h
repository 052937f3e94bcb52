// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SWEEP_EXPAND_H
#define AI_FABRIC_SWEEP_EXPAND_H

#include "scenario.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace aifabric
{

/// One point: the base scenario with one grid combination, one zip entry and one seed.
struct SweepPoint
{
    size_t index{0};
    std::string id; //!< PointId of its resolved runs
    uint32_t seed{1};
    nlohmann::json values;         //!< swept key (dotted) -> value
    nlohmann::json scenario;       //!< the complete scenario the runner is given
    std::vector<std::string> runs; //!< run names (one per compare entry)
};

/// A parsed, expanded and fully validated sweep.
struct Sweep
{
    std::string name;
    std::string source;                //!< the sweep file
    std::vector<std::string> gridKeys; //!< in file order
    std::vector<std::string> zipKeys;  //!< in file order
    std::vector<uint32_t> seeds;
    std::vector<SweepPoint> points;

    /// The swept keys: grid keys, then zip keys.
    std::vector<std::string> Keys() const;
    /// "fabric=tcp faults.drop_rate=1e-05 seed=2"
    std::string Describe(const SweepPoint& p) const;
};

/**
 * Parse, expand and validate a sweep file (JSON, comments allowed). Every point is resolved
 * with ResolveScenario. Throws ScenarioError naming the field (e.g. "grid.topology.server:
 * unknown key (did you mean 'topology.servers'?) ...") on any problem.
 */
Sweep LoadSweep(const std::string& path);

/// The same from JSON text; `name` and `baseDir` stand in for the file's stem and directory.
Sweep ExpandSweep(const std::string& text, const std::string& name, const std::string& baseDir);

} // namespace aifabric

#endif

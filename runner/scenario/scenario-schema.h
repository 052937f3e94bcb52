// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SCENARIO_SCHEMA_H
#define AI_FABRIC_SCENARIO_SCHEMA_H

#include "scenario.h"

#include <string>
#include <vector>

namespace aifabric
{

/// The scenario schema: every key with its type, range or allowed values, and help text.

enum class Kind
{
    INT,
    NUM,
    BOOL,
    STR,
    ENUM,
    OBJ,
    ARR,
};

struct KeySpec
{
    const char* path;
    Kind kind;
    double min;
    double max;
    bool minExclusive;
    bool maxExclusive;
    std::vector<std::string> values;
    const char* help;
};

/// Every key, in the order --help lists them.
const std::vector<KeySpec>& Schema();

/// The key at dotted `path`, or null when there is none.
const KeySpec* FindKey(const std::string& path);

/// "unknown key (did you mean '...'?); allowed: ..." for a path that is not in the schema.
std::string Suggest(const std::string& path);

/// ">= min and <= max" (or "> min", ...) of a numeric key.
std::string Range(const KeySpec& k);

/// The default keys of a flow-traffic object (workload.flows: with duration_ms).
nlohmann::json FlowsDefaults(bool withDuration);

/// "a, b, c"
std::string Join(const std::vector<std::string>& v);

} // namespace aifabric

#endif

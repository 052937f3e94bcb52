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
    /// Its value in the default scenario (null: none, e.g. a key of a list's elements, or a
    /// key whose object's default holds it). DefaultScenario() is made of these.
    nlohmann::json defaultValue{};

    /// This key with `value` as its default.
    KeySpec Default(nlohmann::json value) const
    {
        KeySpec k = *this;
        k.defaultValue = std::move(value);
        return k;
    }
};

/// A bound of a numeric key's range: AtLeast(1) is ">= 1", Above(0) is "> 0".
struct Bound
{
    double value;   //!< the bound
    bool exclusive; //!< the bound itself is outside the range
};

/// ">= v"
constexpr Bound
AtLeast(double v)
{
    return {v, false};
}

/// "> v"
constexpr Bound
Above(double v)
{
    return {v, true};
}

/// "<= v"
constexpr Bound
AtMost(double v)
{
    return {v, false};
}

/// "< v"
constexpr Bound
Below(double v)
{
    return {v, true};
}

/// A whole number in [lo, hi].
KeySpec IntKey(const char* path, Bound lo, Bound hi, const char* help);
/// A real number in [lo, hi].
KeySpec NumKey(const char* path, Bound lo, Bound hi, const char* help);
/// true or false.
KeySpec BoolKey(const char* path, const char* help);
/// A string of minBytes to maxBytes bytes (maxBytes 0: any length).
KeySpec TextKey(const char* path, double minBytes, double maxBytes, const char* help);
/// One of `values` (a string, or a whole number written as one of them).
KeySpec ChoiceKey(const char* path, std::vector<std::string> values, const char* help);
/// An object of keys under `path`.
KeySpec ObjectKey(const char* path, const char* help);
/// A list of objects whose keys are under `path`.
KeySpec ListKey(const char* path, const char* help);

/// The JSON of every default value (what a scenario file overrides).
nlohmann::json DefaultScenario();

/// The documented schema, printed by --help.
std::string SchemaHelp();

/**
 * The candidate closest to `key` by edit distance (the first one on ties), for "did you mean"
 * messages; its distance in `distance` (SIZE_MAX with no candidates).
 */
std::string ClosestKey(const std::string& key,
                       const std::vector<std::string>& candidates,
                       size_t& distance);

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

// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_JSON_INPUT_H
#define AI_FABRIC_JSON_INPUT_H

#include "scenario.h"

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace aifabric
{

/// JSON a user wrote (scenario and sweep files, --set values), read strictly, and user values
/// echoed in error messages, kept short.

/// Deepest nesting of objects and arrays accepted (the schema needs 3).
const int kMaxJsonDepth = 64;

/// Longest echo of a user value in an error message, in characters.
const size_t kMaxEcho = 80;

/// `v` as JSON for an error message: ASCII only, invalid UTF-8 replaced, at most kMaxEcho chars.
std::string Echo(const nlohmann::json& v);

/// `s` (a key, a path, an argument) for an error message, escaped and cut as Echo does.
std::string EchoText(const std::string& s);

/// Whether `s` is valid UTF-8 (JSON output needs it).
bool ValidUtf8(const std::string& s);

/**
 * Parse `text` as JSON with comments; throws ScenarioError naming `origin` when it is not valid
 * JSON, nests deeper than kMaxJsonDepth, repeats a key in one object or holds a number outside
 * the double range. The depth is checked while parsing, before anything recurses over the value.
 */
template <typename Json>
Json
ParseJsonInput(const std::string& text, const std::string& origin)
{
    std::vector<std::set<std::string>> keys;
    int depth = 0;
    auto check = [&](int, nlohmann::detail::parse_event_t event, Json& parsed) {
        using E = nlohmann::detail::parse_event_t;
        if (event == E::object_start || event == E::array_start)
        {
            if (++depth > kMaxJsonDepth)
            {
                throw ScenarioError(origin + ": nested deeper than " +
                                    std::to_string(kMaxJsonDepth) + " levels");
            }
            if (event == E::object_start)
            {
                keys.emplace_back();
            }
        }
        else if (event == E::object_end || event == E::array_end)
        {
            --depth;
            if (event == E::object_end)
            {
                keys.pop_back();
            }
        }
        else if (event == E::key && !keys.back().insert(parsed.template get<std::string>()).second)
        {
            throw ScenarioError(origin + ": key " + Echo(parsed) +
                                " appears twice in one object; each key may appear once");
        }
        return true;
    };
    try
    {
        return Json::parse(text, check, true, true);
    }
    catch (const nlohmann::json::parse_error& e)
    {
        throw ScenarioError(origin + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
    }
    catch (const nlohmann::json::exception&)
    {
        throw ScenarioError(origin + ": a number is out of range (a JSON number must be within "
                                     "+-1.7e308)");
    }
}

} // namespace aifabric

#endif

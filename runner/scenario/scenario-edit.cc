// SPDX-License-Identifier: GPL-2.0-only
// Editing a scenario's JSON: overlays (a compare entry, a job, a sweep point) and --set
// assignments.
#include "scenario-edit.h"

#include "json-input.h"
#include "scenario.h"

#include <algorithm>
#include <sstream>

namespace aifabric
{

using nlohmann::json;

void
MergeScenario(json& base, const json& over)
{
    for (auto it = over.begin(); it != over.end(); ++it)
    {
        if (it.value().is_object() && base.contains(it.key()) && base[it.key()].is_object())
        {
            MergeScenario(base[it.key()], it.value());
        }
        else
        {
            base[it.key()] = it.value();
        }
    }
}

void
ApplySet(json& scenario, const std::string& assignment)
{
    const size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
    {
        throw ScenarioError("--set: expected key.path=value (got '" + EchoText(assignment) + "')");
    }
    if (!ValidUtf8(assignment))
    {
        throw ScenarioError("--set: key and value must be valid UTF-8 (got '" +
                            EchoText(assignment) + "')");
    }
    const std::string key = assignment.substr(0, eq);
    const std::string text = assignment.substr(eq + 1);
    if (key.back() == '.' || std::count(key.begin(), key.end(), '.') >= kMaxJsonDepth)
    {
        throw ScenarioError("--set: key '" + EchoText(key) + "' must be a dotted path of at most " +
                            std::to_string(kMaxJsonDepth) + " non-empty names");
    }
    // Valid JSON is read strictly (nesting, repeated keys); anything else is a string.
    const json value =
        json::accept(text) ? ParseJsonInput<json>(text, "--set " + EchoText(key)) : json(text);
    json* node = &scenario;
    std::istringstream is(key);
    std::string part;
    std::vector<std::string> parts;
    while (std::getline(is, part, '.'))
    {
        parts.push_back(part);
    }
    // "attributes.ns3::X::Y" keeps the attribute name whole.
    if (!parts.empty() && parts[0] == "attributes" && key.size() > 11)
    {
        scenario["attributes"][key.substr(11)] = value;
        return;
    }
    for (size_t i = 0; i < parts.size(); ++i)
    {
        if (parts[i].empty())
        {
            throw ScenarioError("--set: empty component in key '" + EchoText(key) + "'");
        }
        if (i + 1 == parts.size())
        {
            (*node)[parts[i]] = value;
        }
        else
        {
            if (!node->contains(parts[i]) || !(*node)[parts[i]].is_object())
            {
                (*node)[parts[i]] = json::object();
            }
            node = &(*node)[parts[i]];
        }
    }
}

} // namespace aifabric

// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-validation.h"

#include "json-input.h"
#include "scenario-schema.h"

#include "ns3/attribute.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace aifabric
{

using nlohmann::json;

namespace
{

bool
HasControlCharacter(const std::string& s)
{
    return std::any_of(s.begin(), s.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u < 0x20 || u == 0x7f;
    });
}

void
CheckValue(const std::string& path, const json& v, const KeySpec& k)
{
    auto fail = [&](const std::string& what) {
        throw ScenarioError(path + ": " + what + " (got " + Echo(v) + ")");
    };
    switch (k.kind)
    {
    case Kind::INT: {
        if (!v.is_number())
        {
            fail("must be an integer " + Range(k));
        }
        const double d = v.get<double>();
        if (std::floor(d) != d || d < k.min || d > k.max)
        {
            fail("must be an integer " + Range(k));
        }
        break;
    }
    case Kind::NUM: {
        if (!v.is_number())
        {
            fail("must be a number " + Range(k));
        }
        const double d = v.get<double>();
        if (!std::isfinite(d) || (k.minExclusive ? d <= k.min : d < k.min) ||
            (k.maxExclusive ? d >= k.max : d > k.max))
        {
            fail("must be a number " + Range(k));
        }
        break;
    }
    case Kind::BOOL:
        if (!v.is_boolean())
        {
            fail("must be true or false");
        }
        break;
    case Kind::STR:
        if (!v.is_string())
        {
            fail("must be a string");
        }
        if (HasControlCharacter(v.get<std::string>()))
        {
            // Names reach file names, CSV rows and gnuplot scripts read line by line.
            fail("must not contain control characters (line breaks, tabs, escapes)");
        }
        if (k.max > 0 && v.get<std::string>().size() > k.max)
        {
            fail("must be a string of at most " + std::to_string(size_t(k.max)) + " bytes");
        }
        break;
    case Kind::ENUM: {
        std::string s = v.is_string()           ? v.get<std::string>()
                        : v.is_number_integer() ? v.dump()
                                                : "";
        if (std::find(k.values.begin(), k.values.end(), s) == k.values.end())
        {
            fail("must be one of " + Join(k.values));
        }
        break;
    }
    case Kind::OBJ:
        if (!v.is_object())
        {
            fail("must be an object");
        }
        break;
    case Kind::ARR:
        if (!v.is_array())
        {
            fail("must be a list of objects");
        }
        break;
    }
}

/// Whether `text` parses as a `T` to its end, as ns-3's numeric DeserializeFromString wants.
template <typename T>
bool
ParsesAs(const std::string& text)
{
    std::istringstream is(text);
    T v;
    is >> v;
    return !is.fail() && is.eof();
}

/**
 * Whether ns-3 can deserialize `text` for a value of type `type` without aborting: its
 * DeserializeFromString aborts (instead of failing) on trailing text, on an unknown time unit,
 * on an unknown TypeId, and misbehaves on an unknown enum name (asserts are off in release).
 */
bool
SafeToDeserialize(const std::string& text, const std::string& type, const std::string& enums)
{
    if (type == "ns3::StringValue")
    {
        return true;
    }
    if (text.empty() || text.find_first_of(" \t\n\r\v\f") != std::string::npos)
    {
        return false;
    }
    if (type == "ns3::UintegerValue")
    {
        return text[0] != '-' && ParsesAs<uint64_t>(text);
    }
    if (type == "ns3::IntegerValue")
    {
        return ParsesAs<int64_t>(text);
    }
    if (type == "ns3::DoubleValue")
    {
        return ParsesAs<double>(text);
    }
    if (type == "ns3::BooleanValue")
    {
        return text == "true" || text == "false" || text == "1" || text == "0" || text == "t" ||
               text == "f";
    }
    if (type == "ns3::TimeValue")
    {
        const size_t n = text.find_first_not_of("+-0123456789.eE");
        const std::string unit = n == std::string::npos ? "" : text.substr(n);
        static const std::vector<std::string> units =
            {"", "s", "ms", "us", "ns", "ps", "fs", "min", "h", "d", "y"};
        return n != 0 && ParsesAs<double>(text.substr(0, n)) &&
               std::find(units.begin(), units.end(), unit) != units.end();
    }
    if (type == "ns3::TypeIdValue")
    {
        ns3::TypeId tid;
        return ns3::TypeId::LookupByNameFailSafe(text, &tid);
    }
    if (type == "ns3::EnumValue")
    {
        std::istringstream names(enums);
        std::string name;
        while (std::getline(names, name, '|'))
        {
            if (name == text)
            {
                return true;
            }
        }
        return false;
    }
    return true;
}

/// An attribute value must be one its checker accepts: ns-3 aborts on the others.
void
CheckAttributeValue(const std::string& path,
                    const json& v,
                    const ns3::TypeId::AttributeInformation& info)
{
    const std::string text = v.is_string() ? v.get<std::string>() : Echo(v);
    std::string allowed = info.checker->HasUnderlyingTypeInformation()
                              ? info.checker->GetUnderlyingTypeInformation()
                              : "";
    if (allowed.empty())
    {
        allowed = info.checker->GetValueTypeName();
    }
    ns3::Ptr<ns3::AttributeValue> value = info.checker->Create();
    if (!SafeToDeserialize(text, info.checker->GetValueTypeName(), allowed) ||
        !value->DeserializeFromString(text, info.checker) || !info.checker->Check(*value))
    {
        throw ScenarioError(path + ": must be a value of type " + allowed + " (got " + Echo(v) +
                            ")");
    }
}

/// Each entry of `jobs`: an object of jobs.* keys; its workload validated as workload.* is.
void
ValidateJobs(const json& list)
{
    size_t i = 0;
    for (const auto& e : list)
    {
        const std::string at = "jobs[" + std::to_string(i) + "]";
        if (!e.is_object())
        {
            throw ScenarioError(at + ": must be an object {name, servers, placement, start_ms, "
                                     "fabric, workload}");
        }
        for (auto it = e.begin(); it != e.end(); ++it)
        {
            const KeySpec* k = FindKey("jobs." + it.key());
            if (!k)
            {
                std::string hint = Suggest("jobs." + EchoText(it.key()));
                throw ScenarioError(at + "." + EchoText(it.key()) + ": " + hint);
            }
            CheckValue(at + "." + it.key(), it.value(), *k);
            if (it.key() == "workload")
            {
                try
                {
                    Validate(it.value(), "workload", false);
                }
                catch (const ScenarioError& err)
                {
                    throw ScenarioError(at + "." + err.what());
                }
            }
        }
        ++i;
    }
}

/// Each fault event: an object of faults.events.* keys with one target and what its action
/// needs.
void
ValidateFaultEvents(const json& list)
{
    size_t i = 0;
    for (const auto& e : list)
    {
        const std::string at = "faults.events[" + std::to_string(i) + "]";
        if (!e.is_object())
        {
            throw ScenarioError(at + ": must be an object {at_ms, link | switch | nic, action, "
                                     "...}");
        }
        for (auto it = e.begin(); it != e.end(); ++it)
        {
            const KeySpec* k = FindKey("faults.events." + it.key());
            if (!k)
            {
                throw ScenarioError(at + "." + EchoText(it.key()) + ": " +
                                    Suggest("faults.events." + EchoText(it.key())));
            }
            CheckValue(at + "." + it.key(), it.value(), *k);
        }
        const int targets =
            int(e.contains("link")) + int(e.contains("switch")) + int(e.contains("nic"));
        if (targets != 1)
        {
            throw ScenarioError(at + ": give exactly one of link, switch, nic (got " +
                                std::to_string(targets) + ")");
        }
        for (const char* key : {"at_ms", "action"})
        {
            if (!e.contains(key))
            {
                throw ScenarioError(at + "." + key + ": missing");
            }
        }
        const std::string action = e["action"];
        const char* needs = action == "degrade" ? "gbps"
                            : action == "loss"  ? "rate"
                            : action == "flap"  ? "period_ms"
                                                : nullptr;
        if (needs && !e.contains(needs))
        {
            throw ScenarioError(at + "." + needs + ": missing (action " + action + " needs it)");
        }
        if (e.contains("priority") && action != "pause-storm")
        {
            throw ScenarioError(at + ".priority: only with action pause-storm (got action " +
                                action + ")");
        }
        if (e.contains("from") && action != "pause-storm" && action != "degrade")
        {
            throw ScenarioError(at + ".from: only with action pause-storm or degrade (got action " +
                                action + ")");
        }
        if (e.contains("from") && !e.contains("link"))
        {
            throw ScenarioError(at + ".from: only with a link target (a nic or switch storms "
                                     "itself; a degrade without from slows both directions)");
        }
        if (action == "pause-storm" && e.contains("until_ms") &&
            e["until_ms"].get<double>() <= e["at_ms"].get<double>())
        {
            throw ScenarioError(at + ".until_ms: a pause-storm's until_ms must be > at_ms");
        }
        if (e.contains("scale_queue") && action != "degrade")
        {
            throw ScenarioError(at + ".scale_queue: only with action degrade (got action " +
                                action + ")");
        }
        if (e.contains("frames") && action != "loss")
        {
            throw ScenarioError(at + ".frames: only with action loss (got action " + action + ")");
        }
        if (action == "flap" &&
            (!e.contains("until_ms") || e["until_ms"].get<double>() <= e["at_ms"].get<double>()))
        {
            throw ScenarioError(at + ".until_ms: action flap needs until_ms > at_ms");
        }
        ++i;
    }
}

} // namespace

void
Validate(const json& j, const std::string& prefix, bool allowCompare)
{
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        const std::string path = EchoText(prefix.empty() ? it.key() : prefix + "." + it.key());
        if (prefix == "attributes")
        {
            if (!it.value().is_string() && !it.value().is_number() && !it.value().is_boolean())
            {
                throw ScenarioError(path + ": must be a string, number or boolean value");
            }
            if (it.value().is_string() && HasControlCharacter(it.value().get<std::string>()))
            {
                throw ScenarioError(path + ": must not contain control characters");
            }
            const std::string full = it.key();
            const size_t pos = full.rfind("::");
            ns3::TypeId tid;
            ns3::TypeId::AttributeInformation info;
            if (pos == std::string::npos || full.rfind("ns3::", 0) != 0 ||
                !ns3::TypeId::LookupByNameFailSafe(full.substr(0, pos), &tid) ||
                !tid.LookupAttributeByName(full.substr(pos + 2), &info))
            {
                throw ScenarioError(path +
                                    ": not an ns-3 attribute (expected \"ns3::Type::Attribute\")");
            }
            CheckAttributeValue(path, it.value(), info);
            continue;
        }
        const KeySpec* k = FindKey(path);
        if (!k)
        {
            throw ScenarioError(path + ": " + Suggest(path));
        }
        if (path == "compare" && !allowCompare)
        {
            throw ScenarioError("compare: a compare entry cannot itself hold 'compare'");
        }
        CheckValue(path, it.value(), *k);
        if (k->kind == Kind::OBJ)
        {
            Validate(it.value(), path, allowCompare);
        }
        if (path == "jobs")
        {
            ValidateJobs(it.value());
        }
        else if (path == "faults.events")
        {
            ValidateFaultEvents(it.value());
        }
        else if (k->kind == Kind::ARR)
        {
            size_t i = 0;
            for (const auto& e : it.value())
            {
                if (!e.is_object())
                {
                    throw ScenarioError("compare[" + std::to_string(i) +
                                        "]: must be an object of overrides");
                }
                Validate(e, "", false);
                ++i;
            }
        }
    }
}

} // namespace aifabric

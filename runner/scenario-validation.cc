// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-validation.h"

#include "scenario-schema.h"

#include "ns3/type-id.h"

#include <cmath>
#include <string>

namespace aifabric
{

using nlohmann::json;

namespace
{

void
CheckValue(const std::string& path, const json& v, const KeySpec& k)
{
    auto fail = [&](const std::string& what) {
        throw ScenarioError(path + ": " + what + " (got " + v.dump() + ")");
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

} // namespace

void
Validate(const json& j, const std::string& prefix, bool allowCompare)
{
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
        if (prefix == "attributes")
        {
            if (!it.value().is_string() && !it.value().is_number() && !it.value().is_boolean())
            {
                throw ScenarioError(path + ": must be a string, number or boolean value");
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
        if (k->kind == Kind::ARR)
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

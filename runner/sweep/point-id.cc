// SPDX-License-Identifier: GPL-2.0-only
#include "point-id.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace aifabric
{

using nlohmann::json;

uint64_t
Fnv1a64(const std::string& bytes)
{
    uint64_t h = 14695981039346656037ULL;
    for (unsigned char c : bytes)
    {
        h ^= c;
        h *= 1099511628211ULL;
    }
    return h;
}

json
CanonicalJson(const json& j)
{
    if (j.is_object())
    {
        json o = json::object();
        for (auto it = j.begin(); it != j.end(); ++it)
        {
            o[it.key()] = CanonicalJson(it.value());
        }
        return o;
    }
    if (j.is_array())
    {
        json a = json::array();
        for (const auto& e : j)
        {
            a.push_back(CanonicalJson(e));
        }
        return a;
    }
    if (j.is_number_float())
    {
        const double d = j.get<double>();
        if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9007199254740992.0)
        {
            if (d < 0)
            {
                return json(static_cast<int64_t>(d));
            }
            return json(static_cast<uint64_t>(d));
        }
    }
    if (j.is_number_integer() && !j.is_number_unsigned() && j.get<int64_t>() >= 0)
    {
        return json(j.get<uint64_t>());
    }
    return j;
}

std::string
PointId(const std::vector<RunConfig>& runs)
{
    json a = json::array();
    for (const auto& r : runs)
    {
        a.push_back(CanonicalJson(r.resolved));
    }
    std::ostringstream os;
    os << std::hex << std::setw(16) << std::setfill('0') << Fnv1a64(a.dump());
    return os.str();
}

} // namespace aifabric

// SPDX-License-Identifier: GPL-2.0-only
#include "text-util.h"

#include <array>
#include <cctype>
#include <ctime>
#include <iomanip>
#include <sstream>
#include <unistd.h>

namespace aifabric
{

using nlohmann::json;

/// A value as a CSV cell or label: strings bare, everything else as JSON.
std::string
Text(const json& v)
{
    if (v.is_string())
    {
        return v.get<std::string>();
    }
    if (v.is_null())
    {
        return "";
    }
    return v.dump();
}

std::string
CsvField(const std::string& s)
{
    if (s.find_first_of(",\"\n\r") == std::string::npos)
    {
        return s;
    }
    return DoubledQuotes(s, '"');
}

std::string
DoubledQuotes(const std::string& s, char quote)
{
    std::string q(1, quote);
    for (char c : s)
    {
        q += c;
        if (c == quote)
        {
            q += quote;
        }
    }
    return q + quote;
}

std::string
Trim(std::string s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    {
        s.pop_back();
    }
    size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
    {
        ++i;
    }
    return s.substr(i);
}

std::string
Hostname()
{
    std::array<char, 256> h{};
    if (::gethostname(h.data(), h.size() - 1) != 0)
    {
        return "?";
    }
    return h.data();
}

std::string
Stamp()
{
    char s[32];
    std::time_t t = std::time(nullptr);
    std::strftime(s, sizeof(s), "%Y%m%d-%H%M%S", std::localtime(&t));
    return s;
}

std::string
Num(double v, int precision)
{
    std::ostringstream os;
    os << std::setprecision(precision) << v;
    return os.str();
}

} // namespace aifabric

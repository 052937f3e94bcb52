// SPDX-License-Identifier: GPL-2.0-only
#include "text-util.h"

#include <array>
#include <cctype>
#include <cstdlib>
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
    std::string cell = s;
    // A spreadsheet runs a cell that starts with = + - @ (or a tab or carriage return before
    // one) as a formula: such a text cell gets a leading ' (shown, not run). Numbers stay.
    if (!cell.empty() && std::string("=+-@\t\r").find(cell.front()) != std::string::npos)
    {
        char* end = nullptr;
        (void)std::strtod(cell.c_str(), &end);
        const bool number = end == cell.c_str() + cell.size() && cell.front() != '=' &&
                            cell.front() != '@' && cell.front() != '\t' && cell.front() != '\r';
        if (!number)
        {
            cell.insert(cell.begin(), '\'');
        }
    }
    // RFC 4180: a field with a comma, a quote or a line break is quoted, quotes doubled.
    if (cell.find_first_of(",\"\n\r") == std::string::npos)
    {
        return cell;
    }
    return DoubledQuotes(cell, '"');
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
OneLine(const std::string& s)
{
    static const char* const hex = "0123456789abcdef";
    std::string out;
    for (const char c : s)
    {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x20 && u != 0x7f)
        {
            out += c;
            continue;
        }
        out += c == '\n'   ? std::string("\\n")
               : c == '\r' ? std::string("\\r")
               : c == '\t' ? std::string("\\t")
                           : std::string("\\u00") + hex[u >> 4] + hex[u & 15];
    }
    return out;
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

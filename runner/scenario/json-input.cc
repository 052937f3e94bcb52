// SPDX-License-Identifier: GPL-2.0-only
#include "json-input.h"

namespace aifabric
{

namespace
{

std::string
Cut(std::string s)
{
    if (s.size() > kMaxEcho)
    {
        s = s.substr(0, kMaxEcho - 3) + "...";
    }
    return s;
}

} // namespace

std::string
Echo(const nlohmann::json& v)
{
    return Cut(v.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace));
}

std::string
EchoText(const std::string& s)
{
    const std::string quoted =
        nlohmann::json(s).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
    return Cut(quoted.substr(1, quoted.size() - 2));
}

bool
ValidUtf8(const std::string& s)
{
    try
    {
        (void)nlohmann::json(s).dump();
        return true;
    }
    catch (const nlohmann::json::type_error&)
    {
        return false;
    }
}

} // namespace aifabric

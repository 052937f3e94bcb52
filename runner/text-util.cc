// SPDX-License-Identifier: GPL-2.0-only
#include "text-util.h"

namespace aifabric
{

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

} // namespace aifabric

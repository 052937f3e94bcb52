// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_TEXT_UTIL_H
#define AI_FABRIC_TEXT_UTIL_H

#include <string>

namespace aifabric
{

/// Small text helpers shared by the runner's outputs and the sweep tools.

/// `s` between two `quote` characters, each `quote` inside doubled (CSV's "", gnuplot's '').
std::string DoubledQuotes(const std::string& s, char quote);

} // namespace aifabric

#endif

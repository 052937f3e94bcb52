// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_TEXT_UTIL_H
#define AI_FABRIC_TEXT_UTIL_H

#include <nlohmann/json.hpp>
#include <string>

namespace aifabric
{

/// Small text helpers shared by the runner's outputs and the sweep tools.

/// A value as a CSV cell or label: strings bare, everything else as JSON.
std::string Text(const nlohmann::json& v);

/**
 * A CSV field, the one way every CSV we write holds text: quoted (RFC 4180, "" for ") when it
 * holds a comma, a quote or a line break, and a text starting with = + - @ (a spreadsheet
 * formula) prefixed with ' (numbers such as -1.5 stay as they are).
 */
std::string CsvField(const std::string& s);

/// `s` between two `quote` characters, each `quote` inside doubled (CSV's "", gnuplot's '').
std::string DoubledQuotes(const std::string& s, char quote);

/// `s` on one line: every control character (below 0x20, and 0x7f) written as an escape (\n,
/// \r, \t, \u0001, ...), for formats read line by line (gnuplot scripts, comment lines).
std::string OneLine(const std::string& s);

/// `s` without leading and trailing white space.
std::string Trim(std::string s);

/// This machine's host name ("?" if unknown).
std::string Hostname();

/// The local time as YYYYmmdd-HHMMSS.
std::string Stamp();

/// `v` with `precision` significant digits (iostream's default notation).
std::string Num(double v, int precision = 6);

} // namespace aifabric

#endif

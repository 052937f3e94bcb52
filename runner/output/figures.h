// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_FIGURES_H
#define AI_FABRIC_FIGURES_H

#include <string>

namespace aifabric
{

/**
 * The one way figures are made: a gnuplot script is written to a file and gnuplot is run on it
 * with an argument vector (`gnuplot SCRIPT` in the script's directory), never through a shell.
 * Text that comes from data (run names, keys, file names) enters a script only through
 * GnuplotString, and every terminal is set `noenhanced`, so a name is printed as written.
 */

/// `text` as a gnuplot single-quoted string on one line: 'Bob''s run' (gnuplot reads '' as one
/// '); a control character (a line break would end the command) is written as \n, \u0001, ...
std::string GnuplotString(const std::string& text);

/**
 * The terminal of every figure: one font and size rule, PNG (cairo), names printed as written
 * (noenhanced), then `set output '<name>.png'` (none for an empty name: the script sets each
 * output itself, as '<file>.png'). SvgTwin turns a script made of these into the
 * same figures as SVG.
 */
std::string Terminal(const std::string& name, int width, int height);

/// `script` with every Terminal() line for SVG and every '<name>.png' output as '<name>.svg'.
std::string SvgTwin(const std::string& script);

/// The colour of a fabric in every figure (tcp, rocev2, infiniband; grey for anything else).
std::string FabricColour(const std::string& fabric);

/// The colours of compute and of waiting on the network in every figure.
constexpr const char* kComputeColour = "'#5b8c5a'";
constexpr const char* kWaitColour = "'#c0392b'";

/// Whether gnuplot is installed (on the PATH).
bool HaveGnuplot();

/**
 * Write `script` and its SvgTwin (one file, PNGs first, then `reset` and the SVGs) to
 * `dir`/`scriptName` (under a temporary name, then renamed) and, when `render` and gnuplot is
 * installed, run gnuplot on it in `dir` (its output discarded).
 * \return false if gnuplot ran and failed (the script stays for the user)
 */
bool Plot(const std::string& dir,
          const std::string& scriptName,
          const std::string& script,
          bool render = true);

} // namespace aifabric

#endif

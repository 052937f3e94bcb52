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

/// `text` as a gnuplot single-quoted string: 'Bob''s run' (gnuplot reads '' as one ').
std::string GnuplotString(const std::string& text);

/// Whether gnuplot is installed (on the PATH).
bool HaveGnuplot();

/**
 * Write `script` to `dir`/`scriptName` (under a temporary name, then renamed) and, when `render`
 * and gnuplot is installed, run gnuplot on it in `dir` (its output discarded).
 * \return false if gnuplot ran and failed (the script stays for the user)
 */
bool Plot(const std::string& dir,
          const std::string& scriptName,
          const std::string& script,
          bool render = true);

} // namespace aifabric

#endif

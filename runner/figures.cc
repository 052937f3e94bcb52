// SPDX-License-Identifier: GPL-2.0-only
#include "figures.h"

#include "file-util.h"
#include "process.h"
#include "text-util.h"

#include <filesystem>

namespace aifabric
{

std::string
GnuplotString(const std::string& text)
{
    return DoubledQuotes(text, '\'');
}

bool
HaveGnuplot()
{
    return OnPath("gnuplot");
}

bool
Plot(const std::string& dir, const std::string& scriptName, const std::string& script, bool render)
{
    WriteAtomically(std::filesystem::path(dir) / scriptName, script);
    if (!render || !HaveGnuplot())
    {
        return true; // the script stays for the user; nothing failed
    }
    ProcessOptions o;
    o.directory = dir;
    o.out = Output::DISCARD;
    o.err = Output::DISCARD;
    return RunProgram({"gnuplot", scriptName}, o) == 0;
}

} // namespace aifabric

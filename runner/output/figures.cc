// SPDX-License-Identifier: GPL-2.0-only
#include "figures.h"

#include "fabric-registry.h"
#include "file-util.h"
#include "process.h"
#include "text-util.h"

#include <filesystem>

namespace aifabric
{

std::string
GnuplotString(const std::string& text)
{
    // gnuplot reads its script line by line: a raw line break (or any control character) in a
    // string would end the command and run what follows as gnuplot (`system(...)`). Control
    // characters are written as escapes by OneLine (\n, \u0001), so the result is
    // always one line; inside single quotes only '' is special.
    return DoubledQuotes(OneLine(text), '\'');
}

namespace
{
constexpr const char* kPngTerminal = "set terminal pngcairo noenhanced font 'DejaVu Sans,11' size ";
constexpr const char* kSvgTerminal =
    "set terminal svg dynamic noenhanced font 'DejaVu Sans,11' size ";
} // namespace

std::string
Terminal(const std::string& name, int width, int height)
{
    std::string t =
        std::string(kPngTerminal) + std::to_string(width) + "," + std::to_string(height) + "\n";
    return name.empty() ? t : t + "set output " + GnuplotString(name + ".png") + "\n";
}

std::string
SvgTwin(const std::string& script)
{
    std::string out;
    size_t at = 0;
    const std::string png(kPngTerminal);
    while (at < script.size())
    {
        size_t end = script.find('\n', at);
        end = end == std::string::npos ? script.size() : end + 1;
        std::string line = script.substr(at, end - at);
        if (line.rfind(png, 0) == 0)
        {
            line = kSvgTerminal + line.substr(png.size());
        }
        else if (line.rfind("set output '", 0) == 0)
        {
            const size_t dot = line.rfind(".png'");
            if (dot != std::string::npos)
            {
                line.replace(dot, 5, ".svg'");
            }
        }
        out += line;
        at = end;
    }
    return out;
}

std::string
FabricColour(const std::string& fabric)
{
    const FabricInfo* f = FabricRegistry::Find(fabric);
    return f && !f->colour.empty() ? f->colour : "'#7f7f7f'";
}

bool
HaveGnuplot()
{
    return OnPath("gnuplot");
}

bool
Plot(const std::string& dir, const std::string& scriptName, const std::string& script, bool render)
{
    WriteAtomically(std::filesystem::path(dir) / scriptName,
                    script + "\n# The same figures as SVG.\nunset output\nreset\n" +
                        SvgTwin(script));
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

// SPDX-License-Identifier: GPL-2.0-only
// libFuzzer target over what a user types: scenario files, sweep files and --set assignments,
// parsed and validated exactly as `./ai-fabric run` and `./ai-fabric sweep` do before anything
// is simulated. Bad input must end in a ScenarioError (one line, exit 2); a crash, a sanitizer
// report, a hang or any other exception escaping is a defect.
//
// The first byte of an input picks what the rest is: 0 a scenario file, 1 a sweep file,
// 2 one --set assignment per line applied to the default scenario.
#include "scenario-schema.h"
#include "scenario.h"
#include "sweep.h"

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

#ifndef AIFABRIC_SOURCE_DIR
#define AIFABRIC_SOURCE_DIR "."
#endif

namespace
{

void
Check(const std::string& what, const std::string& input)
{
    try
    {
        if (what == "scenario")
        {
            aifabric::ResolveScenario(aifabric::ParseScenarioText(input, "fuzz"));
        }
        else if (what == "sweep")
        {
            aifabric::ExpandSweep(input, "fuzz", AIFABRIC_SOURCE_DIR "/scenarios/sweeps");
        }
        else
        {
            nlohmann::json s = aifabric::DefaultScenario();
            std::istringstream lines(input);
            std::string line;
            while (std::getline(lines, line))
            {
                aifabric::ApplySet(s, line);
            }
            aifabric::ResolveScenario(s);
        }
    }
    catch (const aifabric::ScenarioError& e)
    {
        // The runner prints this as its one line: it must stay one bounded line.
        const std::string msg = e.what();
        if (msg.find('\n') != std::string::npos || msg.size() > 2000)
        {
            std::cerr << "scenario-fuzz: error message of " << msg.size()
                      << " bytes or with a newline\n";
            std::abort();
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "scenario-fuzz: " << what << " input escaped as " << e.what() << "\n";
        std::abort();
    }
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
    {
        return 0;
    }
    const std::string input(reinterpret_cast<const char*>(data) + 1, size - 1);
    static const char* const kinds[] = {"scenario", "sweep", "set"};
    Check(kinds[data[0] % 3], input);
    return 0;
}

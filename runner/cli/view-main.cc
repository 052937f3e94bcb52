// SPDX-License-Identifier: GPL-2.0-only
//
// ai-fabric-view: the results page of a run or a sweep.
//
//   ai-fabric-view DIR [--serve] [--port N]
//
// DIR is a run's results directory (summary.json), a sweep's directory (sweep.json: the page of
// its gathered/ results) or a sweep's gathered/ directory. Prints the page's path; writes the
// page first when the directory predates it. --serve serves the directory on 127.0.0.1 only.
// Exit status: 0, 2 bad input (one line naming the argument), 1 internal error.
#include "guarded-main.h"
#include "interrupt.h"
#include "json-input.h"
#include "report-server.h"
#include "report.h"
#include "scenario.h"
#include "sweep-collect.h"

#include <filesystem>
#include <iostream>

using namespace aifabric;
namespace fs = std::filesystem;

namespace
{

void
Usage()
{
    std::cout
        << "usage: ai-fabric view DIR [--serve] [--port N]\n\n"
           "Prints the path of DIR's results page (index.html), a self-contained page that\n"
           "opens from file:// in any browser: a run's dashboard, figures and zoomable per-rank\n"
           "timeline, or a gathered sweep's widget (controls for the swept keys, the four\n"
           "numbers plus busbw, the synchronization wave).\n\n"
           "  DIR        a run's results directory (summary.json), a sweep's directory\n"
           "             (sweep.json; its gathered/ page) or a sweep's gathered/ directory\n"
           "  --serve    serve the directory over HTTP on 127.0.0.1 (never another address)\n"
           "             until Ctrl-C\n"
           "  --port N   the port for --serve, 0..65535 (default 8000; 0 takes a free one)\n";
}

uint16_t
ParsePort(const std::string& v)
{
    size_t used = 0;
    long p = -1;
    try
    {
        p = std::stol(v, &used);
    }
    catch (const std::exception&)
    {
        used = 0;
    }
    if (used != v.size() || v.empty() || p < 0 || p > 65535)
    {
        throw ScenarioError("--port: " + EchoText(v) + " is not a port (allowed: 0..65535)");
    }
    return static_cast<uint16_t>(p);
}

/// The directory whose index.html is the page, writing the page when it is missing.
fs::path
PageDirectory(const fs::path& dir)
{
    if (fs::is_regular_file(dir / "summary.json"))
    {
        if (!fs::exists(dir / "index.html"))
        {
            try
            {
                WriteRunReport(dir);
            }
            catch (const nlohmann::json::exception& e)
            {
                // Someone else's summary.json with a field of the wrong type: bad input.
                throw ScenarioError(EchoText((dir / "summary.json").string()) +
                                    ": a field has the wrong type (" + e.what() + ")");
            }
        }
        return dir;
    }
    fs::path sweep;
    fs::path gathered;
    if (fs::is_regular_file(dir / "sweep.json"))
    {
        sweep = dir;
        gathered = dir / "gathered";
    }
    else if (fs::is_regular_file(dir / "results.csv") &&
             fs::is_regular_file(dir.parent_path() / "sweep.json"))
    {
        sweep = dir.parent_path();
        gathered = dir;
    }
    else
    {
        throw ScenarioError(EchoText(dir.string()) +
                            ": not a results directory (allowed: a run's directory with "
                            "summary.json, a sweep's directory with sweep.json, or its gathered/)");
    }
    if (!fs::is_regular_file(gathered / "results.csv"))
    {
        throw ScenarioError(EchoText(dir.string()) +
                            ": the sweep has not been gathered; ./ai-fabric gather " +
                            sweep.string() + " writes its page");
    }
    if (!fs::exists(gathered / "index.html"))
    {
        WriteSweepReport(gathered, sweep, Collect(sweep));
    }
    return gathered;
}

} // namespace

int
main(int argc, char** argv)
{
    InstallInterruptHandlers();
    return GuardedMain([&]() -> int {
        std::string dir;
        bool serve = false;
        uint16_t port = 8000;
        for (int i = 1; i < argc; ++i)
        {
            const std::string a = argv[i];
            if (a == "--help" || a == "-h")
            {
                Usage();
                return 0;
            }
            if (a == "--serve")
            {
                serve = true;
            }
            else if (a == "--port")
            {
                if (i + 1 >= argc)
                {
                    throw ScenarioError("--port: needs a value (allowed: 0..65535)");
                }
                port = ParsePort(argv[++i]);
            }
            else if (!a.empty() && a[0] != '-' && dir.empty())
            {
                dir = a;
            }
            else
            {
                throw ScenarioError(EchoText(a) +
                                    ": unknown argument (allowed: DIR, --serve, --port N, --help)");
            }
        }
        if (dir.empty())
        {
            throw ScenarioError("DIR: missing (a run's results directory or a sweep's)");
        }
        fs::path d = fs::absolute(dir).lexically_normal();
        if (!d.has_filename())
        {
            d = d.parent_path(); // "results/x/" names results/x
        }
        const fs::path page = PageDirectory(d);
        std::cout << (page / "index.html").string() << std::endl;
        if (!serve)
        {
            return 0;
        }
        return ServeDirectory(page, port, [](uint16_t p) {
            std::cout << "serving on http://127.0.0.1:" << p << "/ (Ctrl-C stops)" << std::endl;
        });
    });
}

// SPDX-License-Identifier: GPL-2.0-only
#include "sweep-gather.h"

#include "figures.h"
#include "file-util.h"
#include "report.h"
#include "sweep-collect.h"
#include "sweep-figures.h"
#include "text-util.h"

#include "ns3/results-directory.h"

#include <filesystem>
#include <sstream>
#include <unistd.h>

namespace aifabric
{

using nlohmann::json;
namespace fs = std::filesystem;

namespace
{

std::string
CsvOf(const Collected& c)
{
    std::ostringstream os;
    std::vector<std::string> header = {"point_id", "seed"};
    header.insert(header.end(), c.keys.begin(), c.keys.end());
    header.push_back("run");
    if (!c.fabricSwept)
    {
        header.push_back("fabric");
    }
    header.insert(header.end(), c.metricColumns.begin(), c.metricColumns.end());
    for (size_t i = 0; i < header.size(); ++i)
    {
        os << (i ? "," : "") << CsvField(header[i]);
    }
    os << "\n";
    for (const auto& r : c.rows)
    {
        os << r.pointId << "," << r.seed;
        for (const auto& k : c.keys)
        {
            os << "," << CsvField(Text(r.values.at(k)));
        }
        os << "," << CsvField(r.run);
        if (!c.fabricSwept)
        {
            os << "," << CsvField(r.fabric);
        }
        for (const auto& m : c.metricColumns)
        {
            const json* v = r.Metric(m);
            os << "," << (v ? CsvField(Text(*v)) : "");
        }
        os << "\n";
    }
    return os.str();
}

} // namespace

std::string
GatherCsv(const std::string& dir, size_t* missingPoints)
{
    const Collected c = Collect(fs::absolute(dir));
    if (missingPoints)
    {
        *missingPoints = c.missing;
    }
    return CsvOf(c);
}

int
Gather(const std::string& dir, std::ostream& out, std::ostream& err)
{
    const fs::path d = fs::absolute(dir);
    const Collected c = Collect(d);
    if (c.rows.empty())
    {
        err << "ai-fabric: " << d.string() << ": none of the " << c.points
            << " points has finished; nothing to gather" << std::endl;
        return 1;
    }
    const std::vector<Figure> figs = Figures(c);
    // Written next to the final place and renamed in: gathered/ is always complete.
    const fs::path next = d / "gathered.new";
    std::error_code ec;
    fs::remove_all(next, ec);
    ns3::ResultsDirectory rd;
    const std::string openError = rd.Open(next.string());
    if (!openError.empty())
    {
        throw std::runtime_error(openError);
    }
    const fs::path tmp = rd.GetPath();
    WriteAtomically(tmp / "results.csv", CsvOf(c));
    std::ostringstream gp;
    gp << "# Figures of sweep '" << c.manifest["sweep"].get<std::string>()
       << "': mean over seeds, error bars min..max.\n"
       << Terminal("", 900, 560) << "set grid\nset key outside right top\n"
       << "set bars small\n";
    for (const auto& f : figs)
    {
        WriteAtomically(tmp / (f.file + ".dat"), f.data);
        gp << "\n" << f.script;
    }
    if (!Plot(tmp.string(), "figures.gp", gp.str(), !figs.empty()))
    {
        err << "ai-fabric: gnuplot failed on figures.gp (script kept)" << std::endl;
    }
    WriteSweepReport(tmp, d, c);
    const std::string commitError = rd.Commit();
    if (!commitError.empty())
    {
        throw std::runtime_error(commitError);
    }
    const fs::path final = d / "gathered";
    const fs::path old = d / (".gathered.old-" + std::to_string(::getpid()));
    if (fs::exists(final))
    {
        fs::rename(final, old);
    }
    fs::rename(next, final);
    fs::remove_all(old, ec);

    out << "gathered " << c.rows.size() << " rows from " << c.points - c.missing << " of "
        << c.points << " points into " << (final / "results.csv").string() << std::endl;
    if (c.missing > 0)
    {
        err << "ai-fabric: " << c.missing
            << " points not finished (not in the CSV); ./ai-fabric sweep --status " << d.string()
            << std::endl;
    }
    out << "  " << (final / "index.html").string() << " (./ai-fabric view " << d.string() << ")"
        << std::endl;
    for (const auto& f : figs)
    {
        out << "  " << (final / (f.file + (HaveGnuplot() ? ".png" : ".dat"))).string() << std::endl;
    }
    if (figs.empty())
    {
        out << "  no figures: no swept key is numeric with two or more values" << std::endl;
    }
    return 0;
}

} // namespace aifabric

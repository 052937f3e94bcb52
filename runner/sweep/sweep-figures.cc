// SPDX-License-Identifier: GPL-2.0-only
#include "sweep-figures.h"

#include "figures.h"
#include "file-util.h"
#include "text-util.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace aifabric
{

using nlohmann::json;

namespace
{

struct MetricSpec
{
    const char* column;
    const char* file;
    const char* label;
    double scale;
};

const std::vector<MetricSpec>&
FigureMetrics()
{
    static const std::vector<MetricSpec> m = {
        {"step_ms.mean", "step-time", "mean step time (ms)", 1.0},
        {"mfu_effective", "mfu", "effective MFU (%)", 100.0},
        {"busbw_gbytes_per_s", "busbw", "bus bandwidth (GB/s)", 1.0},
        {"collective_ms.mean", "collective-time", "mean collective time (ms)", 1.0},
        // Flow workloads (workload.kind flows, or workload.background).
        {"flows.slowdown.p50", "slowdown-p50", "FCT slowdown, median", 1.0},
        {"flows.slowdown.p95", "slowdown-p95", "FCT slowdown, 95th percentile", 1.0},
        {"flows.queue_p99_bytes", "queue-p99", "switch queue p99 (KB)", 1e-3},
    };
    return m;
}

std::string
Num10(double v)
{
    return Num(v, 10);
}

} // namespace

std::vector<Figure>
Figures(const Collected& c)
{
    std::vector<Figure> figs;
    auto varies = [&](auto get) {
        std::set<std::string> v;
        for (const auto& r : c.rows)
        {
            v.insert(get(r));
        }
        return v.size() > 1;
    };
    const bool runsVary = varies([](const Row& r) { return r.run; });
    const bool fabricsVary = varies([](const Row& r) { return r.fabric; });
    // Fabric names a line unless the run name already implies it.
    bool fabricInLabel = fabricsVary;
    if (fabricsVary && runsVary)
    {
        std::map<std::string, std::set<std::string>> fabricsOfRun;
        for (const auto& r : c.rows)
        {
            fabricsOfRun[r.run].insert(r.fabric);
        }
        fabricInLabel = std::any_of(fabricsOfRun.begin(), fabricsOfRun.end(), [](const auto& e) {
            return e.second.size() > 1;
        });
    }
    auto isZip = [&](const std::string& k) {
        return std::find(c.zipKeys.begin(), c.zipKeys.end(), k) != c.zipKeys.end();
    };
    for (const auto& x : c.keys)
    {
        std::set<double> xs;
        bool numeric = true;
        for (const auto& r : c.rows)
        {
            const json& v = r.values.at(x);
            if (!v.is_number())
            {
                numeric = false;
                break;
            }
            xs.insert(v.get<double>());
        }
        if (!numeric || xs.size() < 2)
        {
            continue;
        }
        // Keys that name a line: the other swept keys that vary, except those determined by x
        // or by the fabric (members of the same zip group).
        std::vector<std::string> labelKeys;
        const bool zipDetermined = isZip(x) || (fabricInLabel && isZip("fabric"));
        for (const auto& k : c.keys)
        {
            if (k == x || k == "fabric" || (zipDetermined && isZip(k)))
            {
                continue;
            }
            if (varies([&](const Row& r) { return Text(r.values.at(k)); }))
            {
                labelKeys.push_back(k);
            }
        }
        auto label = [&](const Row& r) {
            std::string s;
            auto add = [&](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
            if (runsVary)
            {
                add(r.run);
            }
            if (fabricInLabel || (!runsVary && !fabricsVary))
            {
                add(r.fabric);
            }
            for (const auto& k : labelKeys)
            {
                add(k + "=" + Text(r.values.at(k)));
            }
            return s;
        };
        // Axis: logarithmic when the positive values span two decades or more; a 0 is drawn one
        // decade below the smallest positive value and labelled "0".
        double minPos = 0;
        for (double v : xs)
        {
            if (v > 0)
            {
                minPos = v;
                break;
            }
        }
        const double maxX = *xs.rbegin();
        const size_t positives =
            std::count_if(xs.begin(), xs.end(), [](double v) { return v > 0; });
        const bool logX = *xs.begin() >= 0 && positives >= 2 && maxX / minPos >= 100;
        const double zeroAt = minPos / 10;
        auto plotX = [&](double v) { return logX && v == 0 ? zeroAt : v; };

        for (const auto& m : FigureMetrics())
        {
            // series label -> x -> values
            std::vector<std::string> order;
            std::map<std::string, std::map<double, std::vector<double>>> series;
            std::map<std::string, std::set<std::string>> fabricsOf; // series -> its fabrics
            std::map<std::string, size_t> seriesOf;                 // fabric -> its series
            for (const auto& r : c.rows)
            {
                const json* v = r.Metric(m.column);
                if (!v || !v->is_number())
                {
                    continue;
                }
                const std::string l = label(r);
                if (!series.count(l))
                {
                    order.push_back(l);
                }
                if (fabricsOf[l].insert(r.fabric).second)
                {
                    ++seriesOf[r.fabric];
                }
                series[l][r.values.at(x).get<double>()].push_back(v->get<double>() * m.scale);
            }
            // A metric that is zero at every point says nothing (a flow workload's step time).
            const bool allZero = std::all_of(series.begin(), series.end(), [](const auto& line) {
                return std::all_of(line.second.begin(), line.second.end(), [](const auto& p) {
                    return std::all_of(p.second.begin(), p.second.end(), [](double y) {
                        return y == 0;
                    });
                });
            });
            if (series.empty() || allZero)
            {
                continue;
            }
            Figure f;
            f.file = std::string(m.file) + "-vs-" + SafeFileName(x);
            std::ostringstream data;
            std::ostringstream plot;
            for (size_t i = 0; i < order.size(); ++i)
            {
                data << (i ? "\n\n" : "") << "# " << OneLine(order[i])
                     << "\n# x_plot x mean min max stddev n\n";
                for (const auto& [xv, ys] : series[order[i]])
                {
                    double sum = 0;
                    for (double y : ys)
                    {
                        sum += y;
                    }
                    const double mean = sum / double(ys.size());
                    double var = 0;
                    for (double y : ys)
                    {
                        var += (y - mean) * (y - mean);
                    }
                    const double sd = ys.size() > 1 ? std::sqrt(var / double(ys.size() - 1)) : 0.0;
                    data << Num10(plotX(xv)) << " " << Num10(xv) << " " << Num10(mean) << " "
                         << Num10(*std::min_element(ys.begin(), ys.end())) << " "
                         << Num10(*std::max_element(ys.begin(), ys.end())) << " " << Num10(sd)
                         << " " << ys.size() << "\n";
                }
                plot << (i ? ", \\\n     " : "plot ") << GnuplotString(f.file + ".dat") << " index "
                     << i << " using 1:3:4:5 with yerrorlines lw 2 pt 7";
                // The fabric's colour (as in every figure) when the line is the fabric's only one.
                const auto& fabrics = fabricsOf[order[i]];
                if (fabrics.size() == 1 && seriesOf[*fabrics.begin()] == 1)
                {
                    plot << " lc rgb " << FabricColour(*fabrics.begin());
                }
                plot << " title " << GnuplotString(order[i]);
            }
            f.data = data.str();
            std::ostringstream gp;
            gp << "set output " << GnuplotString(f.file + ".png") << "\n"
               << "set title "
               << GnuplotString(std::string(m.label) + " vs " + x +
                                " (mean over seeds, min/max bars)")
               << "\nset xlabel " << GnuplotString(x) << "\nset ylabel " << GnuplotString(m.label)
               << "\n";
            if (logX)
            {
                gp << "set logscale x\nset xrange [" << Num10((xs.count(0) ? zeroAt : minPos) / 2)
                   << ":" << Num10(maxX * 2) << "]\nset xtics (";
                bool first = true;
                for (double v : xs)
                {
                    gp << (first ? "" : ", ") << GnuplotString(v == 0 ? "0" : Num10(v)) << " "
                       << Num10(plotX(v));
                    first = false;
                }
                gp << ")\n";
            }
            else
            {
                gp << "unset logscale x\nset xrange [*:*]\nset xtics autofreq\n";
            }
            gp << plot.str() << "\n";
            f.script = gp.str();
            figs.push_back(f);
        }
    }
    return figs;
}

} // namespace aifabric

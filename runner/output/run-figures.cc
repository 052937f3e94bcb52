// SPDX-License-Identifier: GPL-2.0-only
#include "run-figures.h"

#include "fabric-registry.h"
#include "figures.h"
#include "text-util.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace aifabric
{

namespace
{

/// The span of step 0's collective: from the first rank's compute end to the barrier.
bool
FirstBarrier(const std::string& stepsCsv, double& lo, double& hi)
{
    std::istringstream in(stepsCsv);
    std::string line;
    std::getline(in, line); // header
    lo = 1e300;
    hi = -1e300;
    while (std::getline(in, line))
    {
        std::vector<double> v;
        std::istringstream cells(line);
        std::string cell;
        while (std::getline(cells, cell, ','))
        {
            v.push_back(std::atof(cell.c_str()));
        }
        if (v.size() < 6 || v[0] != 0)
        {
            continue;
        }
        lo = std::min(lo, v[3]);
        hi = std::max(hi, v[5]);
    }
    return hi >= lo;
}

/// Whether queue.csv (time_us first) has a sample between `loMs` and `hiMs`: gnuplot refuses a
/// panel whose x range holds no point ("all points y value undefined"), and an idle stretch is
/// only its first and last row (a one-server run's fabric: 0 and the end).
bool
HasSampleIn(const std::string& queueCsv, double loMs, double hiMs)
{
    std::istringstream in(queueCsv);
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line))
    {
        const double ms = std::atof(line.c_str()) / 1000;
        if (ms >= loMs && ms <= hiMs)
        {
            return true;
        }
    }
    return false;
}

} // namespace

std::string
RunPlotsScript(const RunOutput& r)
{
    const auto hasRows = [](const std::string& csv) {
        return std::count(csv.begin(), csv.end(), '\n') > 1; // more than the header
    };
    const RunConfig& c = r.config;
    const std::string& name = c.name;
    const std::string colour = FabricColour(c.fabric.name);
    std::ostringstream gp;
    gp << "set datafile separator ','\nset grid\n";
    double lo = 0;
    double hi = 0;
    const bool zoom = hasRows(r.stepsCsv) && FirstBarrier(r.stepsCsv, lo, hi);
    if (hasRows(r.stepsCsv))
    {
        // Two panels: every step, then step 0's collective alone (its waits are < 1% of a
        // step, invisible on the full axis).
        gp << Terminal("timeline", 1000, 800) << "set multiplot layout 2,1 title "
           << GnuplotString(name + ": per-rank steps (green: compute, red: waiting for the "
                                   "collective)")
           << "\nset ylabel 'rank'\nset yrange [-1:" << c.Gpus() << "]\nunset key\n";
        const std::string boxes =
            "'steps.csv' every ::1 using 4:2:3:4:($2-0.4):($2+0.4) with boxxyerror fs solid "
            "0.8 noborder lc rgb " +
            std::string(kComputeColour) +
            ", \\\n     '' every ::1 using 5:2:4:5:($2-0.4):($2+0.4) with boxxyerror fs solid "
            "0.8 noborder lc rgb " +
            std::string(kWaitColour) + "\n";
        gp << "set title 'all steps'\nset xlabel 'time (ms)'\nplot " << boxes;
        if (zoom)
        {
            const double pad = std::max(0.25 * (hi - lo), 1e-6);
            gp << "set title 'step 0: from the first rank done computing to the barrier'\n"
               << "set xrange [" << Num(lo - pad, 10) << ":" << Num(hi + pad, 10) << "]\n"
               << "plot " << boxes << "set xrange [*:*]\n";
        }
        gp << "unset multiplot\nset yrange [*:*]\n";
    }
    if (hasRows(r.latencyCsv))
    {
        // A CCDF, fraction on a log axis: the body and the tail both show; latency on a linear
        // axis padded around the data (one-way latencies span a few % on an idle fabric).
        const std::string what = FabricOf(c).packetLabel;
        gp << Terminal("latency", 1000, 600) << "set title "
           << GnuplotString(name + ": one-way network latency of " + what + " (CCDF)") << "\n"
           << "set xlabel 'latency (us)'\nset ylabel 'fraction of packets slower (1 - CDF)'\n"
           << "set logscale y\nset yrange [0.0005:1.2]\nset offsets graph 0.05, graph 0.05, 0, "
              "0\nunset key\n"
           << "plot 'latency_cdf.csv' every ::1 using 2:(1-$1) with steps lw 2 lc rgb " << colour
           << "\nunset logscale y\nset offsets 0, 0, 0, 0\nset yrange [*:*]\n";
    }
    // Peaks per sampling interval, all the run; with a step, a second panel on step 0's
    // collective (a few intervals wide).
    const std::string queues =
        "'queue.csv' every ::1 using ($1/1000):($2/1024) with steps lw 2 lc rgb " + colour +
        " title 'largest egress queue', \\\n     '' every ::1 using ($1/1000):($5/1024) with "
        "steps lc rgb '#7f7f7f' title 'fullest switch buffer'\n";
    const double queuePad = std::max(0.25 * (hi - lo), 0.1);
    const bool queueZoom = zoom && HasSampleIn(r.queueCsv, lo - queuePad, hi + queuePad);
    gp << Terminal("queue", 1000, queueZoom ? 800 : 600);
    if (queueZoom)
    {
        gp << "set multiplot layout 2,1 title "
           << GnuplotString(name + ": switch queues (peak in each 100 us interval)") << "\n"
           << "set title 'all the run'\n";
    }
    else
    {
        gp << "set title " << GnuplotString(name + ": switch queues (peak in each 100 us interval)")
           << "\n";
    }
    gp << "set xlabel 'time (ms)'\nset ylabel 'KB'\nset yrange [0:*]\nset key outside top "
          "horizontal\nplot "
       << queues;
    if (queueZoom)
    {
        gp << "set title 'step 0: from the first rank done computing to the barrier'\nunset key\n"
           << "set xrange [" << Num(lo - queuePad, 10) << ":" << Num(hi + queuePad, 10)
           << "]\nplot " << queues << "set xrange [*:*]\nunset multiplot\n";
    }
    gp << "set yrange [*:*]\n";
    if (hasRows(r.rateCsv))
    {
        gp << Terminal("rate", 1000, 600) << "set title "
           << GnuplotString(name + ": rank 0 queue-pair rates (congestion control)") << "\n"
           << "set xlabel 'time (ms)'\nset ylabel 'Gb/s'\nset yrange [0:"
           << Num(c.topology.linkGbps * 1.15) << "]\nset key outside top horizontal\n"
           << "plot 'rate.csv' every ::1 using ($1/1000):3 with points pt 7 ps 0.4 lc rgb "
           << colour << " title 'a queue pair (one sample)', \\\n     " << Num(c.topology.linkGbps)
           << " with lines dt 2 lc rgb '#404040' title "
           << GnuplotString("line rate " + Num(c.topology.linkGbps) + " Gb/s")
           << "\nset yrange [*:*]\n";
    }
    return gp.str();
}

std::string
CompareScript(const std::vector<RunOutput>& runs)
{
    // Labels come from the runs' names (escaped), not from compare.csv's directory names; the
    // key sits below the panels, where it covers no bar. Right: the waiting alone, on its own
    // scale (it is a few % of a step).
    std::ostringstream tics;
    for (size_t i = 0; i < runs.size(); ++i)
    {
        // A tic label is a format: "0.01% loss" would print "0.01 3.000000oss".
        std::string label;
        for (char ch : runs[i].config.name)
        {
            label += ch == '%' ? std::string("%%") : std::string(1, ch);
        }
        tics << (i ? ", " : "") << GnuplotString(label) << " " << i;
    }
    std::ostringstream gp;
    gp << "set datafile separator ','\n"
       << Terminal("compare", 1200, 600)
       << "set multiplot layout 1,2 title 'Mean training step: compute vs. waiting on the "
          "network'\n"
       << "set style fill solid 0.8 border -1\nset boxwidth 0.6\nset grid ytics\n"
       << "set xtics (" << tics.str() << ") rotate by -25\nset xrange [-0.6:" << runs.size() - 0.4
       << "]\nset yrange [0:*]\nset key outside below horizontal\n"
       << "set title 'step'\nset ylabel 'ms'\n"
       << "plot 'compare.csv' every ::1 using 0:4 with boxes lc rgb " << kWaitColour
       << " title 'waiting on the collective', \\\n     '' every ::1 using 0:2 with boxes lc rgb "
       << kComputeColour << " title 'compute'\n"
       << "set title 'waiting on the collective'\nunset key\n"
       << "plot 'compare.csv' every ::1 using 0:3 with boxes lc rgb " << kWaitColour
       << " title 'waiting'\nunset multiplot\n";
    return gp.str();
}

std::string
SlowdownScript(const std::vector<RunOutput>& runs, const std::vector<std::string>& dirs)
{
    std::ostringstream gp;
    // The key goes below each panel: inside, it would cover some run's curve.
    gp << "set datafile separator ','\n"
       << Terminal("slowdown", 1200, 600) << "set multiplot layout 1,2\nset logscale xy\n"
       << "set xlabel 'flow size (bytes, bucket upper edge)'\nset ylabel 'FCT slowdown'\n"
       << "set grid\nset key outside below horizontal maxcols 2\n";
    for (const char* col : {"p50", "p95"})
    {
        gp << "set title " << GnuplotString(std::string("FCT slowdown, ") + col) << "\nplot ";
        bool first = true;
        for (size_t i = 0; i < runs.size(); ++i)
        {
            if (runs[i].slowdownCsv.empty())
            {
                continue;
            }
            gp << (first ? "" : ", \\\n     ") << GnuplotString(dirs[i] + "/slowdown.csv")
               << " every ::1 using 1:" << (std::string(col) == "p50" ? 3 : 4)
               << " with linespoints lw 2 title " << GnuplotString(runs[i].config.name);
            first = false;
        }
        gp << "\n";
    }
    gp << "unset multiplot\n";
    return gp.str();
}

} // namespace aifabric

// SPDX-License-Identifier: GPL-2.0-only
#include "run-figures.h"

#include "figures.h"

#include <algorithm>
#include <sstream>

namespace aifabric
{

std::string
RunPlotsScript(const RunOutput& r)
{
    const auto hasRows = [](const std::string& csv) {
        return std::count(csv.begin(), csv.end(), '\n') > 1; // more than the header
    };
    const RunConfig& c = r.config;
    const std::string& name = c.name;
    std::ostringstream gp;
    gp << "set terminal pngcairo noenhanced size 1000,600\nset datafile separator ','\n";
    if (hasRows(r.stepsCsv))
    {
        gp << "set output 'timeline.png'\nset title "
           << GnuplotString(
                  name +
                  ": per-rank step timeline (green: compute, red: waiting for the collective)")
           << "\nset xlabel 'time (ms)'\nset ylabel 'rank'\nset yrange [-1:" << c.Gpus()
           << "]\nunset key\n"
           << "plot 'steps.csv' every ::1 using 4:2:3:4:($2-0.4):($2+0.4) with boxxyerror fs solid "
              "0.8 lc rgb '#2e8b57', \\\n"
           << "     '' every ::1 using 5:2:4:5:($2-0.4):($2+0.4) with boxxyerror fs solid 0.8 lc "
              "rgb '#c0392b'\n";
    }
    if (hasRows(r.latencyCsv))
    {
        gp << "set output 'latency.png'\nset title "
           << GnuplotString(name + ": one-way latency of RDMA data packets (CDF)") << "\n"
           << "set xlabel 'latency (us)'\nset ylabel 'fraction'\nset logscale x\nset yrange "
              "[0:1]\nset key bottom right\n"
           << "plot 'latency_cdf.csv' every ::1 using 2:1 with lines lw 2 title 'CDF'\nunset "
              "logscale x\n";
    }
    gp << "set output 'queue.png'\nset title "
       << GnuplotString(name + ": switch queues (sampled every 100 us)") << "\n"
       << "set xlabel 'time (ms)'\nset ylabel 'KB'\nset autoscale y\nset key top right\n"
       << "plot 'queue.csv' every ::1 using ($1/1000):($2/1024) with steps title 'largest port "
          "queue', \\\n"
       << "     '' every ::1 using ($1/1000):($3/1024) with steps title 'all switch queues'\n";
    if (hasRows(r.rateCsv))
    {
        gp << "set output 'rate.png'\nset title "
           << GnuplotString(name + ": rank 0 queue-pair rates (congestion control)") << "\n"
           << "set ylabel 'Gb/s'\nset yrange [0:*]\nunset key\n"
           << "plot 'rate.csv' every ::1 using ($1/1000):3 with points pt 7 ps 0.3\n";
    }
    return gp.str();
}

std::string
CompareScript()
{
    std::ostringstream gp;
    gp << "set terminal pngcairo noenhanced size 1000,550\nset datafile separator ','\nset output "
          "'compare.png'\n"
       << "set title 'Mean training step: compute vs. waiting on the network'\nset style data "
          "histograms\n"
       << "set style histogram rowstacked\nset style fill solid 0.8 border -1\nset boxwidth 0.6\n"
       << "set ylabel 'ms'\nset xtics rotate by -20\nset key top left\n"
       << "plot 'compare.csv' every ::1 using 2:xtic(1) title 'compute' lc rgb '#2e8b57', '' every "
          "::1 using 3 title "
          "'waiting on the collective' lc rgb '#c0392b'\n";
    return gp.str();
}

std::string
SlowdownScript(const std::vector<RunOutput>& runs, const std::vector<std::string>& dirs)
{
    std::ostringstream gp;
    // The key goes below each panel: inside, it would cover some run's curve.
    gp << "set terminal pngcairo noenhanced size 1200,600\nset datafile separator ','\n"
       << "set output 'slowdown.png'\nset multiplot layout 1,2\nset logscale xy\n"
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

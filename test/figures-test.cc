// SPDX-License-Identifier: GPL-2.0-only
// The generated gnuplot scripts: names escaped, keys off the data, the short waits zoomed in,
// titles that say what was measured, one style, PNG and SVG.
#include "figures.h"
#include "run-figures.h"
#include "run-output.h"
#include "scenario-schema.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace
{

using aifabric::RunOutput;

RunOutput
MakeRun(const std::string& name, const std::string& fabric)
{
    RunOutput r;
    r.config = aifabric::ResolveScenario(aifabric::DefaultScenario()).at(0);
    r.config.name = name;
    r.config.fabric.name = fabric;
    r.config.topology.linkGbps = 200;
    // Two ranks, step 0: compute ends at 82 ms, the barrier at 82.62 ms.
    r.stepsCsv = "step,rank,start_ms,compute_end_ms,collective_end_ms,barrier_ms,last\n"
                 "0,0,0,82,82.6,82.62,0\n0,1,0,82.1,82.62,82.62,1\n"
                 "1,0,82.62,164.62,165.2,165.3,0\n1,1,82.62,164.7,165.3,165.3,1\n";
    r.latencyCsv = "quantile,latency_us\n0,0.875\n1,0.92\n";
    r.rateCsv = "time_us,qpn,rate_gbps\n82100,1,200\n";
    r.queueCsv = "time_us,max_port_queue_bytes,total_queue_bytes,pfc_frames_in_interval,"
                 "max_switch_buffer_bytes\n0,0,0,0,0\n82100,4096,4096,0,8192\n82200,0,0,0,0\n"
                 "165400,0,0,0,0\n";
    return r;
}

bool
Has(const std::string& s, const std::string& what)
{
    return s.find(what) != std::string::npos;
}

TEST(FiguresTest, CompareLabelsAreTheRunNamesEscapedAndTheKeyIsOutside)
{
    const std::string gp =
        aifabric::CompareScript({MakeRun("TCP_0.01% loss", "tcp"), MakeRun("Bob's run", "rocev2")});
    // Tic labels are formats: % doubled; quotes doubled; no subscripts (noenhanced).
    EXPECT_TRUE(Has(gp, "set xtics ('TCP_0.01%% loss' 0, 'Bob''s run' 1)")) << gp;
    EXPECT_TRUE(Has(gp, "noenhanced")) << gp;
    EXPECT_FALSE(Has(gp, "xtic(1)")) << gp; // compare.csv's directory names are not labels
    EXPECT_TRUE(Has(gp, "set key outside")) << gp;
    EXPECT_FALSE(Has(gp, "set key top left")) << gp;
    EXPECT_TRUE(Has(gp, "set output 'compare.png'")) << gp;
}

TEST(FiguresTest, LatencyIsTitledByTheTransportAndIsACcdf)
{
    const std::string tcp = aifabric::RunPlotsScript(MakeRun("t", "tcp"));
    EXPECT_TRUE(Has(tcp, "latency of TCP segments (CCDF)")) << tcp;
    EXPECT_FALSE(Has(tcp, "RDMA")) << tcp;
    const std::string roce = aifabric::RunPlotsScript(MakeRun("r", "rocev2"));
    EXPECT_TRUE(Has(roce, "latency of RDMA data packets (CCDF)")) << roce;
    EXPECT_TRUE(Has(roce, "using 2:(1-$1)")) << roce;
    EXPECT_TRUE(Has(roce, "set logscale y\n")) << roce; // not x: the range is a few %
    EXPECT_TRUE(Has(roce, "unset key")) << roce;
}

TEST(FiguresTest, TimelineAndQueuesZoomOnStepZerosCollective)
{
    const std::string gp = aifabric::RunPlotsScript(MakeRun("r", "rocev2"));
    // Step 0 spans 82 .. 82.62 ms (first compute end to barrier), padded by a quarter: both
    // the timeline and the queues have a second panel there.
    const std::string zoom = "set xrange [81.845:82.775]";
    const size_t first = gp.find(zoom);
    ASSERT_NE(first, std::string::npos) << gp;
    EXPECT_NE(gp.find(zoom, first + 1), std::string::npos) << gp;
    EXPECT_TRUE(Has(gp, "set output 'timeline.png'\nset multiplot layout 2,1")) << gp;
    EXPECT_TRUE(Has(gp, "set output 'queue.png'\nset multiplot layout 2,1")) << gp;
    // Queues are the interval peaks (column 2) and the fullest buffer (column 5), on [0:*].
    EXPECT_TRUE(Has(gp, "switch queues (peak in each 100 us interval)")) << gp;
    EXPECT_TRUE(Has(gp, "($5/1024)")) << gp;
    // Without a completed step there is nothing to zoom on.
    RunOutput none = MakeRun("n", "rocev2");
    none.stepsCsv = "step,rank,start_ms,compute_end_ms,collective_end_ms,barrier_ms,last\n";
    const std::string flat = aifabric::RunPlotsScript(none);
    EXPECT_FALSE(Has(flat, "multiplot")) << flat;
    EXPECT_FALSE(Has(flat, "timeline.png")) << flat;
    // An idle fabric around step 0 (one server: its queue.csv is 0 and the end): no queue panel
    // there, where gnuplot would find no point and fail (the run printed "gnuplot failed").
    RunOutput idle = MakeRun("i", "rocev2");
    idle.queueCsv = "time_us,max_port_queue_bytes,total_queue_bytes,pfc_frames_in_interval,"
                    "max_switch_buffer_bytes\n0,0,0,0,0\n165400,0,0,0,0\n";
    const std::string calm = aifabric::RunPlotsScript(idle);
    EXPECT_TRUE(Has(calm, "set output 'timeline.png'\nset multiplot layout 2,1")) << calm;
    EXPECT_FALSE(Has(calm, "set output 'queue.png'\nset multiplot")) << calm;
    EXPECT_EQ(calm.find(zoom), calm.rfind(zoom)) << "the timeline's zoom only";
}

TEST(FiguresTest, RatesAreDrawnUnderTheLineRateWithAKey)
{
    const std::string gp = aifabric::RunPlotsScript(MakeRun("r", "rocev2"));
    EXPECT_TRUE(Has(gp, "set yrange [0:230]")) << gp; // 200 Gb/s + 15%: not on the border
    EXPECT_TRUE(Has(gp, "200 with lines dt 2")) << gp;
    EXPECT_TRUE(Has(gp, "title 'line rate 200 Gb/s'")) << gp;
    EXPECT_FALSE(Has(gp.substr(gp.find("rate.png")), "unset key")) << gp;
}

TEST(FiguresTest, OneStyleAndAnSvgTwinOfEveryPng)
{
    const std::string gp = aifabric::RunPlotsScript(MakeRun("r", "infiniband"));
    // Every figure's terminal comes from Terminal(): one font, noenhanced.
    const std::string t = aifabric::Terminal("", 1, 1);
    const std::string style = t.substr(0, t.find("size ") + 5);
    size_t terminals = 0;
    for (size_t at = gp.find("set terminal"); at != std::string::npos;
         at = gp.find("set terminal", at + 1))
    {
        ++terminals;
        EXPECT_EQ(gp.compare(at, style.size(), style), 0) << gp.substr(at, 80);
    }
    EXPECT_EQ(terminals, 4u); // timeline, latency, queue, rate
    EXPECT_TRUE(Has(gp, aifabric::FabricColour("infiniband"))) << gp;
    EXPECT_NE(aifabric::FabricColour("tcp"), aifabric::FabricColour("rocev2"));
    const std::string svg = aifabric::SvgTwin(gp);
    EXPECT_FALSE(Has(svg, "pngcairo")) << svg;
    EXPECT_FALSE(Has(svg, ".png'")) << svg;
    for (const char* f : {"timeline", "latency", "queue", "rate"})
    {
        EXPECT_TRUE(Has(svg, std::string("set output '") + f + ".svg'")) << f;
    }
    EXPECT_TRUE(Has(svg, "set terminal svg dynamic noenhanced")) << svg;
}

} // namespace

// SPDX-License-Identifier: GPL-2.0-only
#include "nccl-tests.h"

#include "figures.h"
#include "json-input.h"
#include "scenario.h"

#include "ns3/collective-algorithm.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace aifabric
{

namespace
{

struct OpInfo
{
    const char* op;
    const char* collective;
    const char* redop;
    int root;
    bool perRankCount; //!< nccl-tests prints the count per rank (size / nranks)
};

constexpr OpInfo kOps[] = {
    {"all_reduce", "allreduce", "sum", -1, false},
    {"all_gather", "allgather", "none", -1, true},
    {"reduce_scatter", "reducescatter", "sum", -1, true},
    {"alltoall", "alltoall", "none", -1, true},
    {"broadcast", "broadcast", "none", 0, false},
    {"sendrecv", "sendrecv", "sum", -1, false},
};

const OpInfo&
Info(const std::string& op)
{
    for (const OpInfo& i : kOps)
    {
        if (op == i.op)
        {
            return i;
        }
    }
    throw ScenarioError("--op: must be all_reduce, all_gather, reduce_scatter, alltoall, "
                        "broadcast or sendrecv (got '" +
                        EchoText(op) + "')");
}

constexpr uint64_t kMaxSize = uint64_t(1) << 50;

/// gnuplot tics at 1, 32, 1K, 32K, ... 1P labelled as nccl-tests' sizes ("32K", "1G").
std::string
SizeTics()
{
    std::string tics;
    const char* units[] = {"", "K", "M", "G", "T", "P"};
    for (int e = 0; e <= 50; e += 5)
    {
        const uint64_t v = uint64_t(1) << e;
        tics += (e ? ", \"" : "\"") + std::to_string(v >> (e / 10 * 10)) + units[e / 10] + "\" " +
                std::to_string(v);
    }
    return tics;
}

} // namespace

std::string
NcclTestsCollective(const std::string& op)
{
    return Info(op).collective;
}

uint64_t
ParseNcclTestsSize(const std::string& text, const std::string& flag)
{
    const std::string range = flag +
                              ": must be a size from 1 to 1P bytes (digits with an "
                              "optional K, M, G, T or P suffix, powers of 1024; got '" +
                              EchoText(text) + "')";
    size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9')
    {
        ++digits;
    }
    if (digits == 0 || digits > 16 || text.size() > digits + 1)
    {
        throw ScenarioError(range);
    }
    uint64_t v = std::stoull(text.substr(0, digits));
    if (text.size() == digits + 1)
    {
        const std::string units = "KMGTP";
        const size_t u = units.find(static_cast<char>(std::toupper(text.back())));
        if (u == std::string::npos)
        {
            throw ScenarioError(range);
        }
        for (size_t i = 0; i <= u; ++i)
        {
            if (v > kMaxSize / 1024)
            {
                throw ScenarioError(range);
            }
            v *= 1024;
        }
    }
    if (v < 1 || v > kMaxSize)
    {
        throw ScenarioError(range);
    }
    return v;
}

std::vector<uint64_t>
NcclTestsSizes(const NcclTestsOptions& o)
{
    if (o.minBytes > o.maxBytes)
    {
        throw ScenarioError("-e: must be >= -b (" + std::to_string(o.minBytes) + "), got " +
                            std::to_string(o.maxBytes));
    }
    if (o.increment == 0 && o.factor < 2 && o.minBytes != o.maxBytes)
    {
        throw ScenarioError("-f: must be >= 2 when -e is larger than -b (got " +
                            std::to_string(o.factor) + ")");
    }
    std::vector<uint64_t> v;
    for (uint64_t s = o.minBytes; s <= o.maxBytes;)
    {
        v.push_back(s);
        if (v.size() > 64)
        {
            throw ScenarioError("-b/-e/-f/-i: at most 64 sizes per run (this range has more)");
        }
        const uint64_t next = o.increment ? s + o.increment : s * std::max<uint64_t>(o.factor, 2);
        if (next <= s || o.minBytes == o.maxBytes)
        {
            break;
        }
        s = next;
    }
    return v;
}

NcclTestsRow
NcclTestsRowFromSummary(const std::string& op,
                        uint64_t size,
                        uint32_t iters,
                        const nlohmann::json& summary)
{
    const OpInfo& info = Info(op);
    NcclTestsRow r;
    r.size = size;
    r.ranks = summary.value("gpus", 0u);
    r.count = size / 4 / (info.perRankCount && r.ranks > 0 ? r.ranks : 1);
    r.redop = info.redop;
    r.root = info.root;
    r.timeUs = summary["collective_ms"].value("mean", 0.0) * 1000.0;
    r.algbw = r.timeUs > 0 ? double(size) / (r.timeUs * 1e-6) / 1e9 : 0.0;
    ns3::CollectiveSpec::Op o = ns3::CollectiveSpec::ALLREDUCE;
    ns3::CollectiveSpec::OpByName(info.collective, o);
    r.busbw = r.algbw * ns3::CollectiveSpec::BusBwFactor(o, r.ranks);
    const uint64_t done = summary.value("steps_completed", 0u);
    r.wrong = done >= iters ? 0 : iters - done;
    r.algorithm = summary.value("algorithm_used", std::string());
    r.protocol = summary.value("protocol_used", std::string());
    r.channels = summary.value("channels_used", 0u);
    return r;
}

std::string
NcclTestsHeader(const NcclTestsOptions& o, uint32_t ranks)
{
    std::ostringstream h;
    h << "# ai-fabric nccl-tests: " << o.op << ", " << ranks << " ranks, minBytes " << o.minBytes
      << " maxBytes " << o.maxBytes << " step: "
      << (o.increment ? std::to_string(o.increment) + "(bytes)"
                      : std::to_string(o.factor) + "(factor)")
      << " iters: " << o.iters << " (simulated at packet level)\n#\n";
    char line[256];
    std::snprintf(line,
                  sizeof(line),
                  "#%12s %13s %9s %7s %7s %9s %7s %7s %6s  %-12s %-8s %s\n",
                  "size",
                  "count",
                  "type",
                  "redop",
                  "root",
                  "time",
                  "algbw",
                  "busbw",
                  "#wrong",
                  "algorithm",
                  "protocol",
                  "channels");
    h << line;
    std::snprintf(line,
                  sizeof(line),
                  "#%12s %13s %9s %7s %7s %9s %7s %7s\n",
                  "(B)",
                  "(elements)",
                  "",
                  "",
                  "",
                  "(us)",
                  "(GB/s)",
                  "(GB/s)");
    h << line;
    return h.str();
}

std::string
NcclTestsLine(const NcclTestsRow& r)
{
    char line[256];
    std::snprintf(line,
                  sizeof(line),
                  " %12llu %13llu %9s %7s %7d %9.2f %7.2f %7.2f %6llu  %-12s %-8s %u\n",
                  static_cast<unsigned long long>(r.size),
                  static_cast<unsigned long long>(r.count),
                  r.type.c_str(),
                  r.redop.c_str(),
                  r.root,
                  r.timeUs,
                  r.algbw,
                  r.busbw,
                  static_cast<unsigned long long>(r.wrong),
                  r.algorithm.c_str(),
                  r.protocol.c_str(),
                  r.channels);
    return line;
}

std::string
NcclTestsFooter(const std::vector<NcclTestsRow>& rows)
{
    double sum = 0;
    uint64_t wrong = 0;
    for (const NcclTestsRow& r : rows)
    {
        sum += r.busbw;
        wrong += r.wrong;
    }
    char line[128];
    std::snprintf(line,
                  sizeof(line),
                  "# Incomplete collectives : %llu %s\n# Avg bus bandwidth    : %g\n",
                  static_cast<unsigned long long>(wrong),
                  wrong ? "FAILED" : "OK",
                  rows.empty() ? 0.0 : sum / double(rows.size()));
    return line;
}

std::string
NcclTestsCsv(const std::vector<NcclTestsRow>& rows)
{
    std::ostringstream c;
    c << "size_bytes,count,type,redop,root,time_us,algbw_gbytes_per_s,busbw_gbytes_per_s,wrong,"
         "algorithm,protocol,channels,ranks\n";
    c.precision(10);
    for (const NcclTestsRow& r : rows)
    {
        c << r.size << ',' << r.count << ',' << r.type << ',' << r.redop << ',' << r.root << ','
          << r.timeUs << ',' << r.algbw << ',' << r.busbw << ',' << r.wrong << ',' << r.algorithm
          << ',' << r.protocol << ',' << r.channels << ',' << r.ranks << '\n';
    }
    return c.str();
}

std::string
NcclTestsPlotScript(const std::string& title)
{
    std::ostringstream gp;
    gp << "set datafile separator ','\n"
       << Terminal("busbw", 1000, 600) << "set title " << GnuplotString(title) << "\n"
       << "set xlabel 'message size (bytes)'\nset ylabel 'GB/s'\nset logscale x 2\n"
       << "set xtics (" << SizeTics() << ")\nset offsets graph 0.03, graph 0.03, 0, 0\n"
       << "set key top left\nset grid\n"
       << "plot 'nccl-tests.csv' every ::1 using 1:8 with linespoints lw 2 pt 7 title 'busbw', "
          "\\\n     '' every ::1 using 1:7 with linespoints lw 1 pt 6 title 'algbw'\n";
    return gp.str();
}

} // namespace aifabric

// SPDX-License-Identifier: GPL-2.0-only
#include "sweep.h"

#include "figures.h"
#include "file-util.h"
#include "process.h"
#include "text-util.h"

#include "ns3/results-directory.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <signal.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace aifabric
{

using nlohmann::json;
using nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace
{

const char* const kManifestFormat = "ai-fabric-sweep/1";
const size_t kMaxPoints = 100000;

/// A value as a CSV cell or label: strings bare, everything else as JSON.
std::string
Text(const json& v)
{
    if (v.is_string())
    {
        return v.get<std::string>();
    }
    if (v.is_null())
    {
        return "";
    }
    return v.dump();
}

std::string
CsvField(const std::string& s)
{
    if (s.find_first_of(",\"\n\r") == std::string::npos)
    {
        return s;
    }
    return DoubledQuotes(s, '"');
}

std::string
Trim(std::string s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    {
        s.pop_back();
    }
    size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
    {
        ++i;
    }
    return s.substr(i);
}

std::string
Hostname()
{
    std::array<char, 256> h{};
    if (::gethostname(h.data(), h.size() - 1) != 0)
    {
        return "?";
    }
    return h.data();
}

std::string
Stamp()
{
    char s[32];
    std::time_t t = std::time(nullptr);
    std::strftime(s, sizeof(s), "%Y%m%d-%H%M%S", std::localtime(&t));
    return s;
}

std::string
ShellQuote(const std::string& s)
{
    std::string q = "'";
    for (char c : s)
    {
        if (c == '\'')
        {
            q += "'\\''";
        }
        else
        {
            q += c;
        }
    }
    return q + "'";
}

/// The key a ScenarioError message names ("faults.drop_rate: must be ..." -> "faults.drop_rate").
std::string
ErrorField(const std::string& msg)
{
    const size_t colon = msg.find(": ");
    if (colon == std::string::npos || msg.substr(0, colon).find(' ') != std::string::npos)
    {
        return "";
    }
    return msg.substr(0, colon);
}

bool
Covers(const std::string& key, const std::string& field)
{
    return !field.empty() && (field == key || field.rfind(key + ".", 0) == 0);
}

json
ApplyAll(json scenario, const ordered_json& assignments)
{
    for (auto it = assignments.begin(); it != assignments.end(); ++it)
    {
        ApplySet(scenario, it.key() + "=" + it.value().dump());
    }
    return scenario;
}

// ---- point state in a sweep directory

fs::path
LogPath(const fs::path& dir, const std::string& id)
{
    return dir / "logs" / (id + ".log");
}

fs::path
ExitPath(const fs::path& dir, const std::string& id)
{
    return dir / "logs" / (id + ".exit");
}

/// The exit status a finished attempt recorded, or -1 when there is none.
int
RecordedExit(const fs::path& dir, const std::string& id)
{
    std::ifstream f(ExitPath(dir, id));
    int rc = -1;
    if (!(f >> rc))
    {
        return -1;
    }
    return rc;
}

void
RecordExit(const fs::path& dir, const std::string& id, int rc)
{
    WriteAtomically(ExitPath(dir, id), std::to_string(rc) + "\n");
}

/// "key=value" fields of a log's first line ("# ai-fabric-sweep point=... engine=local ...").
std::map<std::string, std::string>
LogHeader(const fs::path& log)
{
    std::map<std::string, std::string> h;
    std::ifstream f(log);
    std::string line;
    if (!std::getline(f, line) || line.rfind("# ai-fabric-sweep ", 0) != 0)
    {
        return h;
    }
    std::istringstream is(line.substr(18));
    std::string field;
    while (is >> field)
    {
        const size_t eq = field.find('=');
        if (eq != std::string::npos)
        {
            h[field.substr(0, eq)] = field.substr(eq + 1);
        }
    }
    return h;
}

std::string
LastLine(const fs::path& log)
{
    std::ifstream f(log);
    std::string line;
    std::string last;
    while (std::getline(f, line))
    {
        if (!Trim(line).empty())
        {
            last = Trim(line);
        }
    }
    return last;
}

json
ReadManifest(const fs::path& dir)
{
    const fs::path m = dir / "sweep.json";
    if (!fs::exists(m))
    {
        throw ScenarioError(dir.string() + ": not a sweep directory (no sweep.json)");
    }
    json j;
    try
    {
        j = ReadJsonFile(m);
    }
    catch (const std::exception&)
    {
        throw ScenarioError(m.string() + ": not a valid sweep manifest");
    }
    if (j.value("format", std::string()) != kManifestFormat || !j.contains("points"))
    {
        throw ScenarioError(m.string() + ": not a valid sweep manifest (format " + kManifestFormat +
                            ")");
    }
    return j;
}

std::string
DescribeManifestPoint(const json& manifest, const json& p)
{
    std::string s;
    for (const auto& k : manifest["keys"])
    {
        s += k.get<std::string>() + "=" + Text(p["values"][k.get<std::string>()]) + " ";
    }
    return s + "seed=" + std::to_string(p["seed"].get<uint32_t>());
}

/// What Slurm says about this sweep's array tasks: point id -> squeue state code (R, PD, ...).
struct QueueView
{
    bool submitted{false};                    //!< the sweep has recorded Slurm jobs
    bool answered{false};                     //!< squeue ran and answered
    std::map<std::string, std::string> state; //!< point id -> squeue state
    std::map<std::string, std::string> final; //!< point id -> sacct state, when accounting is on
    std::vector<std::string> jobs;
};

QueueView
ReadQueue(const fs::path& dir)
{
    QueueView q;
    const fs::path jobsFile = dir / "slurm" / "jobs.json";
    if (!fs::exists(jobsFile))
    {
        return q;
    }
    json jobs = ReadJsonFile(jobsFile);
    std::map<std::string, std::vector<std::string>> tasks; // job id -> point ids by array index
    for (const auto& j : jobs)
    {
        const std::string id = j["job"].get<std::string>();
        q.jobs.push_back(id);
        std::ifstream f(dir / j["tasks"].get<std::string>());
        std::string line;
        while (std::getline(f, line))
        {
            tasks[id].push_back(Trim(line));
        }
    }
    q.submitted = !q.jobs.empty();
    auto pointOf = [&](const std::string& jobTask) -> std::string {
        const size_t us = jobTask.find('_');
        if (us == std::string::npos)
        {
            return "";
        }
        const auto it = tasks.find(jobTask.substr(0, us));
        const std::string idx = jobTask.substr(us + 1);
        if (it == tasks.end() || idx.empty() ||
            idx.find_first_not_of("0123456789") != std::string::npos)
        {
            return "";
        }
        const size_t i = std::stoul(idx);
        return i < it->second.size() ? it->second[i] : "";
    };
    // "<job id>|<state>" lines (squeue and sacct) -> state by point id.
    auto parseStates = [&pointOf](const std::string& text,
                                  std::map<std::string, std::string>& into) {
        std::istringstream is(text);
        std::string line;
        while (std::getline(is, line))
        {
            const size_t bar = line.find('|');
            if (bar == std::string::npos)
            {
                continue;
            }
            const std::string point = pointOf(Trim(line.substr(0, bar)));
            if (!point.empty())
            {
                into[point] = Trim(line.substr(bar + 1));
            }
        }
    };
    std::string text;
    ProcessOptions capture;
    capture.out = Output::CAPTURE;
    capture.err = Output::DISCARD;
    if (q.submitted && OnPath("squeue") &&
        RunProgram({"squeue", "-h", "-r", "-o", "%i|%t"}, capture, &text) == 0)
    {
        q.answered = true;
        parseStates(text, q.state);
    }
    std::string list;
    for (const auto& j : q.jobs)
    {
        list += (list.empty() ? "" : ",") + j;
    }
    if (q.submitted && OnPath("sacct") &&
        RunProgram({"sacct", "-n", "-X", "-P", "-o", "JobID,State", "-j", list}, capture, &text) ==
            0)
    {
        parseStates(text, q.final);
    }
    return q;
}

enum class PointState
{
    DONE,
    RUNNING,
    PENDING,
    FAILED,
    NOT_STARTED,
};

PointState
StateOf(const fs::path& dir, const std::string& id, const QueueView& q, std::string& why)
{
    if (PointDone(dir.string(), id))
    {
        return PointState::DONE;
    }
    const auto qs = q.state.find(id);
    if (qs != q.state.end())
    {
        return qs->second == "PD" ? PointState::PENDING : PointState::RUNNING;
    }
    const int rc = RecordedExit(dir, id);
    if (rc >= 0)
    {
        why = rc == 0 ? "exit status 0 but no summary.json" : "exit status " + std::to_string(rc);
        return PointState::FAILED;
    }
    const auto fin = q.final.find(id);
    if (fin != q.final.end() && fin->second != "COMPLETED" && fin->second != "RUNNING" &&
        fin->second != "PENDING")
    {
        why = "Slurm state " + fin->second;
        return PointState::FAILED;
    }
    const fs::path log = LogPath(dir, id);
    if (!fs::exists(log))
    {
        return PointState::NOT_STARTED;
    }
    const auto h = LogHeader(log);
    const auto engine = h.find("engine");
    if (engine != h.end() && engine->second == "local" && h.count("host") &&
        h.at("host") == Hostname() && h.count("pid"))
    {
        const pid_t pid = static_cast<pid_t>(std::atol(h.at("pid").c_str()));
        if (pid > 0 && ::kill(pid, 0) == 0)
        {
            return PointState::RUNNING;
        }
        why = "interrupted (no exit status recorded)";
        return PointState::FAILED;
    }
    if (engine != h.end() && engine->second == "slurm" && q.answered)
    {
        why = "its Slurm task ended without an exit status (killed, timed out or lost)";
        return PointState::FAILED;
    }
    return PointState::RUNNING;
}

// ---- gather

struct Row
{
    std::string pointId;
    uint32_t seed{0};
    std::map<std::string, json>
        values; //!< swept key -> value (the run's own value when it reports it)
    std::string run;
    std::string fabric;
    std::vector<std::pair<std::string, json>> metrics;

    const json* Metric(const std::string& name) const
    {
        for (const auto& m : metrics)
        {
            if (m.first == name)
            {
                return &m.second;
            }
        }
        return nullptr;
    }
};

void
Flatten(const json& j, const std::string& prefix, std::vector<std::pair<std::string, json>>& out)
{
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        const std::string k = prefix.empty() ? it.key() : prefix + "." + it.key();
        if (it.value().is_object())
        {
            Flatten(it.value(), k, out);
        }
        else if (!it.value().is_array())
        {
            out.emplace_back(k, it.value());
        }
    }
}

struct Collected
{
    json manifest;
    std::vector<std::string> keys;
    std::vector<std::string> zipKeys;
    std::vector<Row> rows;
    std::vector<std::string> metricColumns;
    bool fabricSwept{false};
    size_t missing{0};
    size_t points{0};
};

Collected
Collect(const fs::path& dir)
{
    Collected c;
    c.manifest = ReadManifest(dir);
    for (const auto& k : c.manifest["keys"])
    {
        c.keys.push_back(k.get<std::string>());
    }
    for (const auto& k : c.manifest.value("zip_keys", json::array()))
    {
        c.zipKeys.push_back(k.get<std::string>());
    }
    c.fabricSwept = std::find(c.keys.begin(), c.keys.end(), "fabric") != c.keys.end();
    const std::set<std::string> swept(c.keys.begin(), c.keys.end());
    std::set<std::string> seen;
    for (const auto& p : c.manifest["points"])
    {
        ++c.points;
        const std::string id = p["id"].get<std::string>();
        const fs::path summary = dir / id / "summary.json";
        if (!fs::exists(summary))
        {
            ++c.missing;
            continue;
        }
        const json s = ReadJsonFile(summary);
        for (const auto& run : s["runs"])
        {
            Row r;
            r.pointId = id;
            r.seed = p["seed"].get<uint32_t>();
            r.run = run.value("name", std::string());
            r.fabric = run.value("fabric", std::string());
            std::vector<std::pair<std::string, json>> flat;
            Flatten(run, "", flat);
            for (const auto& k : c.keys)
            {
                r.values[k] = p["values"][k];
            }
            for (auto& f : flat)
            {
                if (f.first == "name" || f.first == "fabric")
                {
                    continue;
                }
                if (swept.count(f.first))
                {
                    // A swept key the run reports itself (pfc, loss_recovery, ...): the run's
                    // value is the one it used (a compare entry may override the swept one).
                    r.values[f.first] = f.second;
                    continue;
                }
                if (seen.insert(f.first).second)
                {
                    c.metricColumns.push_back(f.first);
                }
                r.metrics.push_back(f);
            }
            if (c.fabricSwept)
            {
                r.values["fabric"] = r.fabric;
            }
            c.rows.push_back(std::move(r));
        }
    }
    return c;
}

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

std::string
Number(double v)
{
    std::ostringstream os;
    os << std::setprecision(10) << v;
    return os.str();
}

struct Figure
{
    std::string file;   //!< without extension
    std::string script; //!< gnuplot commands
    std::string data;   //!< the .dat file
};

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
    };
    return m;
}

/**
 * Figures of `metric` against swept key `x`: one line per series (fabric or run name, plus the
 * values of the other swept keys that vary), at each x the mean over the rows that share it
 * (the seeds), with min/max error bars.
 */
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
                series[l][r.values.at(x).get<double>()].push_back(v->get<double>() * m.scale);
            }
            if (series.empty())
            {
                continue;
            }
            Figure f;
            f.file = std::string(m.file) + "-vs-" + SafeFileName(x);
            std::ostringstream data;
            std::ostringstream plot;
            for (size_t i = 0; i < order.size(); ++i)
            {
                data << (i ? "\n\n" : "") << "# " << order[i]
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
                    data << Number(plotX(xv)) << " " << Number(xv) << " " << Number(mean) << " "
                         << Number(*std::min_element(ys.begin(), ys.end())) << " "
                         << Number(*std::max_element(ys.begin(), ys.end())) << " " << Number(sd)
                         << " " << ys.size() << "\n";
                }
                plot << (i ? ", \\\n     " : "plot ") << GnuplotString(f.file + ".dat") << " index "
                     << i << " using 1:3:4:5 with yerrorlines lw 2 pt 7 title "
                     << GnuplotString(order[i]);
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
                gp << "set logscale x\nset xrange [" << Number((xs.count(0) ? zeroAt : minPos) / 2)
                   << ":" << Number(maxX * 2) << "]\nset xtics (";
                bool first = true;
                for (double v : xs)
                {
                    gp << (first ? "" : ", ") << GnuplotString(v == 0 ? "0" : Number(v)) << " "
                       << Number(plotX(v));
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

} // namespace

// ---- sweep files

std::vector<std::string>
Sweep::Keys() const
{
    std::vector<std::string> k = gridKeys;
    k.insert(k.end(), zipKeys.begin(), zipKeys.end());
    return k;
}

std::string
Sweep::Describe(const SweepPoint& p) const
{
    std::string s;
    for (const auto& k : Keys())
    {
        s += k + "=" + Text(p.values[k]) + " ";
    }
    return s + "seed=" + std::to_string(p.seed);
}

uint64_t
Fnv1a64(const std::string& bytes)
{
    uint64_t h = 14695981039346656037ULL;
    for (unsigned char c : bytes)
    {
        h ^= c;
        h *= 1099511628211ULL;
    }
    return h;
}

json
CanonicalJson(const json& j)
{
    if (j.is_object())
    {
        json o = json::object();
        for (auto it = j.begin(); it != j.end(); ++it)
        {
            o[it.key()] = CanonicalJson(it.value());
        }
        return o;
    }
    if (j.is_array())
    {
        json a = json::array();
        for (const auto& e : j)
        {
            a.push_back(CanonicalJson(e));
        }
        return a;
    }
    if (j.is_number_float())
    {
        const double d = j.get<double>();
        if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9007199254740992.0)
        {
            if (d < 0)
            {
                return json(static_cast<int64_t>(d));
            }
            return json(static_cast<uint64_t>(d));
        }
    }
    if (j.is_number_integer() && !j.is_number_unsigned() && j.get<int64_t>() >= 0)
    {
        return json(j.get<uint64_t>());
    }
    return j;
}

std::string
PointId(const std::vector<RunConfig>& runs)
{
    json a = json::array();
    for (const auto& r : runs)
    {
        a.push_back(CanonicalJson(r.resolved));
    }
    std::ostringstream os;
    os << std::hex << std::setw(16) << std::setfill('0') << Fnv1a64(a.dump());
    return os.str();
}

Sweep
ExpandSweep(const std::string& text, const std::string& defaultName, const std::string& baseDir)
{
    ordered_json spec;
    try
    {
        spec = ordered_json::parse(text, nullptr, true, true);
    }
    catch (const ordered_json::parse_error& e)
    {
        throw ScenarioError("sweep file: not valid JSON (byte " + std::to_string(e.byte) + ")");
    }
    if (!spec.is_object())
    {
        throw ScenarioError("sweep file: must be a JSON object with base, grid, zip and seeds");
    }
    const std::vector<std::string> allowed = {"name", "base", "set", "grid", "zip", "seeds"};
    for (auto it = spec.begin(); it != spec.end(); ++it)
    {
        if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end())
        {
            continue;
        }
        size_t bestD = SIZE_MAX;
        const std::string best = ClosestKey(it.key(), allowed, bestD);
        std::string msg = it.key() + ": unknown sweep key";
        if (bestD <= 2)
        {
            msg += " (did you mean '" + best + "'?)";
        }
        throw ScenarioError(msg + "; allowed: name, base, set, grid, zip, seeds");
    }

    Sweep s;
    s.name = defaultName;
    if (spec.contains("name"))
    {
        const auto& n = spec["name"];
        if (!n.is_string() || n.get<std::string>().empty() || n.get<std::string>().size() > 100 ||
            n.get<std::string>().find_first_not_of(
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
                std::string::npos ||
            n.get<std::string>()[0] == '.')
        {
            throw ScenarioError(
                "name: must be 1 to 100 letters, digits, '.', '_' or '-' (not starting with '.')");
        }
        s.name = n.get<std::string>();
    }

    json base = json::object();
    if (spec.contains("base"))
    {
        const auto& b = spec["base"];
        if (b.is_string())
        {
            fs::path p = b.get<std::string>();
            if (p.is_relative())
            {
                p = fs::path(baseDir) / p;
            }
            try
            {
                base = LoadScenarioFile(p.string());
            }
            catch (const ScenarioError& e)
            {
                throw ScenarioError(std::string("base: ") + e.what());
            }
        }
        else if (b.is_object())
        {
            base = json::parse(b.dump());
        }
        else
        {
            throw ScenarioError("base: must be a scenario file name (relative to the sweep file) "
                                "or a scenario object");
        }
    }

    ordered_json set = ordered_json::object();
    if (spec.contains("set"))
    {
        if (!spec["set"].is_object())
        {
            throw ScenarioError(
                "set: must be an object of dotted key -> value (e.g. {\"workload.steps\": 1})");
        }
        set = spec["set"];
    }

    auto readLists = [&](const char* field) {
        std::vector<std::pair<std::string, std::vector<ordered_json>>> lists;
        if (!spec.contains(field))
        {
            return lists;
        }
        const auto& g = spec[field];
        if (!g.is_object())
        {
            throw ScenarioError(std::string(field) +
                                ": must be an object of dotted key -> list of values");
        }
        for (auto it = g.begin(); it != g.end(); ++it)
        {
            const std::string path = std::string(field) + "." + it.key();
            if (!it.value().is_array() || it.value().empty())
            {
                throw ScenarioError(path + ": must be a non-empty list of values");
            }
            if (it.key() == "seed")
            {
                throw ScenarioError(path + ": seeds are swept with the sweep's 'seeds' list");
            }
            if (it.key().empty() || it.key().front() == '.' || it.key().back() == '.' ||
                it.key().find("..") != std::string::npos)
            {
                throw ScenarioError(path +
                                    ": must be a dotted scenario key such as faults.drop_rate");
            }
            std::vector<ordered_json> values(it.value().begin(), it.value().end());
            if (std::string(field) == "grid")
            {
                std::set<std::string> seen;
                for (const auto& v : values)
                {
                    if (!seen.insert(CanonicalJson(json::parse(v.dump())).dump()).second)
                    {
                        throw ScenarioError(path + ": value " + v.dump() +
                                            " is listed twice; values must be distinct");
                    }
                }
            }
            lists.emplace_back(it.key(), values);
        }
        return lists;
    };
    const auto grid = readLists("grid");
    const auto zip = readLists("zip");
    if (grid.empty() && zip.empty())
    {
        throw ScenarioError("grid: empty; give at least one dotted key with a list of values "
                            "(e.g. \"grid\": {\"faults.drop_rate\": [0, 0.0001]})");
    }
    for (const auto& z : zip)
    {
        if (z.second.size() != zip.front().second.size())
        {
            throw ScenarioError("zip." + z.first + ": has " + std::to_string(z.second.size()) +
                                " values but zip." + zip.front().first + " has " +
                                std::to_string(zip.front().second.size()) +
                                "; zipped lists vary together and must have the same length");
        }
        for (const auto& g : grid)
        {
            if (g.first == z.first)
            {
                throw ScenarioError("zip." + z.first +
                                    ": is also a grid key; a key is either in grid or in zip");
            }
        }
    }
    for (const auto& g : grid)
    {
        s.gridKeys.push_back(g.first);
    }
    for (const auto& z : zip)
    {
        s.zipKeys.push_back(z.first);
    }

    if (spec.contains("seeds"))
    {
        const auto& sd = spec["seeds"];
        const std::string what =
            "seeds: must be a non-empty list of distinct integers >= 1 and <= 2147483647";
        if (!sd.is_array() || sd.empty())
        {
            throw ScenarioError(what);
        }
        std::set<uint32_t> seen;
        for (const auto& v : sd)
        {
            if (!v.is_number() || std::floor(v.get<double>()) != v.get<double>() ||
                v.get<double>() < 1 || v.get<double>() > 2147483647.0 ||
                !seen.insert(static_cast<uint32_t>(v.get<double>())).second)
            {
                throw ScenarioError(what + " (got " + v.dump() + ")");
            }
            s.seeds.push_back(static_cast<uint32_t>(v.get<double>()));
        }
    }

    // The base with the fixed overrides; its own errors are reported against base/set.
    json fixed;
    auto attribute = [&](const std::string& msg, const SweepPoint* p) -> ScenarioError {
        const std::string field = ErrorField(msg);
        for (const auto& g : s.gridKeys)
        {
            if (Covers(g, field))
            {
                return ScenarioError("grid." + msg);
            }
        }
        for (const auto& z : s.zipKeys)
        {
            if (Covers(z, field))
            {
                return ScenarioError("zip." + msg);
            }
        }
        const std::string where = p ? " (point " + s.Describe(*p) + ")" : "";
        for (auto it = set.begin(); it != set.end(); ++it)
        {
            if (Covers(it.key(), field))
            {
                return ScenarioError("set." + msg + where);
            }
        }
        return ScenarioError((field.empty() ? "base: " : "base.") + msg + where);
    };
    try
    {
        fixed = ApplyAll(base, set);
    }
    catch (const ScenarioError& e)
    {
        throw attribute(e.what(), nullptr);
    }
    if (s.seeds.empty())
    {
        s.seeds.push_back(fixed.contains("seed") && fixed["seed"].is_number_unsigned()
                              ? fixed["seed"].get<uint32_t>()
                              : 1);
    }

    size_t count = s.seeds.size() * (zip.empty() ? 1 : zip.front().second.size());
    for (const auto& g : grid)
    {
        count *= g.second.size();
        if (count > kMaxPoints)
        {
            throw ScenarioError("grid: more than " + std::to_string(kMaxPoints) +
                                " points; split the sweep");
        }
    }

    // Cartesian product of the grid (first key slowest), then the zip entries, then the seeds.
    std::vector<size_t> at(grid.size(), 0);
    const size_t zipN = zip.empty() ? 1 : zip.front().second.size();
    std::map<std::string, size_t> ids;
    bool more = true;
    while (more)
    {
        for (size_t z = 0; z < zipN; ++z)
        {
            for (uint32_t seed : s.seeds)
            {
                SweepPoint p;
                p.index = s.points.size();
                p.seed = seed;
                ordered_json assign = ordered_json::object();
                for (size_t g = 0; g < grid.size(); ++g)
                {
                    assign[grid[g].first] = grid[g].second[at[g]];
                }
                for (const auto& zl : zip)
                {
                    assign[zl.first] = zl.second[z];
                }
                p.values = json::object();
                for (auto it = assign.begin(); it != assign.end(); ++it)
                {
                    p.values[it.key()] = CanonicalJson(json::parse(it.value().dump()));
                }
                std::vector<RunConfig> runs;
                try
                {
                    json scenario = ApplyAll(fixed, assign);
                    scenario["seed"] = seed;
                    p.scenario = CanonicalJson(scenario);
                    runs = ResolveScenario(p.scenario);
                }
                catch (const ScenarioError& e)
                {
                    // Blame the base only when it fails on its own.
                    try
                    {
                        ResolveScenario(fixed);
                    }
                    catch (const ScenarioError& be)
                    {
                        throw attribute(be.what(), nullptr);
                    }
                    throw attribute(e.what(), &p);
                }
                p.id = PointId(runs);
                for (const auto& r : runs)
                {
                    p.runs.push_back(r.name);
                }
                const auto dup = ids.find(p.id);
                if (dup != ids.end())
                {
                    throw ScenarioError("grid: points '" + s.Describe(s.points[dup->second]) +
                                        "' and '" + s.Describe(p) +
                                        "' resolve to the same configuration (id " + p.id +
                                        "); a swept value has no effect (is it overridden by every "
                                        "compare entry?)");
                }
                ids[p.id] = p.index;
                s.points.push_back(std::move(p));
            }
        }
        // Next grid combination: the last key varies fastest.
        more = false;
        for (size_t g = grid.size(); g-- > 0;)
        {
            if (++at[g] < grid[g].second.size())
            {
                more = true;
                break;
            }
            at[g] = 0;
        }
    }
    return s;
}

Sweep
LoadSweep(const std::string& path)
{
    std::ifstream f(path);
    if (!f || fs::is_directory(path))
    {
        throw ScenarioError("sweep file '" + path + "': cannot be read (missing or no permission)");
    }
    std::stringstream ss;
    ss << f.rdbuf();
    Sweep s;
    try
    {
        s = ExpandSweep(ss.str(),
                        fs::path(path).stem().string(),
                        fs::absolute(path).parent_path().string());
    }
    catch (const ScenarioError& e)
    {
        const std::string msg = e.what();
        if (msg.rfind("sweep file: ", 0) == 0)
        {
            throw ScenarioError("sweep file '" + path + "': " + msg.substr(12));
        }
        throw;
    }
    s.source = fs::absolute(path).string();
    return s;
}

// ---- sweep directories

void
CheckSweepDirectory(const Sweep& sweep, const std::string& dir)
{
    std::error_code ec;
    if (dir.empty())
    {
        throw ScenarioError("--out: must name a directory");
    }
    if (!fs::exists(dir, ec))
    {
        fs::path parent = fs::absolute(dir, ec).parent_path();
        while (!parent.empty() && !fs::exists(parent, ec))
        {
            parent = parent.parent_path();
        }
        if (parent.empty() || ::access(parent.c_str(), W_OK) != 0)
        {
            throw ScenarioError("--out: cannot create '" + dir + "' (no write permission in '" +
                                parent.string() + "')");
        }
        return;
    }
    if (!fs::is_directory(dir, ec))
    {
        throw ScenarioError("--out: '" + dir + "' exists and is not a directory");
    }
    if (fs::is_empty(dir, ec))
    {
        return;
    }
    if (!fs::exists(fs::path(dir) / "sweep.json"))
    {
        throw ScenarioError("--out: '" + dir +
                            "' exists and is not a sweep directory (choose a new directory)");
    }
    json m;
    try
    {
        m = ReadManifest(dir);
    }
    catch (const ScenarioError& e)
    {
        throw ScenarioError(std::string("--out: ") + e.what());
    }
    if (m.value("sweep", std::string()) != sweep.name)
    {
        throw ScenarioError("--out: '" + dir + "' holds sweep '" + m.value("sweep", std::string()) +
                            "', not '" + sweep.name + "' (choose another directory)");
    }
    if (::access(dir.c_str(), W_OK) != 0)
    {
        throw ScenarioError("--out: '" + dir + "' is not writable");
    }
}

bool
PointDone(const std::string& dir, const std::string& id)
{
    std::error_code ec;
    return fs::is_regular_file(fs::path(dir) / id / "summary.json", ec);
}

std::vector<std::string>
RunnerArguments(const std::string& runner, const std::string& dir, const std::string& id)
{
    const fs::path d = fs::absolute(dir);
    return {runner,
            (d / "points" / (id + ".json")).string(),
            "--quiet",
            "--out",
            (d / id).string()};
}

void
PrepareSweepDirectory(const Sweep& sweep, const std::string& dir, const std::string& runner)
{
    const fs::path d = fs::absolute(dir);
    fs::create_directories(d / "points");
    fs::create_directories(d / "logs");
    json manifest;
    manifest["format"] = kManifestFormat;
    manifest["sweep"] = sweep.name;
    manifest["source"] = sweep.source;
    manifest["runner"] = runner;
    manifest["written"] = Stamp();
    manifest["point_id"] =
        "FNV-1a 64 (hex) of the canonical JSON list of the point's resolved runs";
    manifest["keys"] = sweep.Keys();
    manifest["grid_keys"] = sweep.gridKeys;
    manifest["zip_keys"] = sweep.zipKeys;
    manifest["seeds"] = sweep.seeds;
    manifest["points"] = json::array();
    std::vector<std::string> stale;
    for (const auto& p : sweep.points)
    {
        const fs::path scenario = d / "points" / (p.id + ".json");
        const std::string text = p.scenario.dump(2) + "\n";
        if (!fs::exists(scenario) || ReadText(scenario) != text)
        {
            WriteAtomically(scenario, text);
        }
        if (!PointDone(d.string(), p.id))
        {
            std::error_code ec;
            fs::remove(ExitPath(d, p.id), ec);
            stale.push_back(".tmp-" + p.id + "-");
        }
        manifest["points"].push_back(json{{"index", p.index},
                                          {"id", p.id},
                                          {"seed", p.seed},
                                          {"values", p.values},
                                          {"runs", p.runs},
                                          {"scenario", "points/" + p.id + ".json"}});
    }
    WriteAtomically(d / "sweep.json", manifest.dump(2) + "\n");
    // A killed runner leaves its temporary directory (".tmp-<id>-<pid>"); nothing runs these
    // points now (the engines refuse while Slurm still has some), so they can go.
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(d, ec))
    {
        const std::string name = e.path().filename().string();
        for (const auto& prefix : stale)
        {
            if (name.rfind(prefix, 0) == 0)
            {
                fs::remove_all(e.path(), ec);
                break;
            }
        }
    }
}

int
RunLocal(const Sweep& sweep,
         const std::string& dir,
         const std::string& runner,
         const LocalOptions& options,
         std::ostream& out,
         std::ostream& err)
{
    const fs::path d = fs::absolute(dir);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<const SweepPoint*> todo;
    for (const auto& p : sweep.points)
    {
        if (!PointDone(d.string(), p.id))
        {
            todo.push_back(&p);
        }
    }
    const size_t skipped = sweep.points.size() - todo.size();
    if (todo.empty())
    {
        out << "sweep '" << sweep.name << "': all " << sweep.points.size()
            << " points already done; nothing to run (results in " << d.string() << ")"
            << std::endl;
        return 0;
    }
    const unsigned jobs = std::max(1u, options.jobs);
    if (!options.quiet)
    {
        err << "sweep '" << sweep.name << "': running " << todo.size() << " of "
            << sweep.points.size() << " points (" << skipped << " already done), " << jobs
            << " at a time" << std::endl;
    }

    struct Running
    {
        const SweepPoint* point;
        std::chrono::steady_clock::time_point start;
    };

    std::map<pid_t, Running> running;
    std::vector<const SweepPoint*> failed;
    size_t next = 0;
    size_t finished = 0;
    while (next < todo.size() || !running.empty())
    {
        while (running.size() < jobs && next < todo.size())
        {
            const SweepPoint* p = todo[next++];
            const fs::path log = LogPath(d, p->id);
            std::error_code ec;
            fs::remove(ExitPath(d, p->id), ec);
            const std::vector<std::string> args = RunnerArguments(runner, d.string(), p->id);
            {
                // The header names this engine's pid: --status tells running from interrupted.
                std::ofstream f(log, std::ios::trunc);
                f << "# ai-fabric-sweep point=" << p->id << " engine=local host=" << Hostname()
                  << " pid=" << ::getpid() << "\n";
            }
            ProcessOptions o;
            o.searchPath = false;
            o.out = Output::APPEND;
            o.outFile = log.string();
            o.err = Output::AS_STDOUT;
            int rc = 0;
            const pid_t pid = StartProgram(args, o, rc);
            if (pid < 0)
            {
                std::ofstream(log, std::ios::app)
                    << "cannot start " << args[0] << ": " << std::strerror(rc) << "\n";
                RecordExit(d, p->id, 127);
                failed.push_back(p);
                ++finished;
                continue;
            }
            running[pid] = Running{p, std::chrono::steady_clock::now()};
        }
        if (running.empty())
        {
            continue;
        }
        int st = 0;
        const pid_t pid = ::waitpid(-1, &st, 0);
        if (pid < 0)
        {
            if (errno == EINTR)
            {
                continue;
            }
            throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
        }
        const auto it = running.find(pid);
        if (it == running.end())
        {
            continue;
        }
        const SweepPoint* p = it->second.point;
        const double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - it->second.start)
                .count();
        running.erase(it);
        const int rc = ExitStatus(st);
        RecordExit(d, p->id, rc);
        ++finished;
        const bool ok = rc == 0 && PointDone(d.string(), p->id);
        if (!ok)
        {
            failed.push_back(p);
        }
        if (!options.quiet)
        {
            err << "[" << finished << "/" << todo.size() << "] " << p->id << " "
                << sweep.Describe(*p) << ": "
                << (ok ? "done" : "FAILED (exit status " + std::to_string(rc) + ")") << " in "
                << std::fixed << std::setprecision(1) << secs << " s" << std::defaultfloat
                << std::endl;
        }
    }
    for (const SweepPoint* p : failed)
    {
        err << "ai-fabric: point " << p->id << " (" << sweep.Describe(*p)
            << ") failed with exit status " << RecordedExit(d, p->id)
            << "; log: " << LogPath(d, p->id).string() << std::endl;
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out << "sweep '" << sweep.name << "': " << sweep.points.size() << " points: ran " << todo.size()
        << " (" << failed.size() << " failed), skipped " << skipped << " already done, in "
        << std::fixed << std::setprecision(1) << wall << " s" << std::defaultfloat
        << "; results in " << d.string() << std::endl;
    return failed.empty() ? 0 : 1;
}

void
CheckSlurmOptions(const SlurmOptions& o)
{
    auto only = [](const std::string& v, const char* chars) {
        return v.find_first_not_of(chars) == std::string::npos;
    };
    if (!o.partition.empty() &&
        !only(o.partition, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,-"))
    {
        throw ScenarioError(
            "--partition: must be a partition name (letters, digits, '_', '.', '-', ',')");
    }
    if (!o.account.empty() &&
        !only(o.account, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"))
    {
        throw ScenarioError("--account: must be an account name (letters, digits, '_', '.', '-')");
    }
    if (!o.time.empty() && (!only(o.time, "0123456789:-") ||
                            !std::isdigit(static_cast<unsigned char>(o.time.front())) ||
                            !std::isdigit(static_cast<unsigned char>(o.time.back()))))
    {
        throw ScenarioError(
            "--time: must be a Slurm time limit: minutes, MM:SS, HH:MM:SS, D-HH or D-HH:MM:SS");
    }
    if (!o.mem.empty())
    {
        std::string digits = o.mem;
        if (std::string("KMGTkmgt").find(digits.back()) != std::string::npos)
        {
            digits.pop_back();
        }
        if (digits.empty() || !only(digits, "0123456789"))
        {
            throw ScenarioError(
                "--mem: must be a size in MB or with a K, M, G or T suffix (e.g. 4G)");
        }
    }
    if (o.throttle < 1)
    {
        throw ScenarioError("--throttle: must be an integer >= 1");
    }
    if (o.maxArray < 1)
    {
        throw ScenarioError("--max-array: must be an integer >= 1");
    }
}

std::string
SlurmScript(const Sweep& sweep,
            const std::string& dir,
            const std::string& runner,
            const std::string& tasksFile,
            size_t count,
            const SlurmOptions& o)
{
    const fs::path d = fs::absolute(dir);
    std::ostringstream s;
    s << "#!/bin/bash\n"
      << "# Generated by ai-fabric sweep: one array task per unfinished point of sweep '"
      << sweep.name << "'.\n"
      << "#SBATCH --job-name=aif-" << sweep.name << "\n"
      << "#SBATCH --array=0-" << count - 1 << "%" << std::min<size_t>(o.throttle, count) << "\n"
      << "#SBATCH --ntasks=1\n"
      << "#SBATCH --cpus-per-task=1\n"
      << "#SBATCH --output=" << (d / "slurm" / "%A_%a.out").string() << "\n";
    if (!o.partition.empty())
    {
        s << "#SBATCH --partition=" << o.partition << "\n";
    }
    if (!o.account.empty())
    {
        s << "#SBATCH --account=" << o.account << "\n";
    }
    if (!o.time.empty())
    {
        s << "#SBATCH --time=" << o.time << "\n";
    }
    if (!o.mem.empty())
    {
        s << "#SBATCH --mem=" << o.mem << "\n";
    }
    s << "set -u\n"
      << "dir=" << ShellQuote(d.string()) << "\n"
      << "runner=" << ShellQuote(runner) << "\n"
      << "# Array task k runs the point on line k+1 of the task list (written from the manifest).\n"
      << "id=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" " << ShellQuote((d / tasksFile).string())
      << ")\n"
      << "if [ -z \"$id\" ]; then echo \"no point for array task $SLURM_ARRAY_TASK_ID\" >&2; exit "
         "1; fi\n"
      << "if [ -f \"$dir/$id/summary.json\" ]; then echo \"point $id already done\"; exit 0; fi\n"
      << "log=\"$dir/logs/$id.log\"\n"
      << "rm -f \"$dir/logs/$id.exit\"\n"
      << "echo \"# ai-fabric-sweep point=$id engine=slurm "
         "job=${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID} "
         "host=$(hostname)\" >\"$log\"\n"
      << "# The same runner and arguments as the local engine.\n"
      << "\"$runner\" \"$dir/points/$id.json\" --quiet --out \"$dir/$id\" >>\"$log\" 2>&1\n"
      << "rc=$?\n"
      << "echo \"$rc\" >\"$dir/logs/.$id.exit.tmp-$$\" && mv -f \"$dir/logs/.$id.exit.tmp-$$\" "
         "\"$dir/logs/$id.exit\"\n"
      << "exit $rc\n";
    return s.str();
}

int
SubmitSlurm(const Sweep& sweep,
            const std::string& dir,
            const std::string& runner,
            const SlurmOptions& o,
            std::ostream& out,
            std::ostream& err)
{
    const fs::path d = fs::absolute(dir);
    std::vector<std::string> todo;
    for (const auto& p : sweep.points)
    {
        if (!PointDone(d.string(), p.id))
        {
            todo.push_back(p.id);
        }
    }
    if (todo.empty())
    {
        out << "sweep '" << sweep.name << "': all " << sweep.points.size()
            << " points already done; nothing submitted (results in " << d.string() << ")"
            << std::endl;
        return 0;
    }
    fs::create_directories(d / "slurm");
    const std::string stamp = Stamp() + "-" + std::to_string(::getpid());
    for (size_t first = 0, k = 0; first < todo.size(); first += o.maxArray, ++k)
    {
        const size_t n = std::min<size_t>(o.maxArray, todo.size() - first);
        const std::string base = "slurm/array-" + stamp + "-" + std::to_string(k);
        std::string tasks;
        for (size_t i = first; i < first + n; ++i)
        {
            tasks += todo[i] + "\n";
        }
        WriteAtomically(d / (base + ".tasks"), tasks);
        WriteAtomically(d / (base + ".sbatch"),
                        SlurmScript(sweep, d.string(), runner, base + ".tasks", n, o));
        std::string output;
        ProcessOptions submit;
        submit.out = Output::CAPTURE;
        submit.err = Output::TRUNCATE;
        submit.errFile = (d / (base + ".submit.err")).string();
        const int rc = RunProgram({"sbatch", "--parsable", (d / (base + ".sbatch")).string()},
                                  submit,
                                  &output);
        const std::string job = Trim(output.substr(0, output.find(';')));
        if (rc != 0 || job.empty() || job.find_first_not_of("0123456789") != std::string::npos)
        {
            err << "ai-fabric: sbatch failed (exit status " << rc
                << "): " << LastLine(d / (base + ".submit.err")) << " (script "
                << (d / (base + ".sbatch")).string() << ")" << std::endl;
            return 1;
        }
        json jobs = json::array();
        if (fs::exists(d / "slurm" / "jobs.json"))
        {
            jobs = ReadJsonFile(d / "slurm" / "jobs.json");
        }
        jobs.push_back(json{{"job", job},
                            {"tasks", base + ".tasks"},
                            {"script", base + ".sbatch"},
                            {"points", n},
                            {"submitted", Stamp()}});
        WriteAtomically(d / "slurm" / "jobs.json", jobs.dump(2) + "\n");
        out << "submitted job " << job << ": " << n << " points as array 0-" << n - 1 << "%"
            << std::min<size_t>(o.throttle, n) << " (" << (d / (base + ".sbatch")).string() << ")"
            << std::endl;
    }
    out << "sweep '" << sweep.name << "': " << todo.size() << " of " << sweep.points.size()
        << " points submitted, " << sweep.points.size() - todo.size()
        << " already done; status: ./ai-fabric sweep --status " << d.string() << std::endl;
    return 0;
}

size_t
QueuedPoints(const std::string& dir)
{
    if (!fs::exists(fs::path(dir) / "sweep.json"))
    {
        return 0;
    }
    return ReadQueue(fs::absolute(dir)).state.size();
}

int
SweepStatus(const std::string& dir, std::ostream& out, SweepStatusCounts* counts)
{
    const fs::path d = fs::absolute(dir);
    const json m = ReadManifest(d);
    const QueueView q = ReadQueue(d);
    SweepStatusCounts c;
    std::vector<std::string> failedLines;
    for (const auto& p : m["points"])
    {
        const std::string id = p["id"].get<std::string>();
        std::string why;
        switch (StateOf(d, id, q, why))
        {
        case PointState::DONE:
            ++c.done;
            break;
        case PointState::RUNNING:
            ++c.running;
            break;
        case PointState::PENDING:
            ++c.pending;
            break;
        case PointState::NOT_STARTED:
            ++c.notStarted;
            break;
        case PointState::FAILED: {
            ++c.failed;
            const std::string last = LastLine(LogPath(d, id));
            failedLines.push_back("  failed " + id + " (" + DescribeManifestPoint(m, p) +
                                  "): " + why + "; log " + LogPath(d, id).string() +
                                  (last.empty() ? "" : "\n      " + last));
            break;
        }
        }
    }
    out << "sweep '" << m["sweep"].get<std::string>() << "' in " << d.string() << ": "
        << m["points"].size() << " points: " << c.done << " done, " << c.running << " running, "
        << c.pending << " pending, " << c.failed << " failed, " << c.notStarted << " not started";
    if (q.submitted)
    {
        out << " (Slurm jobs";
        for (const auto& j : q.jobs)
        {
            out << " " << j;
        }
        out << (q.answered ? "" : "; squeue unavailable") << ")";
    }
    out << "\n";
    for (const auto& l : failedLines)
    {
        out << l << "\n";
    }
    out.flush();
    if (counts)
    {
        *counts = c;
    }
    if (c.running + c.pending > 0)
    {
        return 3;
    }
    return c.failed + c.notStarted > 0 ? 1 : 0;
}

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
       << "set terminal pngcairo noenhanced size 900,560\nset grid\nset key outside right top\n"
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

// SPDX-License-Identifier: GPL-2.0-only
#include "report.h"

#include "file-util.h"
#include "json-input.h"
#include "report-assets.h"
#include "results-writer.h"
#include "scenario.h"
#include "sweep-collect.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace aifabric
{

using nlohmann::json;
namespace fs = std::filesystem;

namespace
{

const char* const kDataMark = "/*AIF-DATA*/";
const char* const kScriptMark = "/*AIF-JS*/";

/// How many data lines a CSV text has (lines after the header).
size_t
CsvRows(const std::string& csv)
{
    const size_t lines = static_cast<size_t>(std::count(csv.begin(), csv.end(), '\n'));
    return lines > 0 ? lines - 1 : 0;
}

/// A run's CSV trace for the page: at most `maxRows` rows, and what was left out in `note`.
std::string
Embed(const fs::path& file, size_t maxRows, const char* what, std::string& note)
{
    const std::string all = ReadText(file);
    bool trimmed = false;
    std::string kept = FirstCsvRows(all, maxRows, trimmed);
    if (trimmed)
    {
        note += std::string(note.empty() ? "" : "; ") + "the first " + std::to_string(maxRows) +
                " of " + std::to_string(CsvRows(all)) + " rows of " + what +
                " are on this page (the file has them all)";
    }
    return kept;
}

} // namespace

std::string
FirstCsvRows(const std::string& csv, size_t maxRows, bool& trimmed)
{
    trimmed = false;
    size_t pos = csv.find('\n');
    if (pos == std::string::npos)
    {
        return csv;
    }
    for (size_t i = 0; i < maxRows; ++i)
    {
        pos = csv.find('\n', pos + 1);
        if (pos == std::string::npos)
        {
            return csv;
        }
    }
    trimmed = pos + 1 < csv.size();
    return csv.substr(0, pos + 1);
}

std::string
EmbeddedJson(const json& data)
{
    // '<', '>' and '&' occur in JSON only inside strings, where \u escapes mean the same.
    const std::string text = data.dump(-1, ' ', false, json::error_handler_t::replace);
    std::string out;
    out.reserve(text.size() + 64);
    for (const char c : text)
    {
        switch (c)
        {
        case '<':
            out += "\\u003c";
            break;
        case '>':
            out += "\\u003e";
            break;
        case '&':
            out += "\\u0026";
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::string
ReportPage(const json& data)
{
    const std::string page = report_assets::kPage;
    const size_t d = page.find(kDataMark);
    const size_t s = page.find(kScriptMark);
    if (d == std::string::npos || s == std::string::npos || s < d)
    {
        throw std::logic_error("runner/output/report/report.html lacks its data or script mark");
    }
    // Assembled by position: a mark inside the data cannot be mistaken for the template's.
    return page.substr(0, d) + EmbeddedJson(data) +
           page.substr(d + std::char_traits<char>::length(kDataMark),
                       s - d - std::char_traits<char>::length(kDataMark)) +
           report_assets::kScript + page.substr(s + std::char_traits<char>::length(kScriptMark));
}

std::vector<std::string>
PngFiles(const fs::path& dir)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
    {
        if (e.is_regular_file() && e.path().extension() == ".png")
        {
            out.push_back(e.path().filename().string());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

json
RunReportData(const fs::path& dir)
{
    // Someone else's results directory: what is wrong with its summary is bad input (exit 2,
    // naming the file), not an internal error.
    const std::string file = EchoText((dir / "summary.json").string());
    json summary;
    try
    {
        summary = ReadJsonFile(dir / "summary.json");
    }
    catch (const std::exception& e)
    {
        throw ScenarioError(file + ": " + e.what());
    }
    if (!summary.is_object() || !summary.contains("runs") || !summary["runs"].is_array())
    {
        throw ScenarioError(file + ": no list \"runs\"");
    }
    std::vector<std::string> names;
    for (const auto& r : summary["runs"])
    {
        names.push_back(r.value("name", std::string()));
    }
    json data;
    data["kind"] = "run";
    data["title"] = summary.value("scenario", std::string("run"));
    data["summary"] = summary;
    data["figures"] = PngFiles(dir);
    data["runs"] = json::array();
    for (const std::string& sub : RunDirectoryNames(names))
    {
        const fs::path d = dir / sub;
        std::string note;
        json run;
        run["dir"] = sub;
        run["figures"] = PngFiles(d);
        run["steps_csv"] = Embed(d / "steps.csv", kMaxRunStepRows, "steps.csv", note);
        run["timeline_csv"] =
            fs::exists(d / "timeline.csv")
                ? Embed(d / "timeline.csv", kMaxRunTimelineRows, "timeline.csv", note)
                : std::string();
        run["trimmed"] = note;
        data["runs"].push_back(run);
    }
    return data;
}

void
WriteRunReport(const fs::path& dir)
{
    WriteAtomically(dir / "index.html", ReportPage(RunReportData(dir)));
}

void
WriteSweepReport(const fs::path& gathered, const fs::path& sweepDir, const Collected& c)
{
    json data;
    data["kind"] = "sweep";
    data["title"] = c.manifest.value("sweep", std::string());
    data["keys"] = c.keys;
    data["missing"] = c.missing;
    data["csv"] = ReadText(gathered / "results.csv");
    data["figures"] = PngFiles(gathered);
    // Each point's runs in the order of its summary, so that their directories are named as
    // the runner named them.
    std::map<std::string, std::vector<std::string>> runsOf;
    std::vector<std::string> order;
    for (const Row& r : c.rows)
    {
        if (!runsOf.count(r.pointId))
        {
            order.push_back(r.pointId);
        }
        runsOf[r.pointId].push_back(r.run);
    }
    json waves = json::object();
    size_t bytes = 0;
    size_t trimmed = 0;
    size_t left = 0;
    for (const std::string& id : order)
    {
        const std::vector<std::string>& names = runsOf[id];
        const std::vector<std::string> dirs = RunDirectoryNames(names);
        for (size_t i = 0; i < names.size(); ++i)
        {
            bool cut = false;
            std::string steps =
                FirstCsvRows(ReadText(sweepDir / id / dirs[i] / "steps.csv"), kMaxWaveRows, cut);
            if (bytes + steps.size() > kMaxWaveBytes)
            {
                ++left;
                continue;
            }
            bytes += steps.size();
            trimmed += cut ? 1 : 0;
            waves[id + "/" + names[i]] = std::move(steps);
        }
    }
    data["waves"] = waves;
    std::string note;
    if (trimmed > 0)
    {
        note = std::to_string(trimmed) + " runs' waves show their first " +
               std::to_string(kMaxWaveRows) + " rows of steps.csv.";
    }
    if (left > 0)
    {
        note += std::string(note.empty() ? "" : " ") + std::to_string(left) +
                " runs have no wave on this page (it holds at most " +
                std::to_string(kMaxWaveBytes >> 20) +
                " MiB of steps); their steps.csv is in the point's directory.";
    }
    data["waves_note"] = note;
    WriteAtomically(gathered / "index.html", ReportPage(data));
}

} // namespace aifabric

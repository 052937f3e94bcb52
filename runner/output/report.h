// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_REPORT_H
#define AI_FABRIC_REPORT_H

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace aifabric
{

/**
 * The results page, index.html: self-contained (its style, script and data are in the file; it
 * loads nothing from a network and opens from file://), figures referenced by relative path.
 * `data` is embedded as JSON in a <script type="application/json"> element, with '<', '>' and
 * '&' written as \u escapes so that no string in it can end the element.
 */
std::string ReportPage(const nlohmann::json& data);

/// The JSON a page embeds (ReportPage's escaping); JSON.parse and json::parse read it unchanged.
std::string EmbeddedJson(const nlohmann::json& data);

/// The run page's data for a results directory (summary.json, each run's steps.csv,
/// timeline.csv and figures). Throws std::runtime_error when summary.json cannot be read.
nlohmann::json RunReportData(const std::filesystem::path& dir);

/// Write DIR/index.html, the run page of a results directory (RunReportData).
void WriteRunReport(const std::filesystem::path& dir);

struct Collected;

/**
 * Write GATHERED/index.html, the sweep page: GATHERED/results.csv as written there, the swept
 * keys and, per run of each finished point of SWEEP_DIR, its steps.csv (the synchronization
 * wave), at most kMaxWaveRows rows a run and kMaxWaveBytes in all (the page says what is left
 * out).
 */
void WriteSweepReport(const std::filesystem::path& gathered,
                      const std::filesystem::path& sweepDir,
                      const Collected& c);

/// The most steps.csv rows the sweep page embeds per run, and in all its runs' bytes.
constexpr size_t kMaxWaveRows = 20000;
constexpr size_t kMaxWaveBytes = 16u << 20;
/// The most steps.csv and timeline.csv rows the run page embeds per run.
constexpr size_t kMaxRunStepRows = 200000;
constexpr size_t kMaxRunTimelineRows = 100000;

/// The .png files directly in `dir`, sorted by name.
std::vector<std::string> PngFiles(const std::filesystem::path& dir);

/// At most `maxRows` data lines of a CSV text (the header kept); `trimmed` tells if any went.
std::string FirstCsvRows(const std::string& csv, size_t maxRows, bool& trimmed);

} // namespace aifabric

#endif

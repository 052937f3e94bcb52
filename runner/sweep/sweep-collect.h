// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SWEEP_COLLECT_H
#define AI_FABRIC_SWEEP_COLLECT_H

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace aifabric
{

/// One run of one finished point: its swept values and its summary's metrics, flattened.
struct Row
{
    std::string pointId;
    uint32_t seed{0};
    std::map<std::string, nlohmann::json>
        values; //!< swept key -> value (the run's own value when it reports it)
    std::string run;
    std::string fabric;
    std::vector<std::pair<std::string, nlohmann::json>> metrics;

    const nlohmann::json* Metric(const std::string& name) const
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

/// Every finished point's summary in a sweep directory, as rows.
struct Collected
{
    nlohmann::json manifest;
    std::vector<std::string> keys;
    std::vector<std::string> zipKeys;
    std::vector<Row> rows;
    std::vector<std::string> metricColumns;
    bool fabricSwept{false};
    size_t missing{0};
    size_t points{0};
};

/// Read the manifest and every finished point's summary.json of a sweep directory.
Collected Collect(const std::filesystem::path& dir);

} // namespace aifabric

#endif

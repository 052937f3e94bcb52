// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-flows.h"

#include "file-util.h"
#include "json-input.h"

#include "ns3/double.h"

#include <filesystem>

namespace aifabric
{

using nlohmann::json;

ns3::FlowSizeDistribution
LoadFlowSizes(const std::string& cdf)
{
    for (const std::string& name : ns3::FlowSizeDistribution::Names())
    {
        if (cdf == name)
        {
            return ns3::FlowSizeDistribution::Named(name);
        }
    }
    // The error_code forms throughout: a path the system refuses (too long, no permission)
    // is bad input too, never an exception of its own.
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(cdf, ec);
    if (st.type() == fs::file_type::directory)
    {
        throw ns3::FlowSizeDistribution::Error("'" + EchoText(cdf) +
                                               "' is a directory (built in: websearch, "
                                               "fb-hadoop; or a file of 'bytes "
                                               "cumulative-percent' lines)");
    }
    if (st.type() == fs::file_type::not_found || st.type() == fs::file_type::none)
    {
        throw ns3::FlowSizeDistribution::Error("'" + EchoText(cdf) +
                                               "' is neither websearch, fb-hadoop nor a file");
    }
    // A regular, non-empty file of at most 1 MiB: procfs files (size 0) can block on read.
    const uintmax_t size = st.type() == fs::file_type::regular ? fs::file_size(cdf, ec) : 0;
    if (ec || size == 0 || size > (1 << 20))
    {
        throw ns3::FlowSizeDistribution::Error("'" + EchoText(cdf) +
                                               "' must be a non-empty regular file of at most "
                                               "1 MiB");
    }
    // The path is the user's (cut when echoed); the reason after it is ours and short.
    std::string text;
    try
    {
        text = ReadInputFile(cdf, 1 << 20); // not blocking if it became a FIFO meanwhile
    }
    catch (const std::runtime_error& e)
    {
        throw ns3::FlowSizeDistribution::Error("'" + EchoText(cdf) + "' " + e.what());
    }
    return ns3::FlowSizeDistribution::FromText(text, "'" + EchoText(cdf) + "'");
}

std::shared_ptr<const ns3::ConnectionMatrix>
LoadMatrix(const std::string& path)
{
    namespace fs = std::filesystem;
    const std::string shown = "'" + EchoText(path) + "'";
    if (path.empty())
    {
        throw ScenarioError("workload.matrix: missing (workload.kind matrix runs an htsim "
                            "connection matrix file, relative to the scenario file)");
    }
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (st.type() == fs::file_type::not_found || st.type() == fs::file_type::none)
    {
        throw ScenarioError("workload.matrix: " + shown + " does not exist");
    }
    // A regular, non-empty file within the limit: procfs files (size 0) can block on read.
    const uintmax_t size = st.type() == fs::file_type::regular ? fs::file_size(path, ec) : 0;
    if (ec || size == 0 || size > kMaxMatrixFileBytes)
    {
        throw ScenarioError("workload.matrix: " + shown +
                            " must be a non-empty regular file of at most " +
                            std::to_string(kMaxMatrixFileBytes >> 20) + " MiB");
    }
    std::string text;
    try
    {
        // Not blocking, nor reading past the limit, if it became a FIFO or grew meanwhile.
        text = ReadInputFile(path, kMaxMatrixFileBytes);
    }
    catch (const std::runtime_error& e)
    {
        throw ScenarioError("workload.matrix: " + shown + " " + e.what());
    }
    try
    {
        return std::make_shared<const ns3::ConnectionMatrix>(
            ns3::ConnectionMatrix::FromText(text, shown));
    }
    catch (const ns3::ConnectionMatrix::Error& e)
    {
        throw ScenarioError("workload.matrix: " + std::string(e.what()));
    }
}

void
AnchorScenarioPaths(json& scenario, const std::string& dir)
{
    namespace fs = std::filesystem;
    auto anchor = [&dir](json& s) {
        if (!s.is_object() || !s.contains("workload") || !s["workload"].is_object())
        {
            return;
        }
        json& w = s["workload"];
        for (const char* key : {"matrix", "trace"})
        {
            if (!w.contains(key))
            {
                continue;
            }
            json& v = w[key];
            if (v.is_null())
            {
                w.erase(key);
            }
            else if (v.is_string() && !v.get<std::string>().empty() &&
                     fs::path(v.get<std::string>()).is_relative() && !dir.empty())
            {
                v = (fs::path(dir) / v.get<std::string>()).lexically_normal().string();
            }
        }
    };
    anchor(scenario);
    for (const char* list : {"compare", "jobs"})
    {
        if (scenario.is_object() && scenario.contains(list) && scenario[list].is_array())
        {
            for (json& e : scenario[list])
            {
                anchor(e);
            }
        }
    }
}

FlowsConfig
ToFlows(const json& f, const std::string& key)
{
    FlowsConfig c;
    c.cdf = f["cdf"];
    c.load = f["load"];
    c.durationMs = f.value("duration_ms", 0.0);
    c.pattern = f["pattern"];
    c.incastFanin = f["incast"]["fanin"];
    c.incastBytes = f["incast"]["bytes"].get<uint64_t>();
    c.incastPeriodUs = f["incast"]["period_us"];
    try
    {
        c.sizes = LoadFlowSizes(c.cdf);
    }
    catch (const ns3::FlowSizeDistribution::Error& e)
    {
        throw ScenarioError(key + ".cdf: " + e.what());
    }
    if ((c.incastFanin > 0) != (c.incastPeriodUs > 0))
    {
        throw ScenarioError(key +
                            ".incast: fanin and period_us must both be > 0 for incast, or "
                            "both 0 (got fanin " +
                            std::to_string(c.incastFanin) + ", period_us " +
                            ns3::DoubleValue(c.incastPeriodUs).SerializeToString(nullptr) + ")");
    }
    return c;
}

} // namespace aifabric

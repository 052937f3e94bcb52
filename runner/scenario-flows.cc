// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-flows.h"

#include "json-input.h"

#include "ns3/double.h"

#include <filesystem>
#include <fstream>
#include <sstream>

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
    if (std::filesystem::is_directory(cdf))
    {
        throw ns3::FlowSizeDistribution::Error("'" + EchoText(cdf) +
                                               "' is a directory (built in: websearch, "
                                               "fb-hadoop; or a file of 'bytes "
                                               "cumulative-percent' lines)");
    }
    if (!std::filesystem::exists(cdf))
    {
        throw ns3::FlowSizeDistribution::Error("'" + EchoText(cdf) +
                                               "' is neither websearch, fb-hadoop nor a file");
    }
    std::error_code ec;
    if (!std::filesystem::is_regular_file(cdf) || std::filesystem::file_size(cdf, ec) > (1 << 20))
    {
        throw ns3::FlowSizeDistribution::Error("'" + EchoText(cdf) +
                                               "' must be a regular file of at most 1 MiB");
    }
    // The path is the user's (cut when echoed); the reason after it is ours and short.
    std::ifstream in(cdf);
    std::ostringstream text;
    text << in.rdbuf();
    return ns3::FlowSizeDistribution::FromText(text.str(), "'" + EchoText(cdf) + "'");
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
        LoadFlowSizes(c.cdf);
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

// SPDX-License-Identifier: GPL-2.0-only
#include "collective-tuner.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CollectiveTuner);

TypeId
CollectiveTuner::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveTuner")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<CollectiveTuner>()
            .AddAttribute("NetworkLatency",
                          "One small message NIC to NIC through a leaf (the default is the "
                          "model's own: 400G RoCEv2 on a rail leaf, measured from the 8-byte "
                          "ring, 1.64 us).",
                          TimeValue(NanoSeconds(1640)),
                          MakeTimeAccessor(&CollectiveTuner::m_networkLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("NvlinkLatency",
                          "One message over NVLink (NvlinkTransport's Latency).",
                          TimeValue(NanoSeconds(1000)),
                          MakeTimeAccessor(&CollectiveTuner::m_nvlinkLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("NicRate",
                          "A NIC's goodput (400 Gb/s x 4096/4182 on RoCEv2).",
                          DataRateValue(DataRate(uint64_t(400e9 * 4096 / 4182))),
                          MakeDataRateAccessor(&CollectiveTuner::m_nicRate),
                          MakeDataRateChecker())
            .AddAttribute("NvlinkRate",
                          "A GPU's NVLink rate per direction as collectives get it "
                          "(450 GB/s x 0.82).",
                          DataRateValue(DataRate(uint64_t(450e9 * 8 * 0.82))),
                          MakeDataRateAccessor(&CollectiveTuner::m_nvlinkRate),
                          MakeDataRateChecker());
    return tid;
}

std::vector<std::string>
CollectiveTuner::Candidates()
{
    return {"ring", "hierarchical"};
}

double
CollectiveTuner::EstimateSeconds(const std::string& algorithm, const CollectiveSpec& spec) const
{
    const double n = spec.ranks;
    const double g = std::max<uint32_t>(1, spec.gpusPerServer);
    const double m = n / g;
    const double s = double(spec.bytes);
    const double bNic = m_nicRate.GetBitRate() / 8.0;
    const double bNv = m_nvlinkRate.GetBitRate() / 8.0;
    const double aNet = m_networkLatency.GetSeconds();
    const double aNv = m_nvlinkLatency.GetSeconds();
    if (spec.ranks < 2)
    {
        return 0.0;
    }
    const bool whole = spec.ranks % spec.gpusPerServer == 0;
    if (algorithm == "ring")
    {
        if (spec.op != CollectiveSpec::ALLREDUCE && spec.op != CollectiveSpec::REDUCESCATTER &&
            spec.op != CollectiveSpec::ALLGATHER)
        {
            return -1;
        }
        const double steps = spec.op == CollectiveSpec::ALLREDUCE ? 2 * (n - 1) : n - 1;
        const double c = CollectiveAlgorithm::EffectiveChannels(spec);
        const double b = std::max(1.0, s / (c * n));
        // One network hop per server boundary (none on one server), the rest NVLink.
        const double netHops = whole && m > 1 ? m : (g > 1 ? 0 : n);
        const double nvHops = n - netHops;
        const double mean = (netHops * (aNet + b / bNic) + nvHops * (aNv + b / bNv)) / n;
        // A NIC carries the channels of its rail: one, or C/G when there are more than G.
        const double nicPort = netHops > 0 ? std::max(1.0, c / g) * b / bNic : 0;
        // A GPU sends every channel over NVLink but the one it leaves its server in.
        const double nvPort = nvHops > 0 ? (m > 1 ? c - c / g : c) * b / bNv : 0;
        return steps * std::max({mean, nicPort, nvPort});
    }
    if (algorithm == "hierarchical")
    {
        if (spec.op != CollectiveSpec::ALLREDUCE || !whole || g < 2)
        {
            return -1;
        }
        const double intra = 2 * (g - 1) * (aNv + s / (g * bNv));
        const double inter = m > 1 ? 2 * (m - 1) * (aNet + s / (g * m * bNic)) : 0;
        return intra + inter;
    }
    return -1;
}

std::string
CollectiveTuner::Choose(const CollectiveSpec& spec) const
{
    std::string best = "ring";
    double bestT = -1;
    for (const std::string& a : Candidates())
    {
        const double t = EstimateSeconds(a, spec);
        if (t >= 0 && (bestT < 0 || t < bestT))
        {
            best = a;
            bestT = t;
        }
    }
    return best;
}

} // namespace ns3

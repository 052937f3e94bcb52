// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-tuning.h"

#include "fabric-registry.h"
#include "scenario-plugins.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <algorithm>

namespace aifabric
{

std::string
AttributeText(const std::vector<std::pair<std::string, std::string>>& attributes,
              const std::string& typeId,
              const std::string& attribute,
              const std::string& preset)
{
    std::string text = preset;
    for (const auto& [key, value] : attributes)
    {
        if (key == typeId + "::" + attribute)
        {
            text = value;
        }
    }
    if (text.empty())
    {
        ns3::TypeId tid;
        ns3::TypeId::AttributeInformation info;
        if (ns3::TypeId::LookupByNameFailSafe(typeId, &tid) &&
            tid.LookupAttributeByName(attribute, &info))
        {
            text = info.initialValue->SerializeToString(info.checker);
        }
    }
    return text;
}

uint32_t
AutoChannels(const std::string& algorithm, uint32_t gpusPerServer)
{
    return ns3::CollectiveTuner::DefaultChannels(algorithm, gpusPerServer);
}

std::string
PresetNvlsEfficiency(GpuModel gpuModel)
{
    // NCCL's nvlsEfficiency (src/graph/tuning.cc): Hopper 0.85, Blackwell 0.74.
    return gpuModel == GpuModel::B200 || gpuModel == GpuModel::GB200_NVL72 ? "0.74" : "0.85";
}

uint32_t
AggregationLevels(const RunConfig& r)
{
    if (!r.fabric.infiniband.sharp)
    {
        return 0;
    }
    // A rail over the pods of three tiers has no common spine: refused when the scenario is
    // checked.
    const ns3::FabricTopologyInfo& t = TopologyOf(r);
    return t.aggregationLevels ? t.aggregationLevels(TopologyParamsOf(r)) : 1;
}

ns3::Ptr<ns3::CollectiveTuner>
MakeTuner(const RunConfig& r)
{
    ns3::Ptr<ns3::CollectiveTuner> tuner = ns3::CreateObject<ns3::CollectiveTuner>();
    // Goodput per full 4096-byte packet: the fabric's header bytes (RoCEv2 86, IB 26).
    const double overhead = FabricOf(r).headerBytes;
    tuner->SetAttribute("NicRate",
                        ns3::DataRateValue(ns3::DataRate(
                            uint64_t(r.topology.linkGbps * 1e9 * 4096 / (4096 + overhead)))));
    // NVLink as the run's NvlinkTransport will have it: the preset's bandwidth, its Efficiency
    // and Latency (the scenario's attributes or ns-3's defaults).
    ns3::DoubleValue efficiency;
    efficiency.DeserializeFromString(
        AttributeText(r.attributes, "ns3::NvlinkTransport", "Efficiency"),
        ns3::MakeDoubleChecker<double>());
    tuner->SetAttribute("NvlinkRate",
                        ns3::DataRateValue(ns3::DataRate(
                            uint64_t(r.gpu.nvlinkGBytesPerS * 8e9 * efficiency.Get()))));
    tuner->SetAttribute(
        "NvlinkLatency",
        ns3::StringValue(AttributeText(r.attributes, "ns3::NvlinkTransport", "Latency")));
    tuner->SetAttribute("Nvls", ns3::BooleanValue(r.gpu.nvls));
    tuner->SetAttribute("NvlsEfficiency",
                        ns3::StringValue(AttributeText(r.attributes,
                                                       "ns3::NvlinkTransport",
                                                       "NvlsEfficiency",
                                                       PresetNvlsEfficiency(r.gpu.model))));
    tuner->SetAttribute("AggregationLevels", ns3::UintegerValue(AggregationLevels(r)));
    tuner->SetAttribute(
        "ProtocolLatency",
        ns3::StringValue(AttributeText(r.attributes, "ns3::TrainingJob", "ProtocolLatency")));
    return tuner;
}

std::pair<std::string, ns3::CollectiveProtocol::Kind>
TunedAlgorithmAndProtocol(const RunConfig& r)
{
    ns3::Ptr<ns3::CollectiveTuner> tuner = MakeTuner(r);
    ns3::CollectiveSpec spec;
    spec.op = r.workload.collective;
    spec.bytes = r.workload.bytes / std::max<uint32_t>(1, r.workload.buckets);
    spec.ranks = r.Gpus();
    spec.gpusPerServer = r.topology.gpusPerServer;
    spec.chunks = r.workload.chunks;
    const std::vector<std::string> algorithms =
        r.workload.algorithm == "auto" ? ns3::CollectiveTuner::Candidates()
                                       : std::vector<std::string>{r.workload.algorithm};
    std::vector<ns3::CollectiveProtocol::Kind> protocols = ns3::CollectiveTuner::Protocols();
    if (!r.workload.protocolAuto)
    {
        protocols = {r.workload.protocol};
    }
    const ns3::CollectiveTuner::Choice c =
        tuner->Choose(spec, algorithms, protocols, [&r](const std::string& a) {
            return r.workload.channels ? r.workload.channels
                                       : AutoChannels(a, r.topology.gpusPerServer);
        });
    return {c.algorithm, c.protocol};
}

} // namespace aifabric

// SPDX-License-Identifier: GPL-2.0-only
// What a scenario's "auto" settings resolve to: channels, the NVLS preset, and the algorithm
// and protocol CollectiveTuner picks for the run's cluster.
#ifndef AIFABRIC_SCENARIO_TUNING_H
#define AIFABRIC_SCENARIO_TUNING_H

#include "scenario.h"

#include "ns3/collective-tuner.h"
#include "ns3/rail-optimized-fat-tree-helper.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace aifabric
{

/**
 * The value an attribute will have in a run, as text: the scenario's "attributes" entry if it
 * has one, else `preset` if not empty, else ns-3's initial value ("" if there is no such
 * attribute).
 */
std::string AttributeText(const std::vector<std::pair<std::string, std::string>>& attributes,
                          const std::string& typeId,
                          const std::string& attribute,
                          const std::string& preset = "");

/// Channels workload.channels 0 gives `algorithm` on servers of `gpusPerServer` GPUs: NCCL's
/// count for ring and tree (two per NIC, one NIC per GPU), one for the others.
uint32_t AutoChannels(const std::string& algorithm, uint32_t gpusPerServer);

/// NvlinkTransport::NvlsEfficiency for a GPU preset, as text.
std::string PresetNvlsEfficiency(GpuModel gpuModel);

/// A CollectiveTuner for the run's cluster (NIC goodput from the link rate and the fabric's
/// packet overhead, NVLink from the GPU preset and the run's NvlinkTransport attributes).
ns3::Ptr<ns3::CollectiveTuner> MakeTuner(const RunConfig& r);

/**
 * What workload.algorithm and workload.protocol "auto" run: CollectiveTuner's choice for this
 * cluster (NIC goodput from the link rate and the fabric's packet overhead, NVLink from the GPU
 * preset and the run's NvlinkTransport attributes) and size, over the algorithms and protocols
 * left open (the scenario's own otherwise), each algorithm on its channels (workload.channels,
 * or AutoChannels). \return the algorithm's name and the protocol
 */
std::pair<std::string, ns3::CollectiveProtocol::Kind> TunedAlgorithmAndProtocol(const RunConfig& r);

/// Levels of the run's SHARP trees (CollectiveTuner's AggregationLevels): 0 without
/// infiniband.sharp, else as the topology registered them (a rail-optimized fat-tree: 2 when a
/// rail's servers span several leaves, else 1; a star: 1).
uint32_t AggregationLevels(const RunConfig& r);

} // namespace aifabric

#endif

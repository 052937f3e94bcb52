// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_ALGORITHM_REGISTRY_H
#define COLLECTIVE_ALGORITHM_REGISTRY_H

#include "ns3/nstime.h"
#include "ns3/plugin-registry.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/// What a collective algorithm's Check() sees of a scenario.
struct CollectiveScenario
{
    std::string collective;      //!< "allreduce", "allgather", ...
    uint32_t servers;            //!< topology.servers
    uint32_t gpusPerServer;      //!< topology.gpus_per_server
    bool builtByBase;            //!< the base class builds `collective` (alltoall, ...)
    bool nvls;                   //!< the GPUs have NVLink SHARP (gpu.nvls)
    bool sharp;                  //!< the switches aggregate (infiniband.sharp)
    std::string gpuModel;        //!< gpu.model
    const PluginKeyValues& keys; //!< the algorithm's own keys
};

/// A reduce-type collective (allreduce, allgather, reducescatter) as the memory estimate sees it.
struct CollectiveFootprintInput
{
    std::string collective;   //!< "allreduce", "allgather" or "reducescatter"
    double n;                 //!< ranks
    double g;                 //!< ranks per server
    double m;                 //!< servers (n / g when whole, else n)
    uint32_t channels;        //!< channels
    uint32_t chunks;          //!< workload.chunks
    uint64_t perChannelBytes; //!< bytes / buckets / channels
};

/// State a lazily laid schedule keeps per channel, bucket and rank (the memory estimate).
struct CollectiveLazyState
{
    double bytesPerRank{0};        //!< 0: none
    bool replacesTransfers{false}; //!< no transfer records at all (the ring's)
};

struct CollectiveSpec;

/// NCCL's latencies for one algorithm, per protocol (LL, LL128, Simple), in µs
/// (src/graph/tuning.cc: baseLatencies, hwLatencies[NVLINK], hwLatencies[NET]).
struct NcclLatencyRow
{
    double base[3];   //!< per collective and rank
    double nvlink[3]; //!< per NVLink hop (once per collective with nvlinkOnce)
    double net[3];    //!< per network hop
    bool nvlinkOnce;  //!< NVLS: NCCL charges its NVLink latency once per collective
};

/// What an algorithm's tuner cost sees: the collective, its shape and the tuner's rates.
struct CollectiveCostInput
{
    const CollectiveSpec& spec; //!< the collective (its protocol included)
    double n;                   //!< ranks
    double g;                   //!< ranks per server (at least 1)
    double m;                   //!< n / g
    double s;                   //!< bytes
    bool whole;                 //!< the ranks fill whole servers
    double depth;               //!< floor(log2 m) (0 on one server)
    double bNic;                //!< a NIC's goodput under the protocol, bytes/s
    double bNv;                 //!< a GPU's NVLink rate under the protocol, bytes/s
    double aNet;                //!< a network hop's latency, with the protocol's, s
    double aNv;                 //!< an NVLink hop's latency, with the protocol's, s
    Time nvlinkHop;             //!< the protocol's own NVLink latency per hop
    Time networkLatency;        //!< CollectiveTuner NetworkLatency
    double treeIncast;          //!< TreeIncastEfficiency
    bool nvls;                  //!< the NVSwitch reduces (Nvls)
    double nvlsEfficiency;      //!< NvlsEfficiency
    uint32_t aggregationLevels; //!< SHARP's levels (0: none)
    Time aggregationHop;        //!< AggregationHopLatency
};

/**
 * What the scenario level knows of one collective algorithm (a "workload.algorithm" value): the
 * CollectiveAlgorithm TypeId it builds, the collectives it implements, whether it runs NCCL's
 * simple protocol only, and its one Check() of the cluster it runs on. Registered next to its
 * class (pat-collective.cc registers "pat"); CollectiveAlgorithm::TypeIdName,
 * CollectiveProtocol::Supports and the runner read it.
 */
struct CollectiveAlgorithmInfo
{
    std::string name;            //!< scenario name, e.g. "pat"
    std::string typeId;          //!< the CollectiveAlgorithm subclass, e.g. "ns3::PatCollective"
    std::string help;            //!< one clause for --help
    std::vector<PluginKey> keys; //!< its own scenario keys, under workload.<name>
    /// Collectives it implements ("allreduce", ...; empty: every one). AllToAll, broadcast and
    /// send/receive are built by the base class for every algorithm.
    std::vector<std::string> collectives;
    std::string otherwise;  //!< what to use for the others ("ring or tree")
    bool simpleOnly{false}; //!< runs NCCL's simple protocol only (no LL, LL128)
    /// Transfers of one schedule for one channel and chunk (null: a ring's, 2(N-1) N for
    /// allreduce, (N-1) N otherwise).
    std::function<double(const CollectiveFootprintInput&)> transfersPerChannel;
    /// Non-null when its chunk counts follow the bytes: transfers per channel and bucket.
    std::function<double(const CollectiveFootprintInput&)> pipelinedTransfers;
    /// Network connections it opens (null: a ring's, one per server and channel).
    std::function<double(const CollectiveFootprintInput&)> connections;
    /// State of a lazily laid schedule (null: none).
    std::function<CollectiveLazyState(const CollectiveFootprintInput&)> lazyState;
    /// NCCL's latencies for it (null: charged as a ring, NCCL having no such algorithm).
    const NcclLatencyRow* nccl{nullptr};
    /// Charged as this when it has no row of its own (exactly one entry: the ring).
    bool ncclFallback{false};
    /// The tuner's α-β time for it, without the protocol's start latency; negative when it
    /// cannot run the collective (null: the tuner never picks it).
    std::function<double(const CollectiveCostInput&)> cost;
    /// Its place among the tuner's candidates: the first of equal estimates wins.
    int tunerOrder{0};
    /// NCCL gives it two channels per NIC, one NIC per GPU (ring, tree), else one.
    bool channelsPerNic{false};
    /// Why it cannot run on this cluster, naming the key ("workload.algorithm: 'nvls' needs
    /// gpu.nvls (...)", "workload.<name>.<key>: ..."), or "".
    std::function<std::string(const CollectiveScenario&)> check;

    /// check(s), or "" without one.
    std::string Check(const CollectiveScenario& s) const
    {
        return check ? check(s) : "";
    }

    /// It implements `collective` (its own schedule; not the base class's).
    bool Implements(const std::string& collective) const;
};

/// The collective algorithms a scenario can name (workload.algorithm).
using CollectiveAlgorithmRegistry = PluginRegistry<CollectiveAlgorithmInfo>;

template <>
std::vector<CollectiveAlgorithmInfo>& CollectiveAlgorithmRegistry::Entries();

} // namespace ns3

#endif

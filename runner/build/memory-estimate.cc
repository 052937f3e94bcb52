// SPDX-License-Identifier: GPL-2.0-only
#include "memory-estimate.h"

#include "scenario-tuning.h"

#include "ns3/collnet-collective.h"
#include "ns3/double-binary-tree-collective.h"
#include "ns3/nvls-collective.h"

#include <cmath>
#include <cstdio>
#include <unistd.h>

namespace aifabric
{

namespace
{

// Fitted to peak RSS of runs of 128 to 2,048 GPUs (doc: "Memory"), rounded up.
constexpr double kBaseBytes = 25e6;         //!< the process, ns-3, the runner
constexpr double kBytesPerHost = 2e3;       //!< node, NIC, device, application
constexpr double kBytesPerSwitchPort = 1e3; //!< device, egress queues, flow control
constexpr double kBytesPerRoute = 220;      //!< a switch's forwarding entry for one host
constexpr double kBytesPerTransfer = 66;    //!< schedule + dependency + executor record
/// A training step's operation: its WorkloadOp (64 B), run state (32), dependencies and
/// dependents (16), per-operation tables (12), rounded up.
constexpr double kBytesPerOperation = 160;
/// Two queue pairs, their congestion control and the transport's index: fitted to a 1,024-GPU
/// tree on 16 channels (8,128 connections; 114 MB at 64 MiB, 89 MB at 1 MiB measured).
constexpr double kBytesPerConnection = 5e3;

/// The algorithms whose chunk counts follow the bytes (PipelinedTransfers counts them).
bool
IsPipelined(const std::string& algorithm)
{
    return algorithm == "tree" || algorithm == "nvls" || algorithm == "nvls-tree" ||
           algorithm == "collnet";
}

/// Network connections (queue-pair pairs or sockets) the collective opens: one per (source,
/// destination, channel) that crosses servers.
double
Connections(const RunConfig& r, double n, double g)
{
    const bool whole = g > 1 && std::fmod(n, g) == 0;
    const double m = whole ? n / g : n;
    if (n < 2 || m < 2)
    {
        return 0;
    }
    const std::string& c = r.collective;
    if (c == "alltoall")
    {
        return n * (n - (whole ? g : 1));
    }
    if (c == "sendrecv" || c == "broadcast")
    {
        return n;
    }
    const std::string& a = r.algorithm;
    if (a == "tree")
    {
        return r.channels * 4 * (m - 1); // two trees, an edge each way
    }
    if (a == "nvls-tree")
    {
        return g * 4 * (m - 1);
    }
    if (a == "hierarchical")
    {
        return g * m;
    }
    if (a == "collnet")
    {
        return 2 * n + 4 * g; // each head up and down; leaves to their roots
    }
    if (a == "halving-doubling" || a == "pat")
    {
        return n * std::ceil(std::log2(n));
    }
    return r.channels * m; // ring: one network hop per server and channel
}

/// Transfers of one schedule of `algorithm` for N ranks in servers of G (one channel, chunk).
double
TransfersPerChannel(const std::string& collective, const std::string& algorithm, double n, double g)
{
    if (n < 2)
    {
        return 0;
    }
    if (collective == "alltoall")
    {
        return n * (n - 1);
    }
    if (collective == "sendrecv")
    {
        return n;
    }
    if (collective == "broadcast")
    {
        return n - 1; // per slice
    }
    const double steps = collective == "allreduce" ? 2 * (n - 1) : n - 1;
    if (algorithm == "hierarchical" && g > 1)
    {
        // The intra-server phases as transfers; the rail rings run lazily, leaving a RING_DONE
        // mark per rank (their state is counted in ringBytes).
        const double m = n / g;
        return 2 * m * g * (g - 1) + (m > 1 ? n : 0);
    }
    if (IsPipelined(algorithm))
    {
        return 0; // by PipelinedTransfers
    }
    if (algorithm == "halving-doubling")
    {
        return 2 * std::log2(n) * n;
    }
    if (algorithm == "pat")
    {
        return std::ceil(std::log2(n)) * n;
    }
    return steps * n; // ring
}

/**
 * Transfers of the pipelined algorithms, whose chunk counts follow the bytes (NCCL's chunk
 * sizes): tree 2 halves x K chunks x 2(N-1) edges per channel; NVLS K x G reductions and stores;
 * CollNet per head and chunk 2G (scatters, up, down, gathers);
 * NVLS-Tree per rail, half and chunk M reductions, 2(M-1) tree edges, M stores.
 */
double
PipelinedTransfers(const RunConfig& r, double n, double g)
{
    const uint64_t perChannel = r.bytes / std::max<uint32_t>(1, r.buckets) / r.channels;
    double perBucket = 0;
    if (r.algorithm == "tree")
    {
        const double k = ns3::DoubleBinaryTreeCollective::Chunks(perChannel, r.chunks);
        perBucket = 2 * k * 2 * (n - 1);
    }
    else if (r.algorithm == "nvls")
    {
        const double k = ns3::NvlsCollective::Chunks(uint64_t(perChannel / g), r.chunks);
        perBucket = k * g * (r.collective == "allreduce" ? 2 : 1);
    }
    else if (r.algorithm == "collnet")
    {
        // Per head and chunk: G-1 scatters, its send up, the total down, G-1 gathers.
        const double k = ns3::CollNetCollective::Chunks(uint64_t(perChannel / g), r.chunks);
        perBucket = n * k * 2 * g;
    }
    else if (r.algorithm == "nvls-tree")
    {
        const double m = n / g;
        const double k = ns3::NvlsCollective::Chunks(uint64_t(perChannel / g / 2), r.chunks);
        perBucket = g * 2 * k * (4 * m - 2);
    }
    return perBucket * r.channels * r.buckets;
}

} // namespace

std::string
MemoryEstimate::Describe() const
{
    char text[240];
    std::snprintf(text,
                  sizeof(text),
                  "about %.1f GB (%llu hosts, %llu switch ports, %.1f M routes, %.1f M collective "
                  "transfers, %.1f k connections, %.1f M training operations)",
                  bytes / 1e9,
                  static_cast<unsigned long long>(hosts),
                  static_cast<unsigned long long>(switchPorts),
                  double(routes) / 1e6,
                  double(transfers) / 1e6,
                  double(connections) / 1e3,
                  double(operations) / 1e6);
    return text;
}

MemoryEstimate
EstimateMemory(const RunConfig& r)
{
    MemoryEstimate e;
    e.hosts = r.Gpus();
    if (r.topologyKind == "rail-fat-tree")
    {
        // Every link's two ends: a host port's on a leaf (a port per plane), each leaf uplink's
        // on a leaf and a spine, each spine uplink's (3 tiers) on a spine and a core.
        // Forwarding entries as FabricTopology's routes keep them: the hosts below a switch plus
        // one default route up (a leaf: its hosts; a spine: every host, or its pod's with 3
        // tiers; a core: every host). Every plane has every host.
        const ns3::RailOptimizedFatTreeHelper::Shape s = RailShape(r);
        const double hosts = double(e.hosts);
        const double hostPorts = hosts * std::max<uint32_t>(1, r.planes);
        const double leafUp = double(s.leaves) * s.leafUplinks;
        const double spineUp = s.tiers == 3 ? double(s.spines) * s.spineUplinks : 0.0;
        e.switchPorts = static_cast<uint64_t>(hostPorts + 2 * leafUp + 2 * spineUp);
        const double belowSpine =
            s.tiers == 3 ? hosts / std::max<uint32_t>(1, s.podsPerPlane) : hosts;
        e.routes = static_cast<uint64_t>(hostPorts + s.leaves + s.spines * (belowSpine + 1.0) +
                                         s.cores * hosts);
    }
    else
    {
        // Every host link ends on a leaf port; leaves have hosts / oversubscription up-ports,
        // each the end of a link to a spine port (a star has one switch with a port per host).
        const double over =
            r.topologyKind == "star" || r.oversubscription <= 0 ? 0 : r.oversubscription;
        e.switchPorts =
            e.hosts + (over > 0 ? static_cast<uint64_t>(std::ceil(2 * e.hosts / over)) : 0);
        // Every switch has a forwarding entry per host (an upper bound: see above).
        const double radix = r.leafRadix > 0 ? r.leafRadix : 64;
        const double switches = over > 0 ? std::ceil(double(e.switchPorts) / radix) : 1;
        e.routes = static_cast<uint64_t>(switches * double(e.hosts));
    }
    const double n = e.hosts;
    const double g = r.gpusPerServer;
    double perChannel = TransfersPerChannel(r.collective, r.algorithm, n, g);
    double copies = double(r.chunks) * r.buckets;
    if (r.collective != "alltoall")
    {
        copies *= r.channels;
    }
    if (r.collective == "broadcast")
    {
        const double bytes = double(r.bytes) / r.channels;
        copies *= std::max<double>(r.chunks, std::min(1024.0, std::ceil(bytes / (512 * 1024))));
        copies /= r.chunks;
    }
    const bool lazyRing =
        r.algorithm == "ring" && (r.collective == "allreduce" || r.collective == "reducescatter" ||
                                  r.collective == "allgather");
    // A ring runs lazily: per channel and rank its order, NIC and first-step tokens; the
    // hierarchical rail rings also what their first step waits for (4 B) and its entry in the
    // executor's sorted list (16 B) per chunk.
    const bool lazyRails =
        r.algorithm == "hierarchical" && r.collective == "allreduce" && g > 1 && n > g;
    double ringBytes = lazyRing    ? double(r.channels) * r.buckets * n * (8.0 + 8.0 * r.chunks)
                       : lazyRails ? double(r.channels) * r.buckets * n * (8.0 + 28.0 * r.chunks)
                                   : 0.0;
    const bool pipelined = IsPipelined(r.algorithm) && r.collective != "alltoall" &&
                           r.collective != "broadcast" && r.collective != "sendrecv";
    e.transfers = lazyRing    ? 0
                  : pipelined ? static_cast<uint64_t>(PipelinedTransfers(r, n, g))
                              : static_cast<uint64_t>(perChannel * copies);
    e.connections = static_cast<uint64_t>(Connections(r, n, g));
    if (r.IsFlowWorkload())
    {
        e.transfers = 0; // no training job
        e.connections = 0;
        ringBytes = 0;
    }
    if (r.workloadKind == "training")
    {
        // Per rank and micro-batch at most 12 operations a layer of its stage (4 forward and 4
        // backward for a dense layer, 7 each way for a MoE one, less in total), plus buckets.
        const ns3::ParallelismConfig& p = r.parallelism;
        const double layers = std::ceil(double(r.model.layers) / p.pp);
        e.operations = static_cast<uint64_t>(n * (layers * p.microbatches * 12.0 + 64.0));
        e.transfers = 0; // schedules are per communicator shape: small
        ringBytes = 0;
    }
    if (r.workloadKind == "chakra" && r.graph)
    {
        e.operations = r.graph->OpCount();
        e.transfers = 0;
        ringBytes = 0;
    }
    // Flow traffic: a connection (two queue pairs) per flow running at once on a pair of
    // hosts, at most one per flow and per ordered pair; the expected number of flows is the
    // Poisson rate x hosts x duration, plus the incast bursts'. Background flows last as long
    // as the job, taken as twice its compute time (the run's time cap at most).
    const double jobSeconds = std::min(r.maxSimSeconds, 2e-3 * r.steps * r.computeMs + 0.01);
    for (const auto& [on, f, seconds] :
         {std::make_tuple(r.workloadKind == "flows", r.flows, r.flows.durationMs / 1e3),
          std::make_tuple(r.background, r.backgroundFlows, jobSeconds)})
    {
        if (!on)
        {
            continue;
        }
        const double mean = f.sizes.GetMean();
        double flows = f.load * r.linkGbps * 1e9 / (8 * mean) * n * seconds;
        if (f.incastPeriodUs > 0)
        {
            flows += seconds / (f.incastPeriodUs * 1e-6) * f.incastFanin;
        }
        e.connections += static_cast<uint64_t>(std::min(flows, n * (n - 1)));
    }
    if (r.matrix)
    {
        e.connections += r.matrix->GetConnections().size(); // at most one per flow
    }
    e.bytes = kBaseBytes + kBytesPerHost * double(e.hosts) +
              kBytesPerConnection * double(e.connections) +
              kBytesPerSwitchPort * double(e.switchPorts) + kBytesPerRoute * double(e.routes) +
              kBytesPerTransfer * double(e.transfers) + ringBytes +
              kBytesPerOperation * double(e.operations);
    return e;
}

uint64_t
PhysicalMemoryBytes()
{
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long size = ::sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? uint64_t(pages) * uint64_t(size) : 0;
}

void
CheckMemory(const RunConfig& r)
{
    const MemoryEstimate e = EstimateMemory(r);
    const bool machine = r.maxMemoryGb <= 0;
    const double limit = machine ? double(PhysicalMemoryBytes()) : r.maxMemoryGb * 1e9;
    if (limit > 0 && e.bytes > limit)
    {
        char text[160];
        std::snprintf(text,
                      sizeof(text),
                      "%.1f GB%s",
                      limit / 1e9,
                      machine ? ", this machine's memory (0 = the machine's)" : "");
        throw ScenarioError("limits.max_memory_gb: run '" + r.name + "' needs " + e.Describe() +
                            ", above the limit of " + text +
                            "; use fewer topology.servers, workload.channels or workload.chunks, "
                            "another workload.algorithm, fewer workload.parallelism.microbatches, "
                            "or raise limits.max_memory_gb");
    }
}

} // namespace aifabric

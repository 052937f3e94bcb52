// SPDX-License-Identifier: GPL-2.0-only
#include "memory-estimate.h"

#include "scenario-plugins.h"
#include "scenario-tuning.h"

#include <algorithm>
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

/// The run's algorithm as registered (null if none: the test's or an unknown name).
const ns3::CollectiveAlgorithmInfo*
Algorithm(const RunConfig& r)
{
    return ns3::CollectiveAlgorithmRegistry::Find(r.workload.algorithm);
}

/// The run's collective as the algorithm's footprint functions see it.
ns3::CollectiveFootprintInput
FootprintInput(const RunConfig& r, double n, double g)
{
    const bool whole = g > 1 && std::fmod(n, g) == 0;
    ns3::CollectiveFootprintInput in;
    in.collective = ns3::CollectiveSpec::OpName(r.workload.collective);
    in.n = n;
    in.g = g;
    in.m = whole ? n / g : n;
    in.channels = r.workload.channels;
    in.chunks = r.workload.chunks;
    in.perChannelBytes =
        r.workload.bytes / std::max<uint32_t>(1, r.workload.buckets) / r.workload.channels;
    return in;
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
    const ns3::CollectiveSpec::Op c = r.workload.collective;
    if (c == ns3::CollectiveSpec::ALLTOALL)
    {
        return n * (n - (whole ? g : 1));
    }
    if (c == ns3::CollectiveSpec::SENDRECV || c == ns3::CollectiveSpec::BROADCAST)
    {
        return n;
    }
    const ns3::CollectiveAlgorithmInfo* a = Algorithm(r);
    if (a && a->connections)
    {
        return a->connections(FootprintInput(r, n, g));
    }
    return r.workload.channels * m; // ring: one network hop per server and channel
}

/// Transfers of one schedule of the run's algorithm for N ranks in servers of G (one channel,
/// chunk); 0 for the pipelined ones (PipelinedTransfers counts them).
double
TransfersPerChannel(const RunConfig& r, double n, double g)
{
    const ns3::CollectiveSpec::Op collective = r.workload.collective;
    if (n < 2)
    {
        return 0;
    }
    if (collective == ns3::CollectiveSpec::ALLTOALL)
    {
        return n * (n - 1);
    }
    if (collective == ns3::CollectiveSpec::SENDRECV)
    {
        return n;
    }
    if (collective == ns3::CollectiveSpec::BROADCAST)
    {
        return n - 1; // per slice
    }
    const double steps = collective == ns3::CollectiveSpec::ALLREDUCE ? 2 * (n - 1) : n - 1;
    const ns3::CollectiveAlgorithmInfo* a = Algorithm(r);
    if (a && a->pipelinedTransfers)
    {
        return 0; // by PipelinedTransfers
    }
    if (a && a->transfersPerChannel)
    {
        return a->transfersPerChannel(FootprintInput(r, n, g));
    }
    return steps * n; // ring
}

/// Transfers of a pipelined algorithm, whose chunk counts follow the bytes (NCCL's chunk
/// sizes), over every channel and bucket.
double
PipelinedTransfers(const RunConfig& r, double n, double g)
{
    const double perBucket = Algorithm(r)->pipelinedTransfers(FootprintInput(r, n, g));
    return perBucket * r.workload.channels * r.workload.buckets;
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
    // Switch ports and forwarding entries as the topology registered them.
    const ns3::TopologySize size = TopologyOf(r).size(TopologyParamsOf(r));
    e.switchPorts = size.switchPorts;
    e.routes = size.routes;
    const double n = e.hosts;
    const double g = r.topology.gpusPerServer;
    double perChannel = TransfersPerChannel(r, n, g);
    double copies = double(r.workload.chunks) * r.workload.buckets;
    if (r.workload.collective != ns3::CollectiveSpec::ALLTOALL)
    {
        copies *= r.workload.channels;
    }
    if (r.workload.collective == ns3::CollectiveSpec::BROADCAST)
    {
        const double bytes = double(r.workload.bytes) / r.workload.channels;
        copies *=
            std::max<double>(r.workload.chunks, std::min(1024.0, std::ceil(bytes / (512 * 1024))));
        copies /= r.workload.chunks;
    }
    // A lazily laid schedule (a ring, the hierarchical rail rings): its state per channel,
    // bucket and rank, as the algorithm registered it.
    const ns3::CollectiveAlgorithmInfo* a = Algorithm(r);
    const ns3::CollectiveLazyState lazy =
        a && a->lazyState ? a->lazyState(FootprintInput(r, n, g)) : ns3::CollectiveLazyState();
    double ringBytes = lazy.bytesPerRank > 0 ? double(r.workload.channels) * r.workload.buckets *
                                                   n * lazy.bytesPerRank
                                             : 0.0;
    const bool pipelined = a && a->pipelinedTransfers &&
                           !ns3::CollectiveAlgorithm::IsBuiltByBase(r.workload.collective);
    e.transfers = lazy.replacesTransfers ? 0
                  : pipelined            ? static_cast<uint64_t>(PipelinedTransfers(r, n, g))
                                         : static_cast<uint64_t>(perChannel * copies);
    e.connections = static_cast<uint64_t>(Connections(r, n, g));
    if (r.IsFlowWorkload())
    {
        e.transfers = 0; // no training job
        e.connections = 0;
        ringBytes = 0;
    }
    if (r.workload.kind == WorkloadKind::TRAINING)
    {
        // Per rank and micro-batch at most 12 operations a layer of its stage (4 forward and 4
        // backward for a dense layer, 7 each way for a MoE one, less in total), plus buckets.
        const ns3::ParallelismConfig& p = r.workload.parallelism;
        const double layers = std::ceil(double(r.workload.model.layers) / p.pp);
        e.operations = static_cast<uint64_t>(n * (layers * p.microbatches * 12.0 + 64.0));
        e.transfers = 0; // schedules are per communicator shape: small
        ringBytes = 0;
    }
    if (r.workload.kind == WorkloadKind::CHAKRA && r.workload.graph)
    {
        e.operations = r.workload.graph->OpCount();
        e.transfers = 0;
        ringBytes = 0;
    }
    // Flow traffic: a connection (two queue pairs) per flow running at once on a pair of
    // hosts, at most one per flow and per ordered pair; the expected number of flows is the
    // Poisson rate x hosts x duration, plus the incast bursts'. Background flows last as long
    // as the job, taken as twice its compute time (the run's time cap at most).
    const double jobSeconds =
        std::min(r.limits.maxSimSeconds, 2e-3 * r.workload.steps * r.workload.computeMs + 0.01);
    const FlowsConfig* traffic =
        r.workload.kind == WorkloadKind::FLOWS ? &r.workload.flows : nullptr;
    for (const auto& [f, seconds] :
         {std::make_pair(traffic, r.workload.flows.durationMs / 1e3),
          std::make_pair(r.workload.background ? &*r.workload.background : nullptr, jobSeconds)})
    {
        if (!f)
        {
            continue;
        }
        const double mean = f->sizes.GetMean();
        double flows = f->load * r.topology.linkGbps * 1e9 / (8 * mean) * n * seconds;
        if (f->incastPeriodUs > 0)
        {
            flows += seconds / (f->incastPeriodUs * 1e-6) * f->incastFanin;
        }
        e.connections += static_cast<uint64_t>(std::min(flows, n * (n - 1)));
    }
    if (r.workload.matrix)
    {
        e.connections += r.workload.matrix->GetConnections().size(); // at most one per flow
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
    const bool machine = r.limits.maxMemoryGb <= 0;
    const double limit = machine ? double(PhysicalMemoryBytes()) : r.limits.maxMemoryGb * 1e9;
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

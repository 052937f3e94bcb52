// SPDX-License-Identifier: GPL-2.0-only
#include "collective-protocol.h"

#include "collective-algorithm-registry.h"

#include <algorithm>

namespace ns3
{

namespace
{

/// NCCL's figures for one algorithm, per protocol (LL, LL128, Simple), in µs
/// (src/graph/tuning.cc: baseLatencies, hwLatencies[NVLINK], hwLatencies[NET]).
struct NcclRow
{
    double base[3];
    double nvlink[3];
    double net[3];
};

constexpr NcclRow kRing = {{6.6, 14.0, 8.4}, {0.6, 1.9, 3.4}, {2.7, 4.0, 14.0}};
constexpr NcclRow kTree = {{6.8, 14.0, 8.4}, {0.6, 1.25, 4.0}, {5.0, 8.5, 14.0}};
/// NVLS and NVLS-Tree (Simple only): NCCL charges its 25 µs NVLink latency once per
/// collective (intraLat), and NVLS-Tree 20.9 µs per network hop.
constexpr NcclRow kNvls = {{0, 0, 0}, {0, 0, 25.0}, {0, 0, 18.0}};
constexpr NcclRow kNvlsTree = {{0, 0, 0}, {0, 0, 25.0}, {0, 0, 20.9}};
/// PAT (Simple only).
constexpr NcclRow kPat = {{8.0, 8.0, 8.0}, {0, 0, 4.0}, {0, 0, 14.0}};
/// CollNet Direct (Simple only): 3.7 µs per NVLink step (plus CollNetCollective::ArityLatency),
/// 31 µs for the round trip through the SHARP tree, charged on the head's send.
constexpr NcclRow kCollNet = {{0, 0, 0}, {0, 0, 3.7}, {0, 0, 31.0}};

/// NCCL's protocol index (LL 0, LL128 1, Simple 2) of ours.
int
Index(CollectiveProtocol::Kind k)
{
    return k == CollectiveProtocol::LL ? 0 : k == CollectiveProtocol::LL128 ? 1 : 2;
}

Time
Beyond(double us, int64_t physicalNs)
{
    return NanoSeconds(std::max<int64_t>(0, static_cast<int64_t>(us * 1000 + 0.5) - physicalNs));
}

} // namespace

const char*
CollectiveProtocol::Name(Kind k)
{
    return k == LL ? "ll" : k == LL128 ? "ll128" : "simple";
}

bool
CollectiveProtocol::ByName(const std::string& name, Kind& k)
{
    for (Kind x : {SIMPLE, LL128, LL})
    {
        if (name == Name(x))
        {
            k = x;
            return true;
        }
    }
    return false;
}

bool
CollectiveProtocol::Supports(const std::string& algorithm, Kind k)
{
    if (k == SIMPLE)
    {
        return true;
    }
    const CollectiveAlgorithmInfo* e = CollectiveAlgorithmRegistry::Find(algorithm);
    return !e || !e->simpleOnly;
}

uint64_t
CollectiveProtocol::StepBytes(Kind k)
{
    // Buffers of NCCL_STEPS = 8 slots: Simple NCCL_BUFFSIZE 4 MiB; LL 8 lines x 512 threads x
    // 8 slots x 16 B, half of it data; LL128 120 x 640 threads x 8 slots x 8 B, 15/16 data.
    return k == LL ? 32 * 1024 : k == LL128 ? 614400 / 16 * 15 : 512 * 1024;
}

uint64_t
CollectiveProtocol::WireBytes(const Costs& c, uint64_t bytes)
{
    if (c.wireNum == c.wireDen)
    {
        return std::max<uint64_t>(1, bytes);
    }
    return std::max<uint64_t>(1, (bytes * c.wireNum + c.wireDen - 1) / c.wireDen);
}

CollectiveProtocol::Costs
CollectiveProtocol::CostsOf(const std::string& algorithm, Kind k)
{
    const NcclRow& row = algorithm == "tree"        ? kTree
                         : algorithm == "nvls"      ? kNvls
                         : algorithm == "nvls-tree" ? kNvlsTree
                         : algorithm == "pat"       ? kPat
                         : algorithm == "collnet"   ? kCollNet
                                                    : kRing;
    const int i = Index(k);
    Costs c;
    if (k == LL)
    {
        c.wireNum = 2;
        c.wireDen = 1;
    }
    else if (k == LL128)
    {
        c.wireNum = 128;
        c.wireDen = 120;
    }
    c.start = NanoSeconds(static_cast<int64_t>(row.base[i] * 1000 + 0.5));
    if (algorithm == "nvls" || algorithm == "nvls-tree")
    {
        // Once per collective: NCCL's NVLS latency beyond the reduction's and the store's own
        // (2 + 1 NVLink latencies), as a start latency; every tree hop its network figure.
        c.start += Beyond(row.nvlink[i], 3 * kNvlinkHopNs);
        c.networkHop = Beyond(row.net[i], kNetworkHopNs);
        return c;
    }
    c.nvlinkHop = Beyond(row.nvlink[i], kNvlinkHopNs);
    c.networkHop = Beyond(row.net[i], kNetworkHopNs);
    return c;
}

} // namespace ns3

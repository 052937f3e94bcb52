// SPDX-License-Identifier: GPL-2.0-only
#include "collective-protocol.h"

#include "collective-algorithm-registry.h"

#include "ns3/abort.h"

#include <algorithm>

namespace ns3
{

namespace
{

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
    // NCCL's row as registered beside the algorithm (charged as a ring's if it has none).
    const CollectiveAlgorithmInfo* e = CollectiveAlgorithmRegistry::Find(algorithm);
    const NcclLatencyRow* found = e ? e->nccl : nullptr;
    if (!found)
    {
        for (const auto& x : CollectiveAlgorithmRegistry::All())
        {
            found = x.ncclFallback ? x.nccl : found;
        }
    }
    NS_ABORT_MSG_IF(!found, "no collective algorithm registered as NCCL's fallback row");
    const NcclLatencyRow& row = *found;
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
    if (row.nvlinkOnce)
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

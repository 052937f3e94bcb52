// SPDX-License-Identifier: GPL-2.0-only
#include "nvlink-transport.h"

#include "collective-algorithm.h"

#include "ns3/double.h"
#include "ns3/fabric-tx-time.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(NvlinkTransport);

TypeId
NvlinkTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NvlinkTransport")
            .SetParent<CollectiveTransport>()
            .SetGroupName("AiFabric")
            .AddConstructor<NvlinkTransport>()
            .AddAttribute("Bandwidth",
                          "Per-GPU NVLink bandwidth per direction (H100 SXM NVLink4: 450 GB/s).",
                          DataRateValue(DataRate("3600Gbps")),
                          MakeDataRateAccessor(&NvlinkTransport::m_bandwidth),
                          MakeDataRateChecker())
            .AddAttribute("Efficiency",
                          "Fraction of Bandwidth achieved by collectives (NCCL ~370/450).",
                          DoubleValue(0.82),
                          MakeDoubleAccessor(&NvlinkTransport::m_efficiency),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("NvlsEfficiency",
                          "Fraction of the effective rate NVLS in-switch operations get "
                          "(NCCL's nvlsEfficiency for Hopper, src/graph/tuning.cc: 0.85; "
                          "Blackwell 0.74).",
                          DoubleValue(0.85),
                          MakeDoubleAccessor(&NvlinkTransport::m_nvlsEfficiency),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("Latency",
                          "Per-message latency through NVSwitch: NCCL's per-hop figure for its "
                          "lightest protocol (LL) on NVLink, 0.6 us (src/graph/tuning.cc "
                          "hwLatencies), an upper bound of the physical hop.",
                          TimeValue(NanoSeconds(600)),
                          MakeTimeAccessor(&NvlinkTransport::m_latency),
                          MakeTimeChecker(Time(0)));
    return tid;
}

NvlinkTransport::NvlinkTransport() = default;

void
NvlinkTransport::SetRanks(uint32_t n)
{
    m_egressFree.assign(n, 0);
    m_ingress.assign(n, Ingress());
}

int64_t
NvlinkTransport::BookIngress(uint32_t dst, int64_t earliest, int64_t ser, int64_t now)
{
    auto& busy = m_ingress[dst].busy;
    // Forget what has passed (keep the last booking: it may still be running).
    size_t past = 0;
    while (past + 1 < busy.size() && busy[past].second <= now)
    {
        ++past;
    }
    if (past > 0)
    {
        busy.erase(busy.begin(), busy.begin() + past);
    }
    // The common case (one sender per port, as in a ring): after everything booked.
    if (busy.empty() || earliest >= busy.back().second)
    {
        if (!busy.empty() && earliest == busy.back().second)
        {
            busy.back().second += ser;
        }
        else
        {
            busy.emplace_back(earliest, earliest + ser);
        }
        return busy.back().second;
    }
    int64_t at = earliest;
    for (size_t i = 0; i < busy.size(); ++i)
    {
        if (busy[i].second <= at)
        {
            continue;
        }
        if (busy[i].first >= at + ser)
        {
            busy.insert(busy.begin() + i, {at, at + ser});
            return at + ser;
        }
        at = std::max(at, busy[i].second);
    }
    // Only reached when `at` is the last booking's end: join it.
    busy.back().second = at + ser;
    return at + ser;
}

std::string
NvlinkTransport::GetName() const
{
    return "nvlink";
}

DataRate
NvlinkTransport::GetEffectiveRate() const
{
    return DataRate(static_cast<uint64_t>(m_bandwidth.GetBitRate() * m_efficiency));
}

Time
NvlinkTransport::GetLatency() const
{
    return m_latency;
}

DataRate
NvlinkTransport::GetNvlsRate() const
{
    return DataRate(
        static_cast<uint64_t>(m_bandwidth.GetBitRate() * m_efficiency * m_nvlsEfficiency));
}

int64_t
NvlinkTransport::NvlsSteps(uint64_t bytes) const
{
    return FabricTxTime(GetNvlsRate(), bytes).GetTimeStep();
}

int64_t
NvlinkTransport::SerializationSteps(uint64_t bytes)
{
    // A collective sends a handful of message sizes (its chunks) millions of times; ns-3's
    // 64.64 fixed-point division costs ~700 instructions, so sizes are looked up first. The
    // cache is emptied whenever Bandwidth or Efficiency changed the rate.
    const uint64_t bps = GetEffectiveRate().GetBitRate();
    if (bps != m_cachedBps)
    {
        m_cachedBps = bps;
        m_serCache.fill(SerEntry());
    }
    SerEntry& e = m_serCache[bytes % m_serCache.size()];
    if (e.bytes != bytes)
    {
        e.bytes = bytes;
        e.steps = FabricTxTime(DataRate(bps), bytes).GetTimeStep();
    }
    return e.steps;
}

void
NvlinkTransport::Deliver(CollectiveTransportListener* listener, uint64_t token)
{
    listener->MessageArrived(token);
}

void
NvlinkTransport::Send(uint32_t src,
                      uint32_t dst,
                      uint64_t bytes,
                      CollectiveTransportListener* listener,
                      uint64_t token,
                      uint32_t)
{
    const int64_t now = Simulator::Now().GetTimeStep();
    const int64_t ser = SerializationSteps(bytes);
    const int64_t start = std::max(now, m_egressFree[src]);
    m_egressFree[src] = start + ser;
    const int64_t arrival = BookIngress(dst, start, ser, now) + m_latency.GetTimeStep();
    Simulator::Schedule(TimeStep(arrival - now), &NvlinkTransport::Deliver, listener, token);
}

void
NvlinkTransport::SendNvls(uint8_t kind,
                          uint32_t rank,
                          uint32_t first,
                          uint32_t count,
                          uint64_t bytes,
                          CollectiveTransportListener* listener,
                          uint64_t token)
{
    const int64_t now = Simulator::Now().GetTimeStep();
    const int64_t ser = NvlsSteps(bytes);
    int64_t arrival = 0;
    if (kind == CollectiveTransfer::NVLS_REDUCE)
    {
        // Every GPU's egress sends its part when it is free (each port is its own queue); the
        // sum streams into rank's ingress and is complete once the last part is read.
        int64_t lastRead = now;
        for (uint32_t g = first; g < first + count; ++g)
        {
            m_egressFree[g] = std::max(now, m_egressFree[g]) + ser;
            lastRead = std::max(lastRead, m_egressFree[g]);
        }
        // The sum cannot finish before its last part is read.
        arrival = BookIngress(rank, std::max(now, lastRead - ser), ser, now) +
                  2 * m_latency.GetTimeStep();
    }
    else
    {
        // rank's egress sends once; the switch writes it to every GPU's ingress as each is
        // free; in place once the last one has it.
        const int64_t start = std::max(now, m_egressFree[rank]);
        m_egressFree[rank] = start + ser;
        int64_t last = start + ser;
        for (uint32_t g = first; g < first + count; ++g)
        {
            last = std::max(last, BookIngress(g, start, ser, now));
        }
        arrival = last + m_latency.GetTimeStep();
    }
    Simulator::Schedule(TimeStep(arrival - now), &NvlinkTransport::Deliver, listener, token);
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-path-timing.h"

#include "fabric-topology.h"

#include "ns3/fabric-channel.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-tx-time.h"

#include <algorithm>

namespace ns3
{

Time
FabricPathTiming::TrainDelay(uint64_t trainWireBytes,
                             uint32_t firstWireBytes,
                             uint32_t lastWireBytes) const
{
    // One frame of `w` bytes across hop g: from its first bit leaving g's sender to its first
    // bit leaving the next sender (or, at the end, to its hand-over to the receiver).
    auto single = [this](size_t g, uint32_t w) {
        const Hop& hop = hops[g];
        return hop.propagation + hop.receiveLatency +
               (hop.cutThrough ? Time(0) : FabricTxTime(hop.rate, w));
    };
    Time best(0);
    Time before(0); // the first frame's way to hop h
    for (size_t h = 0; h < hops.size(); ++h)
    {
        Time t = before + FabricTxTime(hops[h].rate, trainWireBytes - lastWireBytes);
        for (size_t g = h; g < hops.size(); ++g)
        {
            t += single(g, lastWireBytes);
        }
        best = std::max(best, t);
        before += single(h, firstWireBytes);
    }
    return best;
}

Time
FabricPathTiming::FixedDelay() const
{
    Time t(0);
    for (const Hop& h : hops)
    {
        t += h.propagation + h.receiveLatency;
    }
    return t;
}

DataRate
FabricPathTiming::Bottleneck() const
{
    uint64_t r = UINT64_MAX;
    for (const Hop& h : hops)
    {
        r = std::min(r, h.rate.GetBitRate());
    }
    return DataRate(hops.empty() ? 0 : r);
}

FabricPathTimer::FabricPathTimer(Ptr<const FabricTopology> topo)
    : m_topo(topo)
{
    const auto& links = topo->GetLinks();
    for (uint32_t i = 0; i < links.size(); ++i)
    {
        m_linkOf[(uint64_t(links[i].a) << 32) | links[i].b] = i;
        m_linkOf[(uint64_t(links[i].b) << 32) | links[i].a] = i;
    }
}

FabricPathTiming
FabricPathTimer::Path(uint32_t src, const FabricFrame& frame, uint32_t port) const
{
    FabricPathTiming p;
    const std::vector<uint32_t> v = m_topo->TracePath(src, frame, port);
    const auto& links = m_topo->GetLinks();
    for (size_t i = 0; i + 1 < v.size(); ++i)
    {
        auto it = m_linkOf.find((uint64_t(v[i]) << 32) | v[i + 1]);
        if (it == m_linkOf.end())
        {
            return FabricPathTiming();
        }
        const FabricLinkInfo& l = links[it->second];
        const bool forward = l.a == v[i];
        Ptr<FabricNetDevice> tx = forward ? l.devA : l.devB;
        Ptr<FabricNetDevice> rx = forward ? l.devB : l.devA;
        FabricPathTiming::Hop h;
        h.rate = tx->GetDataRate();
        h.propagation = DynamicCast<FabricChannel>(tx->GetChannel())->GetDelay();
        h.receiveLatency = rx->GetReceiveLatency();
        h.cutThrough = rx->IsCutThrough();
        h.link = it->second;
        h.fromA = forward;
        p.hops.push_back(h);
    }
    return p;
}

} // namespace ns3

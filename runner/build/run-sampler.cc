// SPDX-License-Identifier: GPL-2.0-only
#include "run-sampler.h"

#include "interrupt.h"
#include "run-ranks.h"
#include "text-util.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace aifabric
{

using namespace ns3;

void
Sampler::Sample()
{
    if (InterruptSignal() != 0)
    {
        Simulator::Stop(); // the runner notices the signal once Run() returns
        return;
    }
    // The largest queue and the fullest switch buffer over the interval (the buffer managers'
    // window peaks, so a burst between two samples is not missed); the total at this instant.
    uint64_t maxQ = 0;
    uint64_t maxBuffer = 0;
    uint64_t sumQ = 0;
    uint64_t pfc = 0;
    for (uint32_t j = 0; j < topo->GetNSwitches(); ++j)
    {
        Ptr<FabricSwitch> sw = topo->GetSwitch(j);
        if (split && sw->GetPort(0)->GetNode()->GetSystemId() != mpiRank)
        {
            continue; // another rank runs it
        }
        uint64_t used = 0;
        uint64_t egress = 0;
        sw->GetBufferManager()->TakeWindowPeaks(used, egress);
        maxQ = std::max(maxQ, egress);
        maxBuffer = std::max(maxBuffer, used);
        for (uint16_t p = 0; p < sw->GetNPorts(); ++p)
        {
            Ptr<FabricNetDevice> d = sw->GetPort(p);
            uint32_t q = 0;
            for (uint8_t prio = 0; prio < 8; ++prio)
            {
                q += d->GetQueueBytes(prio);
            }
            maxQ = std::max<uint64_t>(maxQ, q);
            sumQ += q;
            pfc += d->GetCounters().pfcFramesTx;
        }
    }
    const double t = Simulator::Now().GetNanoSeconds() / 1000.0;
    if (split)
    {
        m_raw.push_back(RawRow{t, {maxQ, sumQ, pfc, maxBuffer}});
    }
    else
    {
        QueueRow(t, maxQ, sumQ, pfc - lastPfc, maxBuffer);
        lastPfc = pfc;
    }
    if (rank0 && (!split || rank0->GetObject<Node>()->GetSystemId() == mpiRank))
    {
        lastData.resize(rank0->GetNQueuePairs(), 0);
        for (uint32_t q = 1; q <= rank0->GetNQueuePairs(); ++q)
        {
            Ptr<RdmaQueuePair> qp = rank0->GetQueuePair(q);
            const uint64_t sent = qp->GetStats().dataPackets;
            if (sent > lastData[q - 1])
            {
                (split ? m_rateRows : rate) << Num(t, 10) << "," << q << ","
                                            << Num(qp->GetRate().GetBitRate() / 1e9) << "\n";
                lastData[q - 1] = sent;
            }
        }
    }
    if (progress)
    {
        auto now = std::chrono::steady_clock::now();
        const double since = std::chrono::duration<double>(now - lastPrint).count();
        if (since >= 0.5)
        {
            const double wall = std::chrono::duration<double>(now - wall0).count();
            const uint64_t ev = Simulator::GetEventCount();
            const size_t done = !job || job->GetSteps().empty() ? 0 : job->GetSteps().size() - 1;
            std::string eta = "?";
            if (done > 0)
            {
                eta = Num(wall / double(done) * double(steps - done), 3) + " s";
            }
            if (!job && flows)
            {
                std::fprintf(stderr,
                             "\r[%zu/%zu %s] sim %.3f ms | flows %llu of %zu done | %.2f M "
                             "events/s   ",
                             index + 1,
                             total,
                             name.c_str(),
                             Simulator::Now().GetSeconds() * 1e3,
                             static_cast<unsigned long long>(flows->GetNCompleted()),
                             flows->GetFlows().size(),
                             double(ev - lastEvents) / since / 1e6);
                lastEvents = ev;
                lastPrint = now;
                Simulator::Schedule(period, &Sampler::Sample, this);
                return;
            }
            std::fprintf(stderr,
                         "\r[%zu/%zu %s] sim %.3f ms | step %zu/%u | %.2f M events/s | ETA %s   ",
                         index + 1,
                         total,
                         name.c_str(),
                         Simulator::Now().GetSeconds() * 1e3,
                         done + 1,
                         steps,
                         double(ev - lastEvents) / since / 1e6,
                         eta.c_str());
            lastEvents = ev;
            lastPrint = now;
        }
    }
    Simulator::Schedule(period, &Sampler::Sample, this);
}

void
Sampler::MergeRanks()
{
    if (!split)
    {
        return;
    }
    std::vector<uint64_t> sums(2 * m_raw.size());
    std::vector<uint64_t> maxima(2 * m_raw.size());
    for (size_t i = 0; i < m_raw.size(); ++i)
    {
        maxima[2 * i] = m_raw[i].v[0];
        sums[2 * i] = m_raw[i].v[1];
        sums[2 * i + 1] = m_raw[i].v[2];
        maxima[2 * i + 1] = m_raw[i].v[3];
    }
    RunRanks::Sum(sums);
    RunRanks::Max(maxima);
    for (size_t i = 0; i < m_raw.size(); ++i)
    {
        const uint64_t pfc = sums[2 * i + 1];
        QueueRow(m_raw[i].t, maxima[2 * i], sums[2 * i], pfc - lastPfc, maxima[2 * i + 1]);
        lastPfc = pfc;
    }
    m_raw.clear();
    for (const std::string& rows : RunRanks::Gather(m_rateRows.str()))
    {
        rate << rows;
    }
}

void
Sampler::QueueRow(double t, uint64_t maxQ, uint64_t sumQ, uint64_t pfc, uint64_t maxBuffer)
{
    const std::array<uint64_t, 4> v{maxQ, sumQ, pfc, maxBuffer};
    if (m_anyRow && v == m_last)
    {
        m_heldTime = t;
        return;
    }
    Finish();
    queue << Num(t, 10) << "," << maxQ << "," << sumQ << "," << pfc << "," << maxBuffer << "\n";
    m_last = v;
    m_anyRow = true;
}

void
Sampler::Finish()
{
    if (m_heldTime >= 0)
    {
        queue << Num(m_heldTime, 10) << "," << m_last[0] << "," << m_last[1] << "," << m_last[2]
              << "," << m_last[3] << "\n";
        m_heldTime = -1;
    }
}

} // namespace aifabric

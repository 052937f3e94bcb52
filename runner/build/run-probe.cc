// SPDX-License-Identifier: GPL-2.0-only
// The idle small-message probe of a run: one message between two GPUs on an idle fabric.
#include "run-probe.h"

#include "fabric-registry.h"
#include "simulation-builder.h"

#include "ns3/simulator.h"

namespace aifabric
{

using namespace ns3;

namespace
{

struct Arrival : public CollectiveTransportListener
{
    void MessageArrived(uint64_t) override
    {
    }
};

} // namespace

nlohmann::json
IdleMessageProbe(const RunConfig& run, uint64_t bytes)
{
    RunConfig c = run;
    c.faults.dropRate = 0;
    c.faults.events = nlohmann::json::array();
    c.faults.random.mtbfHours = 0;
    Ptr<FabricTopology> topo = BuildTopology(c);
    const uint32_t n = topo->GetNHosts();
    nlohmann::json out{{"bytes", bytes}, {"us", 0.0}, {"src", 0}, {"dst", 0}};
    if (n < 2)
    {
        Simulator::Destroy();
        return out;
    }
    Ptr<LatencyHistogram> unused = Create<LatencyHistogram>();
    std::vector<Ptr<RdmaNic>> nics;
    Ptr<CollectiveTransport> t = FabricOf(c).install(c, topo, unused, nics);
    Time last;
    t->TraceConnectWithoutContext(
        "MessageLatency",
        MakeBoundCallback(
            +[](Time* keep, uint32_t, uint32_t, uint64_t, Time oneWay) { *keep = oneWay; },
            &last));
    // Rank 0 and the last rank: a GPU on another leaf (another rail, or the last leaf).
    const uint32_t dst = n - 1;
    Arrival arrival;
    // A warm-up message first (TCP's handshake and first RTT sample), then the measured one
    // 100 ms later on the quiet fabric, as examples/tcp-vs-rdma-latency.cc sends it.
    // Stop bounds each phase should a fabric keep periodic timers (credit updates) running.
    t->Send(0, dst, bytes, &arrival, 0);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    Simulator::Schedule(MilliSeconds(100), [&] { t->Send(0, dst, bytes, &arrival, 1); });
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    out["us"] = last.GetNanoSeconds() / 1000.0;
    out["dst"] = dst;
    t = nullptr;
    Simulator::Destroy();
    return out;
}

} // namespace aifabric

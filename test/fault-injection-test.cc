// SPDX-License-Identifier: GPL-2.0-only
// Fabric faults: a link down at both ends mid-AllReduce, routes reconverging around it (and back
// after a repair), valley-free routes as a Clos's eBGP converges to, flaps and degraded links.
#include "test-util.h"

#include "ns3/fabric-fault-injector.h"
#include "ns3/map-scheduler.h"

#include <cmath>
#include <map>
#include <set>

using namespace ns3;

namespace
{

/// ns-3's map scheduler, counting the events inserted (pending events an injector creates).
class CountingScheduler : public MapScheduler
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::AiFabricTestCountingScheduler")
                                .SetParent<MapScheduler>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<CountingScheduler>();
        return tid;
    }

    void Insert(const Scheduler::Event& ev) override
    {
        ++inserted;
        MapScheduler::Insert(ev);
    }

    static uint64_t inserted;
};

uint64_t CountingScheduler::inserted = 0;

/// 8 one-GPU servers under two leaves of 8 ports (4 hosts, 4 uplinks each) and 4 spines.
Ptr<FabricTopology>
TwoLeaves(bool valleyFree = true)
{
    Ptr<FatTreeHelper> h = CreateObject<FatTreeHelper>();
    h->SetAttribute("Servers", UintegerValue(8));
    h->SetAttribute("GpusPerServer", UintegerValue(1));
    h->SetAttribute("LeafRadix", UintegerValue(8));
    Ptr<FabricTopology> topo = h->Build();
    topo->SetAttribute("ValleyFree", BooleanValue(valleyFree));
    topo->PopulateRoutes();
    return topo;
}

/// Whether any switch's route to any host uses a port of link l.
bool
RoutedOver(Ptr<FabricTopology> topo, uint32_t l)
{
    const FabricLinkInfo& li = topo->GetLinks()[l];
    for (uint32_t j = 0; j < topo->GetNSwitches(); ++j)
    {
        const uint32_t v = topo->GetNEndpoints() + j;
        if (v != li.a && v != li.b)
        {
            continue;
        }
        const uint16_t port = (v == li.a ? li.devA : li.devB)->GetPortIndex();
        for (uint32_t d = 0; d < topo->GetNHosts(); ++d)
        {
            for (uint16_t p :
                 topo->GetSwitch(j)->GetRoutingTable().GetPorts(topo->GetHostAddress(d)))
            {
                if (p == port)
                {
                    return true;
                }
            }
        }
    }
    return false;
}

/// All of every switch's tables, as text.
std::string
Tables(Ptr<FabricTopology> topo)
{
    std::ostringstream os;
    for (uint32_t j = 0; j < topo->GetNSwitches(); ++j)
    {
        for (uint32_t d = 0; d < topo->GetNHosts(); ++d)
        {
            os << j << ">" << d << ":";
            for (uint16_t p :
                 topo->GetSwitch(j)->GetRoutingTable().GetPorts(topo->GetHostAddress(d)))
            {
                os << p << ",";
            }
            os << " ";
        }
    }
    return os.str();
}

struct FaultRun
{
    double stepMs{0};
    double faultAtMs{0};
    uint64_t linkDownDrops{0};
    uint64_t dropsAfterConvergence{0}; //!< link-down drops counted after routes reconverged
    uint64_t retransmissions{0};
    uint64_t timeouts{0};
    double lossWindowMs{0};                 //!< FabricFaultInjector::GetLossWindow
    std::vector<double> connectionWindowMs; //!< GetConnectionLossWindows
    bool routedOverDeadLink{false};
    bool completed{false};
};

/// One 16 MiB ring AllReduce over the 8 GPUs; with `fault`, the busiest leaf0 uplink goes down
/// 0.25 ms into it and routes reconverge `convergence` later.
FaultRun
RingAllReduce(bool fault, Time convergence, Time rto)
{
    Ptr<FabricTopology> topo = TwoLeaves();
    RdmaHelper rdma;
    rdma.SetNicAttribute("RetransmitTimeout", TimeValue(rto));
    Cluster c = MakeJob(topo,
                        "ns3::RingCollective",
                        "allreduce",
                        16 << 20,
                        1,
                        MicroSeconds(10),
                        false,
                        rdma);
    Ptr<FabricFaultInjector> inj = CreateObject<FabricFaultInjector>();
    inj->SetTopology(topo);
    inj->SetAttribute("ConvergenceTime", TimeValue(convergence));
    FaultRun out;
    int32_t dead = -1;
    uint64_t dropsAtConvergence = 0;
    if (fault)
    {
        Simulator::Schedule(MicroSeconds(260), [&]() {
            // The leaf0 uplink carrying the ring's cross-leaf flow: the one that sent the most.
            uint64_t most = 0;
            for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
            {
                const FabricLinkInfo& li = topo->GetLinks()[l];
                if (topo->GetVertexName(li.a) == "leaf0" &&
                    topo->GetVertexName(li.b).rfind("spine", 0) == 0 &&
                    li.devA->GetCounters().txDataFrames > most)
                {
                    most = li.devA->GetCounters().txDataFrames;
                    dead = int32_t(l);
                }
            }
            out.faultAtMs = Simulator::Now().GetSeconds() * 1e3;
            inj->SetLinkUp(uint32_t(dead), false);
        });
        inj->TraceConnectWithoutContext("Reconverged",
                                        MakeCallback(+[](uint64_t* at, FabricFaultInjector* i) {
                                            *at = i->GetLinkDownDrops();
                                        }).Bind(&dropsAtConvergence, PeekPointer(inj)));
    }
    Simulator::ScheduleNow(&TrainingJob::Start, c.job);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    out.completed = c.job->IsFinished() && !c.job->GetSteps().empty() &&
                    !c.job->GetSteps()[0].collectiveEnd.empty();
    if (out.completed)
    {
        out.stepMs = c.job->GetSteps()[0].StepTime().GetSeconds() * 1e3;
    }
    out.linkDownDrops = inj->GetLinkDownDrops();
    out.dropsAfterConvergence = out.linkDownDrops - dropsAtConvergence;
    out.lossWindowMs = inj->GetLossWindow().GetSeconds() * 1e3;
    for (const Time& w : inj->GetConnectionLossWindows())
    {
        out.connectionWindowMs.push_back(w.GetSeconds() * 1e3);
    }
    out.retransmissions = c.rdma->GetRetransmissions();
    out.timeouts = c.rdma->GetTimeouts();
    out.routedOverDeadLink = dead >= 0 && RoutedOver(topo, uint32_t(dead));
    Simulator::Destroy();
    return out;
}

} // namespace

TEST_F(FabricTest, IntactClosRoutesAreTheSameValleyFreeOrNot)
{
    auto rail = [](uint32_t servers, uint32_t gpus, uint32_t radix) {
        Ptr<RailOptimizedFatTreeHelper> h = CreateObject<RailOptimizedFatTreeHelper>();
        h->SetAttribute("Servers", UintegerValue(servers));
        h->SetAttribute("GpusPerServer", UintegerValue(gpus));
        h->SetAttribute("LeafRadix", UintegerValue(radix));
        return h->Build();
    };
    Ptr<FatTreeHelper> k8 = CreateObject<FatTreeHelper>();
    k8->SetAttribute("Servers", UintegerValue(32));
    k8->SetAttribute("GpusPerServer", UintegerValue(1));
    k8->SetAttribute("LeafRadix", UintegerValue(8));
    k8->SetAttribute("Tiers", UintegerValue(3));
    for (Ptr<FabricTopology> topo : {rail(6, 4, 8), TwoLeaves(), k8->Build()})
    {
        topo->SetAttribute("ValleyFree", BooleanValue(true));
        topo->PopulateRoutes();
        const std::string valleyFree = Tables(topo);
        topo->SetAttribute("ValleyFree", BooleanValue(false));
        topo->PopulateRoutes();
        EXPECT_EQ(valleyFree, Tables(topo)) << topo->Describe();
    }
}

TEST_F(FabricTest, AfterALeafSpineFailureRoutesShrinkValleyFreeOrDetourDownAndUp)
{
    for (bool valleyFree : {true, false})
    {
        Ptr<FabricTopology> topo = TwoLeaves(valleyFree);
        const int32_t l = topo->FindLink("leaf1-spine0");
        ASSERT_GE(l, 0);
        topo->SetLinkUp(uint32_t(l), false);
        topo->PopulateRoutes();
        EXPECT_FALSE(RoutedOver(topo, uint32_t(l)));
        const uint32_t spine0 = uint32_t(topo->FindVertex("spine0")) - topo->GetNEndpoints();
        const uint32_t leaf0 = uint32_t(topo->FindVertex("leaf0")) - topo->GetNEndpoints();
        const Ipv4Address host4 = topo->GetHostAddress(4); // under leaf1
        // leaf0 reaches leaf1 through the three other spines only.
        EXPECT_EQ(topo->GetSwitch(leaf0)->GetRoutingTable().GetPorts(host4).size(), 3u);
        // spine0 cannot reach leaf1 valley-free; without the rule it goes down to leaf0 and up.
        EXPECT_EQ(topo->GetSwitch(spine0)->GetRoutingTable().GetPorts(host4).size(),
                  valleyFree ? 0u : 1u);
        topo->SetLinkUp(uint32_t(l), true);
        topo->PopulateRoutes();
        EXPECT_EQ(topo->GetSwitch(leaf0)->GetRoutingTable().GetPorts(host4).size(), 4u);
        EXPECT_EQ(topo->GetTier(uint32_t(topo->FindVertex("spine0"))), 2u);
    }
}

TEST_F(FabricTest, LinkDownMidAllReduceCompletesAfterReconvergence)
{
    const Time rto = MilliSeconds(4);
    const FaultRun clean = RingAllReduce(false, MilliSeconds(1), rto);
    ASSERT_TRUE(clean.completed);
    EXPECT_EQ(clean.linkDownDrops, 0u);
    // Convergence faster than the retransmission timeout, then slower.
    for (const Time& convergence : {MilliSeconds(1), MilliSeconds(10)})
    {
        const FaultRun hit = RingAllReduce(true, convergence, rto);
        ASSERT_TRUE(hit.completed) << "the job completes after reconvergence";
        EXPECT_GT(hit.linkDownDrops, 0u) << "frames hashed onto the dead link before convergence";
        // After convergence no frame goes onto the dead link, and no route uses it.
        EXPECT_EQ(hit.dropsAfterConvergence, 0u);
        EXPECT_FALSE(hit.routedOverDeadLink);
        EXPECT_GT(hit.retransmissions, 0u) << "the black-holed frames are sent again";
        EXPECT_GT(hit.timeouts, 0u);
        // Go-back-N resends from the first lost frame, and every frame after it was lost too:
        // each lost frame is sent again once, no other.
        EXPECT_EQ(hit.linkDownDrops, hit.retransmissions);
        // The flow on the dead link lost the tail of its message: no later frame came to
        // trigger a NACK, so go-back-N waited for its timeout. Retransmissions before the
        // routes converge are black-holed too (the flow hashes onto the same dead link), so the
        // step resumes at the first timeout after convergence: the rise is that, within one
        // clean collective.
        const double rise = hit.stepMs - clean.stepMs;
        const double conv = convergence.GetSeconds() * 1e3;
        const double rtoMs = rto.GetSeconds() * 1e3;
        EXPECT_GE(rise, conv - clean.stepMs) << rise;
        EXPECT_GE(rise, rtoMs - clean.stepMs) << rise;
        EXPECT_LE(rise, std::max(conv, rtoMs) + rtoMs * hit.timeouts + clean.stepMs) << rise;
        // Data is lost to the dead link from the failure until the last retransmission before
        // the routes converge: the queue pair resends every RTO, so the loss window is the
        // last multiple of the RTO before convergence (0 when convergence comes first), plus
        // the time the rest of its message takes to leave at line rate: less than the whole
        // clean AllReduce, which sends all of it.
        const double lastResend = std::floor(conv / rtoMs) * rtoMs;
        EXPECT_GE(hit.lossWindowMs, lastResend) << hit.lossWindowMs;
        EXPECT_LT(hit.lossWindowMs, lastResend + clean.stepMs) << hit.lossWindowMs;
        // The queue pairs hashed onto the link: each lost data, none for longer than the
        // fabric did.
        ASSERT_FALSE(hit.connectionWindowMs.empty());
        EXPECT_LE(hit.connectionWindowMs.back(), hit.lossWindowMs);
        EXPECT_GE(hit.connectionWindowMs.back(), lastResend);
        std::cout << "convergence " << conv << " ms, RTO " << rtoMs << " ms: clean " << clean.stepMs
                  << " ms; link down at " << hit.faultAtMs << " ms: step " << hit.stepMs << " ms (+"
                  << rise << "), " << hit.linkDownDrops << " frames lost on the dead link, "
                  << hit.retransmissions << " retransmitted, " << hit.timeouts
                  << " timeouts; data lost to it for " << hit.lossWindowMs << " ms ("
                  << hit.connectionWindowMs.size() << " queue pairs)\n";
    }
}

TEST_F(FabricTest, FlapsAndDegradedLinksApplyToBothEnds)
{
    Ptr<FabricTopology> topo = TwoLeaves();
    Ptr<FabricFaultInjector> inj = CreateObject<FabricFaultInjector>();
    inj->SetTopology(topo);
    inj->SetAttribute("ConvergenceTime", TimeValue(MicroSeconds(50)));
    const uint32_t l = uint32_t(topo->FindLink("leaf0-spine1"));
    FabricFaultEvent flap;
    flap.at = MicroSeconds(100);
    flap.action = FabricFaultEvent::FLAP;
    flap.links = {l};
    flap.period = MicroSeconds(200);
    flap.until = MicroSeconds(700);
    inj->AddEvent(flap);
    FabricFaultEvent slow;
    slow.at = MicroSeconds(10);
    slow.action = FabricFaultEvent::DEGRADE;
    slow.links = {uint32_t(topo->FindLink("leaf1-spine2"))};
    slow.gbps = 100;
    inj->AddEvent(slow);
    std::vector<std::pair<double, bool>> changes;
    inj->TraceConnectWithoutContext(
        "LinkChange",
        MakeCallback(+[](std::vector<std::pair<double, bool>>* v, uint32_t, bool up) {
            v->push_back({Simulator::Now().GetSeconds() * 1e6, up});
        }).Bind(&changes));
    Simulator::Stop(MilliSeconds(2));
    Simulator::Run();
    // Down at 100, up 200, down 300, ..., the last change no later than 700 us.
    ASSERT_EQ(changes.size(), 7u);
    for (size_t i = 0; i < changes.size(); ++i)
    {
        EXPECT_NEAR(changes[i].first, 100 + 100.0 * i, 1e-6);
        EXPECT_EQ(changes[i].second, i % 2 == 1);
    }
    EXPECT_FALSE(topo->IsLinkUp(l)) << "the flap ends down (an odd number of changes)";
    EXPECT_EQ(inj->GetReconvergences(), 7u);
    const FabricLinkInfo& li = topo->GetLinks()[topo->FindLink("leaf1-spine2")];
    EXPECT_EQ(li.devA->GetDataRate().GetBitRate(), 100000000000ULL);
    EXPECT_EQ(li.devB->GetDataRate().GetBitRate(), 100000000000ULL);
    Simulator::Destroy();
}

TEST_F(FabricTest, AOneWayDegradeSlowsOnlyWhatItsEndTransmits)
{
    // htsim's -failed: one direction of a link at a lower rate. From spine2: the spine's
    // transmitter on leaf1-spine2 runs at 100 Gb/s, the leaf's still at the link's rate.
    Ptr<FabricTopology> topo = TwoLeaves();
    Ptr<FabricFaultInjector> inj = CreateObject<FabricFaultInjector>();
    inj->SetTopology(topo);
    const uint32_t l = uint32_t(topo->FindLink("leaf1-spine2"));
    const FabricLinkInfo& li = topo->GetLinks()[l];
    const uint64_t before = li.devA->GetDataRate().GetBitRate();
    FabricFaultEvent slow;
    slow.at = MicroSeconds(10);
    slow.action = FabricFaultEvent::DEGRADE;
    slow.links = {l};
    slow.gbps = 100;
    slow.oneWay = true;
    slow.stormEnd = uint32_t(topo->FindVertex("spine2"));
    inj->AddEvent(slow);
    Simulator::Stop(MicroSeconds(20));
    Simulator::Run();
    const bool spineIsA = li.a == slow.stormEnd;
    EXPECT_EQ((spineIsA ? li.devA : li.devB)->GetDataRate().GetBitRate(), 100000000000ULL);
    EXPECT_EQ((spineIsA ? li.devB : li.devA)->GetDataRate().GetBitRate(), before);
    EXPECT_NE(before, 100000000000ULL);
    Simulator::Destroy();
}

// Random failures are drawn as the simulation goes: AddRandomFailures schedules one event per
// link that can fail, however many failures mtbf and the horizon make (drawn up front, 10 s of
// 1 ms failures on 8 links were 145,610 events before the first one ran). The k-th link draws
// from stream + k: its failures are exactly those drawn by hand from that stream (for the first
// link, the sequence the single up-front stream gave it, so its failures are unchanged); the
// count of failures started is what the draws give.
TEST_F(FabricTest, RandomFailuresAreDrawnAsTheSimulationGoes)
{
    ObjectFactory counting;
    counting.SetTypeId(CountingScheduler::GetTypeId());
    Simulator::SetScheduler(counting);
    Ptr<FabricTopology> topo = TwoLeaves();
    Ptr<FabricFaultInjector> inj = CreateObject<FabricFaultInjector>();
    inj->SetTopology(topo);
    inj->SetAttribute("ConvergenceTime", TimeValue(MicroSeconds(10)));
    EXPECT_EQ(inj->AssignStreams(900000), int64_t(topo->GetNLinks()));
    const Time mtbf = MilliSeconds(1);
    const Time repair = MicroSeconds(100);
    const Time horizon = Seconds(10);
    const uint64_t before = CountingScheduler::inserted;
    const uint32_t links = inj->AddRandomFailures(mtbf, repair, false, horizon);
    EXPECT_EQ(links, 8u) << "2 leaves x 4 spines; host links excluded";
    EXPECT_EQ(CountingScheduler::inserted - before, links) << "one pending failure per link";

    std::map<uint32_t, std::vector<std::pair<Time, bool>>> changes;
    inj->TraceConnectWithoutContext(
        "LinkChange",
        MakeCallback(+[](std::map<uint32_t, std::vector<std::pair<Time, bool>>>* m,
                         uint32_t link,
                         bool up) {
            (*m)[link].push_back({Simulator::Now(), up});
        }).Bind(&changes));
    const Time end = MilliSeconds(20);
    Simulator::Stop(end);
    Simulator::Run();

    // By hand: the k-th switch-switch link's stream, t = X1, repaired at t + repair, the next
    // failure X2 after the repair, ...
    uint32_t k = 0;
    uint64_t failures = 0;
    for (uint32_t l = 0; l < topo->GetNLinks(); ++l)
    {
        const FabricLinkInfo& li = topo->GetLinks()[l];
        if (li.a < topo->GetNEndpoints() || li.b < topo->GetNEndpoints())
        {
            EXPECT_EQ(changes.count(l), 0u) << "host links never fail";
            continue;
        }
        Ptr<ExponentialRandomVariable> x = CreateObject<ExponentialRandomVariable>();
        x->SetAttribute("Mean", DoubleValue(mtbf.GetSeconds()));
        x->SetStream(900000 + k++);
        std::vector<std::pair<Time, bool>> expected;
        for (Time t = Seconds(x->GetValue()); t <= end; t = t + repair + Seconds(x->GetValue()))
        {
            expected.push_back({t, false});
            ++failures;
            if (t + repair <= end)
            {
                expected.push_back({t + repair, true});
            }
        }
        EXPECT_GT(expected.size(), 10u) << "about 18 failures in 20 ms";
        EXPECT_EQ(changes[l], expected) << topo->GetLinkName(l);
    }
    EXPECT_EQ(inj->GetRandomFailures(), failures);
    Simulator::Destroy();
}

// The horizon: a failure starts only before it, and the last one is repaired after it.
TEST_F(FabricTest, RandomFailuresStopAtTheHorizon)
{
    Ptr<FabricTopology> topo = TwoLeaves();
    Ptr<FabricFaultInjector> inj = CreateObject<FabricFaultInjector>();
    inj->SetTopology(topo);
    inj->AssignStreams(900000);
    inj->AddRandomFailures(MilliSeconds(1), MilliSeconds(1), false, MilliSeconds(5));
    Time lastDown;
    Time lastUp;
    uint64_t ups = 0;
    inj->TraceConnectWithoutContext(
        "LinkChange",
        MakeCallback(+[](Time* down, Time* up, uint64_t* n, uint32_t, bool isUp) {
            *(isUp ? up : down) = Simulator::Now();
            *n += isUp ? 1 : 0;
        }).Bind(&lastDown, &lastUp, &ups));
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    EXPECT_GT(inj->GetRandomFailures(), 0u);
    EXPECT_LT(lastDown, MilliSeconds(5));
    EXPECT_EQ(ups, inj->GetRandomFailures()) << "every failure repaired";
    EXPECT_EQ(inj->GetLinksDown(), 0u);
    EXPECT_GT(lastUp, lastDown);
    Simulator::Destroy();
}

TEST_F(FabricTest, LostPfcFramesBreakLosslessness)
{
    // An 8-to-1 RDMA incast through one switch is lossless with PFC; when every PAUSE the
    // senders' NICs receive is lost, they never stop and the switch overflows its headroom.
    auto incast = [](bool losePauses) {
        Ptr<FabricTopology> topo = BuildStar(9);
        if (losePauses)
        {
            for (uint32_t h = 1; h <= 8; ++h)
            {
                topo->GetHostDevice(h)->SetAttribute("ControlErrorRate", DoubleValue(1.0));
            }
        }
        RdmaHelper rdma;
        rdma.SetCongestionControl("ns3::RdmaNoCc");
        rdma.Install(topo);
        Completions done;
        PostIncast(topo, 8, 4 << 20, done);
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        uint64_t headroomDrops = 0;
        uint64_t pausesLost = 0;
        for (uint32_t j = 0; j < topo->GetNSwitches(); ++j)
        {
            headroomDrops +=
                topo->GetSwitch(j)->GetCounters().drops[size_t(FabricDropReason::HEADROOM_FULL)];
        }
        for (uint32_t h = 1; h <= 8; ++h)
        {
            pausesLost +=
                topo->GetHostDevice(h)->GetCounters().drops[size_t(FabricDropReason::CORRUPT)];
        }
        Simulator::Destroy();
        return std::make_pair(headroomDrops, pausesLost);
    };
    const auto lossless = incast(false);
    EXPECT_EQ(lossless.first, 0u);
    EXPECT_EQ(lossless.second, 0u);
    const auto lost = incast(true);
    EXPECT_GT(lost.second, 0u) << "PAUSE frames arrived and were dropped";
    EXPECT_GT(lost.first, 0u) << "without their pauses the senders overflow the headroom";
}

TEST_F(FabricTest, LinkLossOfEveryFrameSetsBothEnds)
{
    Ptr<FabricTopology> topo = TwoLeaves();
    Ptr<FabricFaultInjector> inj = CreateObject<FabricFaultInjector>();
    inj->SetTopology(topo);
    const uint32_t l = uint32_t(topo->FindLink("leaf0-spine0"));
    const FabricLinkInfo& li = topo->GetLinks()[l];
    for (const bool all : {false, true})
    {
        inj->SetLinkLoss(l, 0.25, all);
        for (const auto& d : {li.devA, li.devB})
        {
            DoubleValue data;
            DoubleValue control;
            d->GetAttribute("ReceiveErrorRate", data);
            d->GetAttribute("ControlErrorRate", control);
            EXPECT_EQ(data.Get(), 0.25);
            EXPECT_EQ(control.Get(), all ? 0.25 : 0.0);
        }
    }
    Simulator::Destroy();
}

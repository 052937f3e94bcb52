// SPDX-License-Identifier: GPL-2.0-only
// Switch buffer sizing (issue 17): PFC headroom per port x lossless class, and fabrics whose
// headroom outgrows the nominal buffer (fast links, long cables) build instead of aborting.
#include "test-util.h"

#include <algorithm>
#include <string>

using namespace ns3;

namespace
{

/// Largest value an Occupancy trace reported.
void
TrackPeak(uint64_t* peak, uint64_t, uint64_t now)
{
    *peak = std::max(*peak, now);
}

} // namespace

TEST_F(FabricTest, TwoLosslessClassesStayWithinTheBuffer)
{
    // 8 -> 1 incast on priorities 3 and 0, both lossless (the runner's lossless-TCP mask 0x09),
    // over 1000 m host cables so that what is in flight after XOFF (2 x 5 us x 50 B/ns = 500 KB
    // plus a few frames) is close to the headroom of 566 KB. The receiver holds both classes
    // paused, so nothing drains: the shared pool fills (XOFF only when it is exhausted), priority
    // 3 is paused on every ingress port and fills its headroom, then priority 0 starts and fills
    // its own. 16 headroom buckets fill at once; a buffer that reserved one bucket per port would
    // hold ~8 x 566 KB more than it has.
    Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
    star->SetAttribute("Servers", UintegerValue(9));
    star->SetAttribute("GpusPerServer", UintegerValue(1));
    star->SetAttribute("HostCableLength", DoubleValue(1000.0));
    star->SetBufferAttribute("PfcDynamicThreshold", BooleanValue(false));
    star->SetBufferAttribute("PfcStaticXoff", UintegerValue(1U << 30));
    star->GetLinkHelper().SetFlowControlAttribute("EnabledPriorities", UintegerValue(0x09));
    Ptr<FabricTopology> topo = star->Build();
    Ptr<SwitchBufferManager> bm = topo->GetSwitch(0)->GetBufferManager();
    const uint64_t perSource = 3 * 1024 * 1024;
    std::vector<Ptr<FabricTrafficSource>> srcs;
    for (uint32_t i = 1; i <= 8; ++i)
    {
        srcs.push_back(AddSource(topo->GetHostNode(i), topo->GetHostAddress(0), i, perSource));
        auto late = AddSource(topo->GetHostNode(i), topo->GetHostAddress(0), 100 + i, perSource);
        late->SetAttribute("Priority", UintegerValue(0));
        late->SetStartTime(MicroSeconds(150)); // after priority 3 is paused everywhere
        srcs.push_back(late);
    }
    Ptr<FabricTrafficSink> sink = AddSink(topo->GetHostNode(0));
    DropCounter drops;
    drops.ConnectAll();
    uint64_t tracedPeak = 0;
    bm->TraceConnectWithoutContext("Occupancy", MakeBoundCallback(&TrackPeak, &tracedPeak));
    Ptr<PfcFlowControl> rx = DynamicCast<PfcFlowControl>(topo->GetHostDevice(0)->GetFlowControl());
    ASSERT_TRUE(rx);
    for (uint8_t p : {0, 3})
    {
        Simulator::Schedule(NanoSeconds(1), &PfcFlowControl::SetIngressCongested, rx, p, true);
        Simulator::Schedule(MicroSeconds(400), &PfcFlowControl::SetIngressCongested, rx, p, false);
    }
    uint64_t usedWhileHeld = 0;
    Simulator::Schedule(MicroSeconds(399), [&] { usedWhileHeld = bm->GetUsedBytes(); });
    Simulator::Run();
    // The scenario really filled the buffer: pool, plus priority 3's and priority 0's headroom
    // on all 8 ingress ports at more than half of a bucket each.
    EXPECT_GT(usedWhileHeld, bm->GetSharedPoolSize() + 8 * bm->GetHeadroom(1));
    EXPECT_LE(tracedPeak, bm->GetBufferSize());
    EXPECT_LE(bm->GetPeakUsedBytes(), bm->GetBufferSize());
    EXPECT_EQ(drops.Total(), 0u);
    EXPECT_EQ(sink->GetReceivedBytes(), 16 * perSource);
    EXPECT_EQ(bm->GetUsedBytes(), 0u);
}

namespace
{

/// A fabric whose PFC headroom exceeds the nominal 2 MiB per port of buffer.
struct BigHeadroomCase
{
    const char* name;
    const char* kind; //!< "star" or "fat-tree"
    double linkGbps;
    double hostCableM;
    double fabricCableM;
};

class BigHeadroomTest : public FabricTest, public ::testing::WithParamInterface<BigHeadroomCase>
{
};

Ptr<FabricTopologyHelper>
MakeHelper(const BigHeadroomCase& c)
{
    Ptr<FabricTopologyHelper> h;
    if (std::string(c.kind) == "star")
    {
        h = CreateObject<StarTopologyHelper>();
        h->SetAttribute("Servers", UintegerValue(4));
    }
    else
    {
        h = CreateObject<FatTreeHelper>();
        h->SetAttribute("Servers", UintegerValue(4));
        h->SetAttribute("LeafRadix", UintegerValue(4));
    }
    h->SetAttribute("GpusPerServer", UintegerValue(1));
    h->SetAttribute("LinkRate", DataRateValue(DataRate(uint64_t(c.linkGbps * 1e9))));
    h->SetAttribute("HostCableLength", DoubleValue(c.hostCableM));
    h->SetAttribute("FabricCableLength", DoubleValue(c.fabricCableM));
    return h;
}

} // namespace

TEST_P(BigHeadroomTest, BuildsWithABufferThatHoldsTheHeadroom)
{
    const BigHeadroomCase& c = GetParam();
    Ptr<FabricTopologyHelper> h = MakeHelper(c);
    h->GetLinkHelper().SetFlowControlAttribute("EnabledPriorities", UintegerValue(0x09));
    Ptr<FabricTopology> topo = h->Build();
    // Every switch: the buffer holds reserved space, the headroom of both lossless classes on
    // every port, and a shared pool of at least half the nominal 2 MiB per port.
    for (uint32_t s = 0; s < topo->GetNSwitches(); ++s)
    {
        Ptr<FabricSwitch> sw = topo->GetSwitch(s);
        Ptr<SwitchBufferManager> bm = sw->GetBufferManager();
        uint64_t headroom = 0;
        for (uint16_t p = 0; p < sw->GetNPorts(); ++p)
        {
            headroom += 2 * uint64_t(bm->GetHeadroom(p));
        }
        const uint64_t nominal = 2ULL * 1024 * 1024 * sw->GetNPorts();
        EXPECT_GT(headroom, nominal / 2) << "the case exercises the headroom growth";
        EXPECT_EQ(bm->GetBufferSize(),
                  uint64_t(bm->GetReservedPerQueue()) * 8 * sw->GetNPorts() + headroom +
                      nominal / 2);
        EXPECT_EQ(bm->GetSharedPoolSize(), nominal / 2);
    }
    // And it carries traffic on both classes, losslessly.
    DropCounter drops;
    drops.ConnectAll();
    AddSource(topo->GetHostNode(1), topo->GetHostAddress(0), 1, 1024 * 1024);
    auto tcpClass = AddSource(topo->GetHostNode(2), topo->GetHostAddress(0), 2, 1024 * 1024);
    tcpClass->SetAttribute("Priority", UintegerValue(0));
    AddSource(topo->GetHostNode(3), topo->GetHostAddress(0), 3, 1024 * 1024);
    Ptr<FabricTrafficSink> sink = AddSink(topo->GetHostNode(0));
    Simulator::Run();
    EXPECT_EQ(drops.Total(), 0u);
    EXPECT_EQ(sink->GetReceivedBytes(), 3u * 1024 * 1024);
}

INSTANTIATE_TEST_SUITE_P(
    Issue17,
    BigHeadroomTest,
    ::testing::Values(BigHeadroomCase{"LinkRate51200G", "fat-tree", 51200, 3, 50},
                      BigHeadroomCase{"HostCable100km", "star", 400, 100000, 50},
                      BigHeadroomCase{"FabricCable5km", "fat-tree", 400, 3, 5000},
                      // 12.5 GB per bucket: beyond 32-bit counters.
                      BigHeadroomCase{"LinkRate100T_HostCable100km", "star", 100000, 100000, 50}),
    [](const ::testing::TestParamInfo<BigHeadroomCase>& info) {
        return std::string(info.param.name);
    });

TEST_F(FabricTest, ExplicitBufferTooSmallForHeadroomIsAConfigError)
{
    // A fixed BufferSize is a real chip: 400G over 5 km needs ≈2.6 MB of headroom per port and
    // lossless class, which 4 MiB for a 4-port switch cannot hold. Build reports it, naming
    // the attribute and the smallest size that works, instead of aborting.
    Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
    star->SetAttribute("Servers", UintegerValue(4));
    star->SetAttribute("GpusPerServer", UintegerValue(1));
    star->SetAttribute("HostCableLength", DoubleValue(5000.0));
    star->SetBufferAttribute("BufferSize", UintegerValue(4 * 1024 * 1024));
    try
    {
        star->Build();
        ADD_FAILURE() << "Build accepted a buffer smaller than its headroom";
    }
    catch (const FabricConfigError& e)
    {
        EXPECT_EQ(e.GetParameter(), "BufferSize");
        const std::string what = e.what();
        EXPECT_NE(what.find("must be >"), std::string::npos) << what;
        EXPECT_NE(what.find("headroom"), std::string::npos) << what;
        EXPECT_NE(what.find("4194304"), std::string::npos) << what;
    }
}

TEST_F(FabricTest, EcnKmaxBelowKminIsAConfigError)
{
    // Found by Validate, before anything is built (Build validates first).
    Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
    star->SetBufferAttribute("EcnKmin", UintegerValue(200000));
    star->SetBufferAttribute("EcnKmax", UintegerValue(100000));
    try
    {
        star->Validate();
        ADD_FAILURE() << "Validate accepted EcnKmax < EcnKmin";
    }
    catch (const FabricConfigError& e)
    {
        EXPECT_EQ(e.GetParameter(), "EcnKmax");
        EXPECT_NE(std::string(e.what()).find("200000"), std::string::npos) << e.what();
    }
}

TEST_F(FabricTest, BufferManagerChecksBeforeConfiguring)
{
    // The non-aborting check a caller can run first: 2 ports, 4 KB reserved x 8 priorities,
    // 100 KB of headroom on priorities 0 and 3 of port 0 and on priority 3 of port 1.
    Ptr<SwitchBufferManager> bm = CreateObject<SwitchBufferManager>();
    const std::vector<uint64_t> headroom{100000, 100000};
    const std::vector<uint8_t> lossless{0x09, 0x08};
    const uint64_t carved = 2 * 8 * 4096 + 3 * 100000;
    EXPECT_EQ(bm->GetCarvedBytes(2, headroom, lossless), carved);
    // BufferSize 0: 2 x 2 MiB is more than carved + half of it, so it stays 4 MiB.
    EXPECT_EQ(bm->GetRequiredBufferSize(2, headroom, lossless), 4u * 1024 * 1024);
    EXPECT_FALSE(bm->CheckConfig(2, headroom, lossless));
    bm->SetAttribute("BufferSize", UintegerValue(carved));
    const SwitchBufferManager::ConfigProblem p = bm->CheckConfig(2, headroom, lossless);
    ASSERT_TRUE(p);
    EXPECT_EQ(p.attribute, "BufferSize");
    EXPECT_NE(p.message.find("must be > " + std::to_string(carved) + " B"), std::string::npos)
        << p.message;
    bm->SetAttribute("BufferSize", UintegerValue(carved + 1));
    EXPECT_FALSE(bm->CheckConfig(2, headroom, lossless));
    bm->Configure(2, headroom, lossless);
    EXPECT_EQ(bm->GetSharedPoolSize(), 1u);
    EXPECT_EQ(bm->GetTotalHeadroom(), 300000u);
}

TEST_F(FabricTest, WindowPeaksCatchABurstBetweenTwoSamples)
{
    // A burst that comes and goes between two samples: the instantaneous queue at the sample
    // is 0, the window's peaks are not (what queue.csv and queue.png report).
    Ptr<SwitchBufferManager> bm = CreateObject<SwitchBufferManager>();
    bm->Configure(3, {0, 0, 0}, {0, 0, 0});
    const auto a = bm->Admit(0, 2, 0, 1000, false, false);
    const auto b = bm->Admit(1, 2, 0, 500, false, false);
    const auto c = bm->Admit(0, 1, 0, 700, false, false);
    ASSERT_TRUE(a.admitted && b.admitted && c.admitted);
    bm->Release(0, 2, 0, 1000, a.shared, a.headroom, false);
    bm->Release(1, 2, 0, 500, b.shared, b.headroom, false);
    uint64_t used = 0;
    uint64_t queue = 0;
    bm->TakeWindowPeaks(used, queue);
    EXPECT_EQ(used, 2200u);  // all three at once
    EXPECT_EQ(queue, 1500u); // port 2's queue at its largest
    // The next window starts from what is still buffered (700 B towards port 1).
    bm->TakeWindowPeaks(used, queue);
    EXPECT_EQ(used, 700u);
    EXPECT_EQ(queue, 0u); // no admission: the sampler adds the queues it reads
    bm->Release(0, 1, 0, 700, c.shared, c.headroom, false);
    bm->TakeWindowPeaks(used, queue);
    EXPECT_EQ(used, 700u);
    bm->TakeWindowPeaks(used, queue);
    EXPECT_EQ(used, 0u);
}

TEST_F(FabricTest, PortScaleShrinksOnePortsQueueLimitAndEcnThresholds)
{
    // A port whose link runs at a quarter of its rate keeps queues as long in time as the
    // others (htsim's failed links): its dynamic egress limit and ECN thresholds are x 0.25.
    Ptr<SwitchBufferManager> bm = CreateObject<SwitchBufferManager>();
    bm->SetAttribute("BufferSize", UintegerValue(1000000));
    bm->SetAttribute("ReservedPerQueue", UintegerValue(0));
    bm->SetAttribute("EgressAlpha", DoubleValue(0.5));
    bm->SetAttribute("EcnOnDequeue", BooleanValue(true));
    bm->SetAttribute("EcnKmin", UintegerValue(10000));
    bm->SetAttribute("EcnKmax", UintegerValue(20000));
    bm->SetAttribute("EcnPmax", DoubleValue(1.0));
    bm->Configure(3, {0, 0, 0}, {0, 0, 0});
    bm->SetPortScale(2, 0.25);
    EXPECT_DOUBLE_EQ(bm->GetPortScale(2), 0.25);
    EXPECT_DOUBLE_EQ(bm->GetPortScale(1), 1.0);
    const double pool = double(bm->GetSharedPoolSize());
    // 1000-byte frames into one queue of an otherwise empty buffer: the (k+1)-th is admitted
    // while (k + 1) x 1000 <= alpha x f x (pool - k x 1000), so k + 1 frames fit for the largest
    // such k: k = floor((alpha f pool / 1000 - 1) / (1 + alpha f)).
    auto fits = [&](double f) {
        const double af = 0.5 * f;
        return uint32_t(std::floor((af * pool / 1000 - 1) / (1 + af))) + 1;
    };
    auto fill = [&](uint32_t port) {
        std::vector<SwitchBufferManager::Admission> in;
        while (true)
        {
            auto a = bm->Admit(0, port, 0, 1000, false, true);
            if (!a.admitted)
            {
                EXPECT_EQ(a.reason, FabricDropReason::BUFFER_FULL);
                break;
            }
            in.push_back(a);
        }
        for (const auto& a : in)
        {
            bm->Release(0, port, 0, 1000, a.shared, a.headroom, false);
        }
        return uint32_t(in.size());
    };
    EXPECT_EQ(fill(1), fits(1.0));
    EXPECT_EQ(fill(2), fits(0.25));
    // A queue of q = alpha f (pool - q), q = alpha f pool / (1 + alpha f): pool / 3 at f = 1,
    // pool / 9 at 0.25 (a third: the pool left free grows as the queue shrinks).
    EXPECT_NEAR(double(fill(2)) / double(fill(1)), 1.0 / 3.0, 0.01);
    // 6 kB queued: above the scaled port's Kmax (5 kB), below the others' Kmin (10 kB).
    std::vector<SwitchBufferManager::Admission> held;
    for (uint32_t port : {1u, 2u})
    {
        for (int i = 0; i < 6; ++i)
        {
            held.push_back(bm->Admit(0, port, 0, 1000, false, true));
        }
    }
    EXPECT_FALSE(bm->MarkOnDequeue(1, 0));
    EXPECT_TRUE(bm->MarkOnDequeue(2, 0));
    // Back to the switch-wide values.
    bm->SetPortScale(2, 1.0);
    EXPECT_FALSE(bm->MarkOnDequeue(2, 0));
}

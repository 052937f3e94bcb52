// SPDX-License-Identifier: GPL-2.0-only
// The switch: PFC incast, lossy drops and conservation, ECN marking, ECMP, buffer accounting.
#include "test-util.h"

#include <cmath>
#include <functional>

using namespace ns3;

namespace
{

struct PeakIngress
{
    uint32_t peak{0};
};

/// Run an 8->1 incast on a star; returns the topology for inspection.
Ptr<FabricTopology>
Incast(
    bool pfc,
    uint64_t bufferBytes,
    uint64_t bytesPerSender,
    std::vector<Ptr<FabricTrafficSource>>& srcs,
    Ptr<FabricTrafficSink>& sink,
    DropCounter& drops,
    std::function<void()> beforeRun = [] {})
{
    Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
    star->SetAttribute("Servers", UintegerValue(9));
    star->SetAttribute("GpusPerServer", UintegerValue(1));
    star->SetBufferAttribute("PfcDynamicThreshold", BooleanValue(false));
    star->SetBufferAttribute("PfcStaticXoff", UintegerValue(64 * 1024));
    if (bufferBytes)
    {
        star->SetBufferAttribute("BufferSize", UintegerValue(bufferBytes));
    }
    if (!pfc)
    {
        star->GetLinkHelper().SetFlowControlAttribute("EnabledPriorities", UintegerValue(0));
    }
    Ptr<FabricTopology> topo = star->Build();
    for (uint32_t i = 1; i <= 8; ++i)
    {
        srcs.push_back(AddSource(topo->GetHostNode(i), topo->GetHostAddress(0), i, bytesPerSender));
    }
    sink = AddSink(topo->GetHostNode(0));
    drops.ConnectAll();
    beforeRun();
    Simulator::Run();
    return topo;
}

} // namespace

TEST_F(FabricTest, IncastWithPfcIsLossless)
{
    std::vector<Ptr<FabricTrafficSource>> srcs;
    Ptr<FabricTrafficSink> sink;
    DropCounter drops;
    uint64_t pausesReceived = 0;
    auto connect = [&pausesReceived] {
        Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::FabricNetDevice/FlowControl/"
                                      "$ns3::PfcFlowControl/PauseReceived",
                                      MakeCallback(+[](uint64_t* n, uint8_t, uint16_t q) {
                                          if (q)
                                          {
                                              ++*n;
                                          }
                                      }).Bind(&pausesReceived));
    };
    const uint64_t perSender = 4 * 1024 * 1024;
    Ptr<FabricTopology> topo = Incast(true, 0, perSender, srcs, sink, drops, connect);
    EXPECT_EQ(drops.Total(), 0u);
    EXPECT_EQ(sink->GetReceivedBytes(), 8 * perSender);
    Ptr<FabricSwitch> sw = topo->GetSwitch(0);
    Ptr<SwitchBufferManager> bm = sw->GetBufferManager();
    uint64_t pauseFrames = 0;
    for (uint16_t p = 0; p < sw->GetNPorts(); ++p)
    {
        pauseFrames += sw->GetPort(p)->GetCounters().pfcFramesTx;
        // Peak ingress occupancy never exceeds reserved + XOFF + headroom (+ one frame that
        // triggered XOFF is already inside XOFF + headroom).
        EXPECT_LE(bm->GetPeakIngressBytes(p, 3),
                  bm->GetReservedPerQueue() + 64 * 1024 + bm->GetHeadroom(p))
            << "port " << p;
    }
    EXPECT_GT(pauseFrames, 0u);
    EXPECT_GT(pausesReceived, 0u);
    EXPECT_EQ(bm->GetUsedBytes(), 0u) << "buffer fully released at the end";
    EXPECT_EQ(bm->GetSharedUsedBytes(), 0u);
    // The bottleneck was fully used: 8 senders into one 400G port.
    const double goodput = double(sink->GetReceivedBytes()) * 8 /
                           (sink->GetLastRxTime() - sink->GetFirstRxTime()).GetSeconds();
    EXPECT_NEAR(goodput / (400e9 * 4096 / (4096 + 70.0)), 1.0, 0.01);
}

TEST_F(FabricTest, IncastWithoutPfcDropsAndConservesBytes)
{
    std::vector<Ptr<FabricTrafficSource>> srcs;
    Ptr<FabricTrafficSink> sink;
    DropCounter drops;
    const uint64_t perSender = 1024 * 1024;
    Ptr<FabricTopology> topo = Incast(false, 512 * 1024, perSender, srcs, sink, drops);
    EXPECT_GT(drops.Total(), 0u);
    EXPECT_EQ(drops.Total(), drops.Of(FabricDropReason::BUFFER_FULL));
    uint64_t sentPackets = 0;
    uint64_t sentBytes = 0;
    for (auto& s : srcs)
    {
        sentPackets += s->GetSentPackets();
        sentBytes += s->GetSentPayloadBytes();
    }
    EXPECT_EQ(sentPackets, sink->GetReceivedPackets() + drops.Total());
    EXPECT_EQ(sentBytes, sink->GetReceivedBytes() + drops.payloadBytes);
    uint64_t pauseFrames = 0;
    for (uint16_t p = 0; p < topo->GetSwitch(0)->GetNPorts(); ++p)
    {
        pauseFrames += topo->GetSwitch(0)->GetPort(p)->GetCounters().pfcFramesTx;
    }
    EXPECT_EQ(pauseFrames, 0u);
    EXPECT_EQ(topo->GetSwitch(0)->GetBufferManager()->GetUsedBytes(), 0u);
}

TEST_F(FabricTest, PauseTimerExpiresAndRefreshes)
{
    // A receiver that never drains: hold XOFF on one port and watch the upstream stay paused
    // through refreshes, then resume after XON.
    Ptr<FabricTopology> topo = BuildStar(2);
    Ptr<FabricNetDevice> host = topo->GetHostDevice(0);
    Ptr<PfcFlowControl> hostFc = DynamicCast<PfcFlowControl>(host->GetFlowControl());
    Ptr<FabricNetDevice> port = topo->GetSwitch(0)->GetPort(0);
    Ptr<PfcFlowControl> portFc = DynamicCast<PfcFlowControl>(port->GetFlowControl());
    ASSERT_TRUE(hostFc && portFc);
    Simulator::Schedule(NanoSeconds(100), &PfcFlowControl::SetIngressCongested, portFc, 3, true);
    bool pausedAt50us = false;
    bool pausedAt200us = false;
    bool pausedAt300us = true;
    Simulator::Schedule(MicroSeconds(50), [&] { pausedAt50us = hostFc->IsPaused(3); });
    // 65535 quanta at 400G last 83.9 us; refreshed every 41.9 us, so still paused at 200 us.
    Simulator::Schedule(MicroSeconds(200), [&] { pausedAt200us = hostFc->IsPaused(3); });
    Simulator::Schedule(MicroSeconds(250), &PfcFlowControl::SetIngressCongested, portFc, 3, false);
    Simulator::Schedule(MicroSeconds(300), [&] { pausedAt300us = hostFc->IsPaused(3); });
    Simulator::Stop(MicroSeconds(400));
    Simulator::Run();
    EXPECT_TRUE(pausedAt50us);
    EXPECT_TRUE(pausedAt200us);
    EXPECT_FALSE(pausedAt300us);
    EXPECT_GE(portFc->GetPauseFramesSent(), 5u); // 1 + refreshes every ~42 us over 250 us
    EXPECT_EQ(portFc->GetResumeFramesSent(), 1u);
    // Without refresh the pause expires on its own after 65535 x 512 bit-times.
    EXPECT_EQ(host->BitTimes(65535ULL * 512).GetNanoSeconds(), 83885);
}

TEST_F(FabricTest, HeadroomFollowsTheQbbFormula)
{
    // 400G, 100 m, 9216 B frames: 2 x 9216 + 84 + 2 x 100 m x 5 ns/m x 50 B/ns + 463,360 bit.
    EXPECT_EQ(PfcFlowControl::ComputeHeadroom(DataRate("400Gbps"), 100, 9216), 126436u);
    // 100G: response delay bound 201,728 bit.
    EXPECT_EQ(PfcFlowControl::ComputeHeadroom(DataRate("100Gbps"), 100, 9216),
              2 * 9216 + 84 + 12500 + 201728 / 8);
}

TEST_F(FabricTest, EcnMarkingFollowsRed)
{
    Ptr<SwitchBufferManager> bm = CreateObject<SwitchBufferManager>();
    bm->SetAttribute("BufferSize", UintegerValue(64 * 1024 * 1024));
    bm->SetAttribute("EcnKmin", UintegerValue(100000));
    bm->SetAttribute("EcnKmax", UintegerValue(400000));
    bm->SetAttribute("EcnPmax", DoubleValue(0.2));
    bm->Configure(2, {0, 0});
    bm->AssignStreams(3);
    // Fill the egress queue of port 1 to q bytes with lossy non-ECT frames, then probe.
    uint64_t q = 0;
    for (uint64_t target : {50000ULL, 150000ULL, 250000ULL, 350000ULL, 450000ULL})
    {
        while (q < target)
        {
            auto a = bm->Admit(0, 1, 0, 1000, false, false);
            ASSERT_TRUE(a.admitted);
            q += 1000;
        }
        const int trials = 20000;
        int marks = 0;
        for (int t = 0; t < trials; ++t)
        {
            auto a = bm->Admit(0, 1, 0, 1000, false, true);
            marks += a.ecnMark;
            bm->Release(0, 1, 0, 1000, a.shared, a.headroom, false);
        }
        const double p = bm->GetMarkProbability(q);
        const double expectedP = q <= 100000 ? 0 : q >= 400000 ? 1 : 0.2 * (q - 100000) / 300000.0;
        EXPECT_DOUBLE_EQ(p, expectedP);
        const double sd = std::sqrt(trials * p * (1 - p));
        EXPECT_NEAR(marks, trials * p, 4 * sd + 1) << "queue " << q;
    }
}

TEST_F(FabricTest, EcnMarksReachTheReceiver)
{
    // 2->1 incast with a low Kmin: the receiver sees CE-marked datagrams; non-ECT ones never.
    Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
    star->SetAttribute("Servers", UintegerValue(3));
    star->SetAttribute("GpusPerServer", UintegerValue(1));
    star->SetBufferAttribute("EcnKmin", UintegerValue(10000));
    star->SetBufferAttribute("EcnKmax", UintegerValue(50000));
    Ptr<FabricTopology> topo = star->Build();
    auto s1 = AddSource(topo->GetHostNode(1), topo->GetHostAddress(0), 1, 2000000);
    auto s2 = AddSource(topo->GetHostNode(2), topo->GetHostAddress(0), 2, 2000000);
    s2->SetAttribute("EcnCapable", BooleanValue(false));
    auto sink = AddSink(topo->GetHostNode(0));
    Simulator::Run();
    EXPECT_GT(sink->GetFlowStats().at(1).ceMarked, 0u);
    EXPECT_EQ(sink->GetFlowStats().at(2).ceMarked, 0u);
    EXPECT_EQ(topo->GetSwitch(0)->GetCounters().ecnMarks, sink->GetCeMarkedPackets());
}

TEST_F(FabricTest, LossyAdmissionUsesDynamicThreshold)
{
    Ptr<SwitchBufferManager> bm = CreateObject<SwitchBufferManager>();
    bm->SetAttribute("BufferSize", UintegerValue(1000000));
    bm->SetAttribute("ReservedPerQueue", UintegerValue(0));
    bm->SetAttribute("EgressAlpha", DoubleValue(1.0));
    bm->Configure(2, {0, 0});
    // One queue alone can take q <= alpha (B - q): half the buffer.
    uint64_t admitted = 0;
    while (bm->Admit(0, 1, 0, 1000, false, false).admitted)
    {
        admitted += 1000;
    }
    EXPECT_NEAR(double(admitted), 500000.0, 1000.0);
}

TEST_F(FabricTest, EcmpSpreadsFlowsAcrossUplinks)
{
    // 2-tier leaf-spine, radix 8: 4 hosts and 4 uplinks per leaf.
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("Servers", UintegerValue(8));
    ft->SetAttribute("GpusPerServer", UintegerValue(1));
    ft->SetAttribute("LeafRadix", UintegerValue(8));
    Ptr<FabricTopology> topo = ft->Build();
    ASSERT_EQ(topo->CountSwitches("spine"), 4u);
    Ptr<FabricSwitch> leaf0 = topo->GetSwitch(0);
    std::map<int32_t, uint32_t> perPort;
    std::vector<Ptr<FabricTrafficSource>> srcs;
    for (uint32_t f = 0; f < 64; ++f)
    {
        FabricFrame fr;
        fr.src = topo->GetHostAddress(f % 4).Get();
        fr.dst = topo->GetHostAddress(4 + (f / 4) % 4).Get();
        fr.srcPort = static_cast<uint16_t>(10000 + f);
        fr.dstPort = 9000;
        fr.protocol = 17;
        fr.ComputeFlowHash();
        ++perPort[leaf0->SelectEgressPort(fr)];
        auto s = AddSource(topo->GetHostNode(f % 4), Ipv4Address(fr.dst), f, 4096 * 10);
        s->SetAttribute("SourcePort", UintegerValue(10000 + f));
        srcs.push_back(s);
    }
    for (uint32_t h = 4; h < 8; ++h)
    {
        AddSink(topo->GetHostNode(h));
    }
    ASSERT_EQ(perPort.size(), 4u);
    // Multinomial(64, 1/4 each): chi-square with 3 degrees of freedom, p = 0.001 -> 16.27.
    double chi2 = 0;
    for (auto& kv : perPort)
    {
        chi2 += (kv.second - 16.0) * (kv.second - 16.0) / 16.0;
    }
    EXPECT_LT(chi2, 16.27);
    Simulator::Run();
    // The data plane made the same choices: uplink tx frames = 10 frames per flow chosen.
    for (auto& kv : perPort)
    {
        EXPECT_EQ(leaf0->GetPort(static_cast<uint16_t>(kv.first))->GetCounters().txDataFrames,
                  kv.second * 10u);
    }
}

TEST_F(FabricTest, SameSeedSameCounters)
{
    auto run = [](uint32_t seed) {
        RngSeedManager::SetSeed(seed);
        Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
        star->SetAttribute("Servers", UintegerValue(5));
        star->SetAttribute("GpusPerServer", UintegerValue(1));
        star->SetBufferAttribute("EcnKmin", UintegerValue(20000));
        star->SetBufferAttribute("EcnKmax", UintegerValue(200000));
        star->SetBufferAttribute("EcnPmax", DoubleValue(0.5));
        star->GetLinkHelper().SetDeviceAttribute("ReceiveErrorRate", DoubleValue(1e-3));
        Ptr<FabricTopology> topo = star->Build();
        topo->AssignStreams(100);
        for (uint32_t i = 1; i < 5; ++i)
        {
            AddSource(topo->GetHostNode(i), topo->GetHostAddress(0), i, 2000000);
        }
        auto sink = AddSink(topo->GetHostNode(0));
        Simulator::Run();
        std::vector<uint64_t> v{sink->GetReceivedPackets(),
                                sink->GetCeMarkedPackets(),
                                uint64_t(sink->GetLastRxTime().GetTimeStep()),
                                topo->GetSwitch(0)->GetCounters().ecnMarks};
        Simulator::Destroy();
        return v;
    };
    auto a = run(5);
    auto b = run(5);
    EXPECT_EQ(a, b);
    EXPECT_GT(a[1], 0u);
    // The seed drives the losses and the ECN marks: another seed counts other marks.
    const auto c = run(6);
    EXPECT_NE(c, a);
    EXPECT_NE(c[3], a[3]) << "ECN marks";
}

TEST_F(FabricTest, LosslessBucketsDrainHeadroomFirst)
{
    Ptr<SwitchBufferManager> bm = CreateObject<SwitchBufferManager>();
    bm->SetAttribute("BufferSize", UintegerValue(10000000));
    bm->SetAttribute("PfcDynamicThreshold", BooleanValue(false));
    bm->SetAttribute("PfcStaticXoff", UintegerValue(8000));
    bm->SetAttribute("XonDelta", UintegerValue(2000));
    bm->SetAttribute("ReservedPerQueue", UintegerValue(4000));
    bm->Configure(2, {5000, 5000});
    // 4 KB reserved, then 8 KB shared -> XOFF on the frame that reaches 8 KB shared.
    int i = 0;
    bool paused = false;
    for (; !paused; ++i)
    {
        auto a = bm->Admit(0, 1, 3, 1000, true, false);
        ASSERT_TRUE(a.admitted);
        paused = a.pause;
    }
    EXPECT_EQ(i, 12);
    // After XOFF everything goes to headroom (5 KB), then HEADROOM_FULL.
    for (int k = 0; k < 5; ++k)
    {
        auto a = bm->Admit(0, 1, 3, 1000, true, false);
        ASSERT_TRUE(a.admitted);
        EXPECT_EQ(a.headroom, 1000u);
    }
    auto full = bm->Admit(0, 1, 3, 1000, true, false);
    EXPECT_FALSE(full.admitted);
    EXPECT_EQ(full.reason, FabricDropReason::HEADROOM_FULL);
    EXPECT_EQ(bm->GetPeakIngressBytes(0, 3), 4000u + 8000u + 5000u);
    // Releases empty headroom (5 frames) first, then shared down to 8000 - 2000: XON on the
    // 7th release, whatever bucket the released frames were charged to.
    int released = 0;
    bool resumed = false;
    while (!resumed)
    {
        resumed = bm->Release(0, 1, 3, 1000, 0, 0, true);
        ++released;
    }
    EXPECT_EQ(released, 7);
    EXPECT_FALSE(bm->IsIngressPaused(0, 3));
}

TEST_F(FabricTest, PcapFramesAreRealEthernet)
{
    Ptr<StarTopologyHelper> star;
    Ptr<FabricTopology> topo = BuildStar(3, &star);
    const std::string prefix = ::testing::TempDir() + "aif-pcap";
    star->GetLinkHelper().EnablePcap(prefix, topo->GetHostDevice(0), false, true);
    AddSource(topo->GetHostNode(1), topo->GetHostAddress(0), 1, 4 * 1024 * 1024);
    AddSource(topo->GetHostNode(2), topo->GetHostAddress(0), 2, 4 * 1024 * 1024);
    AddSink(topo->GetHostNode(0));
    // Force PAUSE frames towards host 0's NIC by holding XOFF on its switch port briefly.
    Ptr<PfcFlowControl> fc =
        DynamicCast<PfcFlowControl>(topo->GetSwitch(0)->GetPort(0)->GetFlowControl());
    Simulator::Schedule(MicroSeconds(5), &PfcFlowControl::SetIngressCongested, fc, 3, true);
    Simulator::Schedule(MicroSeconds(6), &PfcFlowControl::SetIngressCongested, fc, 3, false);
    Simulator::Run();
    Simulator::Destroy();
    PcapFile f;
    f.Open(prefix, std::ios::in);
    ASSERT_FALSE(f.Fail());
    EXPECT_EQ(f.GetDataLinkType(), 1u); // DLT_EN10MB
    uint8_t buf[9000];
    uint32_t sec, usec, incl, orig, read;
    uint32_t data = 0;
    uint32_t pfc = 0;
    while (true)
    {
        f.Read(buf, sizeof(buf), sec, usec, incl, orig, read);
        if (f.Eof() || f.Fail())
        {
            break;
        }
        const uint16_t type = uint16_t(buf[12] << 8 | buf[13]);
        if (type == 0x8100)
        {
            ++data;
            EXPECT_EQ(buf[14] >> 5, 3) << "802.1Q PCP = priority 3";
            EXPECT_EQ(uint16_t(buf[16] << 8 | buf[17]), 0x0800) << "IPv4 inside the tag";
            EXPECT_EQ(buf[18] >> 4, 4) << "IPv4 version";
            EXPECT_EQ(buf[18 + 9], 17) << "UDP";
            EXPECT_EQ(orig, 18u + 20 + 8 + 4096) << "frame without FCS";
        }
        else if (type == 0x8808)
        {
            ++pfc;
            EXPECT_EQ(uint16_t(buf[14] << 8 | buf[15]), 0x0101) << "PFC opcode";
            EXPECT_EQ(uint16_t(buf[16] << 8 | buf[17]), 0x0008) << "class-enable vector: C3";
            EXPECT_EQ(buf[0], 0x01);
            EXPECT_EQ(buf[5], 0x01) << "01-80-C2-00-00-01";
            EXPECT_EQ(orig, 60u) << "64-byte frame without FCS";
        }
    }
    EXPECT_GT(data, 0u);
    EXPECT_EQ(pfc, 2u) << "one PAUSE, one resume";
}

// Each kind of route the forwarding table holds, looked up as FabricSwitch does: a single
// port, an ECMP group (kept sorted), no host route (the prefix decides, or no route at all), a
// host route removed by giving it no ports, and the same routes when the addresses are too
// sparse for the dense array (the hash map).
TEST(FabricRoutingTableTest, LookupReturnsEachKindOfRoute)
{
    for (uint32_t stride : {1u, 1u << 20})
    {
        FabricRoutingTable t;
        const uint32_t base = Ipv4Address("10.0.0.1").Get();
        auto addr = [&](uint32_t i) { return Ipv4Address(base + i * stride); };
        t.AddHostRoute(addr(0), {7});
        t.AddHostRoute(addr(1), {9, 3, 5});
        t.AddHostRoute(addr(2), {4});
        t.AddHostRoute(addr(2), {}); // removed
        t.AddHostRoute(addr(4), {9, 3, 5});
        t.AddPrefixRoute(Ipv4Address("10.0.0.0"), Ipv4Mask("255.255.255.0"), {1, 2});

        uint32_t n = 99;
        const uint16_t* p = t.Lookup(addr(0).Get(), n);
        ASSERT_EQ(n, 1u) << stride;
        EXPECT_EQ(p[0], 7u);
        p = t.Lookup(addr(1).Get(), n);
        ASSERT_EQ(n, 3u);
        EXPECT_EQ(std::vector<uint16_t>(p, p + 3), (std::vector<uint16_t>{3, 5, 9}));
        EXPECT_EQ(t.GetPorts(addr(4)), (std::vector<uint16_t>{3, 5, 9}));
        EXPECT_EQ(t.GetNGroups(), 4u); // {7}, {3, 5, 9} once, {4} (interned, then unused), {1, 2}
        const std::vector<uint16_t> prefix{1, 2};
        if (stride == 1)
        {
            // In 10.0.0.0/24: the removed route and the unknown one fall to the prefix.
            EXPECT_EQ(t.GetPorts(addr(2)), prefix);
            EXPECT_EQ(t.GetPorts(addr(3)), prefix);
        }
        else
        {
            // Outside the prefix: no route at all.
            EXPECT_TRUE(t.GetPorts(addr(2)).empty());
            t.Lookup(addr(3).Get(), n);
            EXPECT_EQ(n, 0u);
        }
        EXPECT_EQ(t.GetPorts(Ipv4Address("10.0.0.200")), prefix);
        EXPECT_TRUE(t.GetPorts(Ipv4Address("192.168.0.1")).empty());
    }
}

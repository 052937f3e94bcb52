// SPDX-License-Identifier: GPL-2.0-only
// The fabric link: serialization of real wire bytes, propagation, goodput, schedulers, faults.
#include "test-util.h"

using namespace ns3;

namespace
{

/// Two hosts joined by one cable.
struct DirectLink
{
    Ptr<Node> a = CreateObject<Node>();
    Ptr<Node> b = CreateObject<Node>();
    Ptr<FabricNetDevice> da;
    Ptr<FabricNetDevice> db;

    DirectLink(DataRate rate, double meters, FabricLinkHelper* helper = nullptr)
    {
        FabricLinkHelper local;
        FabricLinkHelper& h = helper ? *helper : local;
        NetDeviceContainer d = h.Install(a, b, rate, meters);
        da = DynamicCast<FabricNetDevice>(d.Get(0));
        db = DynamicCast<FabricNetDevice>(d.Get(1));
        da->SetIpv4Address(Ipv4Address("10.0.0.1"));
        db->SetIpv4Address(Ipv4Address("10.0.0.2"));
    }
};

} // namespace

// Wire bytes of a UDP datagram: payload + UDP 8 + IPv4 20 + Ethernet 14 + 802.1Q 4 + FCS 4 +
// preamble/SFD 8 + IFG 12.
constexpr uint32_t kPerFrameOverhead = 8 + 20 + 14 + 4 + 4 + 20;

TEST_F(FabricTest, OnePacketLatencyIsSerializationPlusPropagation)
{
    DirectLink link(DataRate("400Gbps"), 10.0);
    auto src = AddSource(link.a, Ipv4Address("10.0.0.2"), 1, 4096, 4096);
    auto sink = AddSink(link.b);
    Simulator::Run();
    ASSERT_EQ(sink->GetReceivedPackets(), 1u);
    const double ser = (4096.0 + kPerFrameOverhead) * 8 / 400e9; // 83.32 ns
    const double prop = 10 * 5e-9;                               // 50 ns
    // Time is in integer ns: the arrival is the exact time rounded up to the next ns.
    EXPECT_EQ(sink->GetMinLatency().GetNanoSeconds(),
              static_cast<int64_t>(std::ceil((ser + prop) * 1e9)));
    EXPECT_EQ(link.da->GetCounters().txBytes, 4096u + kPerFrameOverhead);
}

TEST_F(FabricTest, MinimumFrameIsPaddedTo64Bytes)
{
    DirectLink link(DataRate("100Gbps"), 0.0);
    FabricFrame f;
    f.l3Bytes = 28 + 16; // 16 B payload: 44 B IP packet -> 66 B frame with tag -> no padding
    EXPECT_EQ(link.da->WireBytes(f), 44u + 22 + 20);
    f.l3Bytes = 28; // empty UDP datagram: 50 B frame -> padded to 64 B
    EXPECT_EQ(link.da->WireBytes(f), 64u + 20);
    f.kind = FabricFrame::PFC;
    f.packet = Create<Packet>(46);
    EXPECT_EQ(link.da->WireBytes(f), 84u); // 64 B PFC frame + preamble/IFG
}

class GoodputTest : public FabricTest, public ::testing::WithParamInterface<uint32_t>
{
};

TEST_P(GoodputTest, OneFlowGoodputMatchesLineRateTimesPayloadShare)
{
    const uint32_t payload = GetParam();
    DirectLink link(DataRate("400Gbps"), 3.0);
    const uint32_t n = 20000;
    AddSource(link.a, Ipv4Address("10.0.0.2"), 1, uint64_t(n) * payload, payload);
    auto sink = AddSink(link.b);
    Simulator::Run();
    ASSERT_EQ(sink->GetReceivedPackets(), n);
    const double measured =
        double(n - 1) * payload * 8 / (sink->GetLastRxTime() - sink->GetFirstRxTime()).GetSeconds();
    const double expected = 400e9 * payload / double(payload + kPerFrameOverhead);
    EXPECT_NEAR(measured / expected, 1.0, 0.005) << "measured " << measured / 1e9 << " Gb/s";
}

INSTANTIATE_TEST_SUITE_P(Payloads,
                         GoodputTest,
                         ::testing::Values(1024u, 2048u, 4096u),
                         [](const ::testing::TestParamInfo<uint32_t>& i) {
                             return std::to_string(i.param) + "B";
                         });

TEST_F(FabricTest, GoodputThroughACutThroughSwitch)
{
    Ptr<FabricTopology> topo = BuildStar(2);
    const uint32_t payload = 4096;
    const uint32_t n = 10000;
    AddSource(topo->GetHostNode(0), topo->GetHostAddress(1), 1, uint64_t(n) * payload, payload);
    auto sink = AddSink(topo->GetHostNode(1));
    Simulator::Run();
    ASSERT_EQ(sink->GetReceivedPackets(), n);
    const double measured =
        double(n - 1) * payload * 8 / (sink->GetLastRxTime() - sink->GetFirstRxTime()).GetSeconds();
    const double expected = 400e9 * payload / double(payload + kPerFrameOverhead);
    EXPECT_NEAR(measured / expected, 1.0, 0.005);
    // Switch added exactly its port-to-port latency (cut-through) to the first packet.
    const double ser = (payload + kPerFrameOverhead) * 8 / 400e9;
    EXPECT_NEAR(sink->GetMinLatency().GetSeconds(), 2 * 15e-9 + 500e-9 + ser, 1.01e-9);
}

TEST_F(FabricTest, StoreAndForwardAddsOneSerialization)
{
    Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
    star->SetAttribute("Servers", UintegerValue(2));
    star->SetAttribute("GpusPerServer", UintegerValue(1));
    star->SetSwitchAttribute("CutThrough", BooleanValue(false));
    star->SetSwitchAttribute("PortToPortLatency", TimeValue(NanoSeconds(300)));
    Ptr<FabricTopology> topo = star->Build();
    AddSource(topo->GetHostNode(0), topo->GetHostAddress(1), 1, 4096, 4096);
    auto sink = AddSink(topo->GetHostNode(1));
    Simulator::Run();
    const double ser = (4096.0 + kPerFrameOverhead) * 8 / 400e9;
    // Each store-and-forward hop rounds its end of transmission up to the next ns.
    EXPECT_NEAR(sink->GetMinLatency().GetSeconds(), 2 * 15e-9 + 300e-9 + 2 * ser, 2.01e-9);
}

TEST_F(FabricTest, StrictPriorityServesHighestFirst)
{
    Ptr<StrictPriorityEgressScheduler> sp = CreateObject<StrictPriorityEgressScheduler>();
    uint32_t head[8] = {100, 100, 100, 100, 100, 100, 100, 100};
    EXPECT_EQ(sp->Select(0b00001001, head), 3);
    EXPECT_EQ(sp->Select(0b10000001, head), 7);
    EXPECT_EQ(sp->Select(0b00000001, head), 0);
}

TEST_F(FabricTest, DwrrSharesBytesByWeight)
{
    Ptr<DwrrEgressScheduler> dwrr = CreateObject<DwrrEgressScheduler>();
    dwrr->SetAttribute("Weights", StringValue("1 3 1 1 1 1 1 1"));
    dwrr->SetAttribute("Quantum", UintegerValue(4000));
    // Queue 0 sends 1000 B frames, queue 1 sends 3000 B frames, both always backlogged.
    uint32_t head[8] = {1000, 3000, 0, 0, 0, 0, 0, 0};
    uint64_t bytes[2] = {0, 0};
    for (int i = 0; i < 100000; ++i)
    {
        uint8_t q = dwrr->Select(0b11, head);
        ASSERT_LT(q, 2);
        dwrr->NotifySent(q, head[q]);
        bytes[q] += head[q];
    }
    const double share1 = double(bytes[1]) / double(bytes[0] + bytes[1]);
    EXPECT_NEAR(share1, 0.75, 0.01);
    // Strict queues (6, 7 by default) pre-empt DWRR queues.
    EXPECT_EQ(dwrr->Select(0b01000011, head), 6);
}

TEST_F(FabricTest, DwrrAppliesOnARealPort)
{
    // Two flows on priorities 1 and 2 share one 100G link 1:3 under DWRR.
    FabricLinkHelper helper;
    helper.SetScheduler("ns3::DwrrEgressScheduler");
    helper.SetSchedulerAttribute("Weights", StringValue("1 1 3 1 1 1 1 1"));
    DirectLink link(DataRate("100Gbps"), 1.0, &helper);
    AddSource(link.a, Ipv4Address("10.0.0.2"), 1, 40000000, 4096, 1);
    AddSource(link.a, Ipv4Address("10.0.0.2"), 2, 40000000, 4096, 2);
    auto sink = AddSink(link.b);
    Simulator::Stop(MicroSeconds(1000));
    Simulator::Run();
    const auto& flows = sink->GetFlowStats();
    ASSERT_EQ(flows.size(), 2u);
    const double b1 = double(flows.at(1).bytes);
    const double b2 = double(flows.at(2).bytes);
    EXPECT_NEAR(b2 / (b1 + b2), 0.75, 0.01);
}

TEST_F(FabricTest, CorruptionDropsAtTheConfiguredRate)
{
    DirectLink link(DataRate("400Gbps"), 1.0);
    link.db->SetAttribute("ReceiveErrorRate", DoubleValue(0.01));
    link.db->AssignStreams(7);
    DropCounter drops;
    drops.ConnectAll();
    const uint32_t n = 50000;
    auto src = AddSource(link.a, Ipv4Address("10.0.0.2"), 1, uint64_t(n) * 1024, 1024);
    auto sink = AddSink(link.b);
    Simulator::Run();
    EXPECT_EQ(drops.Total(), drops.Of(FabricDropReason::CORRUPT));
    EXPECT_EQ(sink->GetReceivedPackets() + drops.Total(), src->GetSentPackets());
    // Binomial(50000, 0.01): mean 500, sd 22.2; 5 sd bounds.
    EXPECT_NEAR(double(drops.Total()), 500.0, 5 * 22.25);
}

TEST_F(FabricTest, LinkDownDropsWithReason)
{
    DirectLink link(DataRate("400Gbps"), 1.0);
    DropCounter drops;
    drops.ConnectAll();
    auto src = AddSource(link.a, Ipv4Address("10.0.0.2"), 1, 100 * 4096, 4096);
    auto sink = AddSink(link.b);
    Simulator::Schedule(NanoSeconds(1000), &FabricNetDevice::SetLinkUp, link.db, false);
    Simulator::Run();
    EXPECT_GT(drops.Of(FabricDropReason::LINK_DOWN), 0u);
    EXPECT_EQ(drops.Total(), drops.Of(FabricDropReason::LINK_DOWN));
    EXPECT_EQ(sink->GetReceivedPackets() + drops.Total(), src->GetSentPackets());
}

TEST_F(FabricTest, PacedSourceKeepsItsRate)
{
    DirectLink link(DataRate("400Gbps"), 1.0);
    auto src = AddSource(link.a, Ipv4Address("10.0.0.2"), 1, 0, 4096);
    src->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
    auto sink = AddSink(link.b);
    Simulator::Stop(MicroSeconds(200));
    Simulator::Run();
    const double wireRate = double(sink->GetReceivedPackets() - 1) * (4096 + kPerFrameOverhead) *
                            8 / (sink->GetLastRxTime() - sink->GetFirstRxTime()).GetSeconds();
    EXPECT_NEAR(wireRate / 100e9, 1.0, 0.01);
}

namespace
{

/// Counts live instances, to check that FabricRing constructs and destroys exactly once.
struct Tracked
{
    static int live;
    int v{0};

    explicit Tracked(int x)
        : v(x)
    {
        ++live;
    }

    Tracked(Tracked&& o) noexcept
        : v(o.v)
    {
        ++live;
    }

    Tracked(const Tracked& o)
        : v(o.v)
    {
        ++live;
    }

    Tracked& operator=(Tracked&& o) noexcept
    {
        v = o.v;
        return *this;
    }

    ~Tracked()
    {
        --live;
    }
};

int Tracked::live = 0;

} // namespace

TEST(FabricRingTest, KeepsFifoOrderAcrossWrapAndGrowthAndDestroysEveryElement)
{
    {
        FabricRing<Tracked> q;
        int next = 0;
        int expect = 0;
        // Interleave pushes and pops so the ring wraps, then grows while wrapped (8 -> 64).
        for (int round = 0; round < 40; ++round)
        {
            for (int i = 0; i < 3; ++i)
            {
                q.EmplaceBack(next++);
            }
            EXPECT_EQ(q.PopFront().v, expect++);
            Tracked out(-1);
            q.PopFrontInto(out);
            EXPECT_EQ(out.v, expect++);
            ASSERT_EQ(q.Size(), size_t(next - expect));
            EXPECT_EQ(q.Front().v, expect);
            EXPECT_EQ(q.Back().v, next - 1);
            EXPECT_EQ(q.At(q.Size() - 1).v, next - 1);
            EXPECT_EQ(Tracked::live, next - expect + 1); // + `out`
        }
        q.Clear();
        EXPECT_TRUE(q.Empty());
        EXPECT_EQ(Tracked::live, 0);
        for (int i = 0; i < 5; ++i)
        {
            q.PushBack(Tracked(i));
        }
        EXPECT_EQ(Tracked::live, 5);
    }
    EXPECT_EQ(Tracked::live, 0); // the destructor destroyed what was left
}

// The device reads one byte per frame to learn whether its per-frame trace sources have sinks
// (FabricFlaggedTrace). Connecting and disconnecting, by object or by Config path, must keep that
// byte right: a sink hears exactly the frames sent while it is connected.
TEST_F(FabricTest, PerFrameTraceSinksHearExactlyTheFramesSentWhileConnected)
{
    DirectLink link(DataRate("400Gbps"), 1.0);
    uint32_t tx1 = 0;
    uint32_t tx2 = 0;
    uint32_t rx = 0;
    auto countTx1 = MakeCallback(+[](uint32_t* n, const FabricFrame&) { ++*n; }).Bind(&tx1);
    auto countTx2 =
        MakeCallback(+[](uint32_t* n, std::string, const FabricFrame&) { ++*n; }).Bind(&tx2);
    auto countRx = MakeCallback(+[](uint32_t* n, const FabricFrame&) { ++*n; }).Bind(&rx);
    ASSERT_TRUE(link.da->TraceConnectWithoutContext("MacTx", countTx1));
    const std::string path = "/NodeList/" + std::to_string(link.a->GetId()) + "/DeviceList/" +
                             std::to_string(link.da->GetIfIndex()) + "/$ns3::FabricNetDevice/MacTx";
    Config::Connect(path, countTx2);
    ASSERT_TRUE(link.db->TraceConnectWithoutContext("MacRx", countRx));
    auto sink = AddSink(link.b);
    // 10 frames at t = 0, 10 more at 1 ms and 10 more at 2 ms.
    AddSource(link.a, Ipv4Address("10.0.0.2"), 1, 10 * 1000, 1000);
    Simulator::Schedule(MilliSeconds(1),
                        [&]() { AddSource(link.a, Ipv4Address("10.0.0.2"), 2, 10 * 1000, 1000); });
    Simulator::Schedule(MilliSeconds(1) - NanoSeconds(1), [&]() {
        // One MacTx sink leaves; the other still hears every frame.
        ASSERT_TRUE(link.da->TraceDisconnectWithoutContext("MacTx", countTx1));
        ASSERT_TRUE(link.db->TraceDisconnectWithoutContext("MacRx", countRx));
    });
    Simulator::Schedule(MilliSeconds(2) - NanoSeconds(1), [&]() {
        Config::Disconnect(path, countTx2);
        AddSource(link.a, Ipv4Address("10.0.0.2"), 3, 10 * 1000, 1000);
    });
    Simulator::Run();
    EXPECT_EQ(sink->GetReceivedPackets(), 30u);
    EXPECT_EQ(tx1, 10u);
    EXPECT_EQ(tx2, 20u);
    EXPECT_EQ(rx, 10u);
}

// A frame's arrival is the receiving node's event (issue 45: a partitioned run executes it on
// the rank that owns that node). Each direction of a cable delivers in the context of the node
// at its far end, with ns-3's simulator core and with the fabric's, and the context changes no
// time: both cores deliver at the same instants.
class DeliveryContextTest : public FabricTest, public ::testing::WithParamInterface<const char*>
{
};

TEST_P(DeliveryContextTest, EachFrameArrivesInTheReceivingNodesContext)
{
    // "core+partition": FabricPartitionScheduler's order, one delivery event per frame.
    std::string core = GetParam();
    const bool partition = core.size() > 10 && core.substr(core.size() - 10) == "+partition";
    SimulatorImplGuard coreGuard(partition ? core.substr(0, core.size() - 10) : core);
    if (partition)
    {
        FabricPartitionScheduler::Select(); // ns-3's core wrapped in FabricOrderedSimulatorImpl
    }
    DirectLink link(DataRate("400Gbps"), 2.0);
    std::vector<std::pair<uint32_t, int64_t>> atB;
    std::vector<std::pair<uint32_t, int64_t>> atA;
    auto record = [](std::vector<std::pair<uint32_t, int64_t>>* v, const FabricFrame&) {
        v->emplace_back(Simulator::GetContext(), Simulator::Now().GetNanoSeconds());
    };
    ASSERT_TRUE(link.db->TraceConnectWithoutContext("MacRx", MakeCallback(+record).Bind(&atB)));
    ASSERT_TRUE(link.da->TraceConnectWithoutContext("MacRx", MakeCallback(+record).Bind(&atA)));
    AddSink(link.a);
    AddSink(link.b);
    AddSource(link.a, Ipv4Address("10.0.0.2"), 1, 3 * 1000, 1000);
    AddSource(link.b, Ipv4Address("10.0.0.1"), 2, 2 * 1000, 1000);
    Simulator::Run();
    ASSERT_EQ(atB.size(), 3u);
    ASSERT_EQ(atA.size(), 2u);
    // 1,000 B of payload + 70 B of headers and framing = 21.4 ns at 400 Gb/s, + 10 ns of cable:
    // the first frame arrives at 31.4 ns, rounded up to the ns, and the next every 21.4 ns.
    const int64_t first =
        static_cast<int64_t>(std::ceil((1000.0 + kPerFrameOverhead) * 8 / 400 + 10));
    for (size_t i = 0; i < atB.size(); ++i)
    {
        EXPECT_EQ(atB[i].first, link.b->GetId()) << "frame " << i << " to b";
    }
    for (size_t i = 0; i < atA.size(); ++i)
    {
        EXPECT_EQ(atA[i].first, link.a->GetId()) << "frame " << i << " to a";
    }
    EXPECT_EQ(atB[0].second, first);
    EXPECT_EQ(atA[0].second, first);
    // Every frame: one more frame time (1,070 B at 400 Gb/s = 21.4 ns) after the one before.
    for (size_t i = 1; i < atB.size(); ++i)
    {
        EXPECT_EQ(
            atB[i].second,
            static_cast<int64_t>(std::ceil((1000.0 + kPerFrameOverhead) * 8 * (i + 1) / 400 + 10)))
            << "frame " << i << " to b";
    }
    EXPECT_EQ(FabricPartitionScheduler::IsActive(), partition);
    GlobalValue::Bind("SchedulerType", StringValue("ns3::MapScheduler"));
}

INSTANTIATE_TEST_SUITE_P(SimulatorCores,
                         DeliveryContextTest,
                         ::testing::Values("ns3::DefaultSimulatorImpl",
                                           "ns3::FabricSimulatorImpl",
                                           "ns3::DefaultSimulatorImpl+partition",
                                           "ns3::FabricSimulatorImpl+partition"));

namespace
{

// A frame with every field set to a value of its own (signed time steps with their sign and high
// bits, words at their extremes) and two telemetry hops.
FabricFrame
FrameWithEveryField()
{
    FabricFrame f;
    f.kind = FabricFrame::DATA;
    f.l4Format = FabricFrame::L4_ROCE;
    f.protocol = 17;
    f.priority = 3;
    f.dscp = 26;
    f.ecn = FabricFrame::ECN_CE;
    f.ttl = 61;
    f.ipModified = 1;
    f.txTimeStep = -5;                // signed values keep their sign
    f.echoTimeStep = 0x123456789abLL; // and their high bits
    f.src = 0x0a000001;
    f.dst = 0x0a000102;
    f.l3Bytes = 4136;
    f.payloadBytes = 4096;
    f.flowHash = 0xdeadbeef;
    f.flowId = 77;
    f.seq = 0xfffffff0;
    f.aux[0] = 1;
    f.aux[1] = 2;
    f.aux[2] = 3;
    f.aux[3] = 0xffffffff;
    f.bufShared = 11;
    f.LinkSeq() = 12;
    f.srcPort = 49152;
    f.dstPort = 4791;
    f.ingressPort = 513;
    f.telemetry = FabricIntRef::Create();
    f.telemetry.Push(FabricIntHop{1000, 1ULL << 40, 400000000000ULL, 65536});
    f.telemetry.Push(FabricIntHop{2000, 7, 100000000000ULL, 0});
    return f;
}

// Every plain field and the telemetry hops of `g` are those of `f`.
void
ExpectSameFields(const FabricFrame& g, const FabricFrame& f)
{
    EXPECT_EQ(g.kind, f.kind);
    EXPECT_EQ(g.l4Format, f.l4Format);
    EXPECT_EQ(g.protocol, f.protocol);
    EXPECT_EQ(g.priority, f.priority);
    EXPECT_EQ(g.dscp, f.dscp);
    EXPECT_EQ(g.ecn, f.ecn);
    EXPECT_EQ(g.ttl, f.ttl);
    EXPECT_EQ(g.ipModified, f.ipModified);
    EXPECT_EQ(g.txTimeStep, f.txTimeStep);
    EXPECT_EQ(g.echoTimeStep, f.echoTimeStep);
    EXPECT_EQ(g.src, f.src);
    EXPECT_EQ(g.dst, f.dst);
    EXPECT_EQ(g.l3Bytes, f.l3Bytes);
    EXPECT_EQ(g.payloadBytes, f.payloadBytes);
    EXPECT_EQ(g.flowHash, f.flowHash);
    EXPECT_EQ(g.flowId, f.flowId);
    EXPECT_EQ(g.seq, f.seq);
    for (int k = 0; k < 4; ++k)
    {
        EXPECT_EQ(g.aux[k], f.aux[k]) << "aux " << k;
    }
    EXPECT_EQ(g.bufShared, f.bufShared);
    EXPECT_EQ(g.bufHeadroom, f.bufHeadroom);
    EXPECT_EQ(g.srcPort, f.srcPort);
    EXPECT_EQ(g.dstPort, f.dstPort);
    EXPECT_EQ(g.ingressPort, f.ingressPort);
    ASSERT_EQ(static_cast<bool>(g.telemetry), static_cast<bool>(f.telemetry));
    if (!f.telemetry)
    {
        return;
    }
    const FabricIntStack* a = g.telemetry.Get();
    const FabricIntStack* b = f.telemetry.Get();
    EXPECT_EQ(a->IsCollecting(), b->IsCollecting());
    ASSERT_EQ(a->GetNHops(), b->GetNHops());
    for (uint32_t k = 0; k < b->GetNHops(); ++k)
    {
        EXPECT_EQ(a->GetHop(k).timeStep, b->GetHop(k).timeStep) << "hop " << k;
        EXPECT_EQ(a->GetHop(k).txBytes, b->GetHop(k).txBytes) << "hop " << k;
        EXPECT_EQ(a->GetHop(k).rateBps, b->GetHop(k).rateBps) << "hop " << k;
        EXPECT_EQ(a->GetHop(k).qlenBytes, b->GetHop(k).qlenBytes) << "hop " << k;
    }
}

} // namespace

// A frame crosses MPI ranks as bytes (issue 45): every field, the telemetry and the frame's own
// packet come back as they were sent.
TEST(FabricFrameWireTest, EveryFieldTelemetryAndPacketSurviveTheRoundTrip)
{
    FabricFrame f = FrameWithEveryField();
    f.telemetry.Seal();
    f.packet = Create<Packet>(100);

    Ptr<Packet> wire = FabricFrameToWire(f);
    // 87 bytes of descriptor, 28 per telemetry hop, then the frame's own 100-byte packet.
    EXPECT_EQ(wire->GetSize(), 87u + 2 * 28u + 100u);
    FabricFrame g;
    ASSERT_TRUE(FabricFrameFromWire(wire, g));
    ExpectSameFields(g, f);
    EXPECT_EQ(g.LinkSeq(), 12u);
    EXPECT_FALSE(g.telemetry.Get()->IsCollecting());
    ASSERT_TRUE(g.packet);
    EXPECT_EQ(g.packet->GetSize(), 100u);

    // A control frame without packet or telemetry; and bytes that are not a frame.
    FabricFrame c;
    c.kind = FabricFrame::ORDERED_SET;
    c.l3Bytes = 8;
    FabricFrame d;
    ASSERT_TRUE(FabricFrameFromWire(FabricFrameToWire(c), d));
    EXPECT_EQ(d.kind, FabricFrame::ORDERED_SET);
    EXPECT_FALSE(d.packet);
    EXPECT_FALSE(d.telemetry);
    FabricFrame e;
    e.seq = 5;
    EXPECT_FALSE(FabricFrameFromWire(Create<Packet>(200), e));
    EXPECT_EQ(e.seq, 5u) << "left as it was";
}

// Under FabricPartitionScheduler a frame crosses ranks with its delivery's place in the event
// order: 12 more bytes, when given.
TEST(FabricFrameWireTest, AnEventOrderKeyTravelsWhenGiven)
{
    FabricFrame c;
    c.kind = FabricFrame::PFC;
    c.l3Bytes = 64;
    const FabricEventOrderKey k{0x01020304, 0x1122334455667788ULL};
    Ptr<Packet> wire = FabricFrameToWire(c, &k);
    EXPECT_EQ(wire->GetSize(), 87u + 12u);
    FabricFrame d;
    std::optional<FabricEventOrderKey> got;
    ASSERT_TRUE(FabricFrameFromWire(wire, d, &got));
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->context, k.context);
    EXPECT_EQ(got->seq, k.seq);
    EXPECT_EQ(d.kind, FabricFrame::PFC);
    EXPECT_EQ(d.l3Bytes, 64u);
    ASSERT_TRUE(FabricFrameFromWire(FabricFrameToWire(c), d, &got));
    EXPECT_FALSE(got.has_value());
}

// In a batch to another rank (FabricRankMailbox) a frame is 84 bytes, 28 per telemetry hop and
// 12 for a key; every field comes back, and bytes that are not such a frame are refused.
TEST(FabricFrameWireTest, ABatchEntryCarriesEveryField)
{
    const FabricFrame f = FrameWithEveryField(); // its telemetry still collecting
    const FabricEventOrderKey k{0x01020304, 0x1122334455667788ULL};
    std::vector<uint8_t> bytes;
    FabricFrameAppendBytes(f, &k, bytes);
    EXPECT_EQ(bytes.size(), 84u + 2 * 28u + 12u);
    FabricFrame plain;
    plain.kind = FabricFrame::PFC;
    FabricFrameAppendBytes(plain, nullptr, bytes); // a second frame behind the first
    EXPECT_EQ(bytes.size(), 84u + 2 * 28u + 12u + 84u);

    const uint8_t* p = bytes.data();
    const uint8_t* end = bytes.data() + bytes.size();
    FabricFrame g;
    std::optional<FabricEventOrderKey> got;
    ASSERT_TRUE(FabricFrameReadBytes(p, end, g, got));
    ExpectSameFields(g, f);
    EXPECT_TRUE(g.telemetry.Get()->IsCollecting());
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->context, k.context);
    EXPECT_EQ(got->seq, k.seq);
    EXPECT_FALSE(g.packet);

    ASSERT_TRUE(FabricFrameReadBytes(p, end, g, got));
    ExpectSameFields(g, plain);
    EXPECT_FALSE(got.has_value());
    EXPECT_EQ(p, end);

    // Cut short, or more hops than a stack holds: refused.
    std::vector<uint8_t> shortBytes(bytes.begin(), bytes.begin() + 100);
    p = shortBytes.data();
    EXPECT_FALSE(FabricFrameReadBytes(p, shortBytes.data() + shortBytes.size(), g, got));
    std::vector<uint8_t> tooMany = bytes;
    tooMany[1] = FabricIntStack::kMaxHops + 1;
    p = tooMany.data();
    EXPECT_FALSE(FabricFrameReadBytes(p, tooMany.data() + tooMany.size(), g, got));
}

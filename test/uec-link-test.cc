// SPDX-License-Identifier: GPL-2.0-only
// Ultra Ethernet's link options: link-level retry (a corrupted frame is replayed by the link
// once, after one replay round trip, and the transport never sees the loss) and credit-based
// flow control per virtual channel (never more in flight than the receiver's credits, lossless
// without PAUSE frames, line rate x payload share when uncongested).
#include "test-util.h"

#include "ns3/cbfc-flow-control.h"
#include "ns3/link-level-retry.h"
#include "ns3/uet-helper.h"

#include <cmath>
#include <map>

using namespace ns3;

namespace
{

// Wire bytes of a probe datagram around its payload: UDP 8 + IPv4 20 + Ethernet 14 + 802.1Q 4
// + FCS 4 + preamble/SFD 8 + IFG 12.
constexpr uint32_t kPerFrameOverhead = 8 + 20 + 14 + 4 + 4 + 20;

/// Two hosts joined by one cable; LLR and/or CBFC on both ends.
struct Link
{
    Ptr<Node> a = CreateObject<Node>();
    Ptr<Node> b = CreateObject<Node>();
    Ptr<FabricNetDevice> da;
    Ptr<FabricNetDevice> db;

    Link(DataRate rate, double meters, bool llr, bool cbfc = false)
    {
        FabricLinkHelper h;
        if (llr)
        {
            h.SetLinkRetry("ns3::LinkLevelRetry");
        }
        if (cbfc)
        {
            h.SetFlowControl("ns3::CbfcFlowControl");
            h.SetFlowControlAttribute("LosslessVcs", UintegerValue(1U << 3));
        }
        NetDeviceContainer d = h.Install(a, b, rate, meters);
        da = DynamicCast<FabricNetDevice>(d.Get(0));
        db = DynamicCast<FabricNetDevice>(d.Get(1));
        da->SetIpv4Address(Ipv4Address("10.0.0.1"));
        db->SetIpv4Address(Ipv4Address("10.0.0.2"));
    }
};

const LinkRetryCounters&
Llr(Ptr<FabricNetDevice> d)
{
    return d->GetLinkRetry()->GetCounters();
}

} // namespace

TEST_F(FabricTest, LlrReplaysACorruptedFrameOnceAfterOneReplayRoundTrip)
{
    // One 4 KiB datagram over 100 m at 100 Gb/s, its first arrival corrupted. The receiver
    // NACKs at once (8-byte ordered set), the NACK crosses the cable, the sender replays the
    // frame, which crosses again: the added delay is (8 + W) x 8 / R + 2 x propagation.
    const double rate = 100e9;
    const double prop = 100 * 5e-9;
    const uint32_t wire = 4096 + kPerFrameOverhead;
    Link clean(DataRate("100Gbps"), 100.0, true);
    auto sink0 = AddSink(clean.b);
    AddSource(clean.a, Ipv4Address("10.0.0.2"), 1, 4096, 4096);
    Simulator::Run();
    ASSERT_EQ(sink0->GetReceivedPackets(), 1u);
    const double base = sink0->GetMinLatency().GetSeconds();
    EXPECT_NEAR(base, wire * 8 / rate + prop, 1e-9);
    EXPECT_EQ(Llr(clean.da).replays, 0u);
    Simulator::Destroy();

    Link link(DataRate("100Gbps"), 100.0, true);
    uint32_t corrupted = 0;
    link.db->SetReceiveFilter(MakeBoundCallback(
        +[](uint32_t* n, const FabricFrame& f) { return f.LinkSeq() == 1 && (*n)++ == 0; },
        &corrupted));
    auto sink = AddSink(link.b);
    AddSource(link.a, Ipv4Address("10.0.0.2"), 1, 4096, 4096);
    Simulator::Run();
    ASSERT_EQ(sink->GetReceivedPackets(), 1u);
    const double added = sink->GetMinLatency().GetSeconds() - base;
    const double replayRtt = (8.0 + wire) * 8 / rate + 2 * prop; // 1,333.6 ns
    EXPECT_NEAR(added, replayRtt, 1.5e-9) << added * 1e9 << " ns";
    EXPECT_NEAR(link.da->GetLinkRetry()->GetReplayRoundTrip(wire).GetSeconds(), replayRtt, 1e-9);
    EXPECT_EQ(Llr(link.db).framesBad, 1u);
    EXPECT_EQ(Llr(link.db).nacksSent, 1u);
    EXPECT_EQ(Llr(link.da).nacksReceived, 1u);
    EXPECT_EQ(Llr(link.da).replays, 1u);
    EXPECT_EQ(Llr(link.da).framesReplayed, 1u);
    EXPECT_EQ(Llr(link.da).timerReplays, 0u);
    EXPECT_EQ(link.da->GetLinkRetry()->GetOutstandingFrames(), 0u) << "the replay was acked";
}

TEST_F(FabricTest, LlrRepairsRandomFrameErrorsOnTheLinkInOrder)
{
    // 1% of the frames arriving at b are corrupt. Each corruption of the expected frame sends
    // one NACK and starts one replay (go-back-N from it); the stream arrives whole and in order.
    Link link(DataRate("400Gbps"), 10.0, true);
    link.db->SetAttribute("ReceiveErrorRate", DoubleValue(0.01));
    link.db->AssignStreams(7);
    DropCounter drops;
    drops.ConnectAll();
    const uint32_t n = 20000;
    auto src = AddSource(link.a, Ipv4Address("10.0.0.2"), 1, uint64_t(n) * 1024, 1024);
    auto sink = AddSink(link.b);
    Simulator::Run();
    ASSERT_EQ(src->GetSentPackets(), n);
    EXPECT_EQ(sink->GetReceivedPackets(), n) << "no frame is lost end to end";
    EXPECT_EQ(sink->GetFlowStats().at(1).outOfOrder, 0u);
    const LinkRetryCounters& tx = Llr(link.da);
    const LinkRetryCounters& rx = Llr(link.db);
    EXPECT_EQ(tx.framesSent, n);
    EXPECT_EQ(rx.framesAccepted, n);
    // Every corrupt frame is a 'corrupt' drop on the link, nothing else is dropped.
    EXPECT_EQ(drops.Total(), drops.Of(FabricDropReason::CORRUPT));
    EXPECT_EQ(drops.Total(), rx.framesBad);
    // Each corrupted expected frame: one NACK, one replay, no timer.
    EXPECT_EQ(rx.nacksSent, rx.badExpected);
    EXPECT_EQ(tx.nacksReceived, rx.nacksSent);
    EXPECT_EQ(tx.replays, rx.badExpected);
    EXPECT_EQ(tx.timerReplays, 0u);
    // Every frame on the wire is drawn once: Binomial(sent + replayed, 0.01), 5 sd bounds.
    const double tries = double(tx.framesSent + tx.framesReplayed);
    EXPECT_NEAR(double(rx.framesBad), 0.01 * tries, 5 * std::sqrt(tries * 0.01 * 0.99));
    EXPECT_GT(rx.badExpected, 100u);
    // Frames replayed = every frame after a corrupt one up to the replay: whatever is
    // discarded at b (bad or out of sequence) is sent again.
    EXPECT_EQ(tx.framesReplayed, rx.framesBad + rx.framesDiscarded);
}

namespace
{

/// Two UET hosts on one switch, 1% of the frames reaching host 1 corrupt, LLR or not.
struct UetLossyPair
{
    Ptr<FabricTopology> topo;
    std::vector<Ptr<UetNic>> nics;
    std::vector<UetMessage> delivered;

    explicit UetLossyPair(bool llr)
    {
        Config::SetDefault("ns3::SwitchBufferManager::TrimEnabled", BooleanValue(true));
        Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
        star->SetAttribute("Servers", UintegerValue(2));
        star->SetAttribute("GpusPerServer", UintegerValue(1));
        star->GetLinkHelper().SetFlowControlAttribute("EnabledPriorities", UintegerValue(0));
        if (llr)
        {
            star->GetLinkHelper().SetLinkRetry("ns3::LinkLevelRetry");
        }
        topo = star->Build();
        topo->AssignStreams(11);
        topo->GetHostDevice(1)->SetAttribute("ReceiveErrorRate", DoubleValue(0.01));
        UetHelper uet;
        uet.SetNicAttribute("NetworkRtt", TimeValue(MicroSeconds(10)));
        nics = uet.Install(topo);
        nics[1]->SetReceiveCallback(MakeCallback(&UetLossyPair::Arrived, this));
        nics[0]->CreatePdc(topo->GetHostAddress(1))->Send(8 << 20);
        Simulator::Run();
    }

    void Arrived(const UetMessage& m)
    {
        delivered.push_back(m);
    }
};

} // namespace

TEST_F(FabricTest, LlrHidesLinkErrorsFromTheUetTransport)
{
    UetLossyPair with(true);
    ASSERT_EQ(with.delivered.size(), 1u);
    EXPECT_EQ(with.delivered[0].bytes, 8u << 20);
    const LinkRetryCounters& sw =
        with.topo->GetHostDevice(1)->GetPeer()->GetLinkRetry()->GetCounters();
    EXPECT_GT(sw.replays, 10u) << "the switch port replayed the corrupted frames";
    EXPECT_EQ(with.topo->GetHostDevice(1)->GetLinkRetry()->GetCounters().nacksSent, sw.replays);
    for (const auto& n : with.nics)
    {
        EXPECT_EQ(n->GetCounters().timeouts, 0u);
        EXPECT_EQ(n->GetCounters().nacksSent, 0u);
        EXPECT_EQ(n->GetCounters().retransmissions, 0u);
    }
    const double tWith = (with.delivered[0].completed - with.delivered[0].first).GetSeconds();
    Simulator::Destroy();
    Config::Reset();

    // Without LLR the same loss reaches the transport: it retransmits.
    UetLossyPair without(false);
    ASSERT_EQ(without.delivered.size(), 1u);
    EXPECT_GT(without.nics[0]->GetCounters().retransmissions, 10u);
    const double tWithout =
        (without.delivered[0].completed - without.delivered[0].first).GetSeconds();
    EXPECT_LT(tWith, tWithout);
    RecordProperty("with_llr_us", std::to_string(tWith * 1e6));
    RecordProperty("without_llr_us", std::to_string(tWithout * 1e6));
}

TEST_F(FabricTest, CbfcUncongestedLinkRunsAtLineRateTimesPayloadShare)
{
    Link link(DataRate("400Gbps"), 10.0, false, true);
    const uint32_t n = 20000;
    auto src = AddSource(link.a, Ipv4Address("10.0.0.2"), 1, uint64_t(n) * 4096, 4096, 3);
    auto sink = AddSink(link.b);
    Simulator::Run();
    ASSERT_EQ(sink->GetReceivedPackets(), n);
    const double t = (sink->GetLastRxTime() - sink->GetFirstRxTime()).GetSeconds();
    const double goodput = double(n - 1) * 4096 * 8 / t;
    const double theory = 400e9 * 4096.0 / (4096.0 + kPerFrameOverhead);
    EXPECT_NEAR(goodput / theory, 1.0, 0.001) << goodput / 1e9 << " Gb/s";
    auto fc = DynamicCast<CbfcFlowControl>(link.da->GetFlowControl());
    ASSERT_TRUE(fc);
    EXPECT_EQ(fc->GetStalls(3), 0u) << "128 KiB of credits cover the credit round trip";
    EXPECT_GT(DynamicCast<CbfcFlowControl>(link.db->GetFlowControl())->GetFcpsSent(), n / 2);
    EXPECT_EQ(link.da->GetCounters().pfcFramesTx + link.db->GetCounters().pfcFramesTx, 0u);
}

namespace
{

/// Checks at every data frame a port sends on VC `vc` that the bytes it has sent and its peer
/// has not yet freed (in 64-byte cells) never exceed the peer's advertised buffer.
struct CreditInvariant
{
    Ptr<FabricNetDevice> dev;
    Ptr<CbfcFlowControl> peerFc;
    uint8_t vc{3};
    uint64_t sentCells{0};
    uint64_t maxInFlight{0};
    uint64_t violations{0};

    void Tx(const FabricFrame& f)
    {
        if (f.kind != FabricFrame::DATA || (f.priority & 7) != vc)
        {
            return;
        }
        sentCells += (dev->BufferBytes(f) + 63) / 64;
        const uint64_t inFlight = sentCells - peerFc->GetBlocksReleased(vc);
        maxInFlight = std::max(maxInFlight, inFlight);
        if (inFlight > peerFc->GetRxBufferBlocks())
        {
            ++violations;
        }
    }
};

} // namespace

TEST_F(FabricTest, CbfcIncastNeverSendsBeyondCreditsAndDropsNothingWithoutPause)
{
    // 8 -> 1 at full rate through one switch, CBFC on VC 3 everywhere, a 16 KiB buffer per VC
    // so that credits, not the switch buffer, hold the senders back.
    Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
    star->SetAttribute("Servers", UintegerValue(9));
    star->SetAttribute("GpusPerServer", UintegerValue(1));
    star->GetLinkHelper().SetFlowControl("ns3::CbfcFlowControl");
    star->GetLinkHelper().SetFlowControlAttribute("LosslessVcs", UintegerValue(1U << 3));
    star->GetLinkHelper().SetFlowControlAttribute("RxBufferBytes", UintegerValue(16384));
    Ptr<FabricTopology> topo = star->Build();
    DropCounter drops;
    drops.ConnectAll();
    std::vector<CreditInvariant> inv;
    std::vector<Ptr<FabricNetDevice>> ports;
    for (uint32_t h = 0; h < 9; ++h)
    {
        ports.push_back(topo->GetHostDevice(h));
        ports.push_back(
            DynamicCast<FabricNetDevice>(Ptr<NetDevice>(topo->GetHostDevice(h)->GetPeer())));
    }
    inv.resize(ports.size());
    for (size_t i = 0; i < ports.size(); ++i)
    {
        inv[i].dev = ports[i];
        inv[i].peerFc = DynamicCast<CbfcFlowControl>(ports[i]->GetPeer()->GetFlowControl());
        ports[i]->TraceConnectWithoutContext("MacTx", MakeCallback(&CreditInvariant::Tx, &inv[i]));
    }
    std::vector<Ptr<FabricTrafficSource>> srcs;
    const uint64_t bytes = 2 << 20;
    for (uint32_t h = 1; h < 9; ++h)
    {
        srcs.push_back(AddSource(topo->GetHostNode(h), topo->GetHostAddress(0), h, bytes, 4096, 3));
    }
    auto sink = AddSink(topo->GetHostNode(0));
    Simulator::Run();
    EXPECT_EQ(sink->GetReceivedBytes(), 8 * bytes) << "lossless";
    EXPECT_EQ(drops.Total(), 0u);
    uint64_t stalls = 0;
    for (size_t i = 0; i < ports.size(); ++i)
    {
        EXPECT_EQ(inv[i].violations, 0u) << "port " << i;
        EXPECT_EQ(ports[i]->GetCounters().pfcFramesTx, 0u);
        auto fc = DynamicCast<CbfcFlowControl>(ports[i]->GetFlowControl());
        stalls += fc->GetStalls(3);
        EXPECT_EQ(fc->GetOverruns(), 0u);
    }
    EXPECT_GT(stalls, 100u) << "the incast ran out of credits: the invariant was exercised";
    // The receiver's port drains at line rate: 8 x 2 MiB take at least 8 x 2 MiB x
    // (4096 + 66) / 4096 wire bytes at 400 Gb/s.
    const double t = (sink->GetLastRxTime() - sink->GetFirstRxTime()).GetSeconds();
    const double ideal = 8.0 * bytes * (4096.0 + kPerFrameOverhead) / 4096 * 8 / 400e9;
    EXPECT_NEAR(t / ideal, 1.0, 0.02);
}

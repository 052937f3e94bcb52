// SPDX-License-Identifier: GPL-2.0-only
// InfiniBand: goodput with IB headers, lossless incast within advertised credits, the credit
// loop's buffer/RTT limit, FECN/BECN congestion control protecting a victim flow, LID
// forwarding tables, and a ring AllReduce on an IB rail-optimized fabric against alpha-beta.
#include "process-util.h"
#include "test-util.h"

#include <cmath>

using namespace ns3;

namespace
{

// An IB packet around its payload: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 (+ RETH 16 on a WRITE's
// first packet). No preamble, IFG or minimum frame.
constexpr uint32_t kIbOverhead = 8 + 12 + 4 + 2;
constexpr uint32_t kReth = 16;
constexpr double kNdr = 400e9;

/// A link helper that builds InfiniBand ports with credit flow control.
FabricLinkHelper
IbLink(uint32_t rxBufferBytes = 131072)
{
    FabricLinkHelper link;
    link.SetLinkLayer(FabricNetDevice::INFINIBAND);
    link.SetFlowControlAttribute("RxBufferBytes", UintegerValue(rxBufferBytes));
    return link;
}

Ptr<IbCreditFlowControl>
IbFc(Ptr<FabricNetDevice> d)
{
    return DynamicCast<IbCreditFlowControl>(d->GetFlowControl());
}

/// Two IB hosts (LIDs 1 and 2) joined by one cable, HCAs installed.
struct TwoHcas : public TwoHosts
{
    TwoHcas(RdmaHelper& rdma, double meters, uint32_t rxBufferBytes)
        : TwoHosts(rdma, meters, IbLink(rxBufferBytes), Ipv4Address(1u), Ipv4Address(2u))
    {
    }
};

} // namespace

TEST_F(FabricTest, IbOneFlowGoodputIsLineRateTimesPayloadShare)
{
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    TwoHcas h(rdma, 3.0, 131072);
    ASSERT_TRUE(h.qa->GetNic()->IsInfiniBand());
    EXPECT_EQ(h.qa->GetNic()->NetworkHeaderBytes(), 0u);
    Completions req;
    Completions resp;
    h.qa->SetCompletionCallback(req.Cb());
    h.qb->SetReceiveCallback(resp.Cb());
    const uint64_t bytes = 64ULL << 20;
    const uint64_t packets = bytes / 4096;
    h.qa->PostWrite(bytes);
    Simulator::Run();
    ASSERT_EQ(resp.v.size(), 1u);
    EXPECT_EQ(resp.v[0].status, RdmaCompletion::SUCCESS);
    // Goodput over the transfer (post to data in GPU memory, minus the fixed NIC/PCIe/cable
    // latencies) against line rate x payload / (payload + IB overheads).
    const double fixed = 300e-9 + 250e-9 + 15e-9 + 300e-9 + 250e-9;
    const double transfer = resp.v[0].completed.GetSeconds() - fixed;
    const double goodput = bytes * 8.0 / transfer;
    const double theory = kNdr * 4096.0 / (4096.0 + kIbOverhead);
    EXPECT_NEAR(goodput / theory, 1.0, 0.005) << goodput / 1e9 << " Gb/s vs " << theory / 1e9;
    // And the wire time to the nanosecond: every packet is LRH+BTH+payload+ICRC+VCRC, plus the
    // 6-byte flow-control packets the sender returns for the ACKs it receives (they go first).
    const double fcps = double(IbFc(h.da)->GetFcpsSent());
    const double wire = double(packets) * (4096 + kIbOverhead) + kReth + fcps * 6;
    EXPECT_NEAR(transfer, wire * 8 / kNdr, 3e-9);
    EXPECT_GT(IbFc(h.db)->GetFcpsSent(), packets / 2) << "credits return as the HCA consumes";
    EXPECT_EQ(IbFc(h.da)->GetStalls(3), 0u) << "128 KiB covers the credit round trip";
    EXPECT_EQ(IbFc(h.db)->GetOverruns(), 0u);
}

TEST_F(FabricTest, IbCreditLoopLimitsThroughputToBufferOverRoundTrip)
{
    // A 200 m cable (1 us each way) and a receive buffer of exactly 4 full packets: the sender
    // may have at most 4 packets unreturned, so its rate is 4 packets per credit round trip:
    // serialization + cable + the HCA's receive latency (300 ns) + FCP serialization + cable.
    auto run = [](uint32_t bufferPackets, double meters) {
        RdmaHelper rdma;
        rdma.SetCongestionControl("ns3::RdmaNoCc");
        const uint32_t blocksPerPacket = IbCreditFlowControl::Blocks(4096 + kIbOverhead);
        TwoHcas h(rdma, meters, bufferPackets * blocksPerPacket * 64);
        Completions resp;
        h.qb->SetReceiveCallback(resp.Cb());
        const uint64_t bytes = 16ULL << 20;
        h.qa->PostWrite(bytes);
        Simulator::Run();
        EXPECT_EQ(resp.v.size(), 1u);
        const double t = resp.v.empty() ? 1.0 : resp.v[0].completed.GetSeconds();
        const Time stall = IbFc(h.da)->GetStallTime(3);
        const uint64_t overruns = IbFc(h.db)->GetOverruns();
        const uint32_t maxHeld = IbFc(h.db)->GetRxMaxOccupancy(3);
        Simulator::Destroy();
        EXPECT_EQ(overruns, 0u);
        EXPECT_LE(maxHeld, bufferPackets * blocksPerPacket);
        return std::make_pair(bytes * 8.0 / t, stall);
    };
    const double ser = (4096.0 + kIbOverhead) * 8 / kNdr;
    const double fcp = 6.0 * 8 / kNdr;
    const double line = kNdr * 4096.0 / (4096.0 + kIbOverhead);
    auto theory = [&](uint32_t packets, double meters) {
        const double rtt = ser + 2 * meters * 5e-9 + 300e-9 + fcp;
        return std::min(line, packets * 4096.0 * 8 / rtt);
    };
    const auto [slow, stalled] = run(4, 200.0);
    EXPECT_NEAR(slow / theory(4, 200.0), 1.0, 0.01)
        << slow / 1e9 << " Gb/s vs buffer/RTT " << theory(4, 200.0) / 1e9;
    EXPECT_GT(stalled.GetSeconds(), 0.5 * 16e6 * 8 / slow) << "the sender mostly waits";
    // 3 m: the HCA's 300 ns receive latency still dominates the round trip (318 Gb/s).
    const auto [short4, short4Stall] = run(4, 3.0);
    EXPECT_NEAR(short4 / theory(4, 3.0), 1.0, 0.01) << short4 / 1e9 << " Gb/s";
    EXPECT_LT(theory(4, 3.0), 0.85 * line);
    // Twice the buffer on 3 m: buffer/RTT exceeds the line, so the line limits instead.
    const auto [fast, fastStall] = run(8, 3.0);
    EXPECT_NEAR(fast / line, 1.0, 0.01) << fast / 1e9 << " Gb/s";
    EXPECT_LT(fastStall.GetSeconds(), short4Stall.GetSeconds() / 10);
}

TEST_F(FabricTest, IbIncastIsLosslessAndStaysWithinAdvertisedCredits)
{
    Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
    star->SetAttribute("LinkLayer", EnumValue(FabricNetDevice::INFINIBAND));
    star->SetAttribute("Servers", UintegerValue(17));
    star->SetAttribute("GpusPerServer", UintegerValue(1));
    star->GetLinkHelper().SetFlowControlAttribute("RxBufferBytes", UintegerValue(32768));
    Ptr<FabricTopology> topo = star->Build();
    EXPECT_EQ(topo->GetHostDevice(0)->GetIpv4Address().Get(), 1u) << "hosts are LIDs 1..N";
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    rdma.Install(topo);
    DropCounter drops;
    drops.ConnectAll();
    // The traces of one sender's credits: every stall it reports, and the credits it saw.
    Time traced(0);
    uint64_t minCredits = UINT64_MAX;
    IbFc(topo->GetHostDevice(1))
        ->TraceConnectWithoutContext("CreditStall",
                                     MakeBoundCallback(
                                         +[](Time* sum, uint8_t, Time waited) { *sum += waited; },
                                         &traced));
    IbFc(topo->GetHostDevice(1))
        ->TraceConnectWithoutContext(
            "CreditsAvailable",
            MakeBoundCallback(
                +[](uint64_t* m, uint8_t, uint64_t blocks) { *m = std::min(*m, blocks); },
                &minCredits));
    Completions done;
    const std::vector<Ptr<RdmaQueuePair>> senders = PostIncast(topo, 16, 4 << 20, done);
    Simulator::Run();
    EXPECT_EQ(drops.Total(), 0u);
    ASSERT_EQ(done.v.size(), 16u);
    double last = 0;
    for (const auto& c : done.v)
    {
        EXPECT_EQ(c.status, RdmaCompletion::SUCCESS);
        last = std::max(last, c.completed.GetSeconds());
    }
    for (auto& qp : senders)
    {
        EXPECT_EQ(qp->GetStats().retransmittedPackets, 0u);
    }
    // The receiver's link is the bottleneck and stays busy: 64 MiB at the IB goodput.
    const double line = kNdr * 4096.0 / (4096.0 + kIbOverhead);
    EXPECT_NEAR((64.0 * (1 << 20) * 8 / line) / last, 1.0, 0.02);
    Ptr<FabricSwitch> sw = topo->GetSwitch(0);
    const uint32_t advertised = 32768 / 64;
    Time senderStall(0);
    for (uint16_t p = 0; p < sw->GetNPorts(); ++p)
    {
        Ptr<IbCreditFlowControl> fc = IbFc(sw->GetPort(p));
        ASSERT_TRUE(fc);
        EXPECT_LE(fc->GetRxMaxOccupancy(3), advertised) << "port " << p;
        EXPECT_EQ(fc->GetOverruns(), 0u);
    }
    for (uint32_t i = 1; i <= 16; ++i)
    {
        senderStall += IbFc(topo->GetHostDevice(i))->GetStallTime(3);
    }
    EXPECT_GT(senderStall.GetSeconds() / 16, 0.5 * last) << "senders wait for credits";
    EXPECT_EQ(traced, IbFc(topo->GetHostDevice(1))->GetStallTime(3)) << "CreditStall adds up";
    EXPECT_LT(minCredits, uint64_t(IbCreditFlowControl::Blocks(4096 + kIbOverhead + kReth)));
    uint64_t pfc = 0;
    for (uint16_t p = 0; p < sw->GetNPorts(); ++p)
    {
        pfc += sw->GetPort(p)->GetCounters().pfcFramesTx;
    }
    EXPECT_EQ(pfc, 0u) << "no pause frames on InfiniBand";
}

TEST_F(FabricTest, IbLinearForwardingTablesSpreadDestinations)
{
    Ptr<RailOptimizedFatTreeHelper> rail = CreateObject<RailOptimizedFatTreeHelper>();
    rail->SetAttribute("LinkLayer", EnumValue(FabricNetDevice::INFINIBAND));
    rail->SetAttribute("Servers", UintegerValue(8));
    rail->SetAttribute("GpusPerServer", UintegerValue(4));
    rail->SetAttribute("LeafRadix", UintegerValue(16));
    Ptr<FabricTopology> topo = rail->Build();
    const uint32_t hosts = topo->GetNHosts();
    for (uint32_t j = 0; j < topo->GetNSwitches(); ++j)
    {
        Ptr<FabricSwitch> sw = topo->GetSwitch(j);
        std::vector<uint32_t> perPort(sw->GetNPorts(), 0);
        for (uint32_t lid = 1; lid <= hosts; ++lid)
        {
            const int32_t port = sw->GetLftPort(lid);
            ASSERT_GE(port, 0) << "switch " << j << " has no LFT entry for LID " << lid;
            ++perPort[port];
        }
        // Up-ports of a leaf carry the remote destinations evenly (within one).
        uint32_t lo = UINT32_MAX;
        uint32_t hi = 0;
        for (uint16_t p = 0; p < sw->GetNPorts(); ++p)
        {
            Ptr<FabricNetDevice> peer(sw->GetPort(p)->GetPeer());
            if (perPort[p] > 1)
            {
                lo = std::min(lo, perPort[p]);
                hi = std::max(hi, perPort[p]);
            }
        }
        if (hi > 0)
        {
            EXPECT_LE(hi - lo, 1u) << "switch " << j;
        }
    }
}

namespace
{

/// Victim-flow fabric: a two-tier fat-tree of 8 HDR (200 Gb/s) hosts, 6 under leaf 0 and 2
/// under leaf 1, joined through one spine by XDR (800 Gb/s) links. Hosts 0-3 send to host 6
/// (the incast), host 4 to host 7 (the victim); both cross the same trunk, which has room for
/// the victim once the incast is held to host 6's rate.
Ptr<FabricTopology>
VictimFabric(bool cc)
{
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("LinkLayer", EnumValue(FabricNetDevice::INFINIBAND));
    ft->SetAttribute("Servers", UintegerValue(8));
    ft->SetAttribute("GpusPerServer", UintegerValue(1));
    ft->SetAttribute("LeafRadix", UintegerValue(7));
    ft->SetAttribute("Oversubscription", DoubleValue(6));
    ft->SetAttribute("LinkRate", DataRateValue(DataRate("200Gbps")));
    ft->SetAttribute("FabricLinkRate", DataRateValue(DataRate("800Gbps")));
    ft->SetAttribute("FabricCableLength", DoubleValue(10));
    ft->GetLinkHelper().SetFlowControlAttribute("FecnThreshold", UintegerValue(cc ? 16384 : 0));
    return ft->Build();
}

} // namespace

TEST_F(FabricTest, IbCongestionControlProtectsTheVictimFlow)
{
    auto run = [](bool cc) {
        Ptr<FabricTopology> topo = VictimFabric(cc);
        EXPECT_EQ(topo->GetNSwitches(), 3u) << "two leaves and one spine";
        RdmaHelper rdma;
        rdma.SetCongestionControl(cc ? "ns3::IbCongestionControl" : "ns3::RdmaNoCc");
        rdma.Install(topo);
        DropCounter drops;
        drops.ConnectAll();
        Completions victim;
        for (uint32_t i = 0; i < 4; ++i)
        {
            auto qp = RdmaHelper::Connect(topo->GetHostNode(i), topo->GetHostNode(6));
            qp.first->PostWrite(32 << 20);
        }
        uint32_t maxCcti = 0;
        if (Ptr<IbCongestionControl> ibcc = DynamicCast<IbCongestionControl>(
                topo->GetHostNode(0)->GetObject<RdmaNic>()->GetQueuePair(1)->GetCongestionOps()))
        {
            ibcc->TraceConnectWithoutContext(
                "Ccti",
                MakeBoundCallback(
                    +[](uint32_t* m, uint32_t, uint32_t v) { *m = std::max(*m, v); },
                    &maxCcti));
        }
        auto v = RdmaHelper::Connect(topo->GetHostNode(4), topo->GetHostNode(7));
        v.first->SetCompletionCallback(victim.Cb());
        const uint64_t bytes = 8 << 20;
        v.first->PostWrite(bytes);
        Simulator::Run();
        EXPECT_EQ(drops.Total(), 0u);
        EXPECT_EQ(victim.v.size(), 1u);
        const double tput = victim.v.empty() ? 0 : bytes * 8.0 / victim.v[0].completed.GetSeconds();
        uint64_t fecn = 0;
        for (uint32_t j = 0; j < topo->GetNSwitches(); ++j)
        {
            fecn += topo->GetSwitch(j)->GetCounters().ecnMarks;
        }
        uint64_t becn = topo->GetHostNode(0)->GetObject<RdmaNic>()->GetCounters().cnpsReceived;
        Simulator::Destroy();
        EXPECT_EQ(maxCcti > 0, cc) << "the Ccti trace follows the BECNs";
        return std::make_tuple(tput, fecn, becn);
    };
    const auto [off, fecnOff, becnOff] = run(false);
    const auto [on, fecnOn, becnOn] = run(true);
    EXPECT_EQ(fecnOff, 0u);
    EXPECT_GT(fecnOn, 0u) << "the root port (to host 6) marks FECN";
    EXPECT_GT(becnOn, 0u) << "the incast senders get BECNs";
    // Without CC the trunk's credits are held by packets for D (congestion spreading), so the
    // victim gets about a fifth of what the trunk returns; with CC the incast backs off.
    EXPECT_GT(on, 2 * off) << "victim " << off / 1e9 << " Gb/s without CC, " << on / 1e9
                           << " Gb/s with";
    EXPECT_GT(on, 0.6 * 200e9) << on / 1e9 << " Gb/s";
}

class IbRingAlphaBetaTest : public FabricTest, public ::testing::WithParamInterface<uint64_t>
{
};

TEST_P(IbRingAlphaBetaTest, RingAllReduceOnAnIbRailFabricMatchesAlphaBeta)
{
    const uint64_t bytes = GetParam();
    // 8 single-GPU servers: the ring's neighbours share rail 0's leaf (one switch per hop).
    Ptr<RailOptimizedFatTreeHelper> rail = CreateObject<RailOptimizedFatTreeHelper>();
    rail->SetAttribute("LinkLayer", EnumValue(FabricNetDevice::INFINIBAND));
    rail->SetAttribute("Servers", UintegerValue(8));
    rail->SetAttribute("GpusPerServer", UintegerValue(1));
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::IbCongestionControl");
    Cluster c =
        MakeJob(rail->Build(), "ns3::RingCollective", "allreduce", bytes, 1, Time(0), false, rdma);
    c.job->Start();
    Simulator::Run();
    ASSERT_TRUE(c.job->IsFinished());
    const double measured = c.job->GetSteps()[0].CollectiveTime().GetSeconds();
    // alpha: NIC tx 300 + PCIe 250 + 2 cables (3 m) + switch 500 + NIC rx 300 + PCIe 250 + the
    // first packet's RETH; B: 400G x 4096 / (4096 + 26).
    const double alpha = 300e-9 + 250e-9 + 2 * 15e-9 + 500e-9 + 300e-9 + 250e-9 + kReth * 8 / kNdr;
    const double b = kNdr / 8 * 4096 / (4096 + kIbOverhead);
    const double n = 8;
    const double model = 2 * (n - 1) * alpha + 2 * (n - 1) / n * double(bytes) / b;
    EXPECT_NEAR(measured / model, 1.0, 0.02)
        << "measured " << measured * 1e6 << " us, model " << model * 1e6 << " us";
}

INSTANTIATE_TEST_SUITE_P(Sizes,
                         IbRingAlphaBetaTest,
                         ::testing::Values(uint64_t(1) << 20, uint64_t(32) << 20),
                         [](const ::testing::TestParamInfo<uint64_t>& i) {
                             return std::to_string(i.param >> 20) + "MiB";
                         });

TEST_F(FabricTest, IbPcapDecodesAsInfiniband)
{
    if (std::system("command -v tshark >/dev/null 2>&1") != 0)
    {
        GTEST_SKIP() << "tshark not installed";
    }
    const std::string file = ::testing::TempDir() + "aif-ib.pcap";
    {
        RdmaHelper rdma;
        rdma.SetNicAttribute("AckInterval", TimeValue(Time(0)));
        TwoHcas h(rdma, 3.0, 131072);
        FabricLinkHelper link;
        link.EnablePcap(file, h.db, false, true);
        h.qa->PostWrite(3 * 4096);
        Simulator::Run();
        Simulator::Destroy();
    }
    const std::string cmd = "tshark -r " + file +
                            " -T fields -e infiniband.lrh.vl -e infiniband.lrh.dlid "
                            "-e infiniband.lrh.slid -e infiniband.bth.opcode -e infiniband.bth.psn";
    const std::vector<std::string> lines = CommandLines(cmd);
    // Received by HCA 2 (LID 2) on VL 3: WRITE FIRST/MIDDLE/LAST, PSN 0..2; sent: ACKs to LID 1.
    std::vector<std::string> data;
    int acks = 0;
    for (auto& l : lines)
    {
        if (l.find("\t1\t2\t17\t") != std::string::npos)
        {
            ++acks;
        }
        else
        {
            data.push_back(l);
        }
    }
    ASSERT_EQ(data.size(), 3u) << (lines.empty() ? "no output" : lines[0]);
    EXPECT_EQ(data[0], "0x03\t2\t1\t6\t0\n");
    EXPECT_EQ(data[1], "0x03\t2\t1\t7\t1\n");
    EXPECT_EQ(data[2], "0x03\t2\t1\t8\t2\n");
    EXPECT_GE(acks, 1);
}

TEST_F(FabricTest, AdaptiveRoutingSpreadsOneDestinationOverEveryUplink)
{
    // Two leaves of 4 hosts joined by two spines (radix 6: 4 down, 2 up). Hosts 0 and 1 send to
    // host 4: an LFT gives every packet for host 4 the same uplink, adaptive routing uses both.
    auto run = [](FabricSwitch::PathSelection sel) {
        Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
        ft->SetAttribute("LinkLayer", EnumValue(FabricNetDevice::INFINIBAND));
        ft->SetAttribute("Servers", UintegerValue(8));
        ft->SetAttribute("GpusPerServer", UintegerValue(1));
        ft->SetAttribute("LeafRadix", UintegerValue(6));
        ft->SetAttribute("Oversubscription", DoubleValue(2));
        ft->SetSwitchAttribute("PathSelection", EnumValue(sel));
        Ptr<FabricTopology> topo = ft->Build();
        RdmaHelper rdma;
        rdma.SetCongestionControl("ns3::RdmaNoCc");
        rdma.SetLossRecovery("ns3::RdmaSelectiveRepeat");
        rdma.Install(topo);
        Completions done;
        for (uint32_t i = 0; i < 2; ++i)
        {
            auto qp = RdmaHelper::Connect(topo->GetHostNode(i), topo->GetHostNode(4));
            qp.first->SetCompletionCallback(done.Cb());
            qp.first->PostWrite(4 << 20);
        }
        Simulator::Run();
        EXPECT_EQ(done.v.size(), 2u);
        // Data frames that left leaf 0 on each of its uplinks.
        std::vector<uint64_t> up;
        Ptr<FabricSwitch> leaf = topo->GetSwitch(0);
        for (uint16_t p = 0; p < leaf->GetNPorts(); ++p)
        {
            Ptr<FabricNetDevice> d = leaf->GetPort(p);
            if (d->GetPeer()->GetNode()->GetObject<FabricSwitch>())
            {
                up.push_back(d->GetCounters().txDataFrames);
            }
        }
        Simulator::Destroy();
        return up;
    };
    const std::vector<uint64_t> lft = run(FabricSwitch::LFT);
    const std::vector<uint64_t> adaptive = run(FabricSwitch::ADAPTIVE);
    ASSERT_EQ(lft.size(), 2u);
    ASSERT_EQ(adaptive.size(), 2u);
    EXPECT_EQ(std::min(lft[0], lft[1]), 0u) << "one LFT entry per destination";
    const uint64_t total = adaptive[0] + adaptive[1];
    EXPECT_GE(total, 2048u);
    EXPECT_GT(std::min(adaptive[0], adaptive[1]), total / 4) << adaptive[0] << " / " << adaptive[1];
}

TEST_F(FabricTest, IbVlArbitrationSharesTheLinkByWeight)
{
    // Two queue pairs on service levels 3 and 4 (VLs 3 and 4), weights 1 and 3 in the HCA's
    // VL arbitration: while both send, VL 4 gets three quarters of the link, VL 3 one quarter.
    FabricLinkHelper link = IbLink();
    link.SetScheduler("ns3::DwrrEgressScheduler");
    link.SetSchedulerAttribute("Weights", StringValue("1 1 1 1 3 1 1 1"));
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    TwoHosts h(rdma, 3.0, link, Ipv4Address(1u), Ipv4Address(2u));
    auto sl3 = RdmaHelper::Connect(h.a, h.b, 3 << 3);
    auto sl4 = RdmaHelper::Connect(h.a, h.b, 4 << 3);
    Completions done;
    sl3.first->SetCompletionCallback(done.Cb());
    sl4.first->SetCompletionCallback(done.Cb());
    sl3.first->PostWrite(16 << 20);
    sl4.first->PostWrite(16 << 20);
    std::array<uint64_t, 8> bytes{};
    h.da->TraceConnectWithoutContext("MacTx",
                                     MakeBoundCallback(
                                         +[](std::array<uint64_t, 8>* b, const FabricFrame& f) {
                                             if (f.kind == FabricFrame::DATA &&
                                                 Simulator::Now() < MicroSeconds(300))
                                             {
                                                 (*b)[f.priority & 7] += f.payloadBytes;
                                             }
                                         },
                                         &bytes));
    Simulator::Run();
    ASSERT_EQ(done.v.size(), 2u);
    const double share = double(bytes[4]) / double(bytes[3] + bytes[4]);
    EXPECT_NEAR(share, 0.75, 0.01) << bytes[3] << " / " << bytes[4];
    // The VL-3 flow finishes after the VL-4 one, which had three times the bandwidth.
    EXPECT_LT(done.v[0].qpn == sl4.first->GetQpn() ? done.v[0].completed : done.v[1].completed,
              done.v[0].qpn == sl3.first->GetQpn() ? done.v[0].completed : done.v[1].completed);
}

TEST_F(FabricTest, IbServiceLevelMapsToItsVirtualLane)
{
    // SL 3 maps to VL 1 and SL 4 to VL 2 through the SL-to-VL table; SL 9 to 9 mod 4 = 1 with
    // four data VLs when the table has no entry for it.
    FabricLinkHelper link = IbLink();
    link.SetFlowControlAttribute("NumDataVls", UintegerValue(4));
    link.SetFlowControlAttribute("SlToVl", StringValue("0,0,0,1,2"));
    RdmaHelper rdma;
    TwoHosts h(rdma, 3.0, link, Ipv4Address(1u), Ipv4Address(2u));
    Ptr<FabricNetDevice> tx = h.da;
    EXPECT_EQ(IbFc(tx)->GetVl(3), 1);
    EXPECT_EQ(IbFc(tx)->GetVl(4), 2);
    EXPECT_EQ(IbFc(tx)->GetVl(9), 1);
    auto sl3 = RdmaHelper::Connect(h.a, h.b, 3 << 3);
    auto sl4 = RdmaHelper::Connect(h.a, h.b, 4 << 3);
    std::array<uint64_t, 8> frames{};
    tx->TraceConnectWithoutContext("MacTx",
                                   MakeBoundCallback(
                                       +[](std::array<uint64_t, 8>* n, const FabricFrame& f) {
                                           if (f.kind == FabricFrame::DATA)
                                           {
                                               ++(*n)[f.priority & 7];
                                           }
                                       },
                                       &frames));
    sl3.first->PostWrite(64 * 1024);
    sl4.first->PostWrite(64 * 1024);
    Simulator::Run();
    EXPECT_EQ(frames[1], 16u) << "SL 3 on VL 1";
    EXPECT_EQ(frames[2], 16u) << "SL 4 on VL 2";
    EXPECT_EQ(frames[3] + frames[4], 0u);
}

TEST_F(FabricTest, IbCorruptPacketsGiveTheirCreditsBack)
{
    // 2% of the packets arriving at the HCA are corrupt, and the buffer holds 4 packets: if lost
    // packets kept their credits, the VL would block for good after 4 losses. They are
    // returned (ABR resynchronization), so go-back-N recovers every loss and the WRITE completes.
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    rdma.SetNicAttribute("RetransmitTimeout", TimeValue(MicroSeconds(100)));
    const uint32_t packet = IbCreditFlowControl::Blocks(4096 + kIbOverhead) * 64;
    TwoHcas h(rdma, 3.0, 4 * packet);
    h.db->SetAttribute("ReceiveErrorRate", DoubleValue(0.02));
    h.db->AssignStreams(7);
    DropCounter drops;
    drops.ConnectAll();
    Completions done;
    h.qa->SetCompletionCallback(done.Cb());
    h.qa->PostWrite(4 << 20);
    Simulator::Run();
    ASSERT_EQ(done.v.size(), 1u);
    EXPECT_EQ(done.v[0].status, RdmaCompletion::SUCCESS);
    EXPECT_GT(drops.Of(FabricDropReason::CORRUPT), 4u) << "more losses than the buffer holds";
    EXPECT_GT(h.qa->GetStats().retransmittedPackets, 0u);
    EXPECT_EQ(IbFc(h.db)->GetOverruns(), 0u);
}

TEST_F(FabricTest, IbPeriodicCreditRefreshRunsWhileDataArrives)
{
    // With a 1 us refresh the HCA re-sends its FCP every microsecond while data arrives, on top
    // of one FCP per packet; the refresh stops once the link is idle, so the run still ends.
    auto run = [](Time refresh) {
        RdmaHelper rdma;
        rdma.SetCongestionControl("ns3::RdmaNoCc");
        TwoHcas h(rdma, 3.0, 131072);
        IbFc(h.db)->SetAttribute("CreditRefreshInterval", TimeValue(refresh));
        Completions resp;
        h.qb->SetReceiveCallback(resp.Cb());
        h.qa->PostWrite(4 << 20);
        Simulator::Run();
        EXPECT_EQ(resp.v.size(), 1u);
        const uint64_t fcps = IbFc(h.db)->GetFcpsSent();
        const double busy = resp.v.empty() ? 0 : resp.v[0].completed.GetSeconds();
        Simulator::Destroy();
        return std::make_pair(fcps, busy);
    };
    const auto [plain, t0] = run(Time(0));
    const auto [refreshed, t1] = run(MicroSeconds(1));
    EXPECT_EQ(plain, 1024u) << "one FCP per packet";
    EXPECT_DOUBLE_EQ(t0, t1) << "a refresh repeats credits, it never adds any";
    const double extra = double(refreshed - plain);
    EXPECT_NEAR(extra, t1 / 1e-6, 3) << "about one refresh per microsecond of traffic";
}

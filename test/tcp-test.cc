// SPDX-License-Identifier: GPL-2.0-only
// Kernel TCP (ns-3's TCP) on the fabric: throughput, timeouts, loss, sharing with RoCEv2.
#include "test-util.h"

#include "ns3/internet-module.h"

#include <map>

using namespace ns3;

namespace
{

struct Arrivals : public CollectiveTransportListener
{
    std::vector<std::pair<uint64_t, Time>> v;

    void MessageArrived(uint64_t token) override
    {
        v.emplace_back(token, Simulator::Now());
    }
};

Ptr<FabricTopology>
TcpStar(uint32_t hosts, bool pfcOnTcp = false)
{
    Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
    star->SetAttribute("Servers", UintegerValue(hosts));
    star->SetAttribute("GpusPerServer", UintegerValue(1));
    if (pfcOnTcp)
    {
        star->GetLinkHelper().SetFlowControlAttribute("EnabledPriorities", UintegerValue(0x09));
    }
    Ptr<FabricTopology> topo = star->Build();
    FabricInternetHelper::Install(topo);
    return topo;
}

} // namespace

TEST_F(FabricTest, TcpFlowReachesLineGoodput)
{
    Ptr<FabricTopology> topo = TcpStar(2);
    Ptr<TcpCollectiveTransport> tcp = CreateObject<TcpCollectiveTransport>();
    tcp->SetRanks(topo->GetHosts());
    Arrivals a;
    const uint64_t bytes = 256ULL << 20;
    tcp->Send(0, 1, bytes, &a, 7);
    Simulator::Run();
    ASSERT_EQ(a.v.size(), 1u);
    EXPECT_EQ(a.v[0].first, 7u);
    // MSS 8948 + TCP 32 + IPv4 20 + Ethernet/802.1Q/FCS 22 + preamble/IFG 20 = 9042 wire bytes.
    const double goodput = 400e9 * 8948 / 9042;
    const double measured = double(bytes) * 8 / a.v[0].second.GetSeconds();
    EXPECT_GE(measured / goodput, 0.90) << measured / 1e9 << " Gb/s";
    EXPECT_LE(measured / goodput, 1.0);
}

TEST_F(FabricTest, TcpTailLossCostsTheLinuxMinimumRto)
{
    Ptr<FabricTopology> topo = TcpStar(2);
    Ptr<TcpCollectiveTransport> tcp = CreateObject<TcpCollectiveTransport>();
    tcp->SetRanks(topo->GetHosts());
    // Lose the 10th (last) data segment of a 10-segment message, once.
    uint32_t seen = 0;
    bool dropped = false;

    struct Ctx
    {
        uint32_t* seen;
        bool* dropped;
    } ctx{&seen, &dropped};

    topo->GetHostDevice(1)->SetReceiveFilter(MakeCallback(+[](Ctx* c, const FabricFrame& f) {
                                                 if (f.protocol == 6 && f.payloadBytes > 0 &&
                                                     !*c->dropped && ++*c->seen == 10)
                                                 {
                                                     *c->dropped = true;
                                                     return true;
                                                 }
                                                 return false;
                                             }).Bind(&ctx));
    Arrivals a;
    tcp->Send(0, 1, 10 * 8948, &a, 1);
    Simulator::Run();
    EXPECT_TRUE(dropped);
    ASSERT_EQ(a.v.size(), 1u);
    EXPECT_GE(a.v[0].second, MilliSeconds(200)) << "a tail loss needs the retransmission timeout";
    EXPECT_LT(a.v[0].second, MilliSeconds(260));
}

TEST_F(FabricTest, TcpInitialRtoTimesTheLostSyn)
{
    // Lose the first segment host 1 receives (the SYN): the connection waits InitialRto.
    Ptr<FabricTopology> topo = TcpStar(2);
    Ptr<TcpCollectiveTransport> tcp = CreateObject<TcpCollectiveTransport>();
    tcp->SetAttribute("InitialRto", TimeValue(MilliSeconds(300)));
    tcp->SetRanks(topo->GetHosts());
    bool dropped = false;
    topo->GetHostDevice(1)->SetReceiveFilter(MakeCallback(+[](bool* d, const FabricFrame& f) {
                                                 if (f.protocol == 6 && !*d)
                                                 {
                                                     *d = true;
                                                     return true;
                                                 }
                                                 return false;
                                             }).Bind(&dropped));
    Arrivals a;
    tcp->Send(0, 1, 8948, &a, 1);
    Simulator::Run();
    EXPECT_TRUE(dropped);
    ASSERT_EQ(a.v.size(), 1u);
    EXPECT_GE(a.v[0].second, MilliSeconds(300));
    EXPECT_LT(a.v[0].second, MilliSeconds(310)) << "one InitialRto, not ns-3's 3 s default";
}

TEST_F(FabricTest, TcpCompletesUnderRandomLoss)
{
    Ptr<FabricTopology> topo = TcpStar(2);
    topo->GetHostDevice(1)->SetAttribute("ReceiveErrorRate", DoubleValue(1e-3));
    topo->AssignStreams(5);
    Ptr<TcpCollectiveTransport> tcp = CreateObject<TcpCollectiveTransport>();
    tcp->SetRanks(topo->GetHosts());
    Arrivals a;
    for (uint64_t i = 0; i < 10; ++i)
    {
        tcp->Send(0, 1, 4 << 20, &a, i);
    }
    DropCounter drops;
    drops.ConnectAll();
    Simulator::Run();
    ASSERT_EQ(a.v.size(), 10u);
    for (uint64_t i = 0; i < 10; ++i)
    {
        EXPECT_EQ(a.v[i].first, i) << "messages arrive in order";
    }
    EXPECT_GT(drops.Of(FabricDropReason::CORRUPT), 0u);
}

TEST_F(FabricTest, TcpAndRocev2ShareABottleneck)
{
    // Hosts 1 (TCP, priority 0) and 2 (RoCEv2, priority 3) both send 32 MiB to host 0: the
    // switch's port to host 0 is the bottleneck. Its strict-priority scheduler serves RoCE's
    // class first, so the model predicts RoCE at its solo time and TCP taking what is left:
    // TCP ends after RoCE, no earlier than the time the link needs for both.
    const uint64_t bytes = 32 << 20;
    auto run = [bytes](bool withTcp, bool withRoce) {
        Ptr<FabricTopology> topo = TcpStar(3);
        RdmaHelper rdma;
        rdma.Install(topo);
        Ptr<TcpCollectiveTransport> tcp = CreateObject<TcpCollectiveTransport>();
        tcp->SetRanks(topo->GetHosts());
        Ptr<RdmaCollectiveTransport> roce = CreateObject<RdmaCollectiveTransport>();
        roce->SetRanks(topo->GetHosts());
        Arrivals a;
        if (withTcp)
        {
            tcp->Send(1, 0, bytes, &a, 1);
        }
        if (withRoce)
        {
            roce->Send(2, 0, bytes, &a, 2);
        }
        Simulator::Run();
        std::map<uint64_t, double> end;
        for (auto& [token, t] : a.v)
        {
            end[token] = t.GetSeconds();
        }
        // Conservation at the switch: every data frame it received was forwarded or dropped.
        Ptr<FabricSwitch> sw = topo->GetSwitch(0);
        uint64_t rx = 0;
        uint64_t tx = 0;
        for (uint16_t p = 0; p < sw->GetNPorts(); ++p)
        {
            rx += sw->GetPort(p)->GetCounters().rxDataFrames;
            tx += sw->GetPort(p)->GetCounters().txDataFrames;
        }
        uint64_t swDrops = 0;
        for (auto d : sw->GetCounters().drops)
        {
            swDrops += d;
        }
        EXPECT_EQ(rx, sw->GetCounters().forwarded + swDrops);
        EXPECT_EQ(sw->GetCounters().forwarded, tx);
        Simulator::Destroy();
        return end;
    };
    const double roceAlone = run(false, true).at(2);
    const double tcpAlone = run(true, false).at(1);
    const auto both = run(true, true);
    ASSERT_EQ(both.size(), 2u);
    EXPECT_NEAR(both.at(2) / roceAlone, 1.0, 0.03) << "the higher class keeps its solo time";
    EXPECT_GT(both.at(1), both.at(2)) << "TCP gets the link after RoCE";
    // Goodput floors: RoCE 4096 of 4182 wire bytes, TCP 8948 of 9042.
    const double floor = bytes * 8 * (4182.0 / 4096 + 9042.0 / 8948) / 400e9;
    EXPECT_GE(both.at(1), 0.99 * floor) << "the link carried both";
    EXPECT_GT(both.at(1), tcpAlone) << "TCP was slowed by sharing";
}

TEST_F(FabricTest, DctcpUsesEcnMarksFromTheSwitch)
{
    // Two senders into one port with ECN thresholds at 30-100 KB. DCTCP reacts to the marks and
    // keeps the switch queue near them; CUBIC (no ECN) fills the buffer until it drops.
    auto run = [](TypeId cc, uint64_t& marks, uint64_t& drops) {
        Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
        star->SetAttribute("Servers", UintegerValue(3));
        star->SetAttribute("GpusPerServer", UintegerValue(1));
        star->SetBufferAttribute("EcnKmin", UintegerValue(30000));
        star->SetBufferAttribute("EcnKmax", UintegerValue(100000));
        Ptr<FabricTopology> topo = star->Build();
        FabricInternetHelper::Install(topo);
        Ptr<TcpCollectiveTransport> tcp = CreateObject<TcpCollectiveTransport>();
        tcp->SetAttribute("CongestionControl", TypeIdValue(cc));
        tcp->SetRanks(topo->GetHosts());
        Arrivals a;
        tcp->Send(1, 0, 32 << 20, &a, 1);
        tcp->Send(2, 0, 32 << 20, &a, 2);
        Simulator::Run();
        EXPECT_EQ(a.v.size(), 2u);
        Ptr<FabricSwitch> sw = topo->GetSwitch(0);
        marks = sw->GetCounters().ecnMarks;
        drops = 0;
        for (auto d : sw->GetCounters().drops)
        {
            drops += d;
        }
        const uint64_t peak = sw->GetBufferManager()->GetPeakUsedBytes();
        Simulator::Destroy();
        return peak;
    };
    uint64_t dctcpMarks = 0;
    uint64_t dctcpDrops = 0;
    uint64_t cubicMarks = 0;
    uint64_t cubicDrops = 0;
    const uint64_t dctcpPeak = run(TcpDctcp::GetTypeId(), dctcpMarks, dctcpDrops);
    const uint64_t cubicPeak = run(TcpCubic::GetTypeId(), cubicMarks, cubicDrops);
    EXPECT_GT(dctcpMarks, 0u) << "TCP data was ECN-capable";
    EXPECT_EQ(cubicMarks, 0u) << "CUBIC runs without ECN";
    EXPECT_EQ(dctcpDrops, 0u);
    // DCTCP cut its window on the marks: its peak queue stays a fraction of CUBIC's.
    EXPECT_LT(dctcpPeak * 2, cubicPeak) << dctcpPeak << " vs " << cubicPeak << " bytes";
}

TEST_F(FabricTest, TcpMssFollowsTheMtu)
{
    Ptr<FabricTopology> topo = TcpStar(2);
    Ptr<TcpCollectiveTransport> tcp = CreateObject<TcpCollectiveTransport>();
    tcp->SetRanks(topo->GetHosts());
    Ptr<Socket> s = Socket::CreateSocket(topo->GetHostNode(0), TcpSocketFactory::GetTypeId());
    tcp->ConfigureSocket(s);
    UintegerValue mss;
    s->GetAttribute("SegmentSize", mss);
    EXPECT_EQ(mss.Get(), 9000u - 52u);
    topo->GetHostDevice(1)->SetMtu(4200);
    Ptr<Socket> s1 = Socket::CreateSocket(topo->GetHostNode(1), TcpSocketFactory::GetTypeId());
    tcp->ConfigureSocket(s1);
    s1->GetAttribute("SegmentSize", mss);
    EXPECT_EQ(mss.Get(), 4200u - 52u);
}

// SPDX-License-Identifier: GPL-2.0-only
// The kernel-TCP host cost model: throughput bounds, latency breakdown, cores.
#include "test-util.h"

#include "ns3/internet-module.h"

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
Hosts(uint32_t n, DataRate rate)
{
    Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
    star->SetAttribute("Servers", UintegerValue(n));
    star->SetAttribute("GpusPerServer", UintegerValue(1));
    star->SetAttribute("LinkRate", DataRateValue(rate));
    Ptr<FabricTopology> topo = star->Build();
    FabricInternetHelper::Install(topo);
    return topo;
}

Ptr<HostStackCostModel>
AddCosts(Ptr<FabricTopology> topo, uint32_t host)
{
    Ptr<HostStackCostModel> m = CreateObject<HostStackCostModel>();
    topo->GetHostNode(host)->AggregateObject(m);
    m->Attach(topo->GetHostDevice(host));
    return m;
}

} // namespace

TEST_F(FabricTest, HostCopyBandwidthBoundsTcpThroughput)
{
    Ptr<FabricTopology> topo = Hosts(2, DataRate("100Gbps"));
    for (uint32_t h = 0; h < 2; ++h)
    {
        Ptr<HostStackCostModel> m = AddCosts(topo, h);
        m->SetAttribute("SyscallCost", TimeValue(Time(0)));
        m->SetAttribute("TxProtocolCost", TimeValue(Time(0)));
        if (h == 1)
        {
            // A faster reader: the sender's copy is the one bound under test (a reader exactly
            // as fast as the writer loses a few percent to interrupt-coalescing bursts).
            m->SetAttribute("CopyBandwidth", DataRateValue(DataRate("180Gbps")));
        }
    }
    Ptr<TcpCollectiveTransport> tcp = CreateObject<TcpCollectiveTransport>();
    tcp->SetRanks(topo->GetHosts());
    Arrivals a;
    tcp->Send(0, 1, 4 << 20, &a, 0); // warm up: connection, slow start
    Simulator::Run();
    ASSERT_EQ(a.v.size(), 1u);
    const Time t0 = Simulator::Now();
    const uint64_t bytes = 128ULL << 20;
    tcp->Send(0, 1, bytes, &a, 1);
    Simulator::Run();
    ASSERT_EQ(a.v.size(), 2u);
    const double measured = double(bytes) * 8 / (a.v[1].second - t0).GetSeconds();
    // min(line goodput 100 x 8948/9042, one core's copy bandwidth 10.5 GiB/s, PCIe 504 Gb/s)
    const double line = 100e9 * 8948 / 9042;
    const double copy = 10.5 * 1024 * 1024 * 1024 * 8;
    const double bound = std::min({line, copy, 504e9});
    EXPECT_NEAR(measured / bound, 1.0, 0.03) << measured / 1e9 << " Gb/s vs " << bound / 1e9;
}

TEST_F(FabricTest, SmallMessageLatencyIsTheSumOfItsComponents)
{
    Ptr<FabricTopology> topo = Hosts(2, DataRate("400Gbps"));
    AddCosts(topo, 0);
    AddCosts(topo, 1);
    Ptr<TcpCollectiveTransport> tcp = CreateObject<TcpCollectiveTransport>();
    tcp->SetRanks(topo->GetHosts());
    std::vector<HostStackBreakdown> bd;
    tcp->TraceConnectWithoutContext(
        "MessageBreakdown",
        MakeCallback(+[](std::vector<HostStackBreakdown>* v, const HostStackBreakdown& b) {
            v->push_back(b);
        }).Bind(&bd));
    Arrivals a;
    tcp->Send(0, 1, 1000, &a, 0); // opens the connection
    Simulator::Run();
    // After 1 ms of idle (delayed ACKs flushed, cores and interrupts quiet), one small message.
    Simulator::Schedule(MilliSeconds(100), [&] { tcp->Send(0, 1, 1000, &a, 1); });
    const Time post = Simulator::Now() + MilliSeconds(100);
    Simulator::Run();
    ASSERT_EQ(a.v.size(), 2u);
    ASSERT_EQ(bd.size(), 2u);
    const double measured = (a.v[1].second - post).GetSeconds();
    // Components from the model's parameters:
    const double pcie = 250e-9 + 1000 * 8 / 504e9;                  // each direction
    const double copy = 1000 * 8 / (10.5 * 1024 * 1024 * 1024 * 8); // memcpy of 1000 B
    const double send = 500e-9 + copy + 1000e-9;                    // syscall + copy + TCP/IP
    const double wire = (1000 + 32 + 20 + 22 + 20) * 8 / 400e9 + 2 * 15e-9 + 500e-9;
    const double irq = 16e-6 + 2000e-9 + 300e-9; // coalescing + interrupt
    const double recv = 500e-9 + copy;           // syscall + copy
    const double model = pcie + send + wire + irq + recv + pcie;
    EXPECT_NEAR(measured / model, 1.0, 0.02) << measured * 1e6 << " us vs " << model * 1e6;
    // The breakdown adds up exactly to the measured latency.
    EXPECT_EQ(bd[1].Total(), a.v[1].second - post);
    EXPECT_NEAR(bd[1].pcieTx.GetSeconds(), pcie, 1e-9);
    EXPECT_NEAR(bd[1].cpuTx.GetSeconds(), send, 1e-9);
    EXPECT_NEAR(bd[1].network.GetSeconds(), wire + irq, 2e-9);
    EXPECT_NEAR(bd[1].cpuRx.GetSeconds(), recv, 1e-9);
    EXPECT_NEAR(bd[1].pcieRx.GetSeconds(), pcie, 1e-9);
    // The counters hold the sums of both messages' breakdowns.
    EXPECT_EQ(tcp->GetMessagesArrived(), 2u);
    EXPECT_EQ(tcp->GetBreakdownTotals().Total(), bd[0].Total() + bd[1].Total());
    EXPECT_EQ(tcp->GetBreakdownTotals().bytes, 2000u);
}

TEST_F(FabricTest, HalvingCoresHalvesACpuBoundSender)
{
    auto run = [](uint32_t cores) {
        Ptr<FabricTopology> topo = Hosts(3, DataRate("400Gbps"));
        Ptr<HostStackCostModel> s = AddCosts(topo, 0);
        s->SetAttribute("Cores", UintegerValue(cores));
        s->SetAttribute("CopyBandwidth", DataRateValue(DataRate("20Gbps")));
        // Free ACK interrupts at the sender, so its cores do nothing but send calls.
        s->SetAttribute("InterruptCost", TimeValue(Time(0)));
        s->SetAttribute("PerPacketRxCost", TimeValue(Time(0)));
        for (uint32_t h = 1; h < 3; ++h)
        {
            AddCosts(topo, h)->SetAttribute("CopyBandwidth", DataRateValue(DataRate("200Gbps")));
        }
        Ptr<TcpCollectiveTransport> tcp = CreateObject<TcpCollectiveTransport>();
        tcp->SetRanks(topo->GetHosts());
        Arrivals a;
        const uint64_t bytes = 32ULL << 20;
        tcp->Send(0, 1, bytes, &a, 1);
        tcp->Send(0, 2, bytes, &a, 2);
        Simulator::Run();
        EXPECT_EQ(a.v.size(), 2u);
        const Time last = std::max(a.v[0].second, a.v[1].second);
        const double gbps = 2.0 * bytes * 8 / last.GetSeconds() / 1e9;
        Simulator::Destroy();
        return gbps;
    };
    const double one = run(1);
    const double two = run(2);
    // Two writer threads on one core share it; on two cores each has its own.
    // Per core: one send call of 64 KiB costs 0.5 us + 65536 B / 20 Gb/s + 1 us.
    const double perCore = 65536 * 8 / (0.5e-6 + 65536 * 8 / 20e9 + 1e-6) / 1e9;
    EXPECT_NEAR(one / perCore, 1.0, 0.05) << one << " Gb/s";
    EXPECT_NEAR(two / (2 * perCore), 1.0, 0.05) << two << " Gb/s";
}

// The link layer calls nothing above it: the IP packets a host's device would hand to ns-3's
// stack go to the handler it is given (HostStackCostModel::Attach sets one), which passes them
// on with DeliverToStack. A counting handler sees every segment of a 1 MiB transfer (at least
// ceil(1 MiB / MSS 8,948) = 118 data segments, plus the handshake's SYN); a null handler
// restores direct delivery, and the next message arrives without passing it.
TEST_F(FabricTest, TheLinkLayerHandsIpPacketsToTheHandlerItIsGiven)
{
    Ptr<FabricTopology> topo = Hosts(2, DataRate("100Gbps"));
    Ptr<FabricNetDevice> dev = topo->GetHostDevice(1);

    struct Counter
    {
        Ptr<FabricNetDevice> dev;
        uint64_t packets{0};

        void Receive(Ptr<Packet> p)
        {
            ++packets;
            dev->DeliverToStack(p);
        }
    } counter;

    counter.dev = dev;
    dev->SetIpReceiveHandler(MakeCallback(&Counter::Receive, &counter));
    Ptr<TcpCollectiveTransport> tcp = CreateObject<TcpCollectiveTransport>();
    tcp->SetRanks(topo->GetHosts());
    Arrivals a;
    const uint64_t bytes = 1 << 20;
    tcp->Send(0, 1, bytes, &a, 0);
    Simulator::Run();
    ASSERT_EQ(a.v.size(), 1u);
    EXPECT_GE(counter.packets, (bytes + 8947) / 8948 + 1);
    const uint64_t seen = counter.packets;
    dev->SetIpReceiveHandler(Callback<void, Ptr<Packet>>());
    tcp->Send(0, 1, bytes, &a, 1);
    Simulator::Run();
    ASSERT_EQ(a.v.size(), 2u);
    EXPECT_EQ(counter.packets, seen);
}

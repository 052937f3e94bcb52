// SPDX-License-Identifier: GPL-2.0-only
// The Linux TCP model (LinuxTcpStack) on the fabric: goodput, tail loss probes, RACK, the RTO,
// GRO/interrupts and NCCL's socket split.
#include "test-util.h"

#include <cstdio>
#include <map>
#include <set>

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

constexpr uint32_t MSS = 8948;

struct LinuxNet
{
    Ptr<FabricTopology> topo;
    std::vector<Ptr<LinuxTcpStack>> stacks;
    Ptr<LinuxTcpCollectiveTransport> tcp;
};

LinuxNet
MakeLinuxNet(uint32_t hosts, LinuxTcpHelper helper = LinuxTcpHelper())
{
    LinuxNet n;
    Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
    star->SetAttribute("Servers", UintegerValue(hosts));
    star->SetAttribute("GpusPerServer", UintegerValue(1));
    star->GetLinkHelper().SetFlowControlAttribute("EnabledPriorities", UintegerValue(0));
    n.topo = star->Build();
    n.stacks = helper.Install(n.topo);
    n.tcp = CreateObject<LinuxTcpCollectiveTransport>();
    n.tcp->SetRanks(n.topo->GetHosts());
    return n;
}

/// Drops, at a host's receive, the data frames whose sequence number is listed, as many times
/// as listed.
struct SeqDropper
{
    std::multiset<uint32_t> seqs;
    uint32_t dropped{0};

    bool Drop(const FabricFrame& f)
    {
        if (f.protocol != 6 || f.payloadBytes == 0)
        {
            return false;
        }
        auto it = seqs.find(f.seq);
        if (it == seqs.end())
        {
            return false;
        }
        seqs.erase(it);
        ++dropped;
        return true;
    }
};

void
DropSeqs(LinuxNet& n, uint32_t host, SeqDropper* d)
{
    n.topo->GetHostDevice(host)->SetReceiveFilter(MakeCallback(&SeqDropper::Drop, d));
}

uint32_t
Seg(uint32_t i)
{
    return i * MSS;
}

} // namespace

TEST_F(FabricTest, LinuxTcpFlowReachesLineGoodput)
{
    LinuxNet n = MakeLinuxNet(2);
    Arrivals a;
    const uint64_t bytes = 256ULL << 20;
    n.tcp->Send(0, 1, bytes, &a, 7);
    Simulator::Run();
    ASSERT_EQ(a.v.size(), 1u);
    // MSS 8948 + TCP 32 + IPv4 20 + Ethernet/802.1Q/FCS 22 + preamble/IFG 20 = 9042 wire bytes.
    const double goodput = 400e9 * 8948 / 9042;
    const double measured = double(bytes) * 8 / a.v[0].second.GetSeconds();
    EXPECT_GE(measured / goodput, 0.95) << measured / 1e9 << " Gb/s";
    EXPECT_LE(measured / goodput, 1.0);
    const LinuxTcpStackCounters c = n.tcp->GetCounters();
    EXPECT_EQ(c.retransmits, 0u);
    EXPECT_EQ(c.segmentsSent, (bytes + MSS - 1) / MSS);
}

TEST_F(FabricTest, LinuxTcpTlpRepairsATailLossWithSeveralPacketsOutAfterTwoSrttPlus2Ms)
{
    for (bool jiffies : {false, true})
    {
        LinuxTcpHelper h;
        h.SetStackAttribute("TimerGranularity", TimeValue(jiffies ? MilliSeconds(1) : Time(0)));
        LinuxNet n = MakeLinuxNet(2, h);
        SeqDropper d;
        d.seqs = {Seg(8), Seg(9)}; // the last two of ten segments
        DropSeqs(n, 1, &d);
        Time probe;
        n.stacks[0]->TraceConnectWithoutContext(
            "LossProbe",
            MakeBoundCallback(
                +[](Time* t, uint32_t) { *t = Simulator::Now(); },
                &probe));
        Arrivals a;
        n.tcp->Send(0, 1, 10 * MSS, &a, 1);
        Simulator::Run();
        ASSERT_EQ(a.v.size(), 1u);
        const LinuxTcpSender& s = n.stacks[0]->GetSender(0);
        const Time srtt = TimeStep(s.GetSrttNs());
        // The probe is scheduled when the ACK of the 8th segment arrives (two packets out),
        // within 10 us of the start on this star (10 segments at 400G plus one RTT).
        const Time pto = srtt * 2 + MilliSeconds(2);
        const Time tick = jiffies ? MilliSeconds(1) : Time(0);
        EXPECT_GE(probe, pto) << "jiffies " << jiffies;
        EXPECT_LE(probe, pto + tick + MicroSeconds(10)) << "jiffies " << jiffies;
        // The probe's SACK marks the 9th lost at once: repaired within two more round trips.
        EXPECT_LE(a.v[0].second - probe, srtt * 3) << "jiffies " << jiffies;
        EXPECT_EQ(s.GetStats().tlpProbes, 1u);
        EXPECT_EQ(s.GetStats().timeouts, 0u);
        EXPECT_EQ(s.GetStats().fastRetransmits, 1u) << "the probe's SACK starts recovery";
        EXPECT_GE(s.GetStats().rackLosses, 1u);
        Simulator::Destroy();
    }
}

// The loss probes reach the jobs through the transport's LossProbe trace source, not through
// CollectiveTransport: a LossProbeCounter on the TCP transport counts the one probe of a tail
// loss (the last two of ten segments dropped) and names its receiver; on an RDMA transport,
// which has no such trace source, it connects to nothing and stays at zero.
TEST_F(FabricTest, LossProbeCounterCountsTheTcpTransportsProbesAndNothingOnRdma)
{
    LinuxNet n = MakeLinuxNet(2);
    SeqDropper d;
    d.seqs = {Seg(8), Seg(9)};
    DropSeqs(n, 1, &d);
    LossProbeCounter counter;
    counter.Connect(n.tcp);
    EXPECT_EQ(counter.GetLastReceiver(), -1);
    Arrivals a;
    n.tcp->Send(0, 1, 10 * MSS, &a, 1);
    Simulator::Run();
    ASSERT_EQ(a.v.size(), 1u);
    EXPECT_EQ(counter.GetCount(), 1u);
    EXPECT_EQ(counter.GetLastReceiver(), 1);
    EXPECT_EQ(n.tcp->GetLossProbes(), 1u);
    counter.Disconnect();
    Simulator::Destroy();

    LossProbeCounter rdma;
    rdma.Connect(CreateObject<RdmaCollectiveTransport>());
    EXPECT_EQ(rdma.GetCount(), 0u);
    EXPECT_EQ(rdma.GetLastReceiver(), -1);
}

TEST_F(FabricTest, LinuxTcpTlpWithOnePacketOutWaitsForADelayedAck)
{
    LinuxNet n = MakeLinuxNet(2);
    SeqDropper d;
    d.seqs = {Seg(9)};
    DropSeqs(n, 1, &d);
    Arrivals a;
    n.tcp->Send(0, 1, 10 * MSS, &a, 1);
    Simulator::Run();
    ASSERT_EQ(a.v.size(), 1u);
    const LinuxTcpSender& s = n.stacks[0]->GetSender(0);
    // 2 SRTT + 200 ms, capped at the RTO (SRTT + 200 ms from the segment's send), in jiffies.
    EXPECT_GE(a.v[0].second, MilliSeconds(200));
    EXPECT_LE(a.v[0].second, MilliSeconds(202));
    EXPECT_EQ(s.GetStats().tlpProbes, 1u);
    EXPECT_EQ(s.GetStats().timeouts, 0u) << "the probe, not the RTO, repairs it";
    EXPECT_EQ(d.dropped, 1u);
}

TEST_F(FabricTest, LinuxTcpALostProbeFallsBackToTheRto)
{
    LinuxNet n = MakeLinuxNet(2);
    SeqDropper d;
    d.seqs = {Seg(9), Seg(9)}; // the last segment and its probe
    DropSeqs(n, 1, &d);
    Arrivals a;
    n.tcp->Send(0, 1, 10 * MSS, &a, 1);
    Simulator::Run();
    ASSERT_EQ(a.v.size(), 1u);
    const LinuxTcpSender& s = n.stacks[0]->GetSender(0);
    EXPECT_EQ(s.GetStats().tlpProbes, 1u);
    EXPECT_EQ(s.GetStats().timeouts, 1u);
    // The RTO restarts when the probe goes out (tcp_send_loss_probe re-arms it): 201 + 201 ms.
    EXPECT_GE(a.v[0].second, MilliSeconds(400));
    EXPECT_LE(a.v[0].second, MilliSeconds(404));
}

TEST_F(FabricTest, LinuxTcpWithoutTlpATailLossIsAnRto)
{
    LinuxTcpHelper h;
    h.SetStackAttribute("Tlp", BooleanValue(false));
    LinuxNet n = MakeLinuxNet(2, h);
    SeqDropper d;
    d.seqs = {Seg(9)};
    DropSeqs(n, 1, &d);
    Arrivals a;
    n.tcp->Send(0, 1, 10 * MSS, &a, 1);
    Simulator::Run();
    ASSERT_EQ(a.v.size(), 1u);
    const LinuxTcpSender& s = n.stacks[0]->GetSender(0);
    EXPECT_EQ(s.GetStats().tlpProbes, 0u);
    EXPECT_EQ(s.GetStats().timeouts, 1u);
    EXPECT_GE(a.v[0].second, MilliSeconds(200));
    EXPECT_LE(a.v[0].second, MilliSeconds(202));
}

TEST_F(FabricTest, LinuxTcpRackFindsALostRetransmissionWithoutAnRto)
{
    for (bool rack : {true, false})
    {
        LinuxTcpHelper h;
        h.SetStackAttribute("Rack", BooleanValue(rack));
        h.SetStackAttribute("Tlp", BooleanValue(false));
        LinuxNet n = MakeLinuxNet(2, h);
        SeqDropper d;
        d.seqs = {Seg(499), Seg(499)}; // a segment mid-flow and its first retransmission
        DropSeqs(n, 1, &d);
        Arrivals a;
        n.tcp->Send(0, 1, 2000ULL * MSS, &a, 1);
        Simulator::Run();
        ASSERT_EQ(a.v.size(), 1u);
        EXPECT_EQ(d.dropped, 2u);
        const LinuxTcpSenderStats& st = n.stacks[0]->GetSender(0).GetStats();
        if (rack)
        {
            EXPECT_EQ(st.timeouts, 0u);
            EXPECT_GE(st.lostRetransmits, 1u);
            EXPECT_LT(a.v[0].second, MilliSeconds(5));
        }
        else
        {
            EXPECT_EQ(st.timeouts, 1u) << "without RACK a lost retransmission needs the RTO";
            EXPECT_GE(a.v[0].second, MilliSeconds(200));
        }
        Simulator::Destroy();
    }
}

TEST_F(FabricTest, LinuxTcpGroAndInterruptsAckOncePerGroUnit)
{
    LinuxTcpHelper h;
    h.SetHostCosts(true);
    LinuxNet n = MakeLinuxNet(2, h);
    Arrivals a;
    const uint64_t bytes = 64ULL << 20;
    n.tcp->Send(0, 1, bytes, &a, 1);
    Simulator::Run();
    ASSERT_EQ(a.v.size(), 1u);
    const LinuxTcpStackCounters rx = n.stacks[1]->GetCounters();
    const LinuxTcpStackCounters tx = n.stacks[0]->GetCounters();
    // With TCP_NODELAY each 64 KiB send call leaves as 7 full segments and a short one: one
    // sending thread (a copy at 10.5 GiB/s) cannot keep a 400G NIC busy, so nothing coalesces.
    const uint64_t segs = tx.segmentsSent;
    EXPECT_EQ(tx.retransmits, 0u);
    EXPECT_GT(segs, bytes / MSS + (bytes / 65536) / 2);
    EXPECT_LE(segs, (bytes / 65536) * ((65536 + MSS - 1) / MSS));
    EXPECT_EQ(rx.rxFrames, segs);
    EXPECT_LT(rx.groUnits, segs / 3) << "GRO merges up to 64 KiB";
    EXPECT_LE(rx.acksSent, rx.groUnits + 20);
    EXPECT_GT(rx.interrupts, 0u);
    EXPECT_LT(rx.interrupts, segs);
    EXPECT_EQ(n.tcp->GetMessagesArrived(), 1u);
}

TEST_F(FabricTest, LinuxTcpNcclSocketsSplitMessagesIntoTasks)
{
    LinuxNet n = MakeLinuxNet(2);
    n.tcp->SetAttribute("SocketsPerThread", UintegerValue(2));
    n.tcp->SetAttribute("Threads", UintegerValue(2));
    Arrivals a;
    n.tcp->Send(0, 1, 1 << 20, &a, 1);    // 4 tasks of 256 KiB, sockets 0-3
    n.tcp->Send(0, 1, 100 * 1024, &a, 2); // 64 KiB + 36 KiB, sockets 0-1
    Simulator::Run();
    ASSERT_EQ(a.v.size(), 2u);
    EXPECT_EQ(n.tcp->GetNSockets(), 4u);
    ASSERT_EQ(n.stacks[0]->GetNSenders(), 4u);
    // Each socket is one byte stream: its tasks are segmented together.
    const uint64_t t256 = (256 * 1024 + MSS - 1) / MSS;
    EXPECT_EQ(n.stacks[0]->GetSender(0).GetStats().segmentsSent,
              (256 * 1024 + 65536 + MSS - 1) / MSS);
    EXPECT_EQ(n.stacks[0]->GetSender(1).GetStats().segmentsSent,
              (256 * 1024 + 36 * 1024 + MSS - 1) / MSS);
    EXPECT_EQ(n.stacks[0]->GetSender(2).GetStats().segmentsSent, t256);
    EXPECT_EQ(n.stacks[0]->GetSender(3).GetStats().segmentsSent, t256);
}

TEST_F(FabricTest, LinuxTcpReceiveWindowBoundsAFlowToWindowOverRtt)
{
    // 2 km cables (10 us each way per cable: a 40 us round trip through the switch), where the
    // 400G bandwidth-delay product is 2 MB: a 512 KiB socket buffer (and so receive window)
    // holds the flow at W / RTT; the default 4 MiB is not window-bound (it averages 315 Gb/s
    // over 256 MiB, not the line: HyStart leaves slow start early at this RTT and CUBIC's Reno
    // -friendly growth adds a segment per round trip; with HyStart off it averages 384 Gb/s).
    std::map<uint32_t, double> gbps;
    std::map<uint32_t, double> bound;
    for (uint32_t buffer : {512u * 1024, 4u << 20})
    {
        LinuxTcpHelper h;
        h.SetStackAttribute("BufferBytes", UintegerValue(buffer));
        Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
        star->SetAttribute("Servers", UintegerValue(2));
        star->SetAttribute("GpusPerServer", UintegerValue(1));
        star->SetAttribute("HostCableLength", DoubleValue(2000));
        star->GetLinkHelper().SetFlowControlAttribute("EnabledPriorities", UintegerValue(0));
        LinuxNet n;
        n.topo = star->Build();
        n.stacks = h.Install(n.topo);
        n.tcp = CreateObject<LinuxTcpCollectiveTransport>();
        n.tcp->SetRanks(n.topo->GetHosts());
        Arrivals a;
        const uint64_t bytes = 256ULL << 20;
        n.tcp->Send(0, 1, bytes, &a, 1);
        Simulator::Run();
        ASSERT_EQ(a.v.size(), 1u);
        gbps[buffer] = double(bytes) * 8 / a.v[0].second.GetSeconds() / 1e9;
        const double rtt = n.stacks[0]->GetSender(0).GetSrttNs() * 1e-9;
        bound[buffer] = double(buffer) * 8 / rtt / 1e9;
        EXPECT_EQ(n.tcp->GetCounters().retransmits, 0u);
        Simulator::Destroy();
    }
    const double line = 400.0 * 8948 / 9042;
    std::printf("512 KiB window: %.1f Gb/s (W/SRTT %.1f); 4 MiB: %.1f Gb/s (line %.1f)\n",
                gbps[512 * 1024],
                bound[512 * 1024],
                gbps[4 << 20],
                line);
    EXPECT_NEAR(gbps[512 * 1024] / bound[512 * 1024], 1.0, 0.1);
    EXPECT_LT(gbps[512 * 1024], 0.4 * line);
    EXPECT_GT(gbps[4 << 20], 2.5 * gbps[512 * 1024]);
    EXPECT_LE(gbps[4 << 20], line);
}

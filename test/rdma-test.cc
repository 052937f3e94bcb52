// SPDX-License-Identifier: GPL-2.0-only
// The RoCEv2 NIC: completion time, DCQCN fairness, incast, loss recovery, timeouts, pcap.
#include "process-util.h"
#include "test-util.h"

#include <cmath>
#include <cstdio>
#include <functional>

using namespace ns3;

namespace
{

// Wire bytes of RoCEv2 packets: IPv4 20 + UDP 8 + BTH 12 (+ RETH 16) + payload + ICRC 4,
// + Ethernet 14 + 802.1Q 4 + FCS 4 + preamble/IFG 20.
constexpr uint32_t kRoceOverhead = 20 + 8 + 12 + 4 + 22 + 20;
constexpr uint32_t kReth = 16;
constexpr uint32_t kAckWire = 20 + 8 + 12 + 4 + 4 + 22 + 20;

double
Jain(const std::vector<double>& x)
{
    double s = 0;
    double s2 = 0;
    for (double v : x)
    {
        s += v;
        s2 += v * v;
    }
    return s * s / (x.size() * s2);
}

} // namespace

TEST_F(FabricTest, OneMegabyteWriteCompletesInAnalyticTime)
{
    RdmaHelper rdma;
    TwoHosts h(rdma);
    Completions req;
    Completions resp;
    h.qa->SetCompletionCallback(req.Cb());
    h.qb->SetReceiveCallback(resp.Cb());
    const uint64_t bytes = 1 << 20;
    h.qa->PostWrite(bytes);
    Simulator::Run();
    ASSERT_EQ(req.v.size(), 1u);
    ASSERT_EQ(resp.v.size(), 1u);
    EXPECT_EQ(req.v[0].status, RdmaCompletion::SUCCESS);
    EXPECT_EQ(resp.v[0].bytes, bytes);
    // 256 packets of 4096 B; the first carries a RETH.
    const double wire = (4096.0 + kRoceOverhead) * 256 + kReth;
    const double ser = wire * 8 / 400e9;
    const double prop = 15e-9;
    const double nicTx = 300e-9;
    const double nicRx = 300e-9;
    const double pcie = 250e-9;
    const double lastArrival = nicTx + pcie + ser + prop + nicRx;
    const double ackBack = kAckWire * 8 / 400e9 + prop + nicRx;
    EXPECT_NEAR(req.v[0].completed.GetSeconds() / (lastArrival + ackBack), 1.0, 0.01);
    EXPECT_NEAR(resp.v[0].completed.GetSeconds() / (lastArrival + pcie), 1.0, 0.01);
    // And to within two nanoseconds of rounding, not just 1%.
    EXPECT_NEAR(req.v[0].completed.GetSeconds(), lastArrival + ackBack, 3e-9);
    EXPECT_EQ(h.qa->GetStats().dataPackets, 256u);
    EXPECT_EQ(h.qa->GetStats().retransmittedPackets, 0u);
}

TEST_F(FabricTest, WithoutGpuDirectTheBounceCopiesAddUp)
{
    RdmaHelper rdma;
    rdma.SetNicAttribute("GpuDirect", BooleanValue(false));
    TwoHosts h(rdma);
    Completions req;
    h.qa->SetCompletionCallback(req.Cb());
    const uint64_t bytes = 1 << 20;
    h.qa->PostWrite(bytes);
    Simulator::Run();
    ASSERT_EQ(req.v.size(), 1u);
    const double wire = (4096.0 + kRoceOverhead) * 256 + kReth;
    const double copy = 250e-9 + bytes * 8 / 504e9; // host bounce: latency + bytes / PCIe
    const double expected = 300e-9 + 250e-9 + copy + wire * 8 / 400e9 + 15e-9 + 300e-9 +
                            kAckWire * 8 / 400e9 + 15e-9 + 300e-9;
    EXPECT_NEAR(req.v[0].completed.GetSeconds(), expected, 3e-9);
}

TEST_F(FabricTest, DcqcnConvergesToFairShare)
{
    Ptr<StarTopologyHelper> star;
    Ptr<FabricTopology> topo = BuildStar(3, &star);
    topo->AssignStreams(1);
    // The SIGCOMM'15 configuration: paper reaction-point parameters, one CNP per 50 us per QP.
    RdmaHelper rdma;
    rdma.SetCongestionControlAttribute("Preset", StringValue("paper"));
    rdma.SetNicAttribute("CnpInterval", TimeValue(MicroSeconds(50)));
    rdma.Install(topo);
    auto f1 = RdmaHelper::Connect(topo->GetHostNode(1), topo->GetHostNode(0));
    auto f2 = RdmaHelper::Connect(topo->GetHostNode(2), topo->GetHostNode(0));
    f1.first->PostWrite(400ULL << 20);
    Simulator::Schedule(MicroSeconds(200), [&] { f2.first->PostWrite(400ULL << 20); });
    uint32_t maxQueueLate = 0;
    Ptr<FabricNetDevice> bottleneck = topo->GetSwitch(0)->GetPort(0);
    bottleneck->TraceConnectWithoutContext("QueueLength",
                                           MakeCallback(+[](uint32_t* m, uint8_t p, uint32_t b) {
                                               if (p == 3 && Simulator::Now() > MilliSeconds(3))
                                               {
                                                   *m = std::max(*m, b);
                                               }
                                           }).Bind(&maxQueueLate));
    // Sample delivered bytes of each flow between 3 ms and 6 ms (after convergence).
    uint64_t b1 = 0;
    uint64_t b2 = 0;
    Simulator::Schedule(MilliSeconds(3), [&] {
        b1 = f1.second->GetStats().bytesReceived;
        b2 = f2.second->GetStats().bytesReceived;
    });
    double r1 = 0;
    double r2 = 0;
    Simulator::Schedule(MilliSeconds(6), [&] {
        r1 = double(f1.second->GetStats().bytesReceived - b1) * 8 / 3e-3;
        r2 = double(f2.second->GetStats().bytesReceived - b2) * 8 / 3e-3;
        Simulator::Stop();
    });
    Simulator::Run();
    const double jain = Jain({r1, r2});
    EXPECT_GE(jain, 0.95) << "rates " << r1 / 1e9 << " and " << r2 / 1e9 << " Gb/s";
    EXPECT_GT((r1 + r2) / 1e9, 0.9 * 400 * 4096 / (4096 + kRoceOverhead)) << "bottleneck used";
    EXPECT_GT(f1.first->GetStats().cnpsReceived + f2.first->GetStats().cnpsReceived, 0u);
    // The queue stays bounded near the marking band: it reaches Kmin (150 KB) and never Kmax.
    EXPECT_GT(maxQueueLate, 150000u);
    EXPECT_LT(maxQueueLate, 1500000u);
    EXPECT_LT(f1.first->GetRate().GetBitRate(), 400e9);
}

TEST_F(FabricTest, IncastWithDcqcnAndPfcIsLosslessAndCompletes)
{
    Ptr<StarTopologyHelper> star;
    Ptr<FabricTopology> topo = BuildStar(17, &star);
    topo->AssignStreams(1);
    RdmaHelper rdma;
    rdma.SetCongestionControlAttribute("Preset", StringValue("paper"));
    rdma.SetNicAttribute("CnpInterval", TimeValue(MicroSeconds(50)));
    rdma.Install(topo);
    DropCounter drops;
    drops.ConnectAll();
    Completions done;
    const std::vector<Ptr<RdmaQueuePair>> senders = PostIncast(topo, 16, 4 << 20, done);
    Simulator::Run();
    EXPECT_EQ(drops.Total(), 0u);
    ASSERT_EQ(done.v.size(), 16u);
    for (const auto& c : done.v)
    {
        EXPECT_EQ(c.status, RdmaCompletion::SUCCESS);
    }
    uint64_t cnps = 0;
    for (auto& qp : senders)
    {
        cnps += qp->GetStats().cnpsReceived;
        EXPECT_EQ(qp->GetStats().retransmittedPackets, 0u);
    }
    EXPECT_GT(cnps, 0u);
    EXPECT_EQ(topo->GetHostNode(0)->GetObject<RdmaNic>()->GetCounters().cnpsSent, cnps);
    uint64_t pauses = 0;
    for (uint16_t p = 0; p < topo->GetSwitch(0)->GetNPorts(); ++p)
    {
        pauses += topo->GetSwitch(0)->GetPort(p)->GetCounters().pfcFramesTx;
    }
    EXPECT_GT(pauses, 0u) << "the initial burst is absorbed by PFC";
}

TEST_F(FabricTest, DcqcnReactionPointArithmetic)
{
    // Drive one RdmaDcqcn by hand on a queue pair of a 400G NIC (paper preset: g = 1/256,
    // F = 5, 55 us timers).
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    TwoHosts h(rdma);
    Ptr<RdmaDcqcn> dcqcn = CreateObject<RdmaDcqcn>();
    dcqcn->SetAttribute("Preset", StringValue("paper"));
    dcqcn->Init(h.qa);
    h.qa->PostWrite(1ULL << 30); // keep the queue pair busy: DCQCN timers stop when it idles
    const double line = 400e9;
    EXPECT_EQ(h.qa->GetRate().GetBitRate(), line);
    const double g = 1.0 / 256;
    dcqcn->CnpReceived(h.qa);
    // alpha starts at 1: Rc = Rc (1 - 1/2), Rt = old Rc.
    EXPECT_NEAR(h.qa->GetRate().GetBitRate(), line / 2, 1);
    EXPECT_NEAR(dcqcn->GetTargetRate().GetBitRate(), line, 1);
    std::vector<std::pair<double, double>> at; // (rate, alpha) sampled after each 55 us period
    for (int t : {56, 113, 168})
    {
        Simulator::Schedule(MicroSeconds(t), [&] {
            at.emplace_back(double(h.qa->GetRate().GetBitRate()), dcqcn->GetAlpha());
        });
    }
    // A second CNP just after the first period.
    Simulator::Schedule(MicroSeconds(57), [&] { dcqcn->CnpReceived(h.qa); });
    Simulator::Stop(MicroSeconds(170));
    Simulator::Run();
    ASSERT_EQ(at.size(), 3u);
    // 55 us: T = 1 < F = 5, fast recovery Rc = (Rt + Rc)/2 = 300G; a CNP in the period keeps
    // alpha = (1 - g) + g = 1.
    EXPECT_NEAR(at[0].first, 0.75 * line, 2);
    EXPECT_DOUBLE_EQ(at[0].second, 1.0);
    // 57 us: cut by alpha/2 = 1/2 -> 150G, Rt = 300G, and the increase timer restarts;
    // 110 us: alpha = 1 (CNP in the period); 112 us: fast recovery -> 225G.
    EXPECT_NEAR(at[1].first, 0.5625 * line, 2);
    EXPECT_DOUBLE_EQ(at[1].second, 1.0);
    // 165 us: no CNP in the period: alpha = 1 - g; 167 us: Rc = (300 + 225)/2 = 262.5G.
    EXPECT_NEAR(at[2].first, 0.65625 * line, 2);
    EXPECT_DOUBLE_EQ(at[2].second, 1.0 - g);
    dcqcn->Stop();
    // Presets resolve as documented.
    Ptr<RdmaDcqcn> nv = CreateObject<RdmaDcqcn>();
    nv->SetAttribute("Preset", StringValue("nvidia"));
    RdmaDcqcn::Params p = nv->GetParams();
    EXPECT_EQ(p.increaseTimer, MicroSeconds(300));
    EXPECT_EQ(p.byteCounter, 32767u);
    EXPECT_EQ(p.rai.GetBitRate(), 5000000u);
    EXPECT_EQ(p.reduceMonitor, MicroSeconds(4));
    nv->SetAttribute("RateAI", DataRateValue(DataRate("20Mbps")));
    EXPECT_EQ(nv->GetParams().rai.GetBitRate(), 20000000u) << "explicit values override presets";
    // The production preset (the HPCC simulator's vendor values): NVIDIA's timers, g = 1/256,
    // F = 1, no byte counter, 100 Mb/s floor, increase steps 5 / 50 Mb/s x line rate / 25G.
    Ptr<RdmaDcqcn> pr = CreateObject<RdmaDcqcn>();
    pr->SetAttribute("Preset", StringValue("production"));
    p = pr->GetParams(DataRate("400Gbps"));
    EXPECT_DOUBLE_EQ(p.g, 1.0 / 256);
    EXPECT_EQ(p.alphaPeriod, MicroSeconds(1));
    EXPECT_EQ(p.reduceMonitor, MicroSeconds(4));
    EXPECT_EQ(p.increaseTimer, MicroSeconds(300));
    EXPECT_EQ(p.byteCounter, RdmaDcqcn::kNoByteCounter);
    EXPECT_EQ(p.fastRecoverySteps, 1u);
    EXPECT_EQ(p.rai.GetBitRate(), 80000000u);
    EXPECT_EQ(p.rhai.GetBitRate(), 800000000u);
    EXPECT_EQ(p.minRate.GetBitRate(), 100000000u);
    EXPECT_EQ(pr->GetParams(DataRate("25Gbps")).rai.GetBitRate(), 5000000u);
    // On the queue pair: a CNP halves the rate (alpha 1); 300 us on, F = 1 means no fast
    // recovery: the target grows by RateAI (capped at the line) and Rc = (Rt + Rc) / 2.
    pr->Init(h.qa);
    h.qa->SetRate(DataRate("400Gbps"));
    pr->CnpReceived(h.qa);
    EXPECT_NEAR(h.qa->GetRate().GetBitRate(), line / 2, 1);
    double after = 0;
    Simulator::Schedule(MicroSeconds(301), [&] { after = double(h.qa->GetRate().GetBitRate()); });
    Simulator::Stop(MicroSeconds(302));
    Simulator::Run();
    EXPECT_NEAR(after, 0.75 * line, 2);
    pr->Stop();
}

// The production preset keeps the target rate through one congestion episode (the HPCC
// simulator's CLAMP_TARGET_RATE 0): cuts with no increase in between leave it; a cut after an
// increase sets it to the current rate. The paper preset clamps on every cut.
TEST_F(FabricTest, ProductionDcqcnClampsItsTargetOnlyAfterAnIncrease)
{
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    TwoHosts h(rdma);
    Ptr<RdmaDcqcn> pr = CreateObject<RdmaDcqcn>();
    pr->SetAttribute("Preset", StringValue("production"));
    pr->Init(h.qa);
    h.qa->PostWrite(1ULL << 30);
    const uint64_t line = 400000000000ULL;
    pr->CnpReceived(h.qa); // alpha 1: 200G, the target stays at the line rate
    EXPECT_EQ(h.qa->GetRate().GetBitRate(), line / 2);
    EXPECT_EQ(pr->GetTargetRate().GetBitRate(), line);
    uint64_t rate5 = 0;
    uint64_t target5 = 0;
    uint64_t before306 = 0;
    uint64_t target306 = 0;
    // 5 us: past the 4 us decrease monitor, no increase since: the rate is cut again, the
    // target stays.
    Simulator::Schedule(MicroSeconds(5), [&] {
        pr->CnpReceived(h.qa);
        rate5 = h.qa->GetRate().GetBitRate();
        target5 = pr->GetTargetRate().GetBitRate();
    });
    // 305 us: the increase timer (restarted at 5 us) moves the rate; 306 us: a cut after that
    // increase takes the target to the rate it cuts from.
    Simulator::Schedule(MicroSeconds(306), [&] {
        before306 = h.qa->GetRate().GetBitRate();
        pr->CnpReceived(h.qa);
        target306 = pr->GetTargetRate().GetBitRate();
    });
    Simulator::Stop(MicroSeconds(307));
    Simulator::Run();
    EXPECT_LT(rate5, line / 2);
    EXPECT_EQ(target5, line);
    EXPECT_GT(before306, rate5);
    EXPECT_EQ(target306, before306);
    pr->Stop();
    // The paper preset clamps on every cut.
    Ptr<RdmaDcqcn> paper = CreateObject<RdmaDcqcn>();
    EXPECT_TRUE(paper->GetParams().clampTargetAlways);
    EXPECT_FALSE(pr->GetParams().clampTargetAlways);
    paper->SetAttribute("ClampTargetRate", UintegerValue(2));
    EXPECT_FALSE(paper->GetParams().clampTargetAlways) << "explicit values override presets";
}

class LossyRecoveryTest : public FabricTest
{
  protected:
    /// 64 MiB WRITE through a switch with PFC off and 1e-3 random loss on the last link.
    RdmaQueuePair::Stats Run(const std::string& recovery, bool& completed)
    {
        Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
        star->SetAttribute("Servers", UintegerValue(2));
        star->SetAttribute("GpusPerServer", UintegerValue(1));
        star->GetLinkHelper().SetFlowControlAttribute("EnabledPriorities", UintegerValue(0));
        Ptr<FabricTopology> topo = star->Build();
        topo->GetHostDevice(1)->SetAttribute("ReceiveErrorRate", DoubleValue(1e-3));
        topo->AssignStreams(11);
        RdmaHelper rdma;
        rdma.SetLossRecovery(recovery);
        rdma.SetCongestionControl("ns3::RdmaNoCc");
        rdma.SetNicAttribute("RetransmitTimeout", TimeValue(MicroSeconds(100)));
        rdma.Install(topo);
        auto qp = RdmaHelper::Connect(topo->GetHostNode(0), topo->GetHostNode(1));
        Completions done;
        qp.first->SetCompletionCallback(done.Cb());
        for (int i = 0; i < 16; ++i)
        {
            qp.first->PostWrite(4 << 20);
        }
        Simulator::Run();
        completed = done.v.size() == 16 && std::all_of(done.v.begin(), done.v.end(), [](auto& c) {
                        return c.status == RdmaCompletion::SUCCESS;
                    });
        EXPECT_EQ(qp.second->GetStats().bytesReceived, 64ULL << 20);
        RdmaQueuePair::Stats s = qp.first->GetStats();
        Simulator::Destroy();
        return s;
    }
};

TEST_F(LossyRecoveryTest, BothRecoveriesCompleteAndSelectiveRepeatResendsLess)
{
    bool gbnDone = false;
    bool srDone = false;
    RdmaQueuePair::Stats gbn = Run("ns3::RdmaGoBackN", gbnDone);
    RdmaQueuePair::Stats sr = Run("ns3::RdmaSelectiveRepeat", srDone);
    EXPECT_TRUE(gbnDone);
    EXPECT_TRUE(srDone);
    // 16,384 packets at 1e-3: about 16 losses.
    EXPECT_GT(gbn.retransmittedPackets, 0u);
    EXPECT_GT(sr.retransmittedPackets, 0u);
    EXPECT_LT(sr.retransmittedPackets, gbn.retransmittedPackets);
    EXPECT_LT(sr.retransmittedPackets, 60u);
    EXPECT_GT(gbn.nacksReceived, 0u);
}

TEST_F(FabricTest, TailLossIsRecoveredByTheTimeout)
{
    for (const char* recovery : {"ns3::RdmaGoBackN", "ns3::RdmaSelectiveRepeat"})
    {
        RdmaHelper rdma;
        rdma.SetLossRecovery(recovery);
        rdma.SetNicAttribute("RetransmitTimeout", TimeValue(MicroSeconds(50)));
        TwoHosts h(rdma);
        // Lose the first transmission of the last packet (PSN 255 of a 1 MiB WRITE).
        bool dropped = false;
        DropFirstRoceDataPsn(h.db, 255, &dropped);
        Completions req;
        h.qa->SetCompletionCallback(req.Cb());
        h.qa->PostWrite(1 << 20);
        Simulator::Run();
        EXPECT_TRUE(dropped);
        ASSERT_EQ(req.v.size(), 1u) << recovery;
        EXPECT_EQ(req.v[0].status, RdmaCompletion::SUCCESS);
        EXPECT_EQ(h.qa->GetStats().timeouts, 1u);
        EXPECT_EQ(h.qa->GetStats().retransmittedPackets, 1u) << "only the lost tail is resent";
        EXPECT_GE(req.v[0].completed, MicroSeconds(50));
        EXPECT_EQ(h.qb->GetStats().bytesReceived, 1u << 20);
        Simulator::Destroy();
    }
}

TEST_F(FabricTest, RetryExhaustionPutsTheQueuePairInErrorAndTheRunEnds)
{
    RdmaHelper rdma;
    rdma.SetNicAttribute("RetransmitTimeout", TimeValue(MicroSeconds(20)));
    rdma.SetNicAttribute("RetryCount", UintegerValue(3));
    TwoHosts h(rdma);
    Completions req;
    h.qa->SetCompletionCallback(req.Cb());
    std::vector<uint32_t> errors;
    h.a->GetObject<RdmaNic>()->TraceConnectWithoutContext(
        "QpError",
        MakeCallback(+[](std::vector<uint32_t>* e, uint32_t qpn) {
            e->push_back(qpn);
        }).Bind(&errors));
    h.qa->PostWrite(1 << 20);
    h.qa->PostWrite(1 << 20);
    Simulator::Schedule(MicroSeconds(5), &FabricNetDevice::SetLinkUp, h.db, false); // cut forever
    Simulator::Run(); // returns by itself: no timer is left behind
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0], h.qa->GetQpn());
    EXPECT_TRUE(h.qa->IsError());
    ASSERT_EQ(req.v.size(), 2u);
    EXPECT_EQ(req.v[0].status, RdmaCompletion::RETRY_EXCEEDED);
    EXPECT_EQ(h.qa->GetStats().timeouts, 3u);
    // Error after the 4th expiry: 4 x 20 us after the last ACK progress (< 25 us).
    EXPECT_GE(Simulator::Now(), MicroSeconds(80));
    EXPECT_LE(Simulator::Now(), MicroSeconds(110));
}

TEST_F(FabricTest, WeightedRoundRobinSharesTheWire)
{
    Ptr<FabricTopology> topo = BuildStar(3);
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    rdma.Install(topo);
    auto q1 = RdmaHelper::Connect(topo->GetHostNode(0), topo->GetHostNode(1));
    auto q2 = RdmaHelper::Connect(topo->GetHostNode(0), topo->GetHostNode(2));
    q2.first->SetWeight(3);
    q1.first->PostWrite(64 << 20);
    q2.first->PostWrite(64 << 20);
    Simulator::Stop(MicroSeconds(500));
    Simulator::Run();
    const double b1 = double(q1.second->GetStats().bytesReceived);
    const double b2 = double(q2.second->GetStats().bytesReceived);
    EXPECT_NEAR(b2 / (b1 + b2), 0.75, 0.01);
}

TEST_F(FabricTest, SameSeedSameRdmaTrace)
{
    auto run = [](uint32_t seed) {
        RngSeedManager::SetSeed(seed);
        Ptr<FabricTopology> topo = BuildStar(9);
        topo->AssignStreams(0);
        RdmaHelper rdma;
        rdma.Install(topo);
        std::vector<int64_t> trace;
        Completions done;
        for (const auto& qp : PostIncast(topo, 8, 2 << 20, done))
        {
            qp->TraceConnectWithoutContext(
                "Rate",
                MakeCallback(+[](std::vector<int64_t>* t, uint64_t, uint64_t v) {
                    t->push_back(Simulator::Now().GetTimeStep());
                    t->push_back(int64_t(v));
                }).Bind(&trace));
        }
        Simulator::Run();
        for (auto& c : done.v)
        {
            trace.push_back(c.completed.GetTimeStep());
        }
        Simulator::Destroy();
        return trace;
    };
    auto a = run(3);
    auto b = run(3);
    EXPECT_GT(a.size(), 8u);
    EXPECT_EQ(a, b);
    // The seed drives the switch's probabilistic ECN marking, hence the CNPs and DCQCN's rates.
    EXPECT_NE(run(4), a);
}

TEST_F(FabricTest, RocePcapDecodesAsInfinibandBth)
{
    if (std::system("command -v tshark >/dev/null 2>&1") != 0)
    {
        GTEST_SKIP() << "tshark not installed";
    }
    const std::string file = ::testing::TempDir() + "aif-roce.pcap";
    uint32_t qpn = 0;
    {
        // In a scope: the pcap file is flushed when the devices go away.
        RdmaHelper rdma;
        rdma.SetNicAttribute("AckInterval", TimeValue(Time(0)));
        TwoHosts h(rdma);
        FabricLinkHelper link;
        link.EnablePcap(file, h.db, false, true);
        h.qa->PostWrite(3 * 4096);
        qpn = h.qb->GetQpn();
        Simulator::Run();
        Simulator::Destroy();
    }
    const std::string cmd = "tshark -r " + file +
                            " -T fields -e infiniband.bth.opcode -e infiniband.bth.psn "
                            "-e infiniband.bth.destqp";
    const std::vector<std::string> lines = CommandLines(cmd);
    // Received at the responder: WRITE FIRST/MIDDLE/LAST (6, 7, 8) with PSN 0, 1, 2; sent by it:
    // ACKs (17).
    std::vector<std::string> data;
    int acks = 0;
    for (auto& l : lines)
    {
        if (l.rfind("17\t", 0) == 0)
        {
            ++acks;
        }
        else
        {
            data.push_back(l);
        }
    }
    ASSERT_EQ(data.size(), 3u) << "tshark output lines: " << lines.size();
    char qp[16];
    std::snprintf(qp, sizeof(qp), "0x%06x", qpn);
    EXPECT_EQ(data[0], "6\t0\t" + std::string(qp) + "\n");
    EXPECT_EQ(data[1], "7\t1\t" + std::string(qp) + "\n");
    EXPECT_EQ(data[2], "8\t2\t" + std::string(qp) + "\n");
    EXPECT_EQ(acks, 3);
}

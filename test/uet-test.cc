// SPDX-License-Identifier: GPL-2.0-only
// Ultra Ethernet transport: NSCC's control law case by case (hand-computed), REPS and Bitmap
// feedback, trimming (NACK and one resend, no timeout), single-flow goodput, a 32 -> 1 incast
// with and without trimming, and a ring AllReduce against the alpha-beta model.
#include "process-util.h"
#include "test-util.h"

#include "ns3/uet-bitmap-lb.h"
#include "ns3/uet-collective-transport.h"
#include "ns3/uet-header-sizes.h"
#include "ns3/uet-helper.h"
#include "ns3/uet-nscc.h"
#include "ns3/uet-reps.h"

#include <cmath>
#include <nlohmann/json.hpp>

using namespace ns3;

namespace
{

// 400 Gb/s, network RTT 10 us, MSS 4096, trimming: BDP 500,000 B; a = 500,000 / 150,000;
// target 7.5 us; b = 7.5 / 12; alpha = 4 x 4096 x a x b / 7.5 us; fair 5 x 4096 x a;
// eta 0.15 x 4096 x a; max window 1.5 BDP = 750,000 B.
constexpr double kA = 500000.0 / 150000.0;
constexpr double kTarget = 7.5e-6;
constexpr double kAlpha = 4 * 4096 * kA * (7.5 / 12.0) / kTarget;
constexpr double kFair = 5 * 4096 * kA;
constexpr double kEta = 0.15 * 4096 * kA;

struct Nscc
{
    Ptr<UetNscc> cc = CreateObject<UetNscc>();
    UetCcState s;

    Nscc()
    {
        s.mss = 4096;
        s.lineRate = DataRate("400Gbps");
        s.networkRtt = MicroSeconds(10);
        s.baseRtt = MicroSeconds(10);
        s.trimming = true;
        cc->Init(s);
    }

    void Ack(uint64_t bytes, Time delay, bool ecn)
    {
        UetAckSample a;
        a.newlyAckedBytes = bytes;
        a.rtt = s.baseRtt + delay;
        a.ecn = ecn;
        cc->AckReceived(s, a);
    }
};

} // namespace

TEST_F(FabricTest, NsccConstantsScaleWithTheBdp)
{
    Nscc n;
    EXPECT_EQ(n.s.maxCwnd, 750000u);
    EXPECT_EQ(n.s.cwnd, 750000u);
    EXPECT_EQ(n.s.minCwnd, 4096u);
    EXPECT_NEAR(n.cc->GetScalingA(), kA, 1e-9);
    EXPECT_NEAR(n.cc->GetTargetDelay().GetSeconds(), kTarget, 1e-12);
    EXPECT_NEAR(n.cc->GetAlpha() / kAlpha, 1.0, 1e-9);
    EXPECT_NEAR(n.cc->GetFairIncrease(), kFair, 1e-6);
    EXPECT_NEAR(n.cc->GetEta(), kEta, 1e-6);
}

TEST_F(FabricTest, NsccFairIncreaseAboveTargetThenFulfil)
{
    Nscc n;
    n.s.cwnd = 200000;
    n.Ack(4096, MicroSeconds(8), false); // 8 us >= 7.5 us, no ECN: fair increase, pending
    EXPECT_EQ(n.s.cwnd, 200000u);
    EXPECT_NEAR(n.cc->GetPendingIncrease(), kFair * 4096, 1);
    // 8 more MTU acked: the pending increase is applied, cwnd += pending / cwnd
    n.Ack(8 * 4096, MicroSeconds(8), false);
    const double pending = kFair * 4096 * 9;
    EXPECT_NEAR(double(n.s.cwnd), 200000 + pending / 200000, 1.0);
    EXPECT_EQ(n.cc->GetPendingIncrease(), 0.0);
}

TEST_F(FabricTest, NsccProportionalIncreaseBelowTarget)
{
    Nscc n;
    n.s.cwnd = 200000;
    n.Ack(4096, MicroSeconds(2), false); // 2 us: above the fast-increase delay (1 us)
    EXPECT_EQ(n.s.cwnd, 200000u);
    EXPECT_NEAR(n.cc->GetPendingIncrease() / (kAlpha * 4096 * (kTarget - 2e-6)), 1.0, 1e-6);
}

TEST_F(FabricTest, NsccFastIncreaseAfterAWindowOfNearZeroDelay)
{
    Nscc n;
    n.s.cwnd = 20000;
    for (int i = 0; i < 4; ++i)
    {
        n.Ack(4096, NanoSeconds(500), false); // 16,384 B < cwnd: still proportional
        EXPECT_EQ(n.s.cwnd, 20000u);
    }
    n.Ack(4096, NanoSeconds(500), false); // 20,480 B > cwnd: fast, cwnd += 0.25 a x acked
    EXPECT_NEAR(double(n.s.cwnd), 20000 + 4096 * 0.25 * kA, 1.0);
}

TEST_F(FabricTest, NsccMultiplicativeDecreaseOncePerBaseRtt)
{
    Nscc n;
    n.s.cwnd = 200000;
    // One sample of 1000 us: average 0.0125 x 1000 = 12.5 us > target: cwnd x (1 - 0.8 x
    // (12.5 - 7.5) / 12.5) = x 0.68
    n.Ack(4096, MicroSeconds(1000), true);
    EXPECT_NEAR(double(n.s.cwnd), 200000 * 0.68, 1.0);
    const uint64_t after = n.s.cwnd;
    n.Ack(4096, MicroSeconds(1000), true); // within the same base RTT: no second decrease
    EXPECT_EQ(n.s.cwnd, after);
}

TEST_F(FabricTest, NsccEcnBelowTargetLeavesTheWindow)
{
    Nscc n;
    n.s.cwnd = 200000;
    n.Ack(4096, MicroSeconds(2), true);
    EXPECT_EQ(n.s.cwnd, 200000u);
    EXPECT_EQ(n.cc->GetPendingIncrease(), 0.0);
}

TEST_F(FabricTest, NsccTakesTheReceiversBackPressureOffTheWindow)
{
    // UEC 1.0's ACK_CC back-pressure p in 0..127: newly acknowledged x p / 128 comes off the
    // window before NSCC's own case (here ECN below the target: no change of its own).
    Nscc n;
    n.s.cwnd = 200000;
    UetAckSample a;
    a.newlyAckedBytes = 16384;
    a.rtt = n.s.baseRtt + MicroSeconds(2);
    a.ecn = true;
    a.receiverPressure = 64;
    n.cc->AckReceived(n.s, a);
    EXPECT_EQ(n.s.cwnd, 200000u - 16384 * 64 / 128);
    a.receiverPressure = 127;
    n.cc->AckReceived(n.s, a);
    EXPECT_EQ(n.s.cwnd, 200000u - 8192 - 16384 * 127 / 128);
    // never below one packet
    n.s.cwnd = n.s.minCwnd + 100;
    n.cc->AckReceived(n.s, a);
    EXPECT_EQ(n.s.cwnd, n.s.minCwnd);
}

TEST_F(FabricTest, NsccQuickAdaptAfterATrimSetsTheWindowToWhatWasDelivered)
{
    Nscc n;
    n.s.cwnd = 400000;
    // t = 1 us: the first quick-adapt period starts (ends at 1 + 10 + 7.5 = 18.5 us)
    Simulator::Schedule(MicroSeconds(1), [&n]() { n.Ack(4096, MicroSeconds(8), false); });
    // t = 5 us: a trim; inside the period: the NACK only takes its bytes off
    Simulator::Schedule(MicroSeconds(5), [&n]() {
        n.cc->NackReceived(n.s, 4096, false);
        EXPECT_EQ(n.s.cwnd, 400000u - 4096);
    });
    // t = 20 us: the period is over, 8,192 B delivered < 750,000 >> 3: cwnd = 8,192
    Simulator::Schedule(MicroSeconds(20), [&n]() {
        n.Ack(8192, MicroSeconds(8), false);
        EXPECT_EQ(n.s.cwnd, 8192u);
        EXPECT_EQ(n.cc->GetPendingIncrease(), 0.0);
    });
    Simulator::Run();
}

TEST_F(FabricTest, NsccPeriodicFulfilAddsEtaOncePerNetworkRtt)
{
    Nscc n;
    n.s.cwnd = 200000;
    Simulator::Schedule(MicroSeconds(11), [&n]() {
        n.Ack(4096, MicroSeconds(8), false); // fair; 11 us since the last adjustment > 10 us
        EXPECT_NEAR(double(n.s.cwnd), 200000 + kFair * 4096 / 200000 + kEta, 2.0);
    });
    Simulator::Run();
}

TEST_F(FabricTest, RepsRecyclesGoodEvsOnceAndSkipsMarkedOnes)
{
    Ptr<UetReps> reps = CreateObject<UetReps>();
    reps->Init(64, 7);
    reps->Feedback(5, UetPathFeedback::GOOD);
    reps->Feedback(9, UetPathFeedback::ECN);
    reps->Feedback(7, UetPathFeedback::GOOD);
    EXPECT_EQ(reps->GetFreshCount(), 2u);
    EXPECT_EQ(reps->NextEv(), 5);
    EXPECT_EQ(reps->NextEv(), 7);
    EXPECT_EQ(reps->GetFreshCount(), 0u);
    // nothing fresh: a random EV (exploration)
    reps->NextEv();
    EXPECT_EQ(reps->GetFreshCount(), 0u);
}

TEST_F(FabricTest, RepsFreezesOnTimeoutCyclesItsCacheThenExplores)
{
    Ptr<UetReps> reps = CreateObject<UetReps>();
    reps->SetAttribute("FreezeDuration", TimeValue(MicroSeconds(100)));
    reps->Init(64, 7);
    reps->Feedback(3, UetPathFeedback::GOOD);
    reps->Feedback(4, UetPathFeedback::GOOD);
    reps->Feedback(11, UetPathFeedback::TIMEOUT);
    EXPECT_TRUE(reps->IsFrozen());
    // frozen: the cached EVs are reused in turn, again and again
    EXPECT_EQ(reps->NextEv(), 3);
    EXPECT_EQ(reps->NextEv(), 4);
    EXPECT_EQ(reps->NextEv(), 3);
    EXPECT_EQ(reps->NextEv(), 4);
    Simulator::Schedule(MicroSeconds(101), [reps]() {
        reps->Feedback(4, UetPathFeedback::GOOD);
        EXPECT_FALSE(reps->IsFrozen());
        EXPECT_EQ(reps->GetFreshCount(), 1u); // emptied, then the new good EV
    });
    Simulator::Run();
}

TEST_F(FabricTest, BitmapPenalisesEvsByFeedback)
{
    Ptr<UetBitmapLb> lb = CreateObject<UetBitmapLb>();
    lb->Init(4, 1);
    lb->Feedback(1, UetPathFeedback::ECN);
    lb->Feedback(2, UetPathFeedback::NACK);
    lb->Feedback(3, UetPathFeedback::TIMEOUT);
    lb->Feedback(2, UetPathFeedback::NACK);
    lb->Feedback(2, UetPathFeedback::NACK);
    lb->Feedback(2, UetPathFeedback::NACK);
    EXPECT_EQ(lb->GetPenalty(1), 1);
    EXPECT_EQ(lb->GetPenalty(2), 15); // 16, capped
    EXPECT_EQ(lb->GetPenalty(3), 15);
    // a pick that meets penalised EVs takes a point off the first and skips them all: EVs 2
    // and 3 (15 points) are not picked in the next round, EV 1 only once its point is gone
    uint32_t points = 1 + 15 + 15;
    for (int i = 0; i < 4; ++i)
    {
        const uint16_t ev = lb->NextEv() & 3;
        EXPECT_TRUE(ev == 0 || ev == 1) << ev;
        const uint32_t now = lb->GetPenalty(1) + lb->GetPenalty(2) + lb->GetPenalty(3);
        EXPECT_LE(points - now, 1u); // at most one point per pick
        points = now;
    }
}

namespace
{

/// Hosts on one switch with UET NICs; counts messages delivered per host.
struct UetStar
{
    Ptr<FabricTopology> topo;
    std::vector<Ptr<UetNic>> nics;
    std::vector<UetMessage> delivered;

    UetStar(uint32_t hosts, bool trimming, uint64_t bufferBytes)
    {
        Config::SetDefault("ns3::SwitchBufferManager::TrimEnabled", BooleanValue(trimming));
        if (bufferBytes > 0)
        {
            Config::SetDefault("ns3::SwitchBufferManager::BufferSize", UintegerValue(bufferBytes));
        }
        Config::SetDefault("ns3::SwitchBufferManager::EcnOnDequeue", BooleanValue(true));
        // UEC's marking band: 20% to 80% of a 500 KB BDP
        Config::SetDefault("ns3::SwitchBufferManager::EcnKmin", UintegerValue(100000));
        Config::SetDefault("ns3::SwitchBufferManager::EcnKmax", UintegerValue(400000));
        Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
        star->SetAttribute("Servers", UintegerValue(hosts));
        star->SetAttribute("GpusPerServer", UintegerValue(1));
        star->GetLinkHelper().SetFlowControlAttribute("EnabledPriorities", UintegerValue(0));
        topo = star->Build();
        UetHelper uet;
        uet.SetNicAttribute("Trimming", BooleanValue(trimming));
        uet.SetNicAttribute("NetworkRtt", TimeValue(MicroSeconds(10)));
        nics = uet.Install(topo);
        for (auto& n : nics)
        {
            n->SetReceiveCallback(MakeCallback(&UetStar::Arrived, this));
        }
    }

    void Arrived(const UetMessage& m)
    {
        delivered.push_back(m);
    }

    UetNicCounters Sum() const
    {
        UetNicCounters c;
        for (const auto& n : nics)
        {
            const UetNicCounters& x = n->GetCounters();
            c.dataPackets += x.dataPackets;
            c.retransmissions += x.retransmissions;
            c.timeouts += x.timeouts;
            c.trimNacks += x.trimNacks;
            c.trimmedReceived += x.trimmedReceived;
            c.nacksSent += x.nacksSent;
            c.duplicates += x.duplicates;
        }
        return c;
    }

    uint64_t Trims() const
    {
        return topo->GetSwitchNode(0)->GetObject<FabricSwitch>()->GetCounters().trims;
    }
};

} // namespace

TEST_F(FabricTest, UetSingleFlowReachesLineRateTimesPayloadShare)
{
    UetStar s(2, true, 0);
    const uint64_t bytes = 32ULL << 20;
    s.nics[0]->CreatePdc(s.topo->GetHostAddress(1))->Send(bytes);
    Simulator::Run();
    ASSERT_EQ(s.delivered.size(), 1u);
    EXPECT_EQ(s.delivered[0].bytes, bytes);
    // goodput = 400G x 4096 / (4096 + 84 UET/UDP/IPv4 + 22 Ethernet/802.1Q/FCS + 20 IFG)
    const double goodput = 400e9 / 8 * 4096.0 / (4096 + uetwire::kDataHeaders + 22 + 20);
    const double t = (s.delivered[0].completed - s.delivered[0].first).GetSeconds();
    EXPECT_NEAR(bytes / t / goodput, 1.0, 0.01) << "goodput " << bytes / t * 8e-9 << " Gb/s";
    RecordProperty("goodput_gbps", std::to_string(bytes / t * 8e-9));
    EXPECT_EQ(s.Sum().retransmissions, 0u);
    EXPECT_EQ(s.nics[0]->GetDataWireBytes(4096), 4096u + 84 + 22 + 20);
}

TEST_F(FabricTest, UetTrimmedPacketsAreNackedAndResentOnceWithoutTimeout)
{
    // 4 -> 1 into a 600 KB switch buffer: the initial windows (1.5 BDP each) overflow it.
    UetStar s(5, true, 600000);
    const uint64_t bytes = 2 << 20;
    for (uint32_t i = 1; i < 5; ++i)
    {
        s.nics[i]->CreatePdc(s.topo->GetHostAddress(0))->Send(bytes);
    }
    Simulator::Run();
    ASSERT_EQ(s.delivered.size(), 4u);
    for (const auto& m : s.delivered)
    {
        EXPECT_EQ(m.bytes, bytes);
    }
    const UetNicCounters c = s.Sum();
    EXPECT_GT(s.Trims(), 0u);
    EXPECT_EQ(c.trimmedReceived, s.Trims()); // every trimmed header reached the target
    EXPECT_EQ(c.trimNacks, s.Trims());       // and came back as a NACK
    EXPECT_EQ(c.retransmissions, s.Trims()); // each trimmed packet was resent exactly once
    EXPECT_EQ(c.timeouts, 0u);
    EXPECT_EQ(c.duplicates, 0u);
}

TEST_F(FabricTest, UetOrderedDeliveryGoesBackToTheExpectedPsn)
{
    // ROD over sprayed paths with trimming: every out-of-order packet is refused with a
    // ROD_OOO NACK and the initiator goes back; the messages still arrive whole and in order.
    Config::SetDefault("ns3::UetNic::Ordered", BooleanValue(true));
    UetStar s(5, true, 600000);
    const uint64_t bytes = 1 << 20;
    for (uint32_t i = 1; i < 5; ++i)
    {
        Ptr<UetPdc> pdc = s.nics[i]->CreatePdc(s.topo->GetHostAddress(0), i);
        pdc->Send(bytes);
        pdc->Send(bytes / 2);
    }
    Simulator::Run();
    ASSERT_EQ(s.delivered.size(), 8u);
    std::vector<uint64_t> next(5, 0);
    for (const auto& m : s.delivered)
    {
        EXPECT_EQ(m.msgId, next[m.flowId]++); // in posting order per PDC
        EXPECT_EQ(m.bytes, m.msgId == 0 ? bytes : bytes / 2);
    }
    uint64_t rodNacks = 0;
    for (const auto& n : s.nics)
    {
        rodNacks += n->GetCounters().rodNacks;
    }
    EXPECT_GT(s.Trims(), 0u);
    EXPECT_GT(rodNacks, 0u); // a trimmed packet leaves a gap that the target refuses to skip
}

namespace
{

/// 32 -> 1 incast of 512 KB each; \return the time the last message completed
double
Incast(bool trimming, UetNicCounters& out)
{
    UetStar s(33, trimming, 2500000);
    DropCounter drops;
    drops.ConnectAll();
    for (uint32_t i = 1; i < 33; ++i)
    {
        s.nics[i]->CreatePdc(s.topo->GetHostAddress(0))->Send(512 * 1024);
    }
    Simulator::Run();
    EXPECT_EQ(s.delivered.size(), 32u);
    out = s.Sum();
    EXPECT_EQ(drops.Total(), drops.Of(FabricDropReason::BUFFER_FULL));
    if (trimming)
    {
        EXPECT_EQ(drops.Total(), 0u); // trimmed, not dropped
        EXPECT_EQ(out.trimNacks, s.Trims());
    }
    double last = 0;
    for (const auto& m : s.delivered)
    {
        last = std::max(last, m.completed.GetSeconds());
    }
    Simulator::Destroy();
    return last;
}

} // namespace

TEST_F(FabricTest, UetIncastWithTrimmingHasNoTimeoutsAndRunsNearLineRate)
{
    UetNicCounters trim;
    const double tTrim = Incast(true, trim);
    // 16 MiB through the receiver's link at its goodput (400G x 4096 / 4222)
    const double ideal = 32 * 512 * 1024 / (400e9 / 8 * 4096.0 / 4222);
    EXPECT_EQ(trim.timeouts, 0u);
    EXPECT_GT(trim.trimNacks, 0u);
    EXPECT_LT(tTrim, ideal * 1.10 + 10e-6) << "ideal " << ideal * 1e6 << " us";
    UetNicCounters drop;
    const double tDrop = Incast(false, drop);
    EXPECT_GT(drop.timeouts, 0u);
    EXPECT_GT(tDrop, tTrim);
    RecordProperty("incast_us_trimming", std::to_string(tTrim * 1e6));
    RecordProperty("incast_us_dropping", std::to_string(tDrop * 1e6));
    RecordProperty("incast_us_ideal", std::to_string(ideal * 1e6));
}

TEST_F(FabricTest, UetRingAllReduceIsWithinAFewPercentOfTheAlphaBetaBound)
{
    const uint32_t n = 8;
    const uint64_t bytes = 16 << 20;
    UetStar s(n, true, 0);
    Ptr<UetCollectiveTransport> uet = CreateObject<UetCollectiveTransport>();
    uet->SetRanks(s.topo->GetHosts());
    for (uint32_t r = 0; r < n; ++r)
    {
        Ptr<GpuTrainingApp> app = CreateObject<GpuTrainingApp>();
        app->SetAttribute("ComputeTime", TimeValue(Time(0)));
        s.topo->GetHostNode(r)->AddApplication(app);
    }
    Ptr<TrainingJob> job = CreateObject<TrainingJob>();
    job->SetAttribute("Steps", UintegerValue(1));
    job->SetAttribute("Collective", StringValue("allreduce"));
    job->SetAttribute("Algorithm", TypeIdValue(TypeId::LookupByName("ns3::RingCollective")));
    job->SetAttribute("Bytes", UintegerValue(bytes));
    job->Setup(s.topo->GetHosts(), 1, uet, nullptr);
    job->Start();
    Simulator::Run();
    ASSERT_TRUE(job->IsFinished());
    const double measured = job->GetSteps()[0].CollectiveTime().GetSeconds();
    // alpha: post (NIC 300 ns + PCIe 250 ns) + 2 cables (15 ns) + switch (500 ns) + delivery
    // (550 ns); B: 400G x 4096 / 4222.
    const double alpha = 550e-9 + 2 * 15e-9 + 500e-9 + 550e-9;
    const double b = 400e9 / 8 * 4096 / 4222.0;
    const double model = 2 * (n - 1) * alpha + 2.0 * (n - 1) / n * double(bytes) / b;
    EXPECT_NEAR(measured / model, 1.0, 0.03)
        << "measured " << measured * 1e6 << " us, model " << model * 1e6 << " us";
    RecordProperty("allreduce_us", std::to_string(measured * 1e6));
    RecordProperty("alpha_beta_us", std::to_string(model * 1e6));
    EXPECT_EQ(uet->GetTimeouts(), 0u);
}

TEST_F(FabricTest, UetPcapShowsUdpFramesOfTheRealSizes)
{
    if (std::system("command -v tshark >/dev/null 2>&1") != 0)
    {
        GTEST_SKIP() << "tshark not installed";
    }
    const std::string file = ::testing::TempDir() + "aif-uet.pcap";
    {
        // In a scope: the pcap file is flushed when the devices go away.
        UetStar s(2, true, 0);
        FabricLinkHelper link;
        link.EnablePcap(file, s.topo->GetHostDevice(1), false, true);
        s.nics[0]->CreatePdc(s.topo->GetHostAddress(1))->Send(2 * 4096 + 100);
        Simulator::Run();
        Simulator::Destroy();
    }
    const std::vector<std::string> lines =
        CommandLines("tshark -r " + file + " -T fields -e udp.dstport -e ip.len");
    // At the target: three data packets (IPv4 84 B of UET/UDP/IPv4 headers + payload) in, and
    // ACKs (72 B) out, all to UDP port 4793.
    std::vector<std::string> data;
    int acks = 0;
    for (const auto& l : lines)
    {
        if (l == "4793\t72\n")
        {
            ++acks;
        }
        else
        {
            data.push_back(l);
        }
    }
    ASSERT_EQ(data.size(), 3u) << lines.size() << " lines";
    EXPECT_EQ(data[0], "4793\t4180\n");
    EXPECT_EQ(data[1], "4793\t4180\n");
    EXPECT_EQ(data[2], "4793\t184\n");
    EXPECT_GE(acks, 1);
}

TEST_F(FabricTest, UetPdcThatExhaustsItsRetransmissionsFailsItsConnection)
{
    // Every data packet to host 1 is lost: after MaxRetransmissions sends of the first packet
    // the PDC stops, and the collective transport reports the connection failed (NCCL aborts).
    Config::SetDefault("ns3::UetNic::MaxRetransmissions", UintegerValue(3));
    UetStar s(2, true, 0);
    s.topo->GetHostDevice(1)->SetReceiveFilter(
        MakeCallback(+[](const FabricFrame& f) { return f.payloadBytes > 0; }));
    Ptr<UetCollectiveTransport> uet = CreateObject<UetCollectiveTransport>();
    uet->SetRanks(s.topo->GetHosts());
    std::vector<std::pair<uint32_t, uint32_t>> failed;
    uet->TraceConnectWithoutContext(
        "ConnectionFailed",
        MakeBoundCallback(
            +[](std::vector<std::pair<uint32_t, uint32_t>>* v, uint32_t a, uint32_t b) {
                v->emplace_back(a, b);
            },
            &failed));

    struct Never : CollectiveTransportListener
    {
        void MessageArrived(uint64_t) override
        {
            FAIL() << "no message can arrive";
        }
    } never;

    uet->Send(0, 1, 3 * 4096, &never, 0);
    Simulator::Run();
    ASSERT_EQ(failed.size(), 1u);
    EXPECT_EQ(failed[0], std::make_pair(0u, 1u));
    EXPECT_TRUE(uet->GetPdc(0, 1)->IsFailed());
    EXPECT_EQ(s.nics[0]->GetCounters().failedPdcs, 1u);
}

TEST(UecRunnerTest, FabricUecRunsACollectiveAndCountsItsTransport)
{
    // 16 GPUs on two leaves: a ring AllReduce over UEC; the summary's uec block says what the
    // transport did (every message delivered, no timeout on an idle fabric).
    const auto dir = ScratchDir("uec-runner");
    const auto scenario = WriteFile(dir / "uec.json", R"({
      "topology": {"kind": "rail-fat-tree", "servers": 2, "gpus_per_server": 8},
      "fabric": "uec",
      "workload": {"steps": 1, "compute_ms": 0.1, "algorithm": "ring", "bytes": 4194304}
    })");
    Result r = Runner(scenario.string() + " --out " + (dir / "out").string());
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json s = nlohmann::json::parse(ReadFile(dir / "out" / "summary.json"));
    ASSERT_TRUE(s.contains("uec")) << s.dump();
    EXPECT_GT(s["uec"]["messages"].get<uint64_t>(), 0u);
    EXPECT_GT(s["uec"]["data_packets"].get<uint64_t>(), 0u);
    EXPECT_EQ(s["uec"]["timeouts"].get<uint64_t>(), 0u);
    EXPECT_EQ(s["congestion_control"], "nscc");
    // GPU to GPU message latency is reported for UEC too: at least the post and delivery
    // latencies (550 ns each) and the two cables and leaf of a rail-local message.
    EXPECT_GT(s["message_latency_us"]["p99"].get<double>(), 1.1 + 0.5);
}

TEST(UecRunnerTest, TwoJobsShareAUecFabric)
{
    // scenarios/two-jobs.json on fabric uec: both all-to-all jobs complete over UET, each slower
    // together than alone (they share the oversubscribed leaves), and a rocev2 job is refused on
    // a uec fabric.
    const auto dir = ScratchDir("uec-jobs");
    const std::string two = std::string(AIFABRIC_SOURCE_DIR) + "/scenarios/two-jobs.json";
    Result r = Runner(two + " --set compare=[] --set fabric=uec --out " + (dir / "out").string());
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json s = nlohmann::json::parse(ReadFile(dir / "out" / "summary.json"));
    ASSERT_EQ(s["jobs"].size(), 2u) << s.dump();
    for (const auto& j : s["jobs"])
    {
        EXPECT_TRUE(j["completed"].get<bool>()) << j.dump();
        EXPECT_EQ(j["fabric"], "uec") << j.dump();
        EXPECT_GT(j["slowdown"].get<double>(), 1.0) << j.dump();
    }
    EXPECT_GT(s["uec"]["messages"].get<uint64_t>(), 0u);
    Result bad = Runner(two +
                        " --set compare=[] --set fabric=uec --set "
                        "'jobs=[{\"name\":\"a\",\"servers\":6,\"fabric\":\"rocev2\"},"
                        "{\"name\":\"b\",\"servers\":6}]' --out " +
                        (dir / "bad").string());
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("jobs[0].fabric: 'rocev2' cannot run on a uec fabric"),
              std::string::npos)
        << bad.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "bad"));
}

TEST(UecRunnerTest, AFailedPdcStopsTheRunAndSaysSo)
{
    // Half of the frames lost and two retransmissions allowed: a PDC fails its connection, the
    // job aborts (as NCCL does), and the runner names the cause (exit 3, the summary written).
    const auto dir = ScratchDir("uec-failed-pdc");
    const auto scenario = WriteFile(dir / "uec.json", R"({
      "topology": {"kind": "rail-fat-tree", "servers": 2, "gpus_per_server": 8},
      "fabric": "uec", "faults": {"drop_rate": 0.5},
      "attributes": {"ns3::UetNic::MaxRetransmissions": "2"},
      "workload": {"steps": 1, "compute_ms": 0.1, "algorithm": "ring", "bytes": 4194304}
    })");
    Result r = Runner(scenario.string() + " --out " + (dir / "out").string());
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_NE(r.err.find("UET PDC"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("exhausted"), std::string::npos) << r.err;
    const nlohmann::json s = nlohmann::json::parse(ReadFile(dir / "out" / "summary.json"));
    EXPECT_GE(s["uec"]["failed_pdcs"].get<uint64_t>(), 1u);
    EXPECT_FALSE(s["completed"].get<bool>());
}

TEST(UecRunnerTest, HtsimIncastMatrixOnUecTrimsMarksAndNeverTimesOut)
{
    // htsim's 32 -> 1 incast of 2 MB (scenarios/matrices/incast-32to1.cm) on its k = 8 fat-tree
    // with 1 us links, over UEC: trimming and NACKs recover every refused packet, ECN marks on
    // dequeue, no retransmission timeout (packets sprayed out of order are all acknowledged),
    // and the last flow ends at the receiver's line rate: 64 MB in 32 x (488 x 4222 + 1278)
    // wire bytes at 400 Gb/s = 1,319.4 us, plus the path (6 links of 1 us, store-and-forward).
    const auto dir = ScratchDir("uec-incast");
    Result r = Runner(std::string(AIFABRIC_SOURCE_DIR) +
                      "/scenarios/htsim-side-by-side.json --set compare=[] --set fabric=uec "
                      "--set 'attributes={\"ns3::UetNic::PostLatency\":\"0ns\","
                      "\"ns3::UetNic::DeliverLatency\":\"0ns\"}' --out " +
                      (dir / "out").string());
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json s = nlohmann::json::parse(ReadFile(dir / "out" / "summary.json"));
    EXPECT_EQ(s["uec"]["messages"].get<uint64_t>(), 32u);
    EXPECT_GT(s["uec"]["trims"].get<uint64_t>(), 0u);
    EXPECT_EQ(s["uec"]["trim_nacks"], s["uec"]["trims"]);
    EXPECT_EQ(s["uec"]["timeouts"].get<uint64_t>(), 0u);
    EXPECT_GT(s["counters"]["ecn_marks"].get<uint64_t>(), 0u);
    const double bound = 32 * (488 * 4222.0 + 1278) * 8 / 400e9 * 1e6;
    const double last = s["flows"]["fct_us"]["max"].get<double>();
    EXPECT_GT(last, bound);
    EXPECT_LT(last, bound * 1.06);
}

namespace
{

/// FlowWorkload flows over UET on a star of `hosts`: each (src, dst, bytes) at time 0.
struct UetFlows
{
    UetStar star;
    Ptr<FlowWorkload> w = CreateObject<FlowWorkload>();

    UetFlows(uint32_t hosts, const std::vector<std::array<uint64_t, 3>>& flows)
        : star(hosts, true, 2500000)
    {
        w->Install(star.topo);
        for (const auto& f : flows)
        {
            w->AddScheduledFlow(Time(0), uint32_t(f[0]), uint32_t(f[1]), f[2]);
        }
        w->Start();
        Simulator::Run();
    }
};

} // namespace

TEST_F(FabricTest, UetFlowAloneTakesItsIdealFctFromFirstPrinciples)
{
    const uint64_t bytes = 2000000;
    UetFlows r(2, {{1, 0, bytes}});
    ASSERT_EQ(r.w->GetNCompleted(), 1u);
    const FlowRecord& f = r.w->GetFlows()[0];
    // 488 packets of 4096 B and one of 1,152 B, each with 84 B of UET/UDP/IP headers and
    // 42 B of Ethernet (14 + 4 + FCS 4 + preamble and gap 20), at 400 Gb/s; the post latency
    // (NIC 300 ns + PCIe 250 ns), two 3 m cables and the switch (500 ns) each way, the ACK
    // (72 + 42 B) back.
    const double wire = 488 * 4222.0 + 1152 + 126;
    const double expected =
        550e-9 + wire * 8 / 400e9 + 2 * (2 * 15e-9 + 500e-9) + (72 + 42) * 8 / 400e9 * 2;
    const double fct = (f.end - f.start).GetSeconds();
    EXPECT_NEAR(fct, expected, 0.02 * expected) << "FCT " << fct * 1e6 << " us";
    EXPECT_NEAR(f.Slowdown(), 1.0, 0.01);
    EXPECT_EQ(r.star.Sum().timeouts, 0u);
}

TEST_F(FabricTest, UetFlowIncastTrimsWithoutTimeoutsAndEndsAtTheReceiversLineRate)
{
    // htsim's incast: 32 senders -> host 0, 2 MB each.
    std::vector<std::array<uint64_t, 3>> flows;
    for (uint64_t s = 1; s <= 32; ++s)
    {
        flows.push_back({s, 0, 2000000});
    }
    UetFlows r(33, flows);
    ASSERT_EQ(r.w->GetNCompleted(), 32u);
    Time last;
    for (const FlowRecord& f : r.w->GetFlows())
    {
        last = std::max(last, f.end);
    }
    // 64 MB through the receiver's 400 Gb/s link at 4096 / 4222 goodput.
    const double bound = 32 * (488 * 4222.0 + 1278) * 8 / 400e9;
    const UetNicCounters c = r.star.Sum();
    EXPECT_GT(r.star.Trims(), 0u);
    EXPECT_EQ(c.timeouts, 0u);
    EXPECT_GT(last.GetSeconds(), bound);
    EXPECT_LT(last.GetSeconds(), bound * 1.05) << "bound " << bound * 1e6 << " us";
    RecordProperty("last_us", std::to_string(last.GetSeconds() * 1e6));
    RecordProperty("trims", std::to_string(r.star.Trims()));
    RecordProperty("timeouts", std::to_string(c.timeouts));
}

// ECN on dequeue switched on after the switches are built (as the runner does once it knows
// the fabric's BDP) marks frames: the switch reads the setting from its buffer manager, it does
// not keep a copy made when the fabric was built.
TEST_F(FabricTest, EcnOnDequeueSetAfterTheFabricIsBuiltMarks)
{
    Config::SetDefault("ns3::SwitchBufferManager::BufferSize", UintegerValue(2500000));
    Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
    star->SetAttribute("Servers", UintegerValue(9));
    star->SetAttribute("GpusPerServer", UintegerValue(1));
    star->GetLinkHelper().SetFlowControlAttribute("EnabledPriorities", UintegerValue(0));
    Ptr<FabricTopology> topo = star->Build();
    Ptr<SwitchBufferManager> bm = topo->GetSwitch(0)->GetBufferManager();
    bm->SetAttribute("EcnOnDequeue", BooleanValue(true));
    bm->SetAttribute("EcnKmin", UintegerValue(100000));
    bm->SetAttribute("EcnKmax", UintegerValue(400000));
    bm->SetAttribute("TrimEnabled", BooleanValue(true));
    UetHelper uet;
    uet.SetNicAttribute("NetworkRtt", TimeValue(MicroSeconds(10)));
    uet.Install(topo);
    Ptr<FlowWorkload> w = CreateObject<FlowWorkload>();
    w->Install(topo);
    for (uint32_t s = 1; s <= 8; ++s)
    {
        w->AddScheduledFlow(Time(0), s, 0, 1000000);
    }
    w->Start();
    Simulator::Run();
    EXPECT_EQ(w->GetNCompleted(), 8u);
    // 8 windows of 1.5 BDP into one port: the queue passes Kmax (400 KB) at once.
    EXPECT_GT(topo->GetSwitch(0)->GetCounters().ecnMarks, 0u);
}

TEST_F(FabricTest, UetSlowReceiverBackPressureBoundsItsBacklog)
{
    // A target that moves payload into memory at 100 Gb/s behind a 400 Gb/s link: the message
    // completes at the memory's rate (its last byte in memory). Without back-pressure (Low and
    // High so large that p stays 0) the backlog grows with the message: the link delivers 4x
    // what memory takes, so 3/4 of the message waits in the NIC. With it (p from 1/4 BDP to
    // one BDP of backlog, 125 to 500 kB at 400 Gb/s x 10 us) each ACK takes newly acked x
    // p / 128 off the window before NSCC's own increase, which the unloaded network RTT keeps
    // at its proportional / fast rate: the backlog settles a few BDPs deep, a fraction of the
    // unthrottled one.
    const uint64_t bytes = 16ULL << 20;
    auto run = [&](uint64_t low, uint64_t high) {
        Config::SetDefault("ns3::UetNic::ReceiveRate", DataRateValue(DataRate("100Gbps")));
        Config::SetDefault("ns3::UetNic::BackPressureLow", UintegerValue(low));
        Config::SetDefault("ns3::UetNic::BackPressureHigh", UintegerValue(high));
        UetStar s(2, true, 0);
        s.nics[0]->CreatePdc(s.topo->GetHostAddress(1))->Send(bytes);
        Simulator::Run();
        EXPECT_EQ(s.delivered.size(), 1u);
        const double t = s.delivered.empty() ? 0 : s.delivered[0].completed.GetSeconds();
        const UetNicCounters c = s.nics[1]->GetCounters();
        Simulator::Destroy();
        return std::make_tuple(t, c.peakReceiveBacklog, c.pressuredAcks);
    };
    const auto [tOn, backlogOn, pressuredOn] = run(0, 0);
    const auto [tOff, backlogOff, pressuredOff] = run(1ULL << 40, 1ULL << 41);
    // At the memory's rate either way: 16 MiB at 100 Gb/s is 1.342 ms (+ a few us of path).
    const double ideal = double(bytes) * 8 / 100e9;
    EXPECT_GT(tOn, ideal);
    EXPECT_LT(tOn, ideal * 1.05);
    EXPECT_GT(tOff, ideal);
    EXPECT_LT(tOff, ideal * 1.05);
    // Without back-pressure the backlog is what arrived minus what drained: ~3/4 of the message
    // once the sender's window is open (1.5 BDP at most in flight, the rest waits in the NIC).
    EXPECT_EQ(pressuredOff, 0u);
    EXPECT_GT(double(backlogOff), 0.5 * double(bytes)) << backlogOff;
    // With it, ACKs carry it and the backlog stays a fraction of that.
    EXPECT_GT(pressuredOn, 0u);
    EXPECT_LT(double(backlogOn), double(backlogOff) / 3) << backlogOn << " vs " << backlogOff;
    RecordProperty("backlog_with", std::to_string(backlogOn));
    RecordProperty("backlog_without", std::to_string(backlogOff));
    std::cout << "backlog " << backlogOn << " B with back-pressure, " << backlogOff
              << " B without; " << tOn * 1e3 << " / " << tOff * 1e3 << " ms\n";
}

// SPDX-License-Identifier: GPL-2.0-only
// Ultra Ethernet's receiver credit (RCCC) and htsim's mixed load balancer: the target's credit
// scheduler paces its line rate round robin (times from first principles), the initiator's
// credit law (speculative credit, credit targets, caps, NSCC alongside) hand-computed, a
// 32 -> 1 incast that RCCC makes fair, htsim's incast matrix against htsim's RCCC row, and
// the mixed balancer's rule.
#include "process-util.h"
#include "test-util.h"

#include "ns3/uet-credit-scheduler.h"
#include "ns3/uet-header-sizes.h"
#include "ns3/uet-helper.h"
#include "ns3/uet-mixed-lb.h"
#include "ns3/uet-nscc.h"
#include "ns3/uet-rccc.h"

#include <cmath>
#include <nlohmann/json.hpp>

using namespace ns3;

namespace
{

/// One credit the scheduler sent.
struct Grant
{
    int64_t ns{0};
    uint16_t pdc{0};
    uint64_t granted{0};
};

} // namespace

TEST_F(FabricTest, UetCreditSchedulerPacesItsLineRateRoundRobin)
{
    // 400 Gb/s, 10 us: credit at 0.99 x 50 GB/s, 16 KiB a turn: one turn every
    // 16384 / (0.99 x 5e10) s = 330.99 ns; idle credit up to 1.5 x 500,000 B each.
    Ptr<UetCreditScheduler> cs = CreateObject<UetCreditScheduler>();
    std::vector<Grant> grants;
    cs->Setup(DataRate("400Gbps"),
              MicroSeconds(10),
              MakeCallback(+[](std::vector<Grant>* g, uint16_t pdc, uint64_t granted) {
                  g->push_back({Simulator::Now().GetNanoSeconds(), pdc, granted});
              }).Bind(&grants));
    EXPECT_DOUBLE_EQ(cs->GetCreditRate(), 0.99 * 400e9 / 8);
    const uint64_t g = 16384;
    cs->Request(0, 12 * g);
    cs->Request(1, 12 * g);
    cs->Request(2, 4 * g);
    cs->Request(2, 3 * g); // lower: ignored
    Simulator::Run();
    const double turn = g / (0.99 * 400e9 / 8) * 1e9;
    const uint64_t idleGrants = static_cast<uint64_t>(std::ceil(750000.0 / g)); // 46
    ASSERT_EQ(grants.size(), 28 + 3 * idleGrants);
    for (size_t k = 0; k < grants.size(); ++k)
    {
        EXPECT_NEAR(grants[k].ns, k * turn, 1.0) << "grant " << k;
    }
    // round robin 0, 1, 2 while all three wait; 2 is done after 4 turns, then 0, 1
    for (size_t k = 0; k < 12; ++k)
    {
        EXPECT_EQ(grants[k].pdc, k % 3) << "grant " << k;
        EXPECT_EQ(grants[k].granted, (k / 3 + 1) * g);
    }
    for (size_t k = 12; k < 28; ++k)
    {
        EXPECT_EQ(grants[k].pdc, (k - 12) % 2) << "grant " << k;
    }
    // then idle credit to the satisfied PDCs in the order they were satisfied (2, 0, 1)
    EXPECT_EQ(grants[28].pdc, 2);
    EXPECT_EQ(grants[29].pdc, 0);
    EXPECT_EQ(grants[30].pdc, 1);
    EXPECT_EQ(cs->GetGranted(0), 12 * g + idleGrants * g);
    EXPECT_EQ(cs->GetGranted(2), 4 * g + idleGrants * g);
    EXPECT_EQ(cs->GetNActive(), 0u);
    // a new request is served at once, the pace counted from then
    const int64_t t0 = Simulator::Now().GetNanoSeconds();
    grants.clear();
    Simulator::Schedule(MicroSeconds(5), [cs, g]() { cs->Request(1, cs->GetGranted(1) + 2 * g); });
    Simulator::Run();
    ASSERT_GE(grants.size(), 2u);
    EXPECT_EQ(grants[0].ns, t0 + 5000);
    EXPECT_NEAR(grants[1].ns, t0 + 5000 + turn, 1.0);
}

namespace
{

// 400 Gb/s, network RTT 10 us: BDP 500,000 B; credit starts at and is capped by 1.5 BDP.
// A full data packet with the CC state: 84 + 4 + 4096 B IPv4 + 42 B Ethernet = 4226 B.
constexpr int64_t kMaxCredit = 750000;
constexpr uint32_t kPkt = 4226;

UetCcState
RcccState()
{
    UetCcState s;
    s.mss = 4096;
    s.mtuWire = kPkt;
    s.lineRate = DataRate("400Gbps");
    s.networkRtt = MicroSeconds(10);
    s.baseRtt = MicroSeconds(10);
    return s;
}

uint64_t
Round256(uint64_t b)
{
    return (b + 255) / 256 * 256;
}

} // namespace

TEST_F(FabricTest, UetRcccSpeculativeCreditTargetsAndCap)
{
    Ptr<UetRccc> cc = CreateObject<UetRccc>();
    UetCcState s = RcccState();
    cc->Init(s);
    EXPECT_TRUE(s.useCredit);
    EXPECT_TRUE(s.speculating);
    EXPECT_EQ(s.credit, kMaxCredit);
    EXPECT_EQ(s.maxCredit, kMaxCredit);
    EXPECT_GT(s.cwnd, uint64_t(1) << 40); // no window: credit alone
    EXPECT_EQ(cc->GetName(), "rccc");

    // one packet sent: it asks for what it spent (min(backlog, cap) - credit)
    s.credit -= kPkt;
    UetCreditDemand d;
    d.backlog = 2000000;
    EXPECT_EQ(cc->CreditTarget(s, d), Round256(kPkt));
    // a short message while speculating still asks for a packet
    d.backlog = 1000;
    EXPECT_EQ(cc->CreditTarget(s, d), Round256(kPkt));
    // two active PDCs on this NIC: half each
    d.backlog = 2000000;
    d.activeSources = 2;
    EXPECT_EQ(cc->CreditTarget(s, d), Round256(kPkt / 2));

    // the first ACK ends speculation: what is left of it is dropped
    UetAckSample a;
    a.newlyAckedBytes = 16384;
    a.rtt = MicroSeconds(11);
    cc->AckReceived(s, a);
    EXPECT_FALSE(s.speculating);
    EXPECT_EQ(s.credit, 0);
    d.activeSources = 1;
    d.granted = 16384;
    EXPECT_EQ(cc->CreditTarget(s, d), Round256(16384 + kMaxCredit));
    d.backlog = 0;
    EXPECT_EQ(cc->CreditTarget(s, d), 16384u); // nothing to send: no more asked

    // credit may go below zero by a packet; CREDITs add up to the cap
    s.credit = -3000;
    cc->CreditReceived(s, 16384);
    EXPECT_EQ(s.credit, 16384 - 3000);
    cc->CreditReceived(s, 1000000);
    EXPECT_EQ(s.credit, kMaxCredit);
}

TEST_F(FabricTest, UetNsccPlusRcccAsksNoMoreThanTheWindowAndKeepsItOnLastHopTrims)
{
    Ptr<UetRccc> cc = CreateObject<UetRccc>();
    cc->SetAttribute("SenderCc", StringValue("ns3::UetNscc"));
    UetCcState s = RcccState();
    s.trimming = true;
    cc->Init(s);
    ASSERT_TRUE(cc->GetSenderCc());
    EXPECT_EQ(cc->GetName(), "nscc+rccc");
    EXPECT_EQ(s.cwnd, uint64_t(kMaxCredit)); // NSCC's 1.5 BDP
    EXPECT_EQ(s.credit, kMaxCredit);
    s.cwnd = 100000;
    s.credit = 0;
    UetCreditDemand d;
    d.backlog = 2000000;
    EXPECT_EQ(cc->CreditTarget(s, d), Round256(100000 + kPkt));
    // a trim at the last hop is the credit's business: the window stays; elsewhere it shrinks
    s.inFlight = 50000;
    cc->NackReceived(s, 4096, true);
    EXPECT_EQ(s.cwnd, 100000u);
    EXPECT_FALSE(s.speculating);
    cc->NackReceived(s, 4096, false);
    EXPECT_EQ(s.cwnd, 100000u - 4096);
}

namespace
{

/// Hosts on one switch with UET NICs running `cc` (a UetRccc with `senderCc`, or UetNscc).
struct CreditStar
{
    Ptr<FabricTopology> topo;
    std::vector<Ptr<UetNic>> nics;
    std::vector<UetMessage> delivered;

    CreditStar(uint32_t hosts, const std::string& cc, const std::string& senderCc = "")
    {
        Config::SetDefault("ns3::SwitchBufferManager::TrimEnabled", BooleanValue(true));
        Config::SetDefault("ns3::SwitchBufferManager::BufferSize", UintegerValue(2500000));
        Config::SetDefault("ns3::SwitchBufferManager::EcnOnDequeue", BooleanValue(true));
        Config::SetDefault("ns3::SwitchBufferManager::EcnKmin", UintegerValue(100000));
        Config::SetDefault("ns3::SwitchBufferManager::EcnKmax", UintegerValue(400000));
        Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
        star->SetAttribute("Servers", UintegerValue(hosts));
        star->SetAttribute("GpusPerServer", UintegerValue(1));
        star->GetLinkHelper().SetFlowControlAttribute("EnabledPriorities", UintegerValue(0));
        topo = star->Build();
        UetHelper uet;
        uet.SetNicAttribute("NetworkRtt", TimeValue(MicroSeconds(10)));
        uet.SetCongestionControl(cc);
        if (!senderCc.empty())
        {
            uet.SetCongestionControlAttribute("SenderCc", StringValue(senderCc));
        }
        nics = uet.Install(topo);
        for (auto& n : nics)
        {
            n->SetReceiveCallback(MakeCallback(&CreditStar::Arrived, this));
        }
    }

    void Arrived(const UetMessage& m)
    {
        delivered.push_back(m);
    }
};

/// Wire bytes of UET data frames each host put on its link.
struct DataWire
{
    std::vector<uint64_t> bytes;

    explicit DataWire(Ptr<FabricTopology> topo)
        : bytes(topo->GetNHosts(), 0)
    {
        for (uint32_t h = 0; h < topo->GetNHosts(); ++h)
        {
            Ptr<FabricNetDevice> d = topo->GetHostDevice(h);
            d->TraceConnectWithoutContext(
                "MacTx",
                MakeCallback(&DataWire::Sent, this).Bind(h, PeekPointer(d)));
        }
    }

    void Sent(uint32_t h, FabricNetDevice* d, const FabricFrame& f)
    {
        if (f.l4Format == uetwire::kL4Uet && (f.aux[0] & uetwire::kTypeMask) == uetwire::DATA)
        {
            bytes[h] += d->WireBytes(f);
        }
    }
};

struct IncastResult
{
    double first{0};
    double last{0};
    uint64_t timeouts{0};
    uint64_t credits{0};
    uint64_t creditRequests{0};
};

/// 32 -> 1 incast of 2 MB each (htsim's) on a star, all at time 0.
IncastResult
Incast32(const std::string& cc, const std::string& senderCc = "")
{
    CreditStar s(33, cc, senderCc);
    DataWire wire(s.topo);
    std::vector<Ptr<UetPdc>> pdcs;
    for (uint32_t i = 1; i < 33; ++i)
    {
        pdcs.push_back(s.nics[i]->CreatePdc(s.topo->GetHostAddress(0)));
        pdcs.back()->Send(2000000);
    }
    Simulator::Run();
    IncastResult r;
    EXPECT_EQ(s.delivered.size(), 32u);
    r.first = 1e9;
    for (const auto& m : s.delivered)
    {
        r.first = std::min(r.first, m.completed.GetSeconds());
        r.last = std::max(r.last, m.completed.GetSeconds());
    }
    for (uint32_t i = 1; i < 33; ++i)
    {
        r.timeouts += s.nics[i]->GetCounters().timeouts;
        r.credits += s.nics[i]->GetCounters().creditsReceived;
        r.creditRequests += s.nics[i]->GetCounters().creditRequestsSent;
        if (pdcs[i - 1]->GetCcState().useCredit)
        {
            // the initiator sends only within its credit: the speculative 1.5 BDP, what the
            // target granted, and the last packet that took the credit below zero
            EXPECT_LE(wire.bytes[i], uint64_t(kMaxCredit) + pdcs[i - 1]->GetCreditGranted() + kPkt)
                << "host " << i;
        }
    }
    Simulator::Destroy();
    return r;
}

} // namespace

TEST_F(FabricTest, UetRcccMakesA32To1IncastFairAtTheCreditRate)
{
    // 32 x (488 packets of 4096 B + one of 1152 B), each with 88 B of UET/UDP/IPv4 headers
    // (the CC state included) and 42 B of Ethernet: the receiver's link at the credit rate
    // (0.99 x 400 Gb/s) is the bound; nothing arrives faster than the link.
    const double wire = 32 * (488.0 * kPkt + 1152 + 88 + 42);
    const double atLine = wire / 50e9;
    const double atCredit = wire / (0.99 * 50e9);
    const IncastResult r = Incast32("ns3::UetRccc");
    EXPECT_EQ(r.timeouts, 0u);
    EXPECT_GT(r.credits, 0u);
    EXPECT_LE(r.last / r.first, 1.1) << "first " << r.first * 1e6 << " last " << r.last * 1e6;
    EXPECT_GT(r.last, atLine);
    EXPECT_LT(r.last, atCredit * 1.02) << "credit-rate bound " << atCredit * 1e6 << " us";
    // NSCC alone lets some flows through early: the same incast is not fair
    const IncastResult n = Incast32("ns3::UetNscc");
    EXPECT_GT(n.last / n.first, 1.1);
    // NSCC + RCCC: the credit paces it as RCCC alone does
    const IncastResult b = Incast32("ns3::UetRccc", "ns3::UetNscc");
    EXPECT_EQ(b.timeouts, 0u);
    EXPECT_LE(b.last / b.first, 1.1);
    EXPECT_LT(b.last, atCredit * 1.02);
    // trimmed packets resent after the credit ran out ask for credit again (CREDIT_REQUEST)
    EXPECT_GT(r.creditRequests, 0u);
    RecordProperty("rccc_first_us", std::to_string(r.first * 1e6));
    RecordProperty("rccc_last_us", std::to_string(r.last * 1e6));
    RecordProperty("nscc_first_us", std::to_string(n.first * 1e6));
    RecordProperty("nscc_last_us", std::to_string(n.last * 1e6));
}

TEST_F(FabricTest, UetRcccPdcReusedWithoutCreditAsksForIt)
{
    // No idle credit: after its first message a PDC holds at most the rounding of its last
    // credit target (< 256 B). Posting again, it either sends a packet on that remainder (which
    // carries the new target) or, out of credit, sends a CREDIT_REQUEST; either way the target
    // grants what it asks and the message completes, without a timeout.
    Config::SetDefault("ns3::UetCreditScheduler::IdleCreditBdps", DoubleValue(0));
    CreditStar s(2, "ns3::UetRccc");
    Ptr<UetPdc> pdc = s.nics[1]->CreatePdc(s.topo->GetHostAddress(0));
    pdc->Send(1000000); // more than the speculative 750,000 B: credit is needed
    Simulator::Run();
    ASSERT_EQ(s.delivered.size(), 1u);
    const int64_t left = pdc->GetCcState().credit;
    EXPECT_LT(left, int64_t(uetwire::kCreditUnit));
    const uint64_t requestsBefore = pdc->GetStats().creditRequests;
    Simulator::Schedule(MicroSeconds(10), [pdc]() { pdc->Send(500000); });
    Simulator::Run();
    ASSERT_EQ(s.delivered.size(), 2u);
    EXPECT_EQ(s.delivered[1].bytes, 500000u);
    if (left <= 0)
    {
        EXPECT_GT(pdc->GetStats().creditRequests, requestsBefore);
    }
    EXPECT_EQ(pdc->GetCreditGranted(), pdc->GetCreditTarget());
    EXPECT_EQ(s.nics[1]->GetCounters().timeouts, 0u);
    RecordProperty("credit_left_after_first", std::to_string(left));
}

TEST(UecRunnerTest, HtsimIncastMatrixWithRcccMatchesHtsimsRcccRow)
{
    // htsim's RCCC row on its 32 -> 1 incast of 2 MB (htsim_uec -receiver_cc_only): FCT p50
    // 1313.7 us, max 1319.1 us. Here within 10% of each, no timeout, and fair (last/first).
    for (const std::string cc : {"rccc", "nscc+rccc"})
    {
        const auto dir = ScratchDir("uec-rccc");
        Result r = Runner(std::string(AIFABRIC_SOURCE_DIR) +
                          "/scenarios/htsim-side-by-side.json --set compare=[] --set fabric=uec "
                          "--set uec.cc=" +
                          cc +
                          " --set 'attributes={\"ns3::UetNic::PostLatency\":\"0ns\","
                          "\"ns3::UetNic::DeliverLatency\":\"0ns\"}' --out " +
                          (dir / "out").string());
        ASSERT_EQ(r.status, 0) << r.err;
        const nlohmann::json s = nlohmann::json::parse(ReadFile(dir / "out" / "summary.json"));
        EXPECT_EQ(s["congestion_control"], cc);
        EXPECT_EQ(s["uec"]["messages"].get<uint64_t>(), 32u);
        EXPECT_EQ(s["uec"]["timeouts"].get<uint64_t>(), 0u);
        EXPECT_GT(s["uec"]["credits"].get<uint64_t>(), 0u);
        const double p50 = s["flows"]["fct_us"]["p50"].get<double>();
        const double max = s["flows"]["fct_us"]["max"].get<double>();
        EXPECT_NEAR(p50, 1313.7, 131.4) << cc;
        EXPECT_NEAR(max, 1319.1, 131.9) << cc;
        EXPECT_GT(p50, max / 1.1) << cc; // the flows end together
    }
}

TEST_F(FabricTest, MixedLbReusesGoodEvsFirstElseTheBitmaps)
{
    Ptr<UetMixedLb> mixed = CreateObject<UetMixedLb>();
    Ptr<UetBitmapLb> bitmap = CreateObject<UetBitmapLb>();
    mixed->Init(64, 7);
    bitmap->Init(64, 7);
    EXPECT_EQ(mixed->GetName(), "mixed");
    // no feedback: the Bitmap's permuted round robin
    for (int i = 0; i < 70; ++i)
    {
        EXPECT_EQ(mixed->NextEv(), bitmap->NextEv()) << i;
    }
    // GOOD EVs are reused first, oldest first, each once; a last-hop NACK counts as GOOD
    const uint16_t a = 0x1203;
    const uint16_t b = 0x1207;
    const uint16_t c = 0x1209;
    mixed->Feedback(a, UetPathFeedback::GOOD);
    mixed->Feedback(b, UetPathFeedback::NACK_LAST_HOP);
    mixed->Feedback(a, UetPathFeedback::GOOD);
    EXPECT_EQ(mixed->GetRecycledCount(), 3u);
    EXPECT_EQ(mixed->GetPenalty(b), 0);
    // ECN, NACK and timeouts penalise as Bitmap does and are not reused
    mixed->Feedback(c, UetPathFeedback::ECN);
    EXPECT_EQ(mixed->GetPenalty(c), 1);
    mixed->Feedback(c, UetPathFeedback::NACK);
    EXPECT_EQ(mixed->GetPenalty(c), 5);
    mixed->Feedback(c, UetPathFeedback::TIMEOUT);
    EXPECT_EQ(mixed->GetPenalty(c), 15);
    bitmap->Feedback(c, UetPathFeedback::TIMEOUT);
    EXPECT_EQ(mixed->GetRecycledCount(), 3u);
    EXPECT_EQ(mixed->NextEv(), a);
    EXPECT_EQ(mixed->NextEv(), b);
    EXPECT_EQ(mixed->NextEv(), a);
    EXPECT_EQ(mixed->GetRecycledCount(), 0u);
    // then the Bitmap again, where it left off, skipping the penalised EV
    for (int i = 0; i < 70; ++i)
    {
        const uint16_t ev = mixed->NextEv();
        EXPECT_EQ(ev, bitmap->NextEv()) << i;
    }
    // Bitmap alone takes a last-hop NACK as a NACK
    bitmap->Feedback(b, UetPathFeedback::NACK_LAST_HOP);
    EXPECT_EQ(bitmap->GetPenalty(b), 4);
}

TEST(UecRunnerTest, MixedLoadBalancingRunsTheHtsimIncast)
{
    const auto dir = ScratchDir("uec-mixed");
    Result r = Runner(std::string(AIFABRIC_SOURCE_DIR) +
                      "/scenarios/htsim-side-by-side.json --set compare=[] --set fabric=uec "
                      "--set uec.load_balancing=mixed --out " +
                      (dir / "out").string());
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json s = nlohmann::json::parse(ReadFile(dir / "out" / "summary.json"));
    EXPECT_EQ(s["uec"]["messages"].get<uint64_t>(), 32u);
    EXPECT_EQ(s["uec"]["timeouts"].get<uint64_t>(), 0u);
    EXPECT_GT(s["uec"]["ev_changes"].get<uint64_t>(), 0u);
    // a name that is not a balancer: one line naming the field, status 2
    Result bad = Runner(std::string(AIFABRIC_SOURCE_DIR) +
                        "/scenarios/htsim-side-by-side.json --set fabric=uec "
                        "--set uec.load_balancing=mixd --out " +
                        (dir / "bad").string());
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("uec.load_balancing"), std::string::npos) << bad.err;
}

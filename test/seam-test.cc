// SPDX-License-Identifier: GPL-2.0-only
// The plug-in seams hold: a congestion control, a loss recovery and a collective algorithm, each
// defined here as one small class with a TypeId, selected by TypeId name and attribute the way a
// researcher's own file pair would be, and run on the packet-level model.
#include "test-util.h"

#include <numeric>

using namespace ns3;

namespace
{

// Wire bytes of a RoCEv2 data packet beyond its payload (IPv4 20, UDP 8, BTH 12, ICRC 4,
// Ethernet 14 + 802.1Q 4 + FCS 4, preamble + IFG 20) and the RETH of a WRITE's first packet.
constexpr uint32_t kRoceOverhead = 20 + 8 + 12 + 4 + 22 + 20;
constexpr uint32_t kReth = 16;

/// A congestion control that paces at a fixed fraction of the line rate and records its hooks.
class TestFixedFractionCc : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TestFixedFractionCc")
                                .SetParent<RdmaCongestionOps>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<TestFixedFractionCc>()
                                .AddAttribute("Fraction",
                                              "Sending rate as a fraction of the line rate.",
                                              DoubleValue(1.0),
                                              MakeDoubleAccessor(&TestFixedFractionCc::m_fraction),
                                              MakeDoubleChecker<double>(0.01, 1.0));
        return tid;
    }

    std::string GetName() const override
    {
        return "test-fixed-fraction";
    }

    void Init(Ptr<RdmaQueuePair> qp) override
    {
        ++inits;
        qp->SetRate(DataRate(static_cast<uint64_t>(qp->GetLineRate().GetBitRate() * m_fraction)));
    }

    void PacketSent(Ptr<RdmaQueuePair>, uint32_t wireBytes) override
    {
        ++packets;
        wire += wireBytes;
    }

    void AckReceived(Ptr<RdmaQueuePair>, const RdmaAck& ack) override
    {
        acked += ack.newlyAcked;
        ackedBytes += ack.newlyAckedBytes;
        ++acks;
        if (ack.rtt.IsStrictlyPositive())
        {
            ++rttSamples;
        }
    }

    void Stop() override
    {
        ++stops;
    }

    double m_fraction{1.0};
    uint32_t inits{0};
    uint32_t packets{0};
    uint64_t wire{0};
    uint64_t acked{0};
    uint64_t ackedBytes{0};
    uint32_t acks{0};
    uint32_t rttSamples{0};
    static uint32_t stops;
};

uint32_t TestFixedFractionCc::stops = 0;
NS_OBJECT_ENSURE_REGISTERED(TestFixedFractionCc);

/// A congestion control with a fixed window that asks for telemetry and records what it gets.
class TestWindowTelemetryCc : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::TestWindowTelemetryCc")
                .SetParent<RdmaCongestionOps>()
                .SetGroupName("AiFabric")
                .AddConstructor<TestWindowTelemetryCc>()
                .AddAttribute("Window",
                              "Window (bytes; 0: none).",
                              UintegerValue(0),
                              MakeUintegerAccessor(&TestWindowTelemetryCc::m_window),
                              MakeUintegerChecker<uint64_t>());
        return tid;
    }

    std::string GetName() const override
    {
        return "test-window-telemetry";
    }

    void Init(Ptr<RdmaQueuePair> qp) override
    {
        qp->SetRate(qp->GetLineRate());
        qp->SetWindow(m_window);
    }

    bool WantsTelemetry() const override
    {
        return true;
    }

    void PacketSent(Ptr<RdmaQueuePair> qp, uint32_t wireBytes) override
    {
        maxInFlight = std::max(maxInFlight, qp->GetBytesInFlight());
        wire = wireBytes;
    }

    void AckReceived(Ptr<RdmaQueuePair>, const RdmaAck& ack) override
    {
        if (ack.telemetry)
        {
            hops.push_back(*ack.telemetry);
        }
        ttlHopsMin = std::min<uint32_t>(ttlHopsMin, ack.hops);
        ttlHopsMax = std::max<uint32_t>(ttlHopsMax, ack.hops);
    }

    uint64_t m_window{0};
    uint32_t ttlHopsMin{UINT32_MAX}; //!< RdmaAck::hops, the switches counted by the ACK's TTL
    uint32_t ttlHopsMax{0};
    uint64_t maxInFlight{0};
    uint32_t wire{0};
    std::vector<FabricIntStack> hops;
};

NS_OBJECT_ENSURE_REGISTERED(TestWindowTelemetryCc);

/// Loss recovery that ignores NAKs and resends everything from SndUna on a timeout only.
class TestTimeoutOnlyRecovery : public RdmaLossRecovery
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TestTimeoutOnlyRecovery")
                                .SetParent<RdmaLossRecovery>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<TestTimeoutOnlyRecovery>();
        return tid;
    }

    std::string GetName() const override
    {
        return "test-timeout-only";
    }

    uint32_t NextPsn(RdmaQueuePair& qp, bool& retransmission) override
    {
        return TakeNew(qp, retransmission);
    }

    void OnAck(RdmaQueuePair& qp, uint32_t cumulative) override
    {
        if (qp.GetSndNxt() < cumulative)
        {
            qp.SetSndNxt(cumulative);
        }
    }

    void OnNack(RdmaQueuePair&, uint32_t, uint32_t) override
    {
        ++nacks;
    }

    void OnTimeout(RdmaQueuePair& qp) override
    {
        ++timeouts;
        qp.SetSndNxt(qp.GetSndUna());
    }

    bool KeepsOutOfOrder() const override
    {
        return false;
    }

    uint32_t nacks{0};
    uint32_t timeouts{0};
};

NS_OBJECT_ENSURE_REGISTERED(TestTimeoutOnlyRecovery);

/// AllReduce as gather-to-rank-0 then broadcast: every rank sends its buffer to rank 0, which
/// sends the result back once it has all of them.
class TestGatherBroadcastCollective : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TestGatherBroadcastCollective")
                                .SetParent<CollectiveAlgorithm>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<TestGatherBroadcastCollective>();
        return tid;
    }

    std::string GetName() const override
    {
        return "test-gather-broadcast";
    }

    std::string Check(const CollectiveSpec& spec) const override
    {
        return spec.op == CollectiveSpec::ALLREDUCE ? "" : "test-gather-broadcast: allreduce only";
    }

  protected:
    void DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const override
    {
        std::vector<uint32_t> gathered;
        for (uint32_t r = 1; r < spec.ranks; ++r)
        {
            gathered.push_back(s.Add(r, 0, spec.bytes, nullptr, 0));
        }
        for (uint32_t r = 1; r < spec.ranks; ++r)
        {
            s.Add(0, r, spec.bytes, gathered.data(), static_cast<uint32_t>(gathered.size()));
        }
    }
};

NS_OBJECT_ENSURE_REGISTERED(TestGatherBroadcastCollective);

/// A 1 MiB WRITE between two hosts with `cc` (and its Fraction); \return the completion time.
Time
WriteWith(const std::string& cc, double fraction, Ptr<TestFixedFractionCc>* seen = nullptr)
{
    RdmaHelper rdma;
    rdma.SetCongestionControl(cc);
    if (cc == "ns3::TestFixedFractionCc")
    {
        rdma.SetCongestionControlAttribute("Fraction", DoubleValue(fraction));
    }
    TwoHosts h(rdma);
    Completions done;
    h.qa->SetCompletionCallback(done.Cb());
    h.qa->PostWrite(1 << 20);
    Simulator::Run();
    EXPECT_EQ(done.v.size(), 1u);
    EXPECT_EQ(h.qb->GetStats().bytesReceived, 1u << 20);
    if (seen)
    {
        *seen = DynamicCast<TestFixedFractionCc>(h.qa->GetCongestionOps());
    }
    return done.v.empty() ? Time(0) : done.v[0].completed;
}

} // namespace

TEST_F(FabricTest, ACongestionControlDefinedInATestIsSelectedByTypeIdAndPacesTheQueuePair)
{
    const Time full = WriteWith("ns3::RdmaNoCc", 1.0);
    Simulator::Destroy();
    TestFixedFractionCc::stops = 0;
    Ptr<TestFixedFractionCc> cc;
    const Time half = WriteWith("ns3::TestFixedFractionCc", 0.5, &cc);
    ASSERT_TRUE(cc) << "the NIC built the queue pair's congestion control from the TypeId";
    EXPECT_DOUBLE_EQ(cc->m_fraction, 0.5) << "the attribute set on the helper reached it";
    EXPECT_EQ(cc->inits, 1u);
    // Every data packet and its wire bytes, every acknowledged packet, one RTT sample at least.
    EXPECT_EQ(cc->packets, 256u);
    EXPECT_EQ(cc->wire, 256ULL * (4096 + kRoceOverhead) + kReth);
    EXPECT_EQ(cc->acked, 256u);
    EXPECT_EQ(cc->ackedBytes, 1u << 20) << "the payload bytes of the acknowledged packets";
    EXPECT_EQ(cc->rttSamples, cc->acks) << "every ACK echoes its data packet's send time";
    // At half the line rate the transfer takes one more serialization of the whole message.
    const double ser = (256.0 * (4096 + kRoceOverhead) + kReth) * 8 / 400e9;
    EXPECT_NEAR((half - full).GetSeconds() / ser, 1.0, 0.03)
        << "full " << full.GetMicroSeconds() << " us, half " << half.GetMicroSeconds() << " us";
    cc = nullptr;
    Simulator::Destroy();
    // Stop() once per queue pair when it goes away: the requester's and the responder's.
    EXPECT_EQ(TestFixedFractionCc::stops, 2u);
}

TEST_F(FabricTest, ALossRecoveryDefinedInATestIsSelectedByTypeIdAndRecoversTheLoss)
{
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    rdma.SetLossRecovery("ns3::TestTimeoutOnlyRecovery");
    rdma.SetNicAttribute("RetransmitTimeout", TimeValue(MicroSeconds(50)));
    TwoHosts h(rdma);
    // Lose the first transmission of PSN 100 of a 1 MiB WRITE (256 packets).
    bool dropped = false;
    DropFirstRoceDataPsn(h.db, 100, &dropped);
    Completions done;
    h.qa->SetCompletionCallback(done.Cb());
    h.qa->PostWrite(1 << 20);
    Simulator::Run();
    Ptr<TestTimeoutOnlyRecovery> rec =
        DynamicCast<TestTimeoutOnlyRecovery>(h.qa->GetLossRecovery());
    ASSERT_TRUE(rec);
    EXPECT_TRUE(dropped);
    ASSERT_EQ(done.v.size(), 1u);
    EXPECT_EQ(done.v[0].status, RdmaCompletion::SUCCESS);
    EXPECT_EQ(h.qb->GetStats().bytesReceived, 1u << 20);
    // The responder discarded 101..255 (no out-of-order placement) and NAKed; the recovery
    // ignored the NAKs, so one timeout resent PSNs 100..255.
    EXPECT_GE(rec->nacks, 1u);
    EXPECT_EQ(rec->timeouts, 1u);
    EXPECT_EQ(h.qa->GetStats().timeouts, 1u);
    EXPECT_EQ(h.qa->GetStats().retransmittedPackets, 156u);
    EXPECT_GE(done.v[0].completed, MicroSeconds(50));
}

TEST_F(FabricTest, ACollectiveAlgorithmDefinedInATestIsSelectedByTypeIdAndRunsItsSchedule)
{
    const uint64_t bytes = 4 << 20;
    const uint32_t n = 4;
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    Cluster c = MakeJob(BuildStar(n),
                        "ns3::TestGatherBroadcastCollective",
                        "allreduce",
                        bytes,
                        1,
                        MilliSeconds(1),
                        false,
                        rdma);
    EXPECT_EQ(c.job->Check(), "");
    c.job->Start();
    Simulator::Run();
    ASSERT_TRUE(c.job->IsFinished());
    const std::vector<uint64_t> sent = c.job->GetBytesSentPerRank();
    EXPECT_EQ(sent[0], (n - 1) * bytes);
    for (uint32_t r = 1; r < n; ++r)
    {
        EXPECT_EQ(sent[r], bytes);
    }
    // alpha-beta: rank 0's link carries (n-1) buffers in, then (n-1) buffers out, at goodput.
    const double goodput = 400e9 * 4096.0 / (4096 + kRoceOverhead);
    const double model = 2.0 * (n - 1) * bytes * 8 / goodput;
    const double measured = c.job->GetSteps().at(0).CollectiveTime().GetSeconds();
    EXPECT_NEAR(measured / model, 1.0, 0.03) << measured * 1e6 << " us vs " << model * 1e6;
}

TEST_F(FabricTest, ACollectiveAlgorithmRefusesWhatItCannotRunThroughCheck)
{
    Ptr<TestGatherBroadcastCollective> alg = CreateObject<TestGatherBroadcastCollective>();
    CollectiveSpec spec;
    spec.op = CollectiveSpec::ALLGATHER;
    spec.ranks = 4;
    spec.bytes = 1024;
    EXPECT_EQ(alg->Check(spec), "test-gather-broadcast: allreduce only");
}

TEST_F(FabricTest, GpuTrainingAppStartTimeDelaysTheRankAndStopTimeEndsTheJob)
{
    auto run = [](Time start3, Time stop1) {
        Ptr<FabricTopology> topo = BuildStar(4);
        Cluster c =
            MakeJob(topo, "ns3::RingCollective", "allreduce", 1 << 20, 3, MilliSeconds(2), false);
        Ptr<Application> app3 = topo->GetHostNode(3)->GetApplication(0);
        app3->SetStartTime(start3);
        if (stop1.IsStrictlyPositive())
        {
            topo->GetHostNode(1)->GetApplication(0)->SetStopTime(stop1);
        }
        c.job->Start();
        Simulator::Run();
        struct Result
        {
            std::vector<TrainingStepRecord> steps;
            bool finished;
            bool stopped;
            uint32_t stoppedRank;
        } r{c.job->GetSteps(), c.job->IsFinished(), c.job->WasStopped(), c.job->GetStoppedRank()};
        Simulator::Destroy();
        return r;
    };
    auto base = run(Time(0), Time(0));
    ASSERT_EQ(base.steps.size(), 3u);
    EXPECT_FALSE(base.stopped);

    // Rank 3 starts 5 ms late: its first compute ends at 5 + 2 ms, and step 0 waits for it.
    auto late = run(MilliSeconds(5), Time(0));
    ASSERT_EQ(late.steps.size(), 3u);
    EXPECT_EQ(late.steps[0].computeEnd[3], MilliSeconds(7));
    EXPECT_EQ(late.steps[0].computeEnd[0], MilliSeconds(2));
    // 5 ms longer; within 1 us because the other ranks' first ring transfers already left while
    // rank 3 was late, so the collective after its compute queues a little differently.
    EXPECT_NEAR((late.steps[0].StepTime() - base.steps[0].StepTime()).GetNanoSeconds(), 5e6, 1e3);
    EXPECT_EQ(late.steps[0].waitedOn, 3u);
    EXPECT_EQ(late.steps[1].StepTime(), base.steps[1].StepTime()) << "later steps unchanged";

    // Rank 1 stops in the middle of step 1: step 0 stays recorded, the job ends there.
    const Time mid = base.steps[1].start + MilliSeconds(1);
    auto stopped = run(Time(0), mid);
    EXPECT_TRUE(stopped.finished);
    EXPECT_TRUE(stopped.stopped);
    EXPECT_EQ(stopped.stoppedRank, 1u);
    ASSERT_EQ(stopped.steps.size(), 1u);
    EXPECT_EQ(stopped.steps[0].barrier, base.steps[0].barrier);
}

TEST_F(FabricTest, AWindowBoundsTheBytesInFlightAndSlowsTheTransferByWindowPerRtt)
{
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::TestWindowTelemetryCc");
    rdma.SetCongestionControlAttribute("Window", UintegerValue(3 * 4096));
    rdma.SetNicAttribute("AckInterval", TimeValue(Time(0)));
    TwoHosts h(rdma);
    Completions done;
    h.qa->SetCompletionCallback(done.Cb());
    h.qa->PostWrite(1 << 20);
    Simulator::Run();
    ASSERT_EQ(done.v.size(), 1u);
    auto cc = DynamicCast<TestWindowTelemetryCc>(h.qa->GetCongestionOps());
    // Sent while below the window: at most three full packets in flight, and three were.
    EXPECT_EQ(cc->maxInFlight, 3u * 4096);
    EXPECT_EQ(h.qa->GetWindow(), 3u * 4096);
    EXPECT_EQ(h.qa->GetBytesInFlight(), 0u);
    // Window-bound: three packets per round trip. A packet's round trip on this cable is its
    // serialization, the ACK's, 3 m of propagation and the NIC's 300 ns receive latency each way.
    const double dataSer = (4096 + kRoceOverhead + FabricIntStack::kWireBytes) * 8 / 400e9;
    const double ackSer = (20 + 8 + 12 + 4 + 4 + 22 + 20) * 8 / 400e9;
    const double rtt = dataSer + ackSer + 2 * (15e-9 + 300e-9);
    const double fct = (done.v[0].completed - done.v[0].posted).GetSeconds();
    EXPECT_NEAR(fct / (256.0 / 3 * rtt), 1.0, 0.03) << fct * 1e6 << " us";
    // No telemetry without a switch on the path: a cable has no egress pipeline.
    EXPECT_TRUE(cc->hops.empty() || cc->hops.back().GetNHops() == 0);
    // Nor a hop in the ACKs' TTL.
    EXPECT_EQ(cc->ttlHopsMin, 0u);
    EXPECT_EQ(cc->ttlHopsMax, 0u);
}

TEST_F(FabricTest, SwitchesWriteTelemetryThatTheReceiverEchoesAndThatMeasuresTheLinkRate)
{
    Ptr<FabricTopology> topo = BuildStar(2);
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::TestWindowTelemetryCc");
    rdma.SetNicAttribute("AckInterval", TimeValue(Time(0)));
    rdma.Install(topo);
    Completions done;
    auto [qa, qb] = RdmaHelper::Connect(topo->GetHostNode(1), topo->GetHostNode(0));
    qa->SetCompletionCallback(done.Cb());
    qa->PostWrite(1 << 20);
    Simulator::Run();
    ASSERT_EQ(done.v.size(), 1u);
    auto cc = DynamicCast<TestWindowTelemetryCc>(qa->GetCongestionOps());
    // The INT header's 42 bytes ride on every data packet.
    EXPECT_EQ(cc->wire, 4096 + kRoceOverhead + FabricIntStack::kWireBytes);
    ASSERT_GT(cc->hops.size(), 100u) << "one echo per ACK, every packet acknowledged";
    for (const auto& st : cc->hops)
    {
        // One switch between the hosts, and the echo is sealed: the ACK's way back through the
        // switch added no hop.
        ASSERT_EQ(st.GetNHops(), 1u);
        EXPECT_EQ(st.GetHop(0).rateBps, 400000000000ULL);
    }
    // Every ACK crossed the one switch too: its TTL says so (RdmaAck::hops).
    EXPECT_EQ(cc->ttlHopsMin, 1u);
    EXPECT_EQ(cc->ttlHopsMax, 1u);
    // Two echoes far apart: the port's byte counter over the time between them is the rate of
    // one flow at line rate (wire bytes, so exactly the line rate while back to back).
    const FabricIntHop& a = cc->hops[20].GetHop(0);
    const FabricIntHop& b = cc->hops[200].GetHop(0);
    const double rate =
        (b.txBytes - a.txBytes) * 8.0 / TimeStep(b.timeStep - a.timeStep).GetSeconds();
    EXPECT_NEAR(rate / 400e9, 1.0, 0.01);
    // One flow on an uncongested port: at most a packet or two wait behind it.
    EXPECT_LE(cc->hops[200].GetHop(0).qlenBytes, 2u * (4096 + 200));
}

// RdmaQueuePair::RestartPacing (for congestion control leaving a slow paced regime, as Swift
// does when its window grows back to a packet) lets the next packet leave at once instead of
// after the gap the slow rate left: 1 Mb/s spaces 4198-byte packets by 33.6 ms.
TEST_F(FabricTest, RestartPacingLetsTheNextPacketLeaveAtOnce)
{
    for (bool restart : {false, true})
    {
        RdmaHelper rdma;
        rdma.SetCongestionControl("ns3::RdmaNoCc");
        TwoHosts h(rdma);
        h.qa->SetRate(DataRate("1Mbps"));
        Completions req;
        h.qa->SetCompletionCallback(req.Cb());
        h.qa->PostWrite(2 * 4096);
        Simulator::Schedule(MicroSeconds(5), [&h, restart] {
            h.qa->SetRate(h.qa->GetLineRate());
            if (restart)
            {
                h.qa->RestartPacing();
            }
        });
        Simulator::Run();
        ASSERT_EQ(req.v.size(), 1u);
        const Time done = req.v[0].completed;
        if (restart)
        {
            EXPECT_LT(done, MicroSeconds(10)) << "the second packet left at 5 us";
        }
        else
        {
            EXPECT_GT(done, MilliSeconds(33)) << "the second packet waited for the old gap";
        }
        Simulator::Destroy();
    }
}

// Every TypeId-valued attribute default of every registered type names a registered TypeId. A
// default computed with TypeId::LookupByName while the library's static constructors still run
// depends on their order (the link order, a unity build): it can yield TypeId 0, which release
// ns-3 does not check and which a later ObjectFactory::Create reads out of bounds.
TEST(TypeIdDefaults, EveryTypeIdAttributeDefaultIsARegisteredTypeId)
{
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        const TypeId tid = TypeId::GetRegistered(i);
        for (std::size_t j = 0; j < tid.GetAttributeN(); ++j)
        {
            const TypeId::AttributeInformation info = tid.GetAttribute(j);
            const auto* value = dynamic_cast<const TypeIdValue*>(PeekPointer(info.initialValue));
            if (value == nullptr)
            {
                continue;
            }
            EXPECT_NE(value->Get().GetUid(), 0)
                << tid.GetName() << "::" << info.name << " defaults to an unregistered TypeId";
        }
    }
}

// SPDX-License-Identifier: GPL-2.0-only
// ns-3 TestSuite "ai-fabric": smoke tests that run under ./test.py in an ns-3 source tree and
// under ai-fabric-ns3-tests in the standalone build. The thorough tests are the GoogleTest
// suites in the repository's test/ directory.
#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/priority-queue-scheduler.h"

using namespace ns3;

namespace
{

/// Two hosts on one switch: every datagram arrives, none is dropped, latency is analytic.
class FabricSmokeTestCase : public TestCase
{
  public:
    FabricSmokeTestCase()
        : TestCase("two hosts through one switch deliver every datagram")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
        star->SetAttribute("Servers", UintegerValue(2));
        star->SetAttribute("GpusPerServer", UintegerValue(1));
        Ptr<FabricTopology> topo = star->Build();

        Ptr<FabricTrafficSource> src = CreateObject<FabricTrafficSource>();
        src->SetAttribute("Remote", Ipv4AddressValue(topo->GetHostAddress(1)));
        src->SetAttribute("PayloadSize", UintegerValue(1000));
        src->SetAttribute("MaxBytes", UintegerValue(100 * 1000));
        topo->GetHostNode(0)->AddApplication(src);
        Ptr<FabricTrafficSink> sink = CreateObject<FabricTrafficSink>();
        topo->GetHostNode(1)->AddApplication(sink);
        Simulator::Stop(MilliSeconds(1));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(sink->GetReceivedPackets(), 100, "all datagrams delivered");
        NS_TEST_ASSERT_MSG_EQ(sink->GetReceivedBytes(), 100000, "all payload delivered");
        // First datagram: store-and-forward at the NIC, cut-through at the switch.
        // 1000 B payload + 28 IPv4/UDP + 22 Ethernet/802.1Q/FCS + 20 preamble/IFG = 1070 B.
        const double ser = 1070 * 8 / 400e9;
        const double prop = 3 * 5e-9;
        const double expected = prop + 500e-9 + prop + ser; // first bit -> switch -> last bit
        NS_TEST_ASSERT_MSG_EQ_TOL(sink->GetMinLatency().GetSeconds(),
                                  expected,
                                  1.01e-9,
                                  "one-packet latency");
        Simulator::Destroy();
    }
};

/// PFC thresholds of the buffer manager, driven directly without a simulation.
class BufferManagerPfcTestCase : public TestCase
{
  public:
    BufferManagerPfcTestCase()
        : TestCase("buffer manager sends XOFF at the threshold and XON below it")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<SwitchBufferManager> bm = CreateObject<SwitchBufferManager>();
        bm->SetAttribute("BufferSize", UintegerValue(10000000));
        bm->SetAttribute("PfcDynamicThreshold", BooleanValue(false));
        bm->SetAttribute("PfcStaticXoff", UintegerValue(10000));
        bm->SetAttribute("XonDelta", UintegerValue(2000));
        bm->SetAttribute("ReservedPerQueue", UintegerValue(0));
        bm->Configure(2, {50000, 50000});
        bool paused = false;
        uint32_t admitted = 0;
        while (!paused)
        {
            auto a = bm->Admit(0, 1, 3, 1000, true, false);
            NS_TEST_ASSERT_MSG_EQ(a.admitted, true, "lossless frames are admitted");
            paused = a.pause;
            ++admitted;
        }
        NS_TEST_ASSERT_MSG_EQ(admitted, 10, "XOFF after 10 x 1000 B");
        bool resumed = false;
        uint32_t released = 0;
        while (!resumed)
        {
            resumed = bm->Release(0, 1, 3, 1000, 1000, 0, true);
            ++released;
        }
        NS_TEST_ASSERT_MSG_EQ(released, 2, "XON once shared use <= 10000 - 2000 B");
    }
};

/// InfiniBand credit loop: a 4-packet buffer over 200 m limits one VL to buffer / credit RTT.
class IbCreditLoopTestCase : public TestCase
{
  public:
    IbCreditLoopTestCase()
        : TestCase("InfiniBand credits limit a VL to buffer over round trip, losslessly")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<Node> a = CreateObject<Node>();
        Ptr<Node> b = CreateObject<Node>();
        FabricLinkHelper link;
        link.SetLinkLayer(FabricNetDevice::INFINIBAND);
        const uint32_t packet = 4096 + 8 + 12 + 4 + 2; // payload + LRH, BTH, ICRC, VCRC
        link.SetFlowControlAttribute("RxBufferBytes",
                                     UintegerValue(4 * IbCreditFlowControl::Blocks(packet) * 64));
        NetDeviceContainer d = link.Install(a, b, DataRate("400Gbps"), 200.0);
        DynamicCast<FabricNetDevice>(d.Get(0))->SetIpv4Address(Ipv4Address(1u));
        DynamicCast<FabricNetDevice>(d.Get(1))->SetIpv4Address(Ipv4Address(2u));
        RdmaHelper rdma;
        rdma.SetCongestionControl("ns3::RdmaNoCc");
        rdma.Install(a);
        rdma.Install(b);
        auto qp = RdmaHelper::Connect(a, b);
        Time done;
        qp.second->SetReceiveCallback(
            MakeCallback(+[](Time* t, const RdmaCompletion& c) { *t = c.completed; }).Bind(&done));
        const uint64_t bytes = 4ULL << 20;
        qp.first->PostWrite(bytes);
        Simulator::Run();
        const double rtt = packet * 8 / 400e9 + 2 * 1e-6 + 300e-9 + 6 * 8 / 400e9;
        const double fixed = 300e-9 + 250e-9 + 1e-6 + 300e-9 + 250e-9;
        const double goodput = bytes * 8.0 / (done.GetSeconds() - fixed);
        NS_TEST_ASSERT_MSG_EQ_TOL(goodput / (4 * 4096.0 * 8 / rtt), 1.0, 0.01, "buffer / RTT");
        Ptr<IbCreditFlowControl> rx = DynamicCast<IbCreditFlowControl>(
            DynamicCast<FabricNetDevice>(d.Get(1))->GetFlowControl());
        NS_TEST_ASSERT_MSG_EQ(rx->GetOverruns(), 0, "never more than advertised");
        Simulator::Destroy();
    }
};

/// TimingWheelScheduler hands out events in the order of ns-3's PriorityQueueScheduler.
class TimingWheelOrderTestCase : public TestCase
{
  public:
    TimingWheelOrderTestCase()
        : TestCase("TimingWheelScheduler orders events like PriorityQueueScheduler")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TimingWheelScheduler> wheel = CreateObject<TimingWheelScheduler>();
        wheel->SetSlots(64);
        Ptr<PriorityQueueScheduler> reference = CreateObject<PriorityQueueScheduler>();
        uint64_t now = 0;
        uint32_t uid = 0;
        uint64_t lcg = 12345;
        auto next = [&lcg]() {
            lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
            return lcg >> 33;
        };
        for (int op = 0; op < 50000; ++op)
        {
            if (next() % 2 == 0 || wheel->IsEmpty())
            {
                // same step, near (inside the 64-slot wheel), just past it, or far away
                const uint64_t delays[4] = {0,
                                            next() % 64,
                                            60 + next() % 10,
                                            100000 + next() % 1000};
                Scheduler::Event ev;
                ev.impl = nullptr;
                ev.key.m_ts = now + delays[next() % 4];
                ev.key.m_uid = uid++;
                ev.key.m_context = 0;
                wheel->Insert(ev);
                reference->Insert(ev);
                continue;
            }
            const Scheduler::Event a = wheel->RemoveNext();
            const Scheduler::Event b = reference->RemoveNext();
            NS_TEST_ASSERT_MSG_EQ(a.key.m_uid, b.key.m_uid, "same event at operation " << op);
            now = a.key.m_ts;
        }
        NS_TEST_ASSERT_MSG_EQ(wheel->IsEmpty(), reference->IsEmpty(), "both empty or neither");
    }
};

/// A NIC storming PAUSE frames stalls a flow from a host it pauses; the PFC watchdog frees it.
class PfcWatchdogTestCase : public TestCase
{
  public:
    PfcWatchdogTestCase()
        : TestCase("a pause storm stalls its victim until the PFC watchdog drops the stormed queue")
    {
    }

  private:
    static void Done(Time* at, const RdmaCompletion& c)
    {
        if (c.status == RdmaCompletion::SUCCESS)
        {
            *at = Simulator::Now();
        }
    }

    /// \return when gpu1's write to gpu2 completed (-1 s: never), gpu0 storming from 1 ms
    Time Victim(bool watchdog)
    {
        Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
        star->SetAttribute("Servers", UintegerValue(3));
        star->SetAttribute("GpusPerServer", UintegerValue(1));
        Ptr<FabricTopology> topo = star->Build();
        RdmaHelper rdma;
        rdma.SetCongestionControl("ns3::RdmaNoCc");
        rdma.Install(topo);
        Ptr<FabricFaultInjector> inj = CreateObject<FabricFaultInjector>();
        inj->SetTopology(topo);
        Simulator::Schedule(MilliSeconds(1),
                            &FabricFaultInjector::SetPauseStorm,
                            inj,
                            topo->GetVertexLinks(0).front(),
                            0,
                            3,
                            true);
        Ptr<PfcWatchdog> wd = CreateObject<PfcWatchdog>();
        wd->SetAttribute("DetectionTime", TimeValue(MilliSeconds(20)));
        wd->SetAttribute("PollInterval", TimeValue(MilliSeconds(10)));
        if (watchdog)
        {
            wd->Install(topo->GetSwitch(0));
        }
        Time victim = Seconds(-1);
        Simulator::Schedule(MilliSeconds(2), [&]() {
            auto a = RdmaHelper::Connect(topo->GetHostNode(1), topo->GetHostNode(0));
            a.first->PostWrite(4 << 20);
            auto b = RdmaHelper::Connect(topo->GetHostNode(1), topo->GetHostNode(2));
            b.first->SetCompletionCallback(MakeBoundCallback(&PfcWatchdogTestCase::Done, &victim));
            b.first->PostWrite(4 << 20);
        });
        Simulator::Stop(MilliSeconds(100));
        Simulator::Run();
        if (watchdog)
        {
            NS_TEST_EXPECT_MSG_EQ(wd->GetStormsDetected(), 1, "one storm detected");
        }
        Simulator::Destroy();
        return victim;
    }

    void DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(Victim(false), Seconds(-1), "without the watchdog the victim stalls");
        const Time t = Victim(true);
        NS_TEST_ASSERT_MSG_GT(t, MilliSeconds(21), "not before detection");
        NS_TEST_ASSERT_MSG_LT(t, MilliSeconds(32), "within detection + a poll");
    }
};

/// Dual plane (HPN): a NIC port's link goes down mid-write; the queue pair fails over to the
/// other plane and the write completes without a timeout (with one plane it could not).
class DualPlaneFailoverTestCase : public TestCase
{
  public:
    DualPlaneFailoverTestCase()
        : TestCase("a dual-plane NIC's queue pair fails over when its port's link goes down")
    {
    }

  private:
    static void Done(RdmaCompletion* out, const RdmaCompletion& c)
    {
        *out = c;
    }

    void DoRun() override
    {
        Ptr<RailOptimizedFatTreeHelper> rail = CreateObject<RailOptimizedFatTreeHelper>();
        rail->SetAttribute("Servers", UintegerValue(2));
        rail->SetAttribute("GpusPerServer", UintegerValue(1));
        rail->SetAttribute("LeafRadix", UintegerValue(4));
        rail->SetAttribute("Planes", UintegerValue(2));
        Ptr<FabricTopology> topo = rail->Build();
        NS_TEST_ASSERT_MSG_EQ(topo->GetNHostPorts(0), 2, "a port per plane");
        RdmaHelper rdma;
        rdma.SetCongestionControl("ns3::RdmaNoCc");
        rdma.Install(topo);
        auto [a, b] = RdmaHelper::Connect(topo->GetHostNode(0), topo->GetHostNode(1), 0, 0, 0);
        RdmaCompletion done;
        done.status = RdmaCompletion::FLUSHED;
        a->SetCompletionCallback(MakeBoundCallback(&DualPlaneFailoverTestCase::Done, &done));
        a->PostWrite(8 << 20);
        Simulator::Schedule(MicroSeconds(50),
                            &FabricTopology::SetLinkUp,
                            topo,
                            topo->GetVertexLinks(0).front(),
                            false);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(done.status, RdmaCompletion::SUCCESS, "the write completes");
        NS_TEST_ASSERT_MSG_EQ(a->GetPort(), 1, "on the other plane's port");
        NS_TEST_ASSERT_MSG_EQ(a->GetStats().timeouts, 0, "no retransmission timeout");
        // 8 MiB at 200 Gb/s (2,048 packets of 4,182 wire bytes) plus what was lost: < 400 us.
        NS_TEST_ASSERT_MSG_LT(done.completed, MicroSeconds(400), "at the port rate");
        Simulator::Destroy();
    }
};

class AiFabricTestSuite : public TestSuite
{
  public:
    AiFabricTestSuite()
        : TestSuite("ai-fabric") // default type and duration: the enums moved in ns-3.4x
    {
        AddTestCase(new FabricSmokeTestCase);
        AddTestCase(new BufferManagerPfcTestCase);
        AddTestCase(new IbCreditLoopTestCase);
        AddTestCase(new TimingWheelOrderTestCase);
        AddTestCase(new PfcWatchdogTestCase);
        AddTestCase(new DualPlaneFailoverTestCase);
    }
};

AiFabricTestSuite g_aiFabricTestSuite;

} // namespace

// SPDX-License-Identifier: GPL-2.0-only
// HPCC (RdmaHpcc): its control law against updates computed by hand, and its behaviour on a
// packet-level incast (near-empty bottleneck queue, fair shares).
#include "test-util.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace ns3;

namespace
{

/// An ACK carrying one hop of telemetry.
struct HopAck
{
    FabricIntStack st;
    RdmaAck ack;

    HopAck(uint32_t ackedPsn, double us, uint64_t txBytes, uint32_t qlen)
    {
        FabricIntHop h;
        h.timeStep = MicroSeconds(us).GetTimeStep();
        h.txBytes = txBytes;
        h.qlenBytes = qlen;
        h.rateBps = 400000000000ULL;
        st.Push(h);
        ack.ackedPsn = ackedPsn;
        ack.rtt = MicroSeconds(10);
        ack.telemetry = &st;
    }
};

} // namespace

TEST_F(FabricTest, HpccControlLawMatchesUpdatesComputedByHand)
{
    RdmaHelper rdma;
    rdma.SetCongestionControl("ns3::RdmaNoCc");
    TwoHosts h(rdma); // a 400 Gb/s queue pair to drive by hand (nothing is sent)
    Ptr<RdmaHpcc> cc = CreateObject<RdmaHpcc>();
    cc->SetAttribute("BaseRtt", TimeValue(MicroSeconds(10)));
    cc->SetAttribute("MaxStage", UintegerValue(1));
    cc->Init(h.qa);
    // Wc = B * T = 400 Gb/s * 10 us = 500,000 B; W_AI = 10 Mb/s * 400/25 * T = 200 B.
    EXPECT_EQ(h.qa->GetWindow(), 500000u);
    EXPECT_EQ(h.qa->GetRate().GetBitRate(), 400000000000ULL);
    // 1: the first record, nothing to compare with: no change.
    cc->AckReceived(h.qa, HopAck(1, 0, 0, 0).ack);
    EXPECT_EQ(h.qa->GetWindow(), 500000u);
    // 2: 1 us later the port sent 50,000 B (txRate = B); the queue was empty at the previous
    // record, so min(qlen) = 0: u = 1, U = 0.9 * 1 + 0.1 * 1 = 1 >= eta, and this ACK is past
    // the last update: W = Wc / (U / 0.95) + 200 = 475,200 = Wc.
    cc->AckReceived(h.qa, HopAck(1, 1, 50000, 100000).ack);
    EXPECT_EQ(h.qa->GetWindow(), 475200u);
    EXPECT_DOUBLE_EQ(cc->GetReferenceWindow(), 475200);
    // 3: half the line rate, 100 KB queued both times: u = 0.5 + 800,000 bit / (B T) = 0.7,
    // U = 0.9 + 0.07 = 0.97: W = 475,200 * 0.95 / 0.97 + 200 (fast reaction: Wc unchanged).
    cc->AckReceived(h.qa, HopAck(0, 2, 75000, 100000).ack);
    EXPECT_NEAR(cc->GetUtilization(), 0.97, 1e-12);
    EXPECT_EQ(h.qa->GetWindow(), std::llround(475200 * 0.95 / 0.97 + 200));
    EXPECT_DOUBLE_EQ(cc->GetReferenceWindow(), 475200);
    EXPECT_EQ(h.qa->GetRate().GetBitRate(),
              static_cast<uint64_t>(std::llround(475200 * 0.95 / 0.97 + 200) * 8 / 10e-6));
    // 4: 20% of the line rate, queue drained: U = 0.9 * 0.97 + 0.02 = 0.893 < eta: additive
    // increase, W = Wc + W_AI = 475,400, one stage.
    cc->AckReceived(h.qa, HopAck(1, 3, 85000, 0).ack);
    EXPECT_NEAR(cc->GetUtilization(), 0.893, 1e-12);
    EXPECT_EQ(h.qa->GetWindow(), 475400u);
    // 5: still below eta (U = 0.8237), but MaxStage = 1 increase was made: multiplicative,
    // 475,400 * 0.95 / 0.8237 + 200 = 548,491 B, clamped to B * T.
    cc->AckReceived(h.qa, HopAck(1, 4, 95000, 0).ack);
    EXPECT_NEAR(cc->GetUtilization(), 0.8237, 1e-12);
    EXPECT_EQ(h.qa->GetWindow(), 500000u);
    EXPECT_EQ(h.qa->GetRate().GetBitRate(), 400000000000ULL);
}

namespace
{

/// Incast of `n` senders x `bytes` into host 0 of a 400G star (100 m cables) with `cc`; samples the
/// switch's port to host 0 every 200 ns while every sender is active. \return p99 of the queue
/// (bytes)
uint32_t
IncastQueueP99(const std::string& cc, uint32_t n, uint64_t bytes, double* jain, Time* last)
{
    // 100 m host cables (500 ns each way): a bandwidth-delay product of several packets per
    // flow, the regime HPCC's evaluation runs in (1 us links).
    Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
    star->SetAttribute("Servers", UintegerValue(n + 1));
    star->SetAttribute("GpusPerServer", UintegerValue(1));
    star->SetAttribute("HostCableLength", DoubleValue(100));
    Ptr<FabricTopology> topo = star->Build();
    RdmaHelper rdma;
    rdma.SetCongestionControl(cc);
    rdma.SetNicAttribute("AckInterval", TimeValue(Time(0)));
    rdma.Install(topo);
    Completions done;
    std::vector<Ptr<RdmaQueuePair>> senders = PostIncast(topo, n, bytes, done);
    Ptr<FabricNetDevice> port;
    Ptr<Node> sw = topo->GetSwitchNode(0);
    for (uint32_t i = 0; i < sw->GetNDevices(); ++i)
    {
        auto d = DynamicCast<FabricNetDevice>(sw->GetDevice(i));
        if (d && d->GetChannel() &&
            d->GetChannel()->GetDevice(0)->GetNode() == topo->GetHostNode(0))
        {
            port = d;
        }
        if (d && d->GetChannel() &&
            d->GetChannel()->GetDevice(1)->GetNode() == topo->GetHostNode(0))
        {
            port = d;
        }
    }
    EXPECT_TRUE(port);
    std::vector<uint32_t> q;
    // The fair share finishes everything at n * bytes / B; sample from 20% to 80% of it.
    const double ideal = n * bytes * 8.0 / 400e9;
    for (double t = 0.2 * ideal; t < 0.8 * ideal; t += 200e-9)
    {
        Simulator::Schedule(Seconds(t), [&q, port]() { q.push_back(port->GetQueueBytes(3)); });
    }
    std::vector<double> acked(n);
    Simulator::Schedule(Seconds(0.8 * ideal), [&]() {
        for (uint32_t i = 0; i < n; ++i)
        {
            acked[i] = senders[i]->GetSndUna();
        }
    });
    Simulator::Run();
    EXPECT_EQ(done.v.size(), n) << cc;
    *last = Time(0);
    for (const auto& c : done.v)
    {
        EXPECT_EQ(c.status, RdmaCompletion::SUCCESS);
        *last = std::max(*last, c.completed);
    }
    const double s = std::accumulate(acked.begin(), acked.end(), 0.0);
    double s2 = 0;
    for (double a : acked)
    {
        s2 += a * a;
    }
    *jain = s * s / (n * s2);
    std::sort(q.begin(), q.end());
    return q.empty() ? 0 : q[q.size() * 99 / 100];
}

} // namespace

TEST_F(FabricTest, HpccKeepsTheIncastBottleneckQueueNearEmptyAndSharesItFairly)
{
    for (uint32_t n : {2u, 16u})
    {
        double jain = 0;
        Time last;
        const uint32_t p99 = IncastQueueP99("ns3::RdmaHpcc", n, 4 << 20, &jain, &last);
        double dcqcnJain = 0;
        Time dcqcnLast;
        Simulator::Destroy();
        const uint32_t dcqcnP99 =
            IncastQueueP99("ns3::RdmaDcqcn", n, 4 << 20, &dcqcnJain, &dcqcnLast);
        Simulator::Destroy();
        std::cout << n << " senders: HPCC queue p99 " << p99 << " B, Jain " << jain << ", last "
                  << last.GetMicroSeconds() << " us; DCQCN p99 " << dcqcnP99 << " B, Jain "
                  << dcqcnJain << ", last " << dcqcnLast.GetMicroSeconds() << " us\n";
        // HPCC aims at U = eta < 1, i.e. no standing queue: what waits is the one-packet
        // overshoot of each window (in flight < W, then a full packet) while a flow reacts a
        // round trip late — a few packets, against DCQCN's queue between its ECN thresholds.
        EXPECT_LE(p99, 6u * 4224) << n << " senders";
        EXPECT_LT(p99 * 4, dcqcnP99) << n << " senders";
        EXPECT_GE(jain, 0.95) << n << " senders";
        // Utilization about eta: the last flow ends within 1/eta of the wire-time ideal, plus
        // 10% for the first round trip and the tail.
        const double ideal = n * (4 << 20) * (4224.0 / 4096) * 8 / 400e9;
        EXPECT_LT(last.GetSeconds(), ideal / 0.95 * 1.1) << n << " senders";
    }
}

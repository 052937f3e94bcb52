// SPDX-License-Identifier: GPL-2.0-only
// Switch buffer sizing (issue 17): PFC headroom per port x lossless class.
#include "test-util.h"

#include <algorithm>

using namespace ns3;

namespace
{

/// Largest value an Occupancy trace reported.
void
TrackPeak(uint64_t* peak, uint64_t, uint64_t now)
{
    *peak = std::max(*peak, now);
}

} // namespace

TEST_F(FabricTest, TwoLosslessClassesStayWithinTheBuffer)
{
    // 8 -> 1 incast on priorities 3 and 0, both lossless (the runner's lossless-TCP mask 0x09),
    // over 1000 m host cables so that what is in flight after XOFF (2 x 5 us x 50 B/ns = 500 KB
    // plus a few frames) is close to the headroom of 566 KB. The receiver holds both classes
    // paused, so nothing drains: the shared pool fills (XOFF only when it is exhausted), priority
    // 3 is paused on every ingress port and fills its headroom, then priority 0 starts and fills
    // its own. 16 headroom buckets fill at once; a buffer that reserved one bucket per port would
    // hold ~8 x 566 KB more than it has.
    Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
    star->SetAttribute("Servers", UintegerValue(9));
    star->SetAttribute("GpusPerServer", UintegerValue(1));
    star->SetAttribute("HostCableLength", DoubleValue(1000.0));
    star->SetBufferAttribute("PfcDynamicThreshold", BooleanValue(false));
    star->SetBufferAttribute("PfcStaticXoff", UintegerValue(1U << 30));
    star->GetLinkHelper().SetFlowControlAttribute("EnabledPriorities", UintegerValue(0x09));
    Ptr<FabricTopology> topo = star->Build();
    Ptr<SwitchBufferManager> bm = topo->GetSwitch(0)->GetBufferManager();
    const uint64_t perSource = 3 * 1024 * 1024;
    std::vector<Ptr<FabricTrafficSource>> srcs;
    for (uint32_t i = 1; i <= 8; ++i)
    {
        srcs.push_back(AddSource(topo->GetHostNode(i), topo->GetHostAddress(0), i, perSource));
        auto late = AddSource(topo->GetHostNode(i), topo->GetHostAddress(0), 100 + i, perSource);
        late->SetAttribute("Priority", UintegerValue(0));
        late->SetStartTime(MicroSeconds(150)); // after priority 3 is paused everywhere
        srcs.push_back(late);
    }
    Ptr<FabricTrafficSink> sink = AddSink(topo->GetHostNode(0));
    DropCounter drops;
    drops.ConnectAll();
    uint64_t tracedPeak = 0;
    bm->TraceConnectWithoutContext("Occupancy", MakeBoundCallback(&TrackPeak, &tracedPeak));
    Ptr<PfcFlowControl> rx = DynamicCast<PfcFlowControl>(topo->GetHostDevice(0)->GetFlowControl());
    ASSERT_TRUE(rx);
    for (uint8_t p : {0, 3})
    {
        Simulator::Schedule(NanoSeconds(1), &PfcFlowControl::SetIngressCongested, rx, p, true);
        Simulator::Schedule(MicroSeconds(400), &PfcFlowControl::SetIngressCongested, rx, p, false);
    }
    uint64_t usedWhileHeld = 0;
    Simulator::Schedule(MicroSeconds(399), [&] { usedWhileHeld = bm->GetUsedBytes(); });
    Simulator::Run();
    // The scenario really filled the buffer: pool, plus priority 3's and priority 0's headroom
    // on all 8 ingress ports at more than half of a bucket each.
    EXPECT_GT(usedWhileHeld, bm->GetSharedPoolSize() + 8 * bm->GetHeadroom(1));
    EXPECT_LE(tracedPeak, bm->GetBufferSize());
    EXPECT_LE(bm->GetPeakUsedBytes(), bm->GetBufferSize());
    EXPECT_EQ(drops.Total(), 0u);
    EXPECT_EQ(sink->GetReceivedBytes(), 16 * perSource);
    EXPECT_EQ(bm->GetUsedBytes(), 0u);
}

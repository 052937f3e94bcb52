// SPDX-License-Identifier: GPL-2.0-only
// Every DCQCN preset, as the runner configures it (its CNP pacing, ECN kept ahead of PFC):
// two flows on one 400G bottleneck reach a fair share within 5 ms.
#include "test-util.h"

#include <string>

using namespace ns3;

namespace
{

struct Preset
{
    const char* name;
    Time cnpInterval;
};

class DcqcnPresetTest : public FabricTest, public ::testing::WithParamInterface<Preset>
{
};

double
Jain(double a, double b)
{
    return (a + b) * (a + b) / (2 * (a * a + b * b));
}

} // namespace

TEST_P(DcqcnPresetTest, TwoFlowsShareOneBottleneckFairlyWithin5Ms)
{
    Config::SetDefault("ns3::SwitchBufferManager::EcnBelowXoff", BooleanValue(true));
    Ptr<FabricTopology> topo = BuildStar(3);
    topo->AssignStreams(1);
    RdmaHelper rdma;
    rdma.SetCongestionControlAttribute("Preset", StringValue(GetParam().name));
    rdma.SetNicAttribute("CnpInterval", TimeValue(GetParam().cnpInterval));
    rdma.Install(topo);
    auto f1 = RdmaHelper::Connect(topo->GetHostNode(1), topo->GetHostNode(0));
    auto f2 = RdmaHelper::Connect(topo->GetHostNode(2), topo->GetHostNode(0));
    f1.first->PostWrite(400ULL << 20);
    // The second flow starts 200 us later, when the first has the link to itself.
    Simulator::Schedule(MicroSeconds(200), [&] { f2.first->PostWrite(400ULL << 20); });
    uint64_t b1 = 0;
    uint64_t b2 = 0;
    Simulator::Schedule(MilliSeconds(3), [&] {
        b1 = f1.second->GetStats().bytesReceived;
        b2 = f2.second->GetStats().bytesReceived;
    });
    double r1 = 0;
    double r2 = 0;
    Simulator::Schedule(MilliSeconds(5), [&] {
        r1 = double(f1.second->GetStats().bytesReceived - b1) * 8 / 2e-3;
        r2 = double(f2.second->GetStats().bytesReceived - b2) * 8 / 2e-3;
        Simulator::Stop();
    });
    Simulator::Run();
    EXPECT_GE(Jain(r1, r2), 0.95) << "rates " << r1 / 1e9 << " and " << r2 / 1e9 << " Gb/s";
    // Both together keep the 400G bottleneck busy (4 KiB payload of a 4,178-byte frame).
    EXPECT_GT((r1 + r2) / 1e9, 0.9 * 400 * 4096 / 4178.0);
    EXPECT_GT(f1.first->GetStats().cnpsReceived + f2.first->GetStats().cnpsReceived, 0u);
}

INSTANTIATE_TEST_SUITE_P(Presets,
                         DcqcnPresetTest,
                         ::testing::Values(Preset{"paper", MicroSeconds(50)},
                                           Preset{"nvidia", MicroSeconds(4)},
                                           Preset{"production", MicroSeconds(4)}),
                         [](const ::testing::TestParamInfo<Preset>& i) {
                             return std::string(i.param.name);
                         });

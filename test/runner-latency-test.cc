// SPDX-License-Identifier: GPL-2.0-only
// Message latency GPU to GPU: the idle 1 KiB probe of a run against first principles, and the
// loaded quantiles of a run's own messages in summary.json.
#include "process-util.h"
#include "run-probe.h"
#include "scenario.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace
{

using nlohmann::json;

aifabric::RunConfig
TwoLeaves(const std::string& fabric)
{
    // Two GPUs, one per leaf of radix 2, one spine: leaf, spine, leaf.
    json j = json::parse(R"({"topology": {"kind": "fat-tree", "servers": 2, "gpus_per_server": 1,
                            "leaf_radix": 2}, "workload": {"steps": 1}})");
    j["fabric"] = fabric;
    return aifabric::ResolveScenario(j).at(0);
}

} // namespace

// RDMA, one way: NIC (300 ns) + PCIe read (250 ns) + three cut-through switches of 500 ns + two
// 3 m host cables and two 50 m fabric cables at 5 ns/m + NIC receive (300 ns) + PCIe write
// (250 ns), plus one 1 KiB frame's serialization at 400G (~22 ns) and less than that again.
// Kernel TCP adds the host path, above all the receive interrupt's coalescing (mlx5: 16 us).
TEST(RunnerLatencyTest, IdleProbeIsTheUnloadedPathGpuToGpu)
{
    const json rdma = aifabric::IdleMessageProbe(TwoLeaves("rocev2"));
    const double path = 0.3 + 0.25 + 3 * 0.5 + (2 * 3 + 2 * 50) * 0.005 + 0.3 + 0.25;
    const double frame = (1024 + 82) * 8 / 400e3; // us
    EXPECT_EQ(rdma["bytes"].get<uint64_t>(), 1024u);
    EXPECT_EQ(rdma["dst"].get<uint32_t>(), 1u);
    EXPECT_GE(rdma["us"].get<double>(), path + frame);
    EXPECT_LT(rdma["us"].get<double>(), path + 2 * frame);
    const json tcp = aifabric::IdleMessageProbe(TwoLeaves("tcp"));
    EXPECT_GT(tcp["us"].get<double>(), rdma["us"].get<double>() + 16.0);
}

TEST(RunnerLatencyTest, SummaryHasMessageLatencyAndTheIdleProbe)
{
    const auto dir = ScratchDir("msg-latency");
    const auto out = dir / "run";
    Result r = Runner("--set topology.kind=star --set topology.servers=2"
                      " --set topology.gpus_per_server=1 --set workload.steps=1"
                      " --set workload.compute_ms=0.1 --set workload.bytes=1048576"
                      " --set workload.algorithm=ring --set compare=[] --out " +
                      out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    const json s = json::parse(ReadFile(out / "summary.json"));
    const json& m = s["message_latency_us"];
    EXPECT_GT(m["messages"].get<uint64_t>(), 0u);
    EXPECT_GT(m["p50"].get<double>(), 0.0);
    EXPECT_LE(m["p50"].get<double>(), m["p99"].get<double>());
    EXPECT_LE(m["p99"].get<double>(), m["max"].get<double>() * 1.01);
    // A message carries at least one packet NIC to NIC, and the NIC and PCIe on both ends.
    EXPECT_GT(m["p50"].get<double>(), s["network_latency_us"]["p50"].get<double>() + 1.0);
    EXPECT_GT(s["idle_message_latency_us"]["us"].get<double>(), 1.0);
    std::filesystem::remove_all(dir);
}

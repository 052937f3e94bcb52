// SPDX-License-Identifier: GPL-2.0-only
// The scenario runner's resolution as the run will see it: the tuner's choice with the run's
// NVLink, and the memory estimate made before anything is built.
#include "memory-estimate.h"
#include "process-util.h"
#include "scenario.h"

#include <cstdio>
#include <gtest/gtest.h>
#include <string>

using nlohmann::json;

namespace
{

// auto asks the tuner with the NVLink the run will have: a 20 us NVLink Latency attribute makes
// the ring's 224 NVLink hops per lap cost more than NVLS-Tree's three NVLink operations; with
// gpu.nvls off (an A100-class switch), more than the tree's 14 (the tree then beats the
// hierarchical algorithm's 14 NVLink hops on its 2 log2(16) network hops against 30).
TEST(RunnerTest, AutoSeesTheScenariosNvlinkAttributes)
{
    json j =
        aifabric::LoadScenarioFile(std::string(AIFABRIC_SOURCE_DIR) + "/scenarios/default.json");
    j.erase("compare");
    EXPECT_EQ(aifabric::ResolveScenario(j)[0].workload.algorithm, "ring");
    j["attributes"]["ns3::NvlinkTransport::Latency"] = "20us";
    EXPECT_EQ(aifabric::ResolveScenario(j)[0].workload.algorithm, "nvls-tree");
    j["gpu"]["nvls"] = "off";
    EXPECT_EQ(aifabric::ResolveScenario(j)[0].workload.algorithm, "tree");
}

// The memory estimate refuses a 65,536-GPU All-to-All (N² transfers) before building anything
// and stays far below the machine for the default cluster. (It was written for a 65,536-GPU
// hierarchical run, which grew past 4 GB in 47 s; its rail rings now run lazily.)
TEST(RunnerTest, MemoryIsEstimatedBeforeBuilding)
{
    json j =
        aifabric::LoadScenarioFile(std::string(AIFABRIC_SOURCE_DIR) + "/scenarios/default.json");
    const aifabric::MemoryEstimate small =
        aifabric::EstimateMemory(aifabric::ResolveScenario(j)[0]);
    EXPECT_LT(small.bytes, 1e9);
    EXPECT_EQ(small.hosts, 128u);
    // Ring AllReduce on 8 channels (auto: one per NIC), run lazily: no transfer written out.
    EXPECT_EQ(small.transfers, 0u);
    j["workload"]["algorithm"] = "hierarchical";
    const aifabric::MemoryEstimate hier = aifabric::EstimateMemory(aifabric::ResolveScenario(j)[0]);
    // Hierarchical AllReduce, G = 8, M = 16: 2 M G (G-1) intra-server transfers and a mark
    // per rank; the rail rings (G 2 (M-1) M transfers) run lazily.
    EXPECT_EQ(hier.transfers, 2u * 16 * 8 * 7 + 128u);
    j.erase("compare");
    j["topology"]["servers"] = 8192;
    j["topology"]["leaf_radix"] = 4096;
    j["limits"]["max_memory_gb"] = 1e6;
    const aifabric::MemoryEstimate lazyRails =
        aifabric::EstimateMemory(aifabric::ResolveScenario(j)[0]);
    EXPECT_LT(lazyRails.transfers, 2e6) << "hierarchical: the intra-server phases, linear";
    j["workload"]["collective"] = "alltoall";
    j["workload"]["algorithm"] = "ring";
    const aifabric::MemoryEstimate big = aifabric::EstimateMemory(aifabric::ResolveScenario(j)[0]);
    EXPECT_GT(big.bytes, 24e9) << big.Describe();
}

// The estimate's switch ports are the ports the rail fat-tree has (both ends of every link but a
// host's), for three tiers and for planes; its forwarding entries are those FabricTopology keeps
// (hosts below each switch and one default route up): the 16k fabric's 4.7 M, not 21 M.
TEST(RunnerTest, MemoryEstimateCountsThreeTierAndPlaneFabricsAsBuilt)
{
    json j =
        aifabric::LoadScenarioFile(std::string(AIFABRIC_SOURCE_DIR) + "/scenarios/default.json");
    j.erase("compare");
    j["topology"]["servers"] = 300; // 3 tiers (auto)
    for (int planes : {1, 2})
    {
        j["topology"]["planes"] = planes;
        const aifabric::MemoryEstimate e =
            aifabric::EstimateMemory(aifabric::ResolveScenario(j)[0]);
        const Result t = RunCommand(
            std::string(AIFABRIC_TOPOLOGY) +
                " --set topology.servers=300 --set topology.planes=" + std::to_string(planes),
            "estimate-topology");
        ASSERT_EQ(t.status, 0) << t.err;
        unsigned links = 0;
        unsigned hostLinks = 0;
        const size_t at = t.out.find(", links ");
        ASSERT_NE(at, std::string::npos) << t.out;
        ASSERT_EQ(std::sscanf(t.out.c_str() + at, ", links %u (%u host-leaf", &links, &hostLinks),
                  2)
            << t.out;
        EXPECT_EQ(e.switchPorts, 2u * links - hostLinks) << planes << " planes: " << t.out;
    }
    // 16,384 GPUs: 512 leaves (32 hosts each), 16 pods of 32 spines (1,024 hosts below each),
    // 256 cores (every host): 16,384 + 512 + 512 x 1,025 + 256 x 16,384 entries.
    j["topology"]["servers"] = 2048;
    j["topology"]["planes"] = 1;
    j["limits"]["max_memory_gb"] = 1e6;
    const aifabric::MemoryEstimate big = aifabric::EstimateMemory(aifabric::ResolveScenario(j)[0]);
    EXPECT_EQ(big.routes, 16384u + 512 + 512u * 1025 + 256u * 16384);
    EXPECT_EQ(big.switchPorts, 16384u + 2 * 16384 + 2 * 16384);
}

} // namespace

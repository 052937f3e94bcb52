// SPDX-License-Identifier: GPL-2.0-only
// The runner's SHARP, DCQCN-production, HPCC, TIMELY and Swift keys: what auto chooses with SHARP
// switches and what the simulation builder builds for each.
#include "scenario-tuning.h"
#include "scenario.h"
#include "simulation-builder.h"

#include "ns3/ai-fabric-module.h"
#include "ns3/config.h"

#include <gtest/gtest.h>

using nlohmann::json;

// With SHARP switches auto weighs CollNet too: on the default cluster at 64 MiB it beats the
// ring (one network round trip per chunk instead of 254 steps); without SHARP it is no
// candidate.
TEST(RunnerTest, SharpSwitchesMakeCollNetACandidate)
{
    json j =
        aifabric::LoadScenarioFile(std::string(AIFABRIC_SOURCE_DIR) + "/scenarios/default.json");
    j.erase("compare");
    j["fabric"] = "infiniband";
    EXPECT_NE(aifabric::ResolveScenario(j)[0].workload.algorithm, "collnet");
    j["infiniband"]["sharp"] = true;
    const aifabric::RunConfig r = aifabric::ResolveScenario(j)[0];
    EXPECT_EQ(r.workload.algorithm, "collnet");
    EXPECT_EQ(r.workload.protocol, ns3::CollectiveProtocol::SIMPLE);
    EXPECT_EQ(aifabric::AggregationLevels(r), 1u) << "16 servers: one leaf per rail";
    j["topology"]["servers"] = 64;
    EXPECT_EQ(aifabric::AggregationLevels(aifabric::ResolveScenario(j)[0]), 2u)
        << "64 servers on 32-down-port leaves: two leaves per rail and a spine";
}

// What the runner builds for SHARP (an aggregation node and its NIC per switch) and for the
// production DCQCN preset (the switches' ECN at 100 / 400 KB x 400/25, Pmax 0.2).
TEST(RunnerTest, SharpAndProductionDcqcnBuildWhatTheySay)
{
    json j =
        aifabric::LoadScenarioFile(std::string(AIFABRIC_SOURCE_DIR) + "/scenarios/default.json");
    j.erase("compare");
    j["topology"]["servers"] = 2;
    j["fabric"] = "infiniband";
    j["infiniband"]["sharp"] = true;
    aifabric::Simulation sim = aifabric::BuildSimulation(aifabric::ResolveScenario(j)[0]);
    EXPECT_EQ(sim.topo->GetNHosts(), 16u);
    EXPECT_EQ(sim.topo->GetNAggregators(), sim.topo->GetNSwitches());
    EXPECT_EQ(sim.nics.size(), 16u + sim.topo->GetNSwitches());
    EXPECT_EQ(sim.job->GetSpec().inNetwork->Aggregators(), sim.topo->GetNSwitches());
    ns3::Simulator::Destroy();
    j["fabric"] = "rocev2";
    j["infiniband"]["sharp"] = false;
    j["congestion_control"] = "dcqcn-production";
    sim = aifabric::BuildSimulation(aifabric::ResolveScenario(j)[0]);
    ns3::UintegerValue kmin;
    ns3::UintegerValue kmax;
    ns3::DoubleValue pmax;
    sim.topo->GetSwitch(0)->GetBufferManager()->GetAttribute("EcnKmin", kmin);
    sim.topo->GetSwitch(0)->GetBufferManager()->GetAttribute("EcnKmax", kmax);
    sim.topo->GetSwitch(0)->GetBufferManager()->GetAttribute("EcnPmax", pmax);
    // 100 / 400 KB x 400G / 25G = 1.6 / 6.4 MB, scaled (ratio kept) under the first XOFF: one
    // ingress port filling one egress queue of the empty buffer, alpha x shared / (1 + alpha).
    const double xoff = double(sim.topo->GetSwitch(0)->GetBufferManager()->GetXoffThreshold());
    ASSERT_LT(xoff / 1.125, 6.4e6) << "this fabric's switches are small enough to scale it";
    EXPECT_NEAR(double(kmax.Get()), xoff / 1.125, 2.0);
    EXPECT_NEAR(double(kmin.Get()), double(kmax.Get()) / 4, 2.0);
    EXPECT_DOUBLE_EQ(pmax.Get(), 0.2);
    ns3::Simulator::Destroy();
    ns3::Config::Reset();
}

// congestion_control hpcc: every queue pair runs HPCC with telemetry, every packet acknowledged;
// a collective completes; InfiniBand refuses it with one line naming the field.
TEST(RunnerTest, HpccRunsACollectiveWithTelemetryAndIsRefusedOnInfiniBand)
{
    json j =
        aifabric::LoadScenarioFile(std::string(AIFABRIC_SOURCE_DIR) + "/scenarios/default.json");
    j.erase("compare");
    j["topology"]["servers"] = 2;
    j["fabric"] = "rocev2";
    j["congestion_control"] = "hpcc";
    j["workload"]["steps"] = 1;
    j["workload"]["compute_ms"] = 1;
    j["workload"]["bytes"] = 1 << 20;
    aifabric::Simulation sim = aifabric::BuildSimulation(aifabric::ResolveScenario(j)[0]);
    ns3::TimeValue ackInterval;
    sim.nics[0]->GetAttribute("AckInterval", ackInterval);
    EXPECT_EQ(ackInterval.Get(), ns3::Time(0));
    ns3::Simulator::ScheduleNow(&ns3::TrainingJob::Start, sim.job);
    ns3::Simulator::Stop(ns3::Seconds(0.05));
    ns3::Simulator::Run();
    uint64_t hpccQps = 0;
    uint64_t data = 0;
    for (const auto& nic : sim.nics)
    {
        for (uint32_t q = 1; q <= nic->GetNQueuePairs(); ++q)
        {
            hpccQps += nic->GetQueuePair(q)->GetCongestionOps()->GetName() == "hpcc";
        }
        data += nic->GetCounters().dataPacketsSent;
    }
    EXPECT_GT(hpccQps, 0u);
    EXPECT_GT(data, 0u);
    EXPECT_FALSE(sim.job->GetSteps().empty()) << "a training step with its collectives ran";
    ns3::Simulator::Destroy();
    j["fabric"] = "infiniband";
    try
    {
        aifabric::ResolveScenario(j);
        ADD_FAILURE() << "hpcc on infiniband accepted";
    }
    catch (const aifabric::ScenarioError& e)
    {
        EXPECT_NE(std::string(e.what()).find("congestion_control"), std::string::npos);
    }
    ns3::Config::Reset();
}

// congestion_control timely and swift: RTT-based, they need no switch support, so they run on
// RoCEv2 and on InfiniBand; every queue pair runs the algorithm, every packet is acknowledged
// (no coalescing wait in the RTT samples) and a collective completes.
TEST(RunnerTest, TimelyAndSwiftRunACollectiveOnRoceAndInfiniBand)
{
    json j =
        aifabric::LoadScenarioFile(std::string(AIFABRIC_SOURCE_DIR) + "/scenarios/default.json");
    j.erase("compare");
    j["topology"]["servers"] = 2;
    j["workload"]["steps"] = 1;
    j["workload"]["compute_ms"] = 1;
    j["workload"]["bytes"] = 1 << 20;
    for (const char* cc : {"timely", "swift"})
    {
        for (const char* fabric : {"rocev2", "infiniband"})
        {
            j["fabric"] = fabric;
            j["congestion_control"] = cc;
            const aifabric::RunConfig r = aifabric::ResolveScenario(j)[0];
            EXPECT_EQ(r.fabric.congestionControl, cc);
            aifabric::Simulation sim = aifabric::BuildSimulation(r);
            ns3::TimeValue ackInterval;
            sim.nics[0]->GetAttribute("AckInterval", ackInterval);
            EXPECT_EQ(ackInterval.Get(), ns3::Time(0)) << cc << " on " << fabric;
            ns3::Simulator::ScheduleNow(&ns3::TrainingJob::Start, sim.job);
            ns3::Simulator::Stop(ns3::Seconds(0.05));
            ns3::Simulator::Run();
            uint64_t qps = 0;
            uint64_t others = 0;
            uint64_t data = 0;
            for (const auto& nic : sim.nics)
            {
                for (uint32_t q = 1; q <= nic->GetNQueuePairs(); ++q)
                {
                    const bool mine = nic->GetQueuePair(q)->GetCongestionOps()->GetName() == cc;
                    qps += mine;
                    others += !mine;
                }
                data += nic->GetCounters().dataPacketsSent;
            }
            EXPECT_GT(qps, 0u) << cc << " on " << fabric;
            EXPECT_EQ(others, 0u) << cc << " on " << fabric;
            EXPECT_GT(data, 0u) << cc << " on " << fabric;
            EXPECT_FALSE(sim.job->GetSteps().empty())
                << cc << " on " << fabric << ": a training step with its collectives ran";
            ns3::Simulator::Destroy();
        }
    }
    // The refusals name them among the algorithms allowed on each fabric.
    j["congestion_control"] = "hpcc";
    try
    {
        aifabric::ResolveScenario(j);
        ADD_FAILURE() << "hpcc on infiniband accepted";
    }
    catch (const aifabric::ScenarioError& e)
    {
        // (The allowed list is the registry's: a test binary may register more.)
        const std::string what = e.what();
        for (const char* cc : {" swift,", " timely"})
        {
            EXPECT_NE(what.find(cc), std::string::npos) << e.what();
        }
    }
    ns3::Config::Reset();
}

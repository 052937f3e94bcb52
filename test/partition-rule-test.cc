// SPDX-License-Identifier: GPL-2.0-only
//
// FabricTopologyHelper::SetPartition (issue 45): every topology's nodes dealt to MPI ranks so
// that no host cable crosses ranks, hosts spread evenly, every rank used. The rule's answers
// (GetSystemIdOf) are checked against the cables of the same topology built on one rank.

#include "test-util.h"

#include <set>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

struct Dealt
{
    uint32_t cutCables{0};
    uint32_t hostCablesCut{0};
    std::vector<uint32_t> hostsPerRank;
    std::set<uint32_t> ranksUsed;
};

Dealt
Deal(Ptr<FabricTopologyHelper> h, uint32_t ranks)
{
    // The rule's answer for every node, then the same topology built on one rank (a build
    // across ranks needs ns-3's MPI engine: test/mpi does that).
    h->SetPartition(1);
    Ptr<FabricTopology> topo = h->Build();
    h->SetPartition(ranks);
    Dealt d;
    d.hostsPerRank.assign(ranks, 0);
    std::vector<uint32_t> rankOf(topo->GetNHosts() + topo->GetNSwitches());
    for (uint32_t i = 0; i < topo->GetNHosts(); ++i)
    {
        rankOf[i] = h->GetSystemIdOf("host", i);
        EXPECT_LT(rankOf[i], ranks);
        ++d.hostsPerRank[rankOf[i]];
        d.ranksUsed.insert(rankOf[i]);
    }
    for (uint32_t j = 0; j < topo->GetNSwitches(); ++j)
    {
        const uint32_t r = h->GetSystemIdOf(topo->GetSwitchRole(j), j);
        EXPECT_LT(r, ranks);
        rankOf[topo->GetNHosts() + j] = r;
        d.ranksUsed.insert(r);
    }
    for (const FabricLinkInfo& l : topo->GetLinks())
    {
        if (rankOf[l.a] != rankOf[l.b])
        {
            ++d.cutCables;
            if (l.a < topo->GetNHosts() || l.b < topo->GetNHosts())
            {
                ++d.hostCablesCut;
            }
        }
    }
    return d;
}

/// `h` dealt to `ranks`: no host cable cut, some switch cable cut, every rank used, the same
/// number of hosts on each.
void
ExpectDealtWell(Ptr<FabricTopologyHelper> h,
                uint32_t ranks,
                uint32_t hosts,
                const std::string& what)
{
    const Dealt d = Deal(h, ranks);
    EXPECT_EQ(d.hostCablesCut, 0u) << what << ", " << ranks << " ranks";
    EXPECT_GT(d.cutCables, 0u) << what;
    EXPECT_EQ(d.ranksUsed.size(), ranks) << what;
    for (uint32_t n : d.hostsPerRank)
    {
        EXPECT_EQ(n, hosts / ranks) << what;
    }
}

class PartitionRuleTest : public FabricTest
{
};

TEST_F(PartitionRuleTest, LeafSpineDealsLeavesWithTheirHosts)
{
    for (uint32_t ranks : {2u, 4u})
    {
        // 16 hosts, radix 8: 4 leaves of 4 hosts, 4 spines.
        Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
        ft->SetAttribute("Servers", UintegerValue(16));
        ft->SetAttribute("GpusPerServer", UintegerValue(1));
        ft->SetAttribute("LeafRadix", UintegerValue(8));
        EXPECT_EQ(ft->GetPartitionGroups(), 4u);
        ExpectDealtWell(ft, ranks, 16, "leaf-spine");
    }
}

TEST_F(PartitionRuleTest, KAryFatTreeDealsPods)
{
    for (uint32_t ranks : {2u, 4u})
    {
        // k = 4: 4 pods of 4 hosts (2 edges, 2 aggregation switches each), 4 cores.
        Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
        ft->SetAttribute("Servers", UintegerValue(16));
        ft->SetAttribute("GpusPerServer", UintegerValue(1));
        ft->SetAttribute("Tiers", UintegerValue(3));
        EXPECT_EQ(ft->GetPartitionGroups(), 4u);
        ExpectDealtWell(ft, ranks, 16, "k = 4");
    }
}

TEST_F(PartitionRuleTest, RailFabricDealsServerBlocksWithTheirRailLeaves)
{
    for (uint32_t planes : {1u, 2u})
    {
        for (uint32_t ranks : {2u, 4u})
        {
            // 16 servers x 8 GPUs, radix 8: blocks of 4 servers, each with a leaf per rail
            // (and plane).
            Ptr<RailOptimizedFatTreeHelper> h = CreateObject<RailOptimizedFatTreeHelper>();
            h->SetAttribute("Servers", UintegerValue(16));
            h->SetAttribute("GpusPerServer", UintegerValue(8));
            h->SetAttribute("LeafRadix", UintegerValue(8));
            h->SetAttribute("Planes", UintegerValue(planes));
            EXPECT_EQ(h->GetPartitionGroups(), 4u);
            ExpectDealtWell(h, ranks, 128, "rail, " + std::to_string(planes) + " plane(s)");
        }
    }
}

TEST_F(PartitionRuleTest, FewerGroupsThanRanksDealsWholeServersCuttingHostCables)
{
    for (uint32_t ranks : {2u, 4u})
    {
        // The default cluster's shape: 16 servers x 8 GPUs under one leaf per rail (radix 64),
        // a single group. Whole servers go to ranks; host cables are cut.
        Ptr<RailOptimizedFatTreeHelper> h = CreateObject<RailOptimizedFatTreeHelper>();
        h->SetAttribute("Servers", UintegerValue(16));
        h->SetAttribute("GpusPerServer", UintegerValue(8));
        EXPECT_EQ(h->GetPartitionGroups(), 1u);
        const Dealt d = Deal(h, ranks);
        EXPECT_GT(d.hostCablesCut, 0u);
        EXPECT_EQ(d.ranksUsed.size(), ranks);
        for (uint32_t n : d.hostsPerRank)
        {
            EXPECT_EQ(n, 128 / ranks);
        }
        for (uint32_t g = 0; g < 128; ++g)
        {
            EXPECT_EQ(h->GetSystemIdOf("host", g), h->GetSystemIdOf("host", g / 8 * 8)) << g;
        }
    }
}

TEST_F(PartitionRuleTest, MoreRanksThanServersIsRefusedNamingRanks)
{
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("Servers", UintegerValue(16));
    ft->SetAttribute("GpusPerServer", UintegerValue(1));
    ft->SetAttribute("LeafRadix", UintegerValue(8));
    ft->SetPartition(17);
    try
    {
        ft->Build();
        FAIL() << "17 ranks for 16 servers were accepted";
    }
    catch (const FabricConfigError& e)
    {
        EXPECT_EQ(e.GetParameter(), "Ranks");
        EXPECT_NE(std::string(e.what()).find("4 partition groups"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("16 servers"), std::string::npos) << e.what();
    }
}

TEST_F(PartitionRuleTest, AServerSplitBetweenRanksIsRefused)
{
    // 4 servers x 6 GPUs on leaves of 8 hosts: server 1's GPUs fall under leaves 0 and 1.
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("Servers", UintegerValue(4));
    ft->SetAttribute("GpusPerServer", UintegerValue(6));
    ft->SetAttribute("LeafRadix", UintegerValue(16));
    ft->SetPartition(3);
    try
    {
        ft->CheckPartition();
        FAIL() << "a server split between ranks was accepted";
    }
    catch (const FabricConfigError& e)
    {
        EXPECT_EQ(e.GetParameter(), "Ranks");
        EXPECT_NE(std::string(e.what()).find("server 1"), std::string::npos) << e.what();
    }
}

} // namespace

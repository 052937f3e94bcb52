// SPDX-License-Identifier: GPL-2.0-only
// The plug-in registries hold what the scenario level needs of each built-in plug-in, as
// registered beside its class: names, what "auto" picks, NIC and switch requirements, checks.
#include "ns3/ai-fabric-module.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// The NIC attribute `name` a congestion control requires, or "" when it sets none.
std::string
NicAttribute(const std::string& cc, const std::string& name)
{
    for (const auto& [n, v] : RdmaCongestionRegistry::Find(cc)->nicAttributes)
    {
        if (n == name)
        {
            return v;
        }
    }
    return "";
}

TEST(CongestionControlRegistry, EveryBuiltInOnceSortedWithItsTypeId)
{
    const std::vector<std::string> builtIn{"dcqcn",
                                           "dcqcn-nvidia",
                                           "dcqcn-production",
                                           "hpcc",
                                           "ib-cc",
                                           "none",
                                           "swift",
                                           "timely"};
    for (const auto& name : builtIn)
    {
        const RdmaCongestionControlInfo* cc = RdmaCongestionRegistry::Find(name);
        ASSERT_NE(cc, nullptr) << name;
        TypeId tid;
        EXPECT_TRUE(TypeId::LookupByNameFailSafe(cc->typeId, &tid)) << cc->typeId;
        EXPECT_TRUE(tid.IsChildOf(RdmaCongestionOps::GetTypeId())) << cc->typeId;
    }
    const std::vector<std::string> names = RdmaCongestionRegistry::Names();
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
    EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
}

TEST(CongestionControlRegistry, AutoPicksWhatEachFabricsNicsShip)
{
    EXPECT_EQ(AutoCongestionControl("rocev2")->name, "dcqcn-nvidia");
    EXPECT_EQ(AutoCongestionControl("infiniband")->name, "ib-cc");
    // Any other fabric (tcp and uec record their own stack's): the paper's DCQCN.
    EXPECT_EQ(AutoCongestionControl("tcp")->name, "dcqcn");
}

TEST(CongestionControlRegistry, PerAckAlgorithmsAskAnAckPerPacket)
{
    // HPCC reacts to every ACK's telemetry; TIMELY and Swift would see the 2 us ACK coalescing
    // wait in every RTT sample: all three ask for AckInterval 0.
    for (const char* cc : {"hpcc", "timely", "swift"})
    {
        EXPECT_EQ(Time(NicAttribute(cc, "AckInterval")), Time(0)) << cc;
    }
    EXPECT_EQ(NicAttribute("dcqcn", "AckInterval"), "");
    EXPECT_EQ(Time(NicAttribute("dcqcn-nvidia", "CnpInterval")), MicroSeconds(4));
}

TEST(CongestionControlRegistry, DcqcnProductionScalesSwitchEcnWithTheLinkRate)
{
    const PluginKeyValues none;
    const AttributeList a =
        RdmaCongestionRegistry::Find("dcqcn-production")->switchDefaults({"rocev2", 400, none});
    std::map<std::string, std::string> m(a.begin(), a.end());
    // 100 / 400 KB at 25G, x 400/25 = 16 at 400G; ECN below PFC's XOFF on a PFC fabric.
    EXPECT_EQ(m["ns3::SwitchBufferManager::EcnKmin"], "1600000");
    EXPECT_EQ(m["ns3::SwitchBufferManager::EcnKmax"], "6400000");
    EXPECT_EQ(m["ns3::SwitchBufferManager::EcnPmax"], "0.2");
    EXPECT_EQ(m["ns3::SwitchBufferManager::EcnBelowXoff"], "true");
    const AttributeList ib =
        RdmaCongestionRegistry::Find("dcqcn")->switchDefaults({"infiniband", 400, none});
    EXPECT_TRUE(ib.empty()) << "no PFC on InfiniBand: nothing to keep ECN below";
}

TEST(CongestionControlRegistry, ChecksNameTheFabricTheyNeed)
{
    const PluginKeyValues none;
    const RdmaCongestionControlInfo* hpcc = RdmaCongestionRegistry::Find("hpcc");
    const RdmaCongestionControlInfo* ib = RdmaCongestionRegistry::Find("ib-cc");
    EXPECT_EQ(hpcc->Check({"rocev2", 400, none}), "");
    EXPECT_NE(hpcc->Check({"infiniband", 400, none}).find("rocev2"), std::string::npos);
    EXPECT_EQ(ib->Check({"infiniband", 400, none}), "");
    EXPECT_NE(ib->Check({"rocev2", 400, none}).find("infiniband"), std::string::npos);
}

} // namespace

// SPDX-License-Identifier: GPL-2.0-only
#include "test-util.h"

using namespace ns3;

TEST_F(FabricTest, BuildsStar)
{
    Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
    star->SetAttribute("Servers", UintegerValue(4));
    star->SetAttribute("GpusPerServer", UintegerValue(1));
    Ptr<FabricTopology> topo = star->Build();
    EXPECT_EQ(topo->GetNHosts(), 4u);
    EXPECT_EQ(topo->GetNSwitches(), 1u);
}

// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_TEST_UTIL_H
#define AI_FABRIC_TEST_UTIL_H

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <gtest/gtest.h>

/// Every GoogleTest test starts from a fresh simulator and fixed seeds and destroys it after.
class FabricTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        ns3::RngSeedManager::SetSeed(1);
        ns3::RngSeedManager::SetRun(1);
    }

    void TearDown() override
    {
        ns3::Simulator::Destroy();
    }
};

#endif

// SPDX-License-Identifier: GPL-2.0-only
// Runs ns-3 TestSuites through ns3::TestRunner in a standalone build, where Debian's ns-3 has
// no test.py. Usage: ai-fabric-ns3-tests --suite=ai-fabric
#include "ns3/test.h"

int
main(int argc, char** argv)
{
    return ns3::TestRunner::Run(argc, argv);
}

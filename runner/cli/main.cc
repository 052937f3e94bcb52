// SPDX-License-Identifier: GPL-2.0-only
//
// ai-fabric-runner: scenario JSON -> simulation -> results directory.
//
//   ai-fabric-runner [SCENARIO.json] [--set key.path=value]... [--out DIR] [--quiet]
//
// Exit status: 0 success, 2 bad input (one line on stderr naming the key), 1 internal error,
// 3 a run did not complete (results written; one line per such run says why), 128 + signal when
// SIGINT/SIGTERM/SIGHUP stopped it (nothing written).
#include "interrupt.h"
#include "run-command.h"

int
main(int argc, char** argv)
{
    aifabric::InstallInterruptHandlers();
    return aifabric::RunCommand(argc, argv);
}

// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_RUN_COMMAND_H
#define AI_FABRIC_RUN_COMMAND_H

namespace aifabric
{

/**
 * `ai-fabric run` (ai-fabric-runner) without its signal handlers: argv parsed, the scenario
 * resolved and validated, every run executed, the results directory written. In a library so
 * that a test drives the command's own code path in-process.
 * \return the exit status (0, 2 bad input, 3 a run did not complete, 1 internal error)
 */
int RunCommand(int argc, char** argv);

} // namespace aifabric

#endif

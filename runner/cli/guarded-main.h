// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_GUARDED_MAIN_H
#define AI_FABRIC_GUARDED_MAIN_H

#include <functional>

namespace aifabric
{

/**
 * Run a program's body and turn what it throws into one line on stderr and the exit status
 * every ai-fabric program uses: Interrupted 128 + signal ("...; stopped, no results written"),
 * ScenarioError 2 ("ai-fabric: error: ..."), any other exception 1 ("ai-fabric: internal
 * error: ..."). \return the body's status, or that status
 */
int GuardedMain(const std::function<int()>& body);

} // namespace aifabric

#endif

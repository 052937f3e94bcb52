// SPDX-License-Identifier: GPL-2.0-only
#include "guarded-main.h"

#include "interrupt.h"
#include "scenario.h"

#include <iostream>

namespace aifabric
{

int
GuardedMain(const std::function<int()>& body)
{
    try
    {
        return body();
    }
    catch (const Interrupted& e)
    {
        // Any results directory is gone by now: unwinding removed its temporary directory.
        std::cerr << "ai-fabric: " << e.what() << "; stopped, no results written" << std::endl;
        return e.ExitStatus();
    }
    catch (const ScenarioError& e)
    {
        std::cerr << "ai-fabric: error: " << e.what() << std::endl;
        return 2;
    }
    catch (const std::exception& e)
    {
        std::cerr << "ai-fabric: internal error: " << e.what() << std::endl;
        return 1;
    }
}

} // namespace aifabric

// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SWEEP_LOCAL_H
#define AI_FABRIC_SWEEP_LOCAL_H

#include "sweep-expand.h"

#include <ostream>
#include <string>

namespace aifabric
{

struct LocalOptions
{
    unsigned jobs{1};
    bool quiet{false};
};

/**
 * Run the unfinished points on local cores, at most `jobs` at a time, each one's output in
 * its log. A failed point is reported with its log and does not stop the others.
 * \return 0 if every point is done at the end, 1 if any failed
 */
int RunLocal(const Sweep& sweep,
             const std::string& dir,
             const std::string& runner,
             const LocalOptions& options,
             std::ostream& out,
             std::ostream& err);

} // namespace aifabric

#endif

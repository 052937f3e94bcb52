// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_DASHBOARD_H
#define AI_FABRIC_DASHBOARD_H

#include "run-output.h"

#include <string>
#include <vector>

namespace aifabric
{

/// The seed's dashboard, one column per run.
std::string Dashboard(const std::vector<RunOutput>& runs);

} // namespace aifabric

#endif

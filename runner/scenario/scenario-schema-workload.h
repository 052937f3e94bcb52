// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_SCENARIO_SCHEMA_WORKLOAD_H
#define AI_FABRIC_SCENARIO_SCHEMA_WORKLOAD_H

#include "scenario-schema.h"

#include <vector>

namespace aifabric
{

/// The workload.* keys of the schema (Schema() lists them after routing.*).
std::vector<KeySpec> WorkloadSchemaKeys();

} // namespace aifabric

#endif

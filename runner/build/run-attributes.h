// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_RUN_ATTRIBUTES_H
#define AI_FABRIC_RUN_ATTRIBUTES_H

#include "simulation-builder.h"

#include <nlohmann/json.hpp>

namespace aifabric
{

/**
 * The attribute values (as strings) of the main objects of a run: host 0's device, flow control,
 * NIC and congestion control, switch 0 and its buffer manager, the transports, rank 0's
 * application and the job (config.json's ns3_attributes).
 */
nlohmann::json MainAttributes(const Simulation& sim);

} // namespace aifabric

#endif

// SPDX-License-Identifier: GPL-2.0-only
// What workload.kind training runs: the model and its parallelism, resolved and checked.
#ifndef AI_FABRIC_SCENARIO_TRAINING_H
#define AI_FABRIC_SCENARIO_TRAINING_H

#include "scenario.h"

#include <nlohmann/json.hpp>

namespace aifabric
{

/**
 * The GPU's compute keys (gpu.peak_tflops, gpu.compute_efficiency, gpu.hbm_tbytes_per_s, with
 * the preset's values for 0), and with workload.kind training the model (workload.model and
 * workload.model_shape) and its parallelism into `r`. dp 0 becomes GPUs / (tp × pp); the
 * micro-batch size is global_batch / (dp × microbatches). Throws ScenarioError naming the key
 * when the parallelism cannot run the model on the cluster.
 */
void ResolveTraining(const nlohmann::json& j, RunConfig& r);

} // namespace aifabric

#endif

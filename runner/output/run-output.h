// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_RUN_OUTPUT_H
#define AI_FABRIC_RUN_OUTPUT_H

#include "scenario.h"

#include <nlohmann/json.hpp>
#include <string>

namespace aifabric
{

/// Everything one run produced: its summary and its traces (written by WriteResults).
struct RunOutput
{
    RunConfig config;
    nlohmann::json summary;
    std::string stepsCsv; //!< per step per rank
    std::string stepsSummaryCsv;
    std::string latencyCsv;    //!< latency CDF
    std::string queueCsv;      //!< sampled switch queues and PFC
    std::string rateCsv;       //!< rank 0's queue-pair rates
    std::string flowsCsv;      //!< one line per flow (flow workloads), else empty
    std::string slowdownCsv;   //!< slowdown by flow size (flow workloads), else empty
    std::string jobsCsv;       //!< with `jobs`: every job's steps, else empty
    std::string timelineCsv;   //!< workload.kind training: the first step per rank, else empty
    nlohmann::json attributes; //!< attribute values of the main objects
};

} // namespace aifabric

#endif

// SPDX-License-Identifier: GPL-2.0-only
// One Chakra node <-> one WorkloadOp (not installed; needs the protobuf classes generated from
// chakra-et.proto, so only the builds with AI_FABRIC_HAVE_CHAKRA include it).
#ifndef CHAKRA_NODE_H
#define CHAKRA_NODE_H

#include "chakra-et.pb.h"
#include "chakra-trace-files.h"
#include "workload-graph.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ns3
{
namespace chakra
{

/// Operation `i` of `rank` as a Chakra node: id `i`, its dependencies as data_deps; a kernel of
/// FLOPs also gets its duration_micros at `flopsPerSecond` (when > 0) and a tensor_size.
void ToNode(const WorkloadGraph& g,
            uint32_t rank,
            uint32_t i,
            ChakraProtoMsg::Node& n,
            double flopsPerSecond = 0);

/**
 * Node `n` of rank `rank`'s file as an operation, dependencies not set (ChakraTrace's
 * mapping; process groups through `groups`, which adds communicators to `g`).
 * \param where "<file>: node <id>", for errors
 * \throw ChakraTraceError naming `where` and the problem
 */
WorkloadOp FromNode(const ChakraProtoMsg::Node& n,
                    uint32_t rank,
                    uint32_t ranks,
                    CommGroups& groups,
                    const WorkloadGraph& g,
                    const std::string& where);

/// The GlobalMetadata's ai_fabric_model_flops, if it has one.
std::optional<double> ModelFlops(const ChakraProtoMsg::GlobalMetadata& meta,
                                 const std::string& where);

} // namespace chakra
} // namespace ns3

#endif // CHAKRA_NODE_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef CHAKRA_TRACE_H
#define CHAKRA_TRACE_H

#include "workload-graph.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace ns3
{

/// A Chakra trace that cannot be read or written: what() is one line naming the file, the node
/// id when there is one, and what is wrong.
class ChakraTraceError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/// How ChakraTrace::Read finds a trace in its directory.
struct ChakraReadOptions
{
    /// The files' prefix (`<prefix>.<rank>.et`); empty: the one prefix the directory holds.
    std::string prefix;
    /// The communicator groups' JSON file; empty: `comm_group.json` in the directory if present.
    std::string commGroupFile;
};

/**
 * \ingroup ai-fabric
 * Reads and writes a WorkloadGraph as a Chakra execution trace (MLCommons Chakra, Sridharan et
 * al. 2023, arXiv:2305.14516; schema in chakra-et.proto, a wire-compatible subset of Chakra's
 * et_def.proto): per rank a file `<prefix>.<rank>.et` holding one GlobalMetadata and then one
 * Node per operation, each message preceded by its varint length, plus `comm_group.json`
 * (ASTRA-sim's --comm-group-configuration: `{"<pg_name>": [ranks...]}`) giving each process
 * group's ranks in communicator order.
 *
 * Mapping (Chakra attribute names; `ai_fabric_*` are ours, which other tools ignore):
 *  - COMPUTE ↔ COMP_NODE: FLOPs as `num_ops` (int64, rounded) and `ai_fabric_flops` (double,
 *    exact); a fixed time as `duration_micros` (rounded) and `duration_ns` (int64, exact);
 *    `is_cpu_op` false;
 *  - COLLECTIVE ↔ COMM_COLL_NODE: `comm_type` (int64 CollectiveCommType: ALL_REDUCE,
 *    REDUCE_SCATTER — also REDUCE_SCATTER_BLOCK on reading —, ALL_GATHER, ALL_TO_ALL),
 *    `comm_size` (int64 bytes: the buffer per rank, all-gather's output), `pg_name` (the
 *    communicator: "1", "2", ... in our files; absent, empty or "0" not listed in
 *    comm_group.json = every rank, ASTRA-sim's default group); an all-to-all's imbalance as
 *    `ai_fabric_skew` (double) and `ai_fabric_hot` (int64);
 *  - SEND / RECV ↔ COMM_SEND_NODE / COMM_RECV_NODE: `comm_src`, `comm_dst`, `comm_tag` (int32;
 *    a send's comm_src and a receive's comm_dst default to the file's rank), `comm_size`;
 *  - dependencies ↔ `data_deps` (node ids; ours are the operation indices); the phase as
 *    `ai_fabric_phase` (WorkloadGraph::PhaseName); the graph's model FLOPs as the metadata's
 *    `ai_fabric_model_flops` (double), version "0.0.4".
 *
 * Reading: a COMP_NODE runs for its FLOPs when it has `num_ops` (or `ai_fabric_flops`), else
 * for its duration (`duration_ns`, else `duration_micros`); a COMP_NODE with `is_cpu_op` true
 * (host-side work, which overlaps the GPU's kernels) and every other node type (METADATA_NODE,
 * MEM_LOAD_NODE, MEM_STORE_NODE, INVALID_NODE, unknown values) becomes a zero-time compute
 * operation, so that dependencies through it still hold. Without `ai_fabric_phase`, compute
 * and collectives get phase OTHER, sends and receives PP. `ctrl_deps` are ignored (as
 * ASTRA-sim does: in PyTorch traces they name the calling operator), and so are
 * start_time_micros, inputs, outputs and other attributes. Node ids map to operation indices
 * in the file's order; a node listed before one of its dependencies is moved after it (a
 * stable topological sort of the rank's nodes). Without ai_fabric_model_flops the model FLOPs
 * are the sum of the compute FLOPs.
 *
 * Errors — a missing directory, no trace files, several prefixes, a gap in the ranks, more
 * than 65,536 ranks, a file over 4 GiB or gzip-compressed, a message longer than 64 MiB,
 * truncated or not a protobuf message, a duplicate node id, a dependency on an unknown node or
 * a cycle, a missing or unknown comm_type, an unsupported collective (REDUCE, GATHER, SCATTER,
 * BROADCAST, BARRIER), a missing or zero comm_size, a peer that is not another rank, a
 * pg_name absent from comm_group.json, a malformed comm_group.json, a send without its
 * receive, collectives that disagree between the members of a group — throw ChakraTraceError.
 *
 * Without protobuf at build time (AI_FABRIC_HAVE_CHAKRA undefined) Read and Write throw
 * ChakraTraceError saying so.
 */
class ChakraTrace
{
  public:
    /// The limits Read enforces against hostile input.
    static constexpr uint32_t kMaxRanks = 65536;
    static constexpr uint64_t kMaxMessageBytes = 64ULL << 20;
    static constexpr uint64_t kMaxFileBytes = 4ULL << 30;

    /// \return whether this build reads and writes Chakra traces (it found protobuf)
    static bool Available();

    /**
     * Write `g` into `dir` (created if missing): `<prefix>.<rank>.et` for every rank and
     * `comm_group.json`; `<prefix>.<r>.et` files of higher ranks from an earlier write are
     * removed. With `flopsPerSecond` (the GPU's effective rate) > 0, a kernel given in FLOPs
     * also gets duration_micros (its time at that rate, which ASTRA-sim replays) and a
     * tensor_size (compute-bound in ASTRA-sim's roofline).
     * \throw ChakraTraceError if a file cannot be written or `g` fails Check
     */
    static void Write(const WorkloadGraph& g,
                      const std::string& dir,
                      const std::string& prefix = "trace",
                      double flopsPerSecond = 0);

    /// Read the trace in `dir`. \throw ChakraTraceError naming the file, node and problem
    static WorkloadGraph Read(const std::string& dir,
                              const ChakraReadOptions& options = ChakraReadOptions());

    /// `dir/<prefix>.<rank>.et`
    static std::string FileName(const std::string& dir, const std::string& prefix, uint32_t rank);
};

} // namespace ns3

#endif // CHAKRA_TRACE_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef WORKLOAD_GRAPH_H
#define WORKLOAD_GRAPH_H

#include "ns3/collective-algorithm.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace ns3
{

/**
 * One operation of one rank in a training step: a compute kernel, a collective on a
 * communicator, or one side of a point-to-point transfer — the node kinds of a Chakra
 * execution trace (COMP_NODE, COMM_COLL_NODE, COMM_SEND_NODE, COMM_RECV_NODE).
 */
struct WorkloadOp
{
    enum Kind : uint8_t
    {
        COMPUTE = 0,
        COLLECTIVE = 1,
        SEND = 2,
        RECV = 3,
    };

    /// What the operation is part of: where its time goes in phases_ms.
    enum Phase : uint8_t
    {
        FORWARD = 0,
        BACKWARD = 1,
        OPTIMIZER = 2,
        TP = 3,   //!< tensor-parallel collectives
        PP = 4,   //!< pipeline sends and receives
        DP = 5,   //!< data-parallel gradient reduction (and ZeRO's parameter gathers)
        EP = 6,   //!< expert-parallel all-to-all
        FSDP = 7, //!< ZeRO-3 parameter all-gathers and gradient reduce-scatters
        OTHER = 8,
        PHASES = 9,
    };

    Kind kind{COMPUTE};
    Phase phase{FORWARD};
    CollectiveSpec::Op op{CollectiveSpec::ALLREDUCE}; //!< COLLECTIVE
    uint32_t group{0};     //!< COLLECTIVE: index into WorkloadGraph::groups
    uint32_t peer{0};      //!< SEND: the destination rank; RECV: the source rank
    uint32_t tag{0};       //!< SEND/RECV: matches a send with its receive (per pair of ranks)
    uint64_t bytes{0};     //!< COLLECTIVE: CollectiveSpec::bytes; SEND/RECV: the message
    double flops{0};       //!< COMPUTE: FLOPs (its time at the GPU's rate), or 0
    int64_t durationNs{0}; //!< COMPUTE with flops 0: a fixed time (a trace's measured kernel)
    /// COLLECTIVE ALLTOALL: the group member (index in its group) whose experts receive
    /// `skew` times the mean share of every rank's tokens (the others less, the total equal);
    /// skew 1 is the uniform exchange.
    uint32_t hot{0};
    double skew{1.0};
    uint32_t depBegin{0}; //!< into WorkloadGraph::deps[rank]
    uint32_t depCount{0};
};

/**
 * \ingroup ai-fabric
 * A training step as every rank's dependency graph of WorkloadOp, the shape of a Chakra
 * execution trace: per rank, operations in program order, each with the earlier operations of
 * the same rank it depends on. Collectives name a communicator (`groups`: ranks in
 * communicator order); the k-th collective of a communicator at each of its ranks is one
 * collective, so they must agree in operation and size. The k-th SEND (src, dst, tag) of src
 * matches the k-th RECV (dst, src, tag) of dst (tags may be reused: messages of one key are
 * matched in order, as MPI and ASTRA-sim match them). Built by TransformerWorkload or read from a
 * Chakra trace; run by ParallelTrainingJob.
 */
struct WorkloadGraph
{
    uint32_t ranks{0};
    std::vector<std::vector<uint32_t>> groups;
    std::vector<std::vector<WorkloadOp>> ops; //!< per rank, in program order
    std::vector<std::vector<uint32_t>> deps;  //!< per rank: dependencies (indices of its ops)
    double modelFlops{0}; //!< the step's model FLOPs over all ranks (MFU's numerator)

    explicit WorkloadGraph(uint32_t n = 0);
    /// Append `op` to `rank`'s program. \return its index
    uint32_t Add(uint32_t rank, WorkloadOp op, std::initializer_list<uint32_t> after = {});
    uint32_t Add(uint32_t rank, WorkloadOp op, const std::vector<uint32_t>& after);
    /// A communicator over `members` (reused if the same list exists). \return its index
    uint32_t Group(const std::vector<uint32_t>& members);
    /// Index of `rank` in group `g`, or UINT32_MAX.
    uint32_t MemberIndex(uint32_t g, uint32_t rank) const;

    /// \return empty if the graph can run, else one line naming the first problem
    std::string Check() const;

    /// Bytes `rank` sends in a step in `phase`, as the operations define them: a collective's
    /// bytes per rank on the wire of an ideal algorithm (AllReduce 2(n-1)/n S, ReduceScatter
    /// and All-to-All (n-1)/n S, AllGather (n-1)/n S), a SEND its bytes.
    double TheoreticalBytesSent(uint32_t rank, WorkloadOp::Phase phase) const;
    /// Sum of COMPUTE FLOPs of `rank`.
    double ComputeFlops(uint32_t rank) const;
    uint64_t OpCount() const;

    static const char* PhaseName(WorkloadOp::Phase p);
};

} // namespace ns3

#endif // WORKLOAD_GRAPH_H

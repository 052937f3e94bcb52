// SPDX-License-Identifier: GPL-2.0-only
// One Chakra node <-> one WorkloadOp: the attribute mapping in both directions (ChakraTrace's
// documentation lists it), every value read checked. Built only with protobuf.
#include "chakra-node.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace ns3
{
namespace chakra
{

namespace
{

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

/// The attributes ai-fabric reads from a node.
struct NodeAttrs
{
    std::optional<int64_t> numOps, durationNs, commType, commSize, commSrc, commDst, commTag, hot;
    std::optional<int64_t> outputBytes;
    std::optional<double> flops, skew;
    std::optional<std::string> pg, phase;
    bool cpu{false};
};

int64_t
AsInt(const AttributeProto& a, const std::string& where)
{
    using A = AttributeProto;
    uint64_t u = 0;
    switch (a.value_case())
    {
    case A::kInt32Val:
        return a.int32_val();
    case A::kInt64Val:
        return a.int64_val();
    case A::kSint32Val:
        return a.sint32_val();
    case A::kSint64Val:
        return a.sint64_val();
    case A::kSfixed32Val:
        return a.sfixed32_val();
    case A::kSfixed64Val:
        return a.sfixed64_val();
    case A::kUint32Val:
        return a.uint32_val();
    case A::kFixed32Val:
        return a.fixed32_val();
    case A::kBoolVal:
        return a.bool_val() ? 1 : 0;
    case A::kUint64Val:
        u = a.uint64_val();
        break;
    case A::kFixed64Val:
        u = a.fixed64_val();
        break;
    default:
        Fail(where, "attribute " + Quote(a.name()) + " must be an integer");
    }
    if (u > static_cast<uint64_t>(INT64_MAX))
    {
        Fail(where,
             "attribute " + Quote(a.name()) + " is out of range (" + std::to_string(u) + ")");
    }
    return static_cast<int64_t>(u);
}

double
AsDouble(const AttributeProto& a, const std::string& where)
{
    double v = 0;
    if (a.value_case() == AttributeProto::kDoubleVal)
    {
        v = a.double_val();
    }
    else if (a.value_case() == AttributeProto::kFloatVal)
    {
        v = a.float_val();
    }
    else
    {
        v = static_cast<double>(AsInt(a, where));
    }
    if (!std::isfinite(v))
    {
        Fail(where, "attribute " + Quote(a.name()) + " is not a finite number");
    }
    return v;
}

std::string
AsString(const AttributeProto& a, const std::string& where)
{
    if (a.value_case() == AttributeProto::kStringVal)
    {
        return a.string_val();
    }
    if (a.value_case() == AttributeProto::kBytesVal)
    {
        return a.bytes_val();
    }
    return std::to_string(AsInt(a, where));
}

NodeAttrs
ReadAttrs(const Node& n, const std::string& where)
{
    NodeAttrs at;
    for (const AttributeProto& a : n.attr())
    {
        const std::string& name = a.name();
        if (name == kNumOps)
        {
            at.numOps = AsInt(a, where);
        }
        else if (name == kDurationNs)
        {
            at.durationNs = AsInt(a, where);
        }
        else if (name == kCommType)
        {
            at.commType = AsInt(a, where);
        }
        else if (name == kCommSize)
        {
            at.commSize = AsInt(a, where);
        }
        else if (name == kCommSrc)
        {
            at.commSrc = AsInt(a, where);
        }
        else if (name == kCommDst)
        {
            at.commDst = AsInt(a, where);
        }
        else if (name == kCommTag)
        {
            at.commTag = AsInt(a, where);
        }
        else if (name == kOutputBytes)
        {
            at.outputBytes = AsInt(a, where);
        }
        else if (name == kHot)
        {
            at.hot = AsInt(a, where);
        }
        else if (name == kFlops)
        {
            at.flops = AsDouble(a, where);
        }
        else if (name == kSkew)
        {
            at.skew = AsDouble(a, where);
        }
        else if (name == kPgName)
        {
            at.pg = AsString(a, where);
        }
        else if (name == kPhase)
        {
            at.phase = AsString(a, where);
        }
        else if (name == kIsCpuOp)
        {
            at.cpu = AsInt(a, where) != 0;
        }
    }
    return at;
}

CollectiveSpec::Op
CollectiveOf(int64_t t, const std::string& where)
{
    switch (t)
    {
    case ChakraProtoMsg::ALL_REDUCE:
        return CollectiveSpec::ALLREDUCE;
    case ChakraProtoMsg::ALL_GATHER:
        return CollectiveSpec::ALLGATHER;
    case ChakraProtoMsg::ALL_TO_ALL:
        return CollectiveSpec::ALLTOALL;
    case ChakraProtoMsg::REDUCE_SCATTER:
    case ChakraProtoMsg::REDUCE_SCATTER_BLOCK:
        return CollectiveSpec::REDUCESCATTER;
    case ChakraProtoMsg::BROADCAST:
        return CollectiveSpec::BROADCAST;
    default:
        break;
    }
    Fail(where, "unknown comm_type " + std::to_string(t));
}

WorkloadOp::Phase
PhaseOf(const std::string& name, const std::string& where)
{
    for (uint32_t p = 0; p < WorkloadOp::PHASES; ++p)
    {
        const std::string known = WorkloadGraph::PhaseName(static_cast<WorkloadOp::Phase>(p));
        if (known.size() == name.size() &&
            std::equal(known.begin(), known.end(), name.begin(), [](char a, char b) {
                return std::tolower(static_cast<unsigned char>(a)) ==
                       std::tolower(static_cast<unsigned char>(b));
            }))
        {
            return static_cast<WorkloadOp::Phase>(p);
        }
    }
    Fail(where, "unknown " + std::string(kPhase) + " " + Quote(name));
}

/// Maps the nodes of one rank's file.
struct NodeReader
{
    uint32_t rank;
    uint32_t ranks;
    CommGroups& groups;
    const WorkloadGraph& g;
    const std::string& where;

    WorkloadOp Convert(const Node& n)
    {
        const NodeAttrs at = ReadAttrs(n, where);
        WorkloadOp o;
        o.kind = WorkloadOp::COMPUTE;
        o.phase = WorkloadOp::OTHER;
        switch (n.type())
        {
        case ChakraProtoMsg::COMP_NODE:
            if (at.cpu)
            {
                break; // host-side: its time overlaps the GPU's kernels
            }
            if (at.flops || at.numOps)
            {
                o.flops = at.flops ? *at.flops : static_cast<double>(*at.numOps);
                if (o.flops < 0)
                {
                    Fail(where, "negative num_ops");
                }
            }
            // A kernel of FLOPs runs at the GPU's rate: its duration_micros (what another tool
            // replays) is then ignored; duration_ns is ours, exact.
            o.durationNs = at.durationNs ? *at.durationNs : o.flops > 0 ? 0 : Micros(n);
            if (o.durationNs < 0)
            {
                Fail(where, "negative duration_ns");
            }
            break;
        case ChakraProtoMsg::COMM_COLL_NODE:
        case ChakraProtoMsg::COMM_SEND_NODE:
        case ChakraProtoMsg::COMM_RECV_NODE:
            if (at.cpu)
            {
                // The host-side call (PyTorch's c10d::allreduce_ ...: no comm_type); the GPU
                // kernel node after it carries the communication.
                break;
            }
            if (n.type() != ChakraProtoMsg::COMM_COLL_NODE)
            {
                PointToPoint(o, at, n.type() == ChakraProtoMsg::COMM_SEND_NODE);
            }
            else if (at.commType && IsReplayed(*at.commType))
            {
                // REDUCE, GATHER, SCATTER, BARRIER: replayed for their recorded duration (as
                // ASTRA-sim replays what it does not simulate), on the GPU's stream.
                o.durationNs = Micros(n);
            }
            else
            {
                Collective(o, at);
            }
            break;
        default:
            break; // METADATA, MEM_LOAD, MEM_STORE, INVALID, unknown: zero-time, keeps deps
        }
        if (at.phase)
        {
            o.phase = PhaseOf(*at.phase, where);
        }
        return o;
    }

    /// The node's duration_micros in nanoseconds.
    int64_t Micros(const Node& n) const
    {
        if (n.duration_micros() > static_cast<uint64_t>(INT64_MAX / 1000))
        {
            Fail(where,
                 "duration_micros " + std::to_string(n.duration_micros()) + " is out of range");
        }
        return static_cast<int64_t>(n.duration_micros()) * 1000;
    }

    /// The collectives NCCL has that are not simulated here: their recorded time is replayed.
    static bool IsReplayed(int64_t t)
    {
        return t == ChakraProtoMsg::REDUCE || t == ChakraProtoMsg::GATHER ||
               t == ChakraProtoMsg::SCATTER || t == ChakraProtoMsg::BARRIER;
    }

    void Collective(WorkloadOp& o, const NodeAttrs& at)
    {
        o.kind = WorkloadOp::COLLECTIVE;
        if (!at.commType)
        {
            Fail(where, "a COMM_COLL_NODE without comm_type");
        }
        o.op = CollectiveOf(*at.commType, where);
        o.bytes = Bytes(at, "COMM_COLL_NODE");
        o.group = groups.Resolve(at.pg, where);
        if (groups.MemberIndex(o.group, rank) == UINT32_MAX)
        {
            Fail(where,
                 "rank " + std::to_string(rank) + " is not in process group " +
                     groups.Label(o.group));
        }
        const auto members = static_cast<int64_t>(g.groups[o.group].size());
        if (o.op == CollectiveSpec::ALLGATHER)
        {
            // comm_size is each rank's input (Chakra's converter sums the input tensors;
            // ASTRA-sim's Ring gathers comm_size x members); ours is the output.
            if (at.outputBytes && *at.outputBytes > 0)
            {
                o.bytes = static_cast<uint64_t>(*at.outputBytes);
            }
            else if (o.bytes > UINT64_MAX / 2 / uint64_t(members))
            {
                Fail(where, "comm_size " + std::to_string(o.bytes) + " is out of range");
            }
            else
            {
                o.bytes *= uint64_t(members);
            }
        }
        if (at.skew)
        {
            if (!(*at.skew >= 1.0 && *at.skew <= static_cast<double>(members)))
            {
                Fail(where,
                     std::string(kSkew) + " must be in [1, " + std::to_string(members) +
                         "], the group's size");
            }
            o.skew = *at.skew;
        }
        if (at.hot)
        {
            if (*at.hot < 0 || *at.hot >= members)
            {
                Fail(where,
                     std::string(kHot) + " must be a member index below " +
                         std::to_string(members));
            }
            o.hot = static_cast<uint32_t>(*at.hot);
        }
    }

    void PointToPoint(WorkloadOp& o, const NodeAttrs& at, bool send)
    {
        const char* type = send ? "COMM_SEND_NODE" : "COMM_RECV_NODE";
        o.kind = send ? WorkloadOp::SEND : WorkloadOp::RECV;
        o.phase = WorkloadOp::PP;
        // A send's source and a receive's destination are the file's rank.
        const std::optional<int64_t>& self = send ? at.commSrc : at.commDst;
        const std::optional<int64_t>& peer = send ? at.commDst : at.commSrc;
        const char* selfName = send ? "comm_src" : "comm_dst";
        const char* peerName = send ? "comm_dst" : "comm_src";
        if (self && *self != rank)
        {
            Fail(where,
                 std::string(type) + " with " + selfName + " " + std::to_string(*self) +
                     " in rank " + std::to_string(rank) + "'s file");
        }
        if (!peer)
        {
            Fail(where, std::string("a ") + type + " without " + peerName);
        }
        if (*peer < 0 || *peer >= ranks || *peer == rank)
        {
            Fail(where,
                 std::string(peerName) + " " + std::to_string(*peer) +
                     " must be another rank of the " + std::to_string(ranks) + "-rank trace");
        }
        o.peer = static_cast<uint32_t>(*peer);
        const int64_t tag = at.commTag.value_or(0);
        if (tag < INT32_MIN || tag > static_cast<int64_t>(UINT32_MAX))
        {
            Fail(where, "comm_tag " + std::to_string(tag) + " is out of range");
        }
        o.tag = static_cast<uint32_t>(tag); // int32 tags keep their 32 bits
        o.bytes = Bytes(at, type);
    }

    uint64_t Bytes(const NodeAttrs& at, const char* type) const
    {
        if (!at.commSize)
        {
            Fail(where, std::string("a ") + type + " without comm_size");
        }
        if (*at.commSize <= 0)
        {
            Fail(where, "comm_size must be > 0 bytes, got " + std::to_string(*at.commSize));
        }
        return static_cast<uint64_t>(*at.commSize);
    }
};

AttributeProto*
AddAttr(google::protobuf::RepeatedPtrField<AttributeProto>* attrs, const char* name)
{
    AttributeProto* a = attrs->Add();
    a->set_name(name);
    return a;
}

int64_t
CommType(CollectiveSpec::Op op)
{
    switch (op)
    {
    case CollectiveSpec::ALLREDUCE:
        return ChakraProtoMsg::ALL_REDUCE;
    case CollectiveSpec::REDUCESCATTER:
        return ChakraProtoMsg::REDUCE_SCATTER;
    case CollectiveSpec::ALLGATHER:
        return ChakraProtoMsg::ALL_GATHER;
    case CollectiveSpec::ALLTOALL:
        return ChakraProtoMsg::ALL_TO_ALL;
    case CollectiveSpec::BROADCAST:
        return ChakraProtoMsg::BROADCAST;
    default:
        return -1; // refused by WorkloadGraph::Check before
    }
}

const char*
KindName(const WorkloadOp& o)
{
    switch (o.kind)
    {
    case WorkloadOp::COMPUTE:
        return "compute";
    case WorkloadOp::SEND:
        return "send";
    case WorkloadOp::RECV:
        return "recv";
    default:
        break;
    }
    switch (o.op)
    {
    case CollectiveSpec::ALLREDUCE:
        return "all_reduce";
    case CollectiveSpec::REDUCESCATTER:
        return "reduce_scatter";
    case CollectiveSpec::ALLGATHER:
        return "all_gather";
    default:
        return "all_to_all";
    }
}

} // namespace

void
ToNode(const WorkloadGraph& g, uint32_t rank, uint32_t i, Node& n, double flopsPerSecond)
{
    const WorkloadOp& o = g.ops[rank][i];
    n.Clear();
    n.set_id(i);
    n.set_name(std::string(WorkloadGraph::PhaseName(o.phase)) + "_" + KindName(o));
    for (uint32_t k = 0; k < o.depCount; ++k)
    {
        n.add_data_deps(g.deps[rank][o.depBegin + k]);
    }
    auto* attrs = n.mutable_attr();
    AddAttr(attrs, kIsCpuOp)->set_bool_val(false);
    AddAttr(attrs, kPhase)->set_string_val(WorkloadGraph::PhaseName(o.phase));
    switch (o.kind)
    {
    case WorkloadOp::COMPUTE:
        n.set_type(ChakraProtoMsg::COMP_NODE);
        if (o.flops > 0)
        {
            // num_ops is an integer; ai_fabric_flops keeps the exact value.
            const double rounded = std::nearbyint(o.flops);
            AddAttr(attrs, kNumOps)
                ->set_int64_val(rounded >= 9.2e18 ? INT64_MAX : static_cast<int64_t>(rounded));
            AddAttr(attrs, kFlops)->set_double_val(o.flops);
        }
        if (o.durationNs > 0)
        {
            const int64_t us = o.durationNs / 1000 + (o.durationNs % 1000 >= 500 ? 1 : 0);
            n.set_duration_micros(static_cast<uint64_t>(us));
            AddAttr(attrs, kDurationNs)->set_int64_val(o.durationNs);
        }
        else if (o.flops > 0 && flopsPerSecond > 0)
        {
            // For tools that replay kernels (ASTRA-sim without its roofline): the time at the
            // GPU's rate; and a tensor_size that makes the kernel compute-bound in ASTRA-sim's
            // roofline (1e4 FLOP per byte, beyond any GPU's ridge point), as this model runs it.
            const double us = std::nearbyint(o.flops / flopsPerSecond * 1e6);
            n.set_duration_micros(us >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(us));
            AddAttr(attrs, kTensorSize)
                ->set_uint64_val(static_cast<uint64_t>(std::max(1.0, std::ceil(o.flops / 1e4))));
        }
        break;
    case WorkloadOp::COLLECTIVE:
        n.set_type(ChakraProtoMsg::COMM_COLL_NODE);
        AddAttr(attrs, kCommType)->set_int64_val(CommType(o.op));
        if (o.op == CollectiveSpec::ALLGATHER)
        {
            // comm_size is each rank's input in Chakra and ASTRA-sim; ours is the output,
            // kept exact beside it.
            const uint64_t members = g.groups[o.group].size();
            AddAttr(attrs, kCommSize)
                ->set_int64_val(static_cast<int64_t>((o.bytes + members - 1) / members));
            AddAttr(attrs, kOutputBytes)->set_int64_val(static_cast<int64_t>(o.bytes));
        }
        else
        {
            AddAttr(attrs, kCommSize)->set_int64_val(static_cast<int64_t>(o.bytes));
        }
        AddAttr(attrs, kPgName)->set_string_val(PgName(o.group));
        if (o.skew != 1.0 || o.hot != 0)
        {
            AddAttr(attrs, kSkew)->set_double_val(o.skew);
            AddAttr(attrs, kHot)->set_int64_val(o.hot);
        }
        break;
    case WorkloadOp::SEND:
    case WorkloadOp::RECV: {
        const bool send = o.kind == WorkloadOp::SEND;
        n.set_type(send ? ChakraProtoMsg::COMM_SEND_NODE : ChakraProtoMsg::COMM_RECV_NODE);
        AddAttr(attrs, kCommSrc)->set_int32_val(static_cast<int32_t>(send ? rank : o.peer));
        AddAttr(attrs, kCommDst)->set_int32_val(static_cast<int32_t>(send ? o.peer : rank));
        // Chakra's tag is an int32: the tag's 32 bits, read back as they were.
        AddAttr(attrs, kCommTag)->set_int32_val(static_cast<int32_t>(o.tag));
        AddAttr(attrs, kCommSize)->set_int64_val(static_cast<int64_t>(o.bytes));
        break;
    }
    }
}

WorkloadOp
FromNode(const Node& n,
         uint32_t rank,
         uint32_t ranks,
         CommGroups& groups,
         const WorkloadGraph& g,
         const std::string& where)
{
    return NodeReader{rank, ranks, groups, g, where}.Convert(n);
}

std::optional<double>
ModelFlops(const ChakraProtoMsg::GlobalMetadata& meta, const std::string& where)
{
    std::optional<double> flops;
    for (const AttributeProto& a : meta.attr())
    {
        if (a.name() == kModelFlops)
        {
            flops = AsDouble(a, where);
        }
    }
    return flops;
}

} // namespace chakra
} // namespace ns3

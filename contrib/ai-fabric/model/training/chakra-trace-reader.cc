// SPDX-License-Identifier: GPL-2.0-only
// ChakraTrace::Read: each rank's file — its length-delimited messages, bounded against hostile
// input; node ids resolved to operation indices; the operations sorted so that dependencies
// come first — then what must agree between ranks (messages, collectives). The node mapping
// is chakra-node.cc, the files and comm_group.json chakra-trace-files.cc. Built only with
// protobuf (AI_FABRIC_HAVE_CHAKRA); without it chakra-trace.cc's Read says so.
#include "chakra-node.h"
#include "chakra-trace-files.h"
#include "chakra-trace.h"

#if GOOGLE_PROTOBUF_VERSION < 4022000
#include <google/protobuf/stubs/logging.h>
#endif

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ns3
{

namespace
{

namespace fs = std::filesystem;
using chakra::Fail;
using ChakraProtoMsg::Node;

/// A rank's operations as WorkloadGraph holds them, and where each came from.
struct RankOps
{
    std::vector<WorkloadOp> ops;      //!< program order: every dependency before its dependents
    std::vector<uint32_t> deps;       //!< WorkloadOp::depBegin / depCount index these
    std::vector<uint64_t> ids;        //!< per operation: its node id in the file
    std::optional<double> modelFlops; //!< the GlobalMetadata's ai_fabric_model_flops
};

/// A file's length-delimited messages (a varint length, then that many bytes), streamed.
class MessageReader
{
  public:
    /// Opens `file`: a regular file of at most ChakraTrace::kMaxFileBytes (OpenInputFile).
    explicit MessageReader(const std::string& file)
        : m_file(file),
          m_in(chakra::OpenInputFile(file, ChakraTrace::kMaxFileBytes, m_size))
    {
    }

    /// True if the file starts with gzip's magic bytes (1f 8b); reads from the start again.
    bool Gzipped()
    {
        const int a = std::getc(m_in.get());
        const int b = std::getc(m_in.get());
        std::rewind(m_in.get());
        return a == 0x1f && b == 0x8b;
    }

    /// The next message into `buf`. \return false at the end of the file
    /// \param context what came before, for errors ("after node 17")
    bool Next(std::string& buf, const std::string& context)
    {
        const uint64_t start = m_offset;
        uint64_t len = 0;
        for (uint32_t i = 0;; ++i)
        {
            const int c = std::getc(m_in.get());
            if (c == EOF)
            {
                if (i == 0)
                {
                    return false;
                }
                Fail(m_file,
                     "truncated: the file ends inside the length of the message at byte " +
                         std::to_string(start) + " (" + context + ")");
            }
            ++m_offset;
            len |= static_cast<uint64_t>(c & 0x7f) << (7 * i);
            if (len > ChakraTrace::kMaxMessageBytes || (i == 9 && (c & 0x80)))
            {
                Fail(m_file,
                     "the message at byte " + std::to_string(start) + " (" + context +
                         ") claims more than 64 MiB: a corrupt length, or not a "
                         "Chakra trace");
            }
            if (!(c & 0x80))
            {
                break;
            }
        }
        buf.resize(len);
        const auto got = static_cast<uint64_t>(std::fread(buf.data(), 1, len, m_in.get()));
        m_offset += got;
        if (m_offset > ChakraTrace::kMaxFileBytes) // it grew while it was read
        {
            Fail(m_file,
                 "more than the " + chakra::SizeLimit(ChakraTrace::kMaxFileBytes) +
                     " a trace file may have");
        }
        if (got != len)
        {
            Fail(m_file,
                 "truncated: the message at byte " + std::to_string(start) + " (" + context +
                     ") has " + std::to_string(len) + " bytes, the file ends " +
                     std::to_string(got) + " bytes into it");
        }
        return true;
    }

    uint64_t Offset() const
    {
        return m_offset;
    }

  private:
    std::string m_file;
    uint64_t m_size{0};
    chakra::InputFile m_in;
    uint64_t m_offset{0};
};

/// Reads rank `rank`'s file into its operations.
struct RankReader
{
    uint32_t rank;
    uint32_t ranks;
    std::string file;
    chakra::CommGroups& groups;
    const WorkloadGraph& g;

    RankOps out;                  //!< ops in file order; deps filled by Resolve
    std::vector<uint64_t> depIds; //!< the nodes' data_deps: op.depBegin / depCount index these

    void Read()
    {
        MessageReader in(file);
        if (in.Gzipped())
        {
            Fail(file, "gzip-compressed: decompress it first (gunzip)");
        }
        std::string buf;
        if (!in.Next(buf, "the GlobalMetadata"))
        {
            Fail(file, "an empty file (a Chakra trace starts with a GlobalMetadata message)");
        }
        ChakraProtoMsg::GlobalMetadata meta;
        if (!meta.ParseFromString(buf))
        {
            Fail(file, "the first message is not a Chakra GlobalMetadata");
        }
        out.modelFlops = chakra::ModelFlops(meta, file + ": GlobalMetadata");
        std::unordered_map<uint64_t, uint32_t> index;
        Node n;
        for (;;)
        {
            const std::string context =
                out.ids.empty() ? "the first node" : "after node " + std::to_string(out.ids.back());
            const uint64_t at = in.Offset();
            if (!in.Next(buf, context))
            {
                break;
            }
            if (!n.ParseFromString(buf))
            {
                Fail(file,
                     "the message at byte " + std::to_string(at) + " (" + context +
                         ") is not a Chakra Node");
            }
            const std::string where = file + ": node " + std::to_string(n.id());
            if (out.ops.size() >= UINT32_MAX - 1)
            {
                Fail(where, "more than 2^32 - 2 nodes in one file");
            }
            if (!index.emplace(n.id(), static_cast<uint32_t>(out.ops.size())).second)
            {
                Fail(where, "a second node with this id");
            }
            WorkloadOp o = chakra::FromNode(n, rank, ranks, groups, g, where);
            o.depBegin = static_cast<uint32_t>(depIds.size());
            o.depCount = static_cast<uint32_t>(n.data_deps_size());
            if (depIds.size() + n.data_deps_size() >= UINT32_MAX)
            {
                Fail(where, "more than 2^32 - 1 dependencies in one file");
            }
            depIds.insert(depIds.end(), n.data_deps().begin(), n.data_deps().end());
            out.ops.push_back(o);
            out.ids.push_back(n.id());
        }
        Resolve(index);
    }

    /// Node ids to operation indices; operations sorted so that dependencies come first.
    void Resolve(const std::unordered_map<uint64_t, uint32_t>& index)
    {
        const size_t n = out.ops.size();
        std::vector<uint32_t> deps;
        deps.reserve(depIds.size());
        std::vector<uint32_t> mark(n, UINT32_MAX); // the last operation that listed it
        bool ordered = true;
        for (uint32_t i = 0; i < n; ++i)
        {
            WorkloadOp& o = out.ops[i];
            const auto begin = static_cast<uint32_t>(deps.size());
            for (uint32_t k = o.depBegin; k < o.depBegin + o.depCount; ++k)
            {
                const auto it = index.find(depIds[k]);
                const std::string where = file + ": node " + std::to_string(out.ids[i]);
                if (it == index.end())
                {
                    Fail(where,
                         "data_deps names node " + std::to_string(depIds[k]) +
                             ", which is not in the file");
                }
                const uint32_t j = it->second;
                if (j == i)
                {
                    Fail(where, "the node depends on itself");
                }
                if (mark[j] != i) // a dependency listed twice counts once
                {
                    mark[j] = i;
                    deps.push_back(j);
                    ordered = ordered && j < i;
                }
            }
            o.depBegin = begin;
            o.depCount = static_cast<uint32_t>(deps.size()) - begin;
        }
        depIds = std::vector<uint64_t>();
        if (ordered)
        {
            out.deps = std::move(deps);
            return;
        }
        Sort(deps);
    }

    /// Kahn's algorithm, always taking the earliest ready node of the file: the file's order
    /// wherever it already has every dependency first.
    void Sort(const std::vector<uint32_t>& deps)
    {
        const auto n = static_cast<uint32_t>(out.ops.size());
        std::vector<uint32_t> waiting(n);
        std::vector<uint32_t> start(n + 1, 0); // CSR of dependents
        for (uint32_t i = 0; i < n; ++i)
        {
            const WorkloadOp& o = out.ops[i];
            waiting[i] = o.depCount;
            for (uint32_t k = o.depBegin; k < o.depBegin + o.depCount; ++k)
            {
                ++start[deps[k] + 1];
            }
        }
        for (uint32_t i = 0; i < n; ++i)
        {
            start[i + 1] += start[i];
        }
        std::vector<uint32_t> dependents(start[n]);
        std::vector<uint32_t> fill(start.begin(), start.end() - 1);
        for (uint32_t i = 0; i < n; ++i)
        {
            const WorkloadOp& o = out.ops[i];
            for (uint32_t k = o.depBegin; k < o.depBegin + o.depCount; ++k)
            {
                dependents[fill[deps[k]]++] = i;
            }
        }
        std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
        for (uint32_t i = 0; i < n; ++i)
        {
            if (waiting[i] == 0)
            {
                ready.push(i);
            }
        }
        std::vector<uint32_t> pos(n, UINT32_MAX);
        std::vector<uint32_t> order;
        order.reserve(n);
        while (!ready.empty())
        {
            const uint32_t i = ready.top();
            ready.pop();
            pos[i] = static_cast<uint32_t>(order.size());
            order.push_back(i);
            for (uint32_t k = start[i]; k < start[i + 1]; ++k)
            {
                if (--waiting[dependents[k]] == 0)
                {
                    ready.push(dependents[k]);
                }
            }
        }
        if (order.size() != n)
        {
            // Every node left waits for another one left: walking back n steps ends on a cycle.
            uint32_t i = 0;
            while (pos[i] != UINT32_MAX || waiting[i] == 0)
            {
                ++i;
            }
            for (uint32_t step = 0; step < n; ++step)
            {
                const WorkloadOp& o = out.ops[i];
                for (uint32_t k = o.depBegin; k < o.depBegin + o.depCount; ++k)
                {
                    if (pos[deps[k]] == UINT32_MAX)
                    {
                        i = deps[k];
                        break;
                    }
                }
            }
            Fail(file + ": node " + std::to_string(out.ids[i]),
                 "a dependency cycle (data_deps) runs through this node");
        }
        RankOps sorted;
        sorted.modelFlops = out.modelFlops;
        sorted.ops.reserve(n);
        sorted.ids.reserve(n);
        sorted.deps.reserve(deps.size());
        for (uint32_t i : order)
        {
            WorkloadOp o = out.ops[i];
            const uint32_t begin = o.depBegin;
            o.depBegin = static_cast<uint32_t>(sorted.deps.size());
            for (uint32_t k = begin; k < begin + o.depCount; ++k)
            {
                sorted.deps.push_back(pos[deps[k]]);
            }
            sorted.ops.push_back(o);
            sorted.ids.push_back(out.ids[i]);
        }
        out = std::move(sorted);
    }
};

const char*
OpName(CollectiveSpec::Op op)
{
    switch (op)
    {
    case CollectiveSpec::ALLREDUCE:
        return "ALL_REDUCE";
    case CollectiveSpec::REDUCESCATTER:
        return "REDUCE_SCATTER";
    case CollectiveSpec::ALLGATHER:
        return "ALL_GATHER";
    case CollectiveSpec::ALLTOALL:
        return "ALL_TO_ALL";
    default:
        return "unsupported";
    }
}

std::string
Describe(const WorkloadOp& o)
{
    std::string d = std::string(OpName(o.op)) + " of " + std::to_string(o.bytes) + " bytes";
    if (o.skew != 1.0 || o.hot != 0)
    {
        d += " (skew " + std::to_string(o.skew) + ", hot " + std::to_string(o.hot) + ")";
    }
    return d;
}

/// Per node of the trace, "<file>: node <id>".
struct Where
{
    const std::vector<std::string>& files;
    const std::vector<std::vector<uint64_t>>& ids;

    std::string operator()(uint32_t rank, uint32_t op) const
    {
        return files[rank] + ": node " + std::to_string(ids[rank][op]);
    }
};

/// Every send has its receive, and every receive its send: (source, destination, tag).
void
CheckMessages(const WorkloadGraph& g, const Where& where)
{
    struct Count
    {
        uint64_t sends{0};
        uint64_t recvs{0};
        uint32_t sendOp{0}; //!< the first of each, for the message
        uint32_t recvOp{0};
    };

    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Count> count;
    for (uint32_t r = 0; r < g.ranks; ++r)
    {
        for (uint32_t i = 0; i < g.ops[r].size(); ++i)
        {
            const WorkloadOp& o = g.ops[r][i];
            if (o.kind == WorkloadOp::SEND)
            {
                Count& c = count[{r, o.peer, o.tag}];
                c.sendOp = c.sends++ ? c.sendOp : i;
            }
            else if (o.kind == WorkloadOp::RECV)
            {
                Count& c = count[{o.peer, r, o.tag}];
                c.recvOp = c.recvs++ ? c.recvOp : i;
            }
        }
    }
    for (const auto& [key, c] : count)
    {
        const auto [src, dst, tag] = key;
        const std::string n =
            " (" + std::to_string(c.sends) + " sends, " + std::to_string(c.recvs) + " receives)";
        const std::string t = std::to_string(static_cast<int32_t>(tag));
        if (c.sends > c.recvs)
        {
            Fail(where(src, c.sendOp),
                 "COMM_SEND_NODE to rank " + std::to_string(dst) + " with comm_tag " + t +
                     " has no matching COMM_RECV_NODE in " + where.files[dst] + n);
        }
        if (c.recvs > c.sends)
        {
            Fail(where(dst, c.recvOp),
                 "COMM_RECV_NODE from rank " + std::to_string(src) + " with comm_tag " + t +
                     " has no matching COMM_SEND_NODE in " + where.files[src] + n);
        }
    }
}

/// The k-th collective of a process group is one collective: every member runs as many, and
/// the same operation of the same size.
void
CheckCollectives(const WorkloadGraph& g, chakra::CommGroups& groups, const Where& where)
{
    // Per group and member: its collectives' operation indices, in program order.
    std::vector<std::vector<std::vector<uint32_t>>> seq(g.groups.size());
    for (uint32_t k = 0; k < g.groups.size(); ++k)
    {
        seq[k].resize(g.groups[k].size());
    }
    for (uint32_t r = 0; r < g.ranks; ++r)
    {
        for (uint32_t i = 0; i < g.ops[r].size(); ++i)
        {
            const WorkloadOp& o = g.ops[r][i];
            if (o.kind == WorkloadOp::COLLECTIVE)
            {
                seq[o.group][groups.MemberIndex(o.group, r)].push_back(i);
            }
        }
    }
    for (uint32_t k = 0; k < g.groups.size(); ++k)
    {
        const auto& s = seq[k];
        const uint32_t a = g.groups[k][0];
        for (uint32_t m = 1; m < s.size(); ++m)
        {
            const uint32_t b = g.groups[k][m];
            if (s[m].size() != s[0].size())
            {
                const bool more = s[m].size() > s[0].size();
                const size_t common = std::min(s[m].size(), s[0].size());
                Fail(more ? where(b, s[m][common]) : where(a, s[0][common]),
                     "collective " + std::to_string(common + 1) + " of process group " +
                         groups.Label(k) + ", but " + where.files[more ? a : b] + " runs only " +
                         std::to_string(common) + " on it");
            }
            for (size_t c = 0; c < s[m].size(); ++c)
            {
                const WorkloadOp& x = g.ops[a][s[0][c]];
                const WorkloadOp& y = g.ops[b][s[m][c]];
                if (x.op != y.op || x.bytes != y.bytes || x.skew != y.skew || x.hot != y.hot)
                {
                    Fail(where(b, s[m][c]),
                         "collective " + std::to_string(c + 1) + " of process group " +
                             groups.Label(k) + " is " + Describe(y) + ", but in " +
                             where(a, s[0][c]) + " it is " + Describe(x));
                }
            }
        }
    }
}

} // namespace

WorkloadGraph
ChakraTrace::Read(const std::string& dir, const ChakraReadOptions& options)
{
#if GOOGLE_PROTOBUF_VERSION < 4022000
    // A malformed message is our one-line error; protobuf would also log it (invalid UTF-8).
    const google::protobuf::LogSilencer quiet;
#endif
    const std::vector<std::string> files = chakra::FindTraceFiles(dir, options.prefix);
    WorkloadGraph g(static_cast<uint32_t>(files.size()));
    std::string groupFile = options.commGroupFile;
    if (groupFile.empty())
    {
        const fs::path p = fs::path(dir) / chakra::kCommGroupFile;
        std::error_code ec;
        if (fs::exists(p, ec))
        {
            groupFile = p.string();
        }
    }
    chakra::CommGroups groups(g, groupFile);
    if (!groupFile.empty())
    {
        groups.Load(chakra::ReadSmallFile(groupFile, kMaxMessageBytes));
    }
    std::vector<std::vector<uint64_t>> ids(g.ranks);
    std::optional<double> modelFlops;
    for (uint32_t r = 0; r < g.ranks; ++r)
    {
        RankReader reader{r, g.ranks, files[r], groups, g, {}, {}};
        reader.Read();
        g.ops[r] = std::move(reader.out.ops);
        g.deps[r] = std::move(reader.out.deps);
        ids[r] = std::move(reader.out.ids);
        if (r == 0)
        {
            modelFlops = reader.out.modelFlops;
        }
    }
    const Where where{files, ids};
    CheckMessages(g, where);
    CheckCollectives(g, groups, where);
    if (modelFlops && *modelFlops < 0)
    {
        Fail(files[0], "negative ai_fabric_model_flops");
    }
    double flops = 0;
    for (uint32_t r = 0; r < g.ranks; ++r)
    {
        flops += g.ComputeFlops(r);
    }
    g.modelFlops = modelFlops ? *modelFlops : flops;
    const std::string problem = g.Check();
    if (!problem.empty())
    {
        Fail(dir, problem);
    }
    return g;
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
// What the Chakra trace tests share: small workloads, a temporary trace directory, a graph
// comparison, and traces written message by message with the protobuf classes, as Chakra's
// tools write them.
#ifndef AI_FABRIC_CHAKRA_TEST_UTIL_H
#define AI_FABRIC_CHAKRA_TEST_UTIL_H

#include "test-util.h"

#ifdef AI_FABRIC_HAVE_CHAKRA
#include "chakra-et.pb.h"
#endif

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace chakra_test
{

using namespace ns3;
namespace fs = std::filesystem;

/// ChakraTrace::Read's error for `dir`, or "no error".
inline std::string
ReadError(const std::string& dir, const ChakraReadOptions& o = ChakraReadOptions())
{
    try
    {
        ChakraTrace::Read(dir, o);
    }
    catch (const ChakraTraceError& e)
    {
        return e.what();
    }
    return "no error";
}

/// A fresh directory under GoogleTest's temporary directory, removed afterwards.
struct TraceDir
{
    fs::path path;

    explicit TraceDir(const std::string& name)
        : path(fs::path(::testing::TempDir()) /
               ("aif-chakra-" + name + "-" + std::to_string(::getpid())))
    {
        fs::remove_all(path);
        fs::create_directories(path);
    }

    ~TraceDir()
    {
        std::error_code ec;
        fs::remove_all(path, ec);
    }

    std::string Str() const
    {
        return path.string();
    }

    std::string File(const std::string& name) const
    {
        return (path / name).string();
    }
};

#ifdef AI_FABRIC_HAVE_CHAKRA

/// The first difference between two graphs, op by op, or empty.
inline std::string
FirstDifference(const WorkloadGraph& a, const WorkloadGraph& b)
{
    if (a.ranks != b.ranks)
    {
        return "ranks " + std::to_string(a.ranks) + " vs " + std::to_string(b.ranks);
    }
    if (a.groups != b.groups)
    {
        return "communicators differ";
    }
    if (a.modelFlops != b.modelFlops)
    {
        return "model FLOPs differ";
    }
    for (uint32_t r = 0; r < a.ranks; ++r)
    {
        if (a.ops[r].size() != b.ops[r].size())
        {
            return "rank " + std::to_string(r) + ": operation counts differ";
        }
        for (uint32_t i = 0; i < a.ops[r].size(); ++i)
        {
            const WorkloadOp& x = a.ops[r][i];
            const WorkloadOp& y = b.ops[r][i];
            const std::string at = "rank " + std::to_string(r) + " op " + std::to_string(i) + ": ";
            if (x.kind != y.kind || x.phase != y.phase)
            {
                return at + "kind or phase";
            }
            if (x.kind == WorkloadOp::COLLECTIVE &&
                (x.op != y.op || a.groups[x.group] != b.groups[y.group] || x.group != y.group))
            {
                return at + "collective or communicator";
            }
            if (x.peer != y.peer || x.tag != y.tag || x.bytes != y.bytes)
            {
                return at + "peer, tag or bytes";
            }
            if (x.flops != y.flops || x.durationNs != y.durationNs)
            {
                return at + "flops or duration";
            }
            if (x.skew != y.skew || x.hot != y.hot)
            {
                return at + "skew or hot";
            }
            const std::vector<uint32_t> dx(a.deps[r].begin() + x.depBegin,
                                           a.deps[r].begin() + x.depBegin + x.depCount);
            const std::vector<uint32_t> dy(b.deps[r].begin() + y.depBegin,
                                           b.deps[r].begin() + y.depBegin + y.depCount);
            if (dx != dy)
            {
                return at + "dependencies";
            }
        }
    }
    return "";
}

struct Workload
{
    const char* what;
    TransformerModel model;
    ParallelismConfig par;
};

inline std::vector<Workload>
Workloads()
{
    std::vector<Workload> w;
    {
        Workload d{"dense tp2 pp2 dp2", SmallModel(4), {}};
        d.model.vocab = 1000;
        d.par.tp = 2;
        d.par.pp = 2;
        d.par.dp = 2;
        d.par.microbatches = 4;
        d.par.bucketBytes = 4 << 20;
        w.push_back(d);
    }
    {
        Workload m{"moe tp2 pp2 dp2 ep2 skew 1.5", SmallModel(4), {}};
        m.model.experts = 4;
        m.model.topK = 2;
        m.model.gated = true;
        m.par.tp = 2;
        m.par.pp = 2;
        m.par.dp = 2;
        m.par.ep = 2;
        m.par.microbatches = 2;
        m.par.moeSkew = 1.5;
        m.par.moeHotRank = 1;
        w.push_back(m);
    }
    {
        Workload z{"zero1 sequence-parallel interleaved", SmallModel(8), {}};
        z.par.tp = 2;
        z.par.pp = 2;
        z.par.dp = 2;
        z.par.zero = 1;
        z.par.sequenceParallel = true;
        z.par.schedule = ParallelismConfig::INTERLEAVED;
        z.par.virtualStages = 2;
        z.par.microbatches = 4;
        w.push_back(z);
    }
    {
        Workload f{"fsdp dp4", SmallModel(2), {}};
        f.par.dp = 4;
        f.par.zero = 3;
        f.par.microbatches = 2;
        w.push_back(f);
    }
    return w;
}

using ChakraProtoMsg::AttributeProto;
using EtNode = ChakraProtoMsg::Node;

/// Writes messages as Chakra's encodeMessage does: a varint length, then the bytes.
class EtFile
{
  public:
    explicit EtFile(const std::string& file)
        : m_out(file, std::ios::binary | std::ios::trunc)
    {
    }

    void Put(const google::protobuf::MessageLite& m)
    {
        std::string bytes = m.SerializeAsString();
        Raw(bytes.size());
        m_out << bytes;
    }

    /// A varint alone (a length).
    void Raw(uint64_t v)
    {
        while (v >= 0x80)
        {
            m_out.put(static_cast<char>((v & 0x7f) | 0x80));
            v >>= 7;
        }
        m_out.put(static_cast<char>(v));
    }

    void Bytes(const std::string& s)
    {
        m_out << s;
    }

  private:
    std::ofstream m_out;
};

inline ChakraProtoMsg::GlobalMetadata
Metadata()
{
    ChakraProtoMsg::GlobalMetadata m;
    m.set_version("0.0.4");
    return m;
}

inline AttributeProto*
Attr(EtNode& n, const std::string& name)
{
    AttributeProto* a = n.add_attr();
    a->set_name(name);
    return a;
}

inline EtNode
MakeNode(uint64_t id, ChakraProtoMsg::NodeType type, std::initializer_list<uint64_t> deps = {})
{
    EtNode n;
    n.set_id(id);
    n.set_name("node" + std::to_string(id));
    n.set_type(type);
    for (uint64_t d : deps)
    {
        n.add_data_deps(d);
    }
    return n;
}

inline EtNode
Comp(uint64_t id, uint64_t micros, std::initializer_list<uint64_t> deps = {})
{
    EtNode n = MakeNode(id, ChakraProtoMsg::COMP_NODE, deps);
    n.set_duration_micros(micros);
    return n;
}

inline EtNode
Coll(uint64_t id,
     int64_t type,
     int64_t bytes,
     const std::string& pg,
     std::initializer_list<uint64_t> deps = {})
{
    EtNode n = MakeNode(id, ChakraProtoMsg::COMM_COLL_NODE, deps);
    Attr(n, "comm_type")->set_int64_val(type);
    Attr(n, "comm_size")->set_int64_val(bytes);
    if (!pg.empty())
    {
        Attr(n, "pg_name")->set_string_val(pg);
    }
    return n;
}

inline EtNode
P2p(uint64_t id, bool send, int32_t src, int32_t dst, int32_t tag, int64_t bytes)
{
    EtNode n = MakeNode(id, send ? ChakraProtoMsg::COMM_SEND_NODE : ChakraProtoMsg::COMM_RECV_NODE);
    Attr(n, "comm_src")->set_int32_val(src);
    Attr(n, "comm_dst")->set_int32_val(dst);
    Attr(n, "comm_tag")->set_int32_val(tag);
    Attr(n, "comm_size")->set_int64_val(bytes);
    return n;
}

/// A trace of one file per rank holding these nodes.
inline void
WriteTrace(const TraceDir& dir, const std::vector<std::vector<EtNode>>& ranks)
{
    for (uint32_t r = 0; r < ranks.size(); ++r)
    {
        EtFile f(ChakraTrace::FileName(dir.Str(), "trace", r));
        f.Put(Metadata());
        for (const EtNode& n : ranks[r])
        {
            f.Put(n);
        }
    }
}

inline void
WriteText(const std::string& file, const std::string& text)
{
    std::ofstream(file) << text;
}

#endif // AI_FABRIC_HAVE_CHAKRA

} // namespace chakra_test

#endif // AI_FABRIC_CHAKRA_TEST_UTIL_H

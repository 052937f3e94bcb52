// SPDX-License-Identifier: GPL-2.0-only
// ChakraTrace: the writer (WorkloadGraph -> per-rank .et files and comm_group.json) and what
// the reader shares with it; the reader is chakra-trace-reader.cc.
#include "chakra-trace.h"

#include "chakra-trace-files.h"

#ifdef AI_FABRIC_HAVE_CHAKRA
#include "chakra-node.h"
#endif

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

namespace ns3
{

std::string
ChakraTrace::FileName(const std::string& dir, const std::string& prefix, uint32_t rank)
{
    return (std::filesystem::path(dir) / (prefix + "." + std::to_string(rank) + chakra::kExtension))
        .string();
}

#ifndef AI_FABRIC_HAVE_CHAKRA

bool
ChakraTrace::Available()
{
    return false;
}

void
ChakraTrace::Write(const WorkloadGraph&, const std::string& dir, const std::string&, double)
{
    throw ChakraTraceError("chakra trace " + dir +
                           ": this build of ai-fabric has no protobuf (install libprotobuf-dev "
                           "and protobuf-compiler, then reconfigure)");
}

WorkloadGraph
ChakraTrace::Read(const std::string& dir, const ChakraReadOptions&)
{
    throw ChakraTraceError("chakra trace " + dir +
                           ": this build of ai-fabric has no protobuf (install libprotobuf-dev "
                           "and protobuf-compiler, then reconfigure)");
}

#else // AI_FABRIC_HAVE_CHAKRA

namespace
{

namespace fs = std::filesystem;
using ChakraProtoMsg::Node;

void
AppendVarint(std::string& out, uint64_t v)
{
    while (v >= 0x80)
    {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

/// Appends `m` to `out` as Chakra stores messages: its length as a varint, then its bytes.
void
AppendDelimited(std::string& out, const google::protobuf::MessageLite& m, std::string& scratch)
{
    scratch.clear();
    m.AppendToString(&scratch);
    AppendVarint(out, scratch.size());
    out += scratch;
}

[[noreturn]] void
WriteFailed(const std::string& file, const std::string& why)
{
    throw ChakraTraceError("chakra trace " + file + ": cannot write: " + why);
}

void
WriteFile(const std::string& file, const std::string& bytes)
{
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    if (!out)
    {
        WriteFailed(file, "cannot create the file");
    }
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out)
    {
        WriteFailed(file, "write error (disk full?)");
    }
}

void
WriteRank(const WorkloadGraph& g, uint32_t rank, const std::string& file, double flopsPerSecond)
{
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    if (!out)
    {
        WriteFailed(file, "cannot create the file");
    }
    std::string buf;
    std::string scratch;
    ChakraProtoMsg::GlobalMetadata meta;
    meta.set_version(chakra::kVersion);
    ChakraProtoMsg::AttributeProto* flops = meta.add_attr();
    flops->set_name(chakra::kModelFlops);
    flops->set_double_val(g.modelFlops);
    AppendDelimited(buf, meta, scratch);
    Node n;
    for (uint32_t i = 0; i < g.ops[rank].size(); ++i)
    {
        chakra::ToNode(g, rank, i, n, flopsPerSecond);
        AppendDelimited(buf, n, scratch);
        if (buf.size() >= (1U << 20))
        {
            out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
            buf.clear();
        }
    }
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    out.close();
    if (!out)
    {
        WriteFailed(file, "write error (disk full?)");
    }
}

} // namespace

bool
ChakraTrace::Available()
{
    return true;
}

void
ChakraTrace::Write(const WorkloadGraph& g,
                   const std::string& dir,
                   const std::string& prefix,
                   double flopsPerSecond)
{
    if (prefix.empty() || prefix.find('/') != std::string::npos)
    {
        throw ChakraTraceError("chakra trace " + dir + ": the prefix must be a file name, got \"" +
                               prefix + "\"");
    }
    const std::string problem = g.Check();
    if (!problem.empty())
    {
        throw ChakraTraceError("chakra trace " + dir + ": the graph cannot be written: " + problem);
    }
    if (g.ranks > kMaxRanks)
    {
        throw ChakraTraceError("chakra trace " + dir + ": " + std::to_string(g.ranks) +
                               " ranks, more than the " + std::to_string(kMaxRanks) +
                               " a trace may have");
    }
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir))
    {
        WriteFailed(dir, ec ? ec.message() : "not a directory");
    }
    for (const std::string& stale : chakra::StaleRankFiles(dir, prefix, g.ranks))
    {
        std::error_code rm;
        fs::remove(stale, rm);
    }
    WriteFile((fs::path(dir) / chakra::kCommGroupFile).string(), chakra::CommGroupJson(g));
    for (uint32_t r = 0; r < g.ranks; ++r)
    {
        WriteRank(g, r, FileName(dir, prefix, r), flopsPerSecond);
    }
}

#endif // AI_FABRIC_HAVE_CHAKRA

} // namespace ns3

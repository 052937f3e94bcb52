// SPDX-License-Identifier: GPL-2.0-only
// Chakra execution traces that ChakraTrace::Read refuses, each with a one-line
// ChakraTraceError naming the file, the node and the problem; nodes listed before their
// dependencies; and the build without protobuf.
#include "chakra-test-util.h"

#include <functional>
#include <random>
#include <sys/stat.h>

using namespace chakra_test;

#ifdef AI_FABRIC_HAVE_CHAKRA

// (c) Bad traces: each raises ChakraTraceError with one line naming the file, the node and
// the problem.
TEST(ChakraTraceErrors, BadTracesNameTheProblem)
{
    struct Case
    {
        const char* what;
        std::function<void(const TraceDir&)> make;
        std::vector<std::string> expect; //!< substrings of what()
    };

    const Workload w = Workloads()[0];
    const WorkloadGraph g = TransformerWorkload::Build(w.model, w.par);
    const std::vector<Case> cases = {
        {"no trace files", [](const TraceDir&) {}, {"no Chakra trace files"}},
        {"a gap in the ranks",
         [&](const TraceDir& d) {
             ChakraTrace::Write(g, d.Str());
             fs::remove(ChakraTrace::FileName(d.Str(), "trace", 2));
         },
         {"a gap in the ranks", "trace.2.et is missing"}},
        {"a truncated file",
         [&](const TraceDir& d) {
             ChakraTrace::Write(g, d.Str());
             const std::string f = ChakraTrace::FileName(d.Str(), "trace", 1);
             fs::resize_file(f, fs::file_size(f) - 3);
         },
         {"trace.1.et", "truncated", "after node " + std::to_string(g.ops[1].size() - 2)}},
        {"a dependency on an unknown node",
         [](const TraceDir& d) {
             WriteTrace(d, {{Comp(1, 5), Comp(5, 5, {1, 99})}});
         },
         {"trace.0.et: node 5", "data_deps names node 99, which is not in the file"}},
        {"a pg_name absent from comm_group.json",
         [](const TraceDir& d) {
             WriteTrace(d,
                        {{Coll(3, ChakraProtoMsg::ALL_REDUCE, 4096, "7")},
                         {Coll(3, ChakraProtoMsg::ALL_REDUCE, 4096, "7")}});
             WriteText(d.File("comm_group.json"), "{\"1\": [0, 1]}");
         },
         {"trace.0.et: node 3", "pg_name \"7\" is not in", "comm_group.json"}},
        {"a pg_name without comm_group.json",
         [](const TraceDir& d) {
             WriteTrace(d, {{Coll(3, ChakraProtoMsg::ALL_REDUCE, 4096, "pp-1")}, {}});
         },
         {"node 3", "pg_name \"pp-1\"", "the trace has no comm_group.json"}},
        {"a message over 64 MiB",
         [](const TraceDir& d) {
             EtFile f(ChakraTrace::FileName(d.Str(), "trace", 0));
             f.Put(Metadata());
             f.Put(Comp(1, 5));
             f.Raw(100ULL << 20);
             f.Bytes("x");
         },
         {"trace.0.et", "after node 1", "more than 64 MiB"}},
        {"a malformed message",
         [](const TraceDir& d) {
             EtFile f(ChakraTrace::FileName(d.Str(), "trace", 0));
             f.Put(Metadata());
             f.Raw(4);
             f.Bytes("\xff\xff\xff\xff");
         },
         {"trace.0.et", "the first node", "is not a Chakra Node"}},
        {"an unknown comm_type",
         [](const TraceDir& d) { WriteTrace(d, {{Coll(4, 42, 4096, "")}}); },
         {"node 4", "unknown comm_type 42"}},
        {"a send without its receive",
         [](const TraceDir& d) {
             WriteTrace(d, {{P2p(8, true, 0, 1, 3, 1024)}, {Comp(1, 1)}});
         },
         {"trace.0.et: node 8", "no matching COMM_RECV_NODE", "trace.1.et"}},
        {"a dependency cycle",
         [](const TraceDir& d) {
             WriteTrace(d, {{Comp(1, 5), Comp(2, 5, {3}), Comp(3, 5, {2})}});
         },
         {"dependency cycle"}},
        {"a duplicate node id",
         [](const TraceDir& d) {
             WriteTrace(d, {{Comp(1, 5), Comp(1, 5)}});
         },
         {"node 1", "a second node with this id"}},
        {"collectives that differ between ranks",
         [](const TraceDir& d) {
             WriteTrace(d,
                        {{Coll(1, ChakraProtoMsg::ALL_REDUCE, 4096, "")},
                         {Coll(1, ChakraProtoMsg::ALL_REDUCE, 8192, "")}});
         },
         {"trace.1.et: node 1", "ALL_REDUCE of 8192 bytes", "ALL_REDUCE of 4096 bytes"}},
        {"more than 65536 ranks",
         [](const TraceDir& d) {
             WriteTrace(d, {{Comp(1, 5)}});
             std::ofstream(d.File("trace.70000.et"));
         },
         {"trace.70000.et", "at most 65536 ranks"}},
        {"a malformed comm_group.json",
         [](const TraceDir& d) {
             WriteTrace(d, {{Comp(1, 5)}});
             WriteText(d.File("comm_group.json"), "{\"1\": [0, 1}");
         },
         {"comm_group.json: byte 11", "expected ']'"}},
        {"a comm_group.json rank outside the trace",
         [](const TraceDir& d) {
             WriteTrace(d, {{Comp(1, 5)}});
             WriteText(d.File("comm_group.json"), "{\"1\": [0, 3]}");
         },
         {"comm_group.json", "rank 3 is not in the 1-rank trace"}},
        {"a gzip-compressed file",
         [](const TraceDir& d) {
             WriteText(ChakraTrace::FileName(d.Str(), "trace", 0), "\x1f\x8b\x08");
         },
         {"gzip"}},
        {"an empty file",
         [](const TraceDir& d) { WriteText(ChakraTrace::FileName(d.Str(), "trace", 0), ""); },
         {"an empty file"}},
        {"a file over 4 GiB",
         [](const TraceDir& d) {
             const std::string f = ChakraTrace::FileName(d.Str(), "trace", 0);
             WriteText(f, "");
             fs::resize_file(f, ChakraTrace::kMaxFileBytes + 1); // sparse
         },
         {"more than the 4 GiB"}},
        {"two traces in one directory",
         [](const TraceDir& d) {
             WriteText(ChakraTrace::FileName(d.Str(), "a", 0), "");
             WriteText(ChakraTrace::FileName(d.Str(), "b", 0), "");
         },
         {"several traces", "\"a\", \"b\""}},
        {"a receive whose comm_dst is another rank",
         [](const TraceDir& d) {
             WriteTrace(d, {{P2p(2, false, 1, 1, 0, 64)}, {}});
         },
         {"node 2", "COMM_RECV_NODE with comm_dst 1 in rank 0's file"}},
    };
    for (const Case& c : cases)
    {
        TraceDir dir("bad");
        c.make(dir);
        const std::string e = ReadError(dir.Str());
        for (const std::string& s : c.expect)
        {
            EXPECT_NE(e.find(s), std::string::npos) << c.what << ": " << e;
        }
        EXPECT_EQ(e.find('\n'), std::string::npos) << c.what << ": " << e;
        EXPECT_EQ(e.rfind("chakra trace ", 0), 0u) << c.what << ": " << e;
    }
    EXPECT_NE(ReadError("/nonexistent/aif-chakra").find("no such directory"), std::string::npos);
}

// Special files named as a trace's files: every file the reader opens is a regular file within
// its limit (4 GiB a rank's file, 64 MiB comm_group.json). A FIFO, a device or a directory is
// refused at once with one line naming it (a FIFO or a dangling link named trace.1.et used to
// be skipped and reported as "a gap in the ranks", a device as "no Chakra trace files"; a FIFO
// opened by the reader blocked until a writer came).
TEST(ChakraTraceErrors, SpecialFilesNamedAsTraceFilesAreRefusedAtOnce)
{
    struct Case
    {
        const char* what;
        std::function<void(const TraceDir&)> make;
        std::string file;   //!< the file the message must name
        std::string expect; //!< what it must say about it
        ChakraReadOptions options = {};
    };

    auto valid = [](const TraceDir& d) {
        WriteTrace(d, {{Comp(1, 5)}, {Comp(1, 5)}});
        fs::remove(ChakraTrace::FileName(d.Str(), "trace", 1));
    };
    auto fifo = [](const std::string& f) { ASSERT_EQ(::mkfifo(f.c_str(), 0600), 0) << f; };
    const std::vector<Case> cases = {
        {"a FIFO as rank 1's file",
         [&](const TraceDir& d) {
             valid(d);
             fifo(ChakraTrace::FileName(d.Str(), "trace", 1));
         },
         "trace.1.et",
         "is a FIFO, not a regular file"},
        {"a FIFO as the only file",
         [&](const TraceDir& d) { fifo(ChakraTrace::FileName(d.Str(), "trace", 0)); },
         "trace.0.et",
         "is a FIFO, not a regular file"},
        {"/dev/zero linked as rank 1's file",
         [&](const TraceDir& d) {
             valid(d);
             fs::create_symlink("/dev/zero", ChakraTrace::FileName(d.Str(), "trace", 1));
         },
         "trace.1.et",
         "is a device, not a regular file"},
        {"a directory as rank 1's file",
         [&](const TraceDir& d) {
             valid(d);
             fs::create_directory(ChakraTrace::FileName(d.Str(), "trace", 1));
         },
         "trace.1.et",
         "is a directory, not a regular file"},
        {"a dangling link as rank 1's file",
         [&](const TraceDir& d) {
             valid(d);
             fs::create_symlink(d.File("nowhere"), ChakraTrace::FileName(d.Str(), "trace", 1));
         },
         "trace.1.et",
         "cannot be read: No such file or directory"},
        {"a FIFO as the chosen prefix's file",
         [&](const TraceDir& d) {
             valid(d);
             fifo(ChakraTrace::FileName(d.Str(), "other", 0));
         },
         "other.0.et",
         "is a FIFO, not a regular file",
         ChakraReadOptions{"other", ""}},
        {"a FIFO as comm_group.json",
         [&](const TraceDir& d) {
             WriteTrace(d, {{Comp(1, 5)}, {Comp(1, 5)}});
             fifo(d.File("comm_group.json"));
         },
         "comm_group.json",
         "is a FIFO, not a regular file"},
        {"/dev/zero as comm_group.json",
         [&](const TraceDir& d) {
             WriteTrace(d, {{Comp(1, 5)}, {Comp(1, 5)}});
             fs::create_symlink("/dev/zero", d.File("comm_group.json"));
         },
         "comm_group.json",
         "is a device, not a regular file"},
        {"a directory as comm_group.json",
         [&](const TraceDir& d) {
             WriteTrace(d, {{Comp(1, 5)}, {Comp(1, 5)}});
             fs::create_directory(d.File("comm_group.json"));
         },
         "comm_group.json",
         "is a directory, not a regular file"},
        {"a comm_group.json over 64 MiB",
         [&](const TraceDir& d) {
             WriteTrace(d, {{Comp(1, 5)}, {Comp(1, 5)}});
             WriteText(d.File("comm_group.json"), "");
             fs::resize_file(d.File("comm_group.json"), (64ULL << 20) + 1); // sparse
         },
         "comm_group.json",
         "67108865 bytes, more than the 64 MiB allowed"},
    };
    for (const Case& c : cases)
    {
        TraceDir dir("special");
        c.make(dir);
        const std::string e = ReadError(dir.Str(), c.options);
        EXPECT_NE(e.find(c.file + ": " + c.expect), std::string::npos) << c.what << ": " << e;
        EXPECT_EQ(e.find('\n'), std::string::npos) << c.what << ": " << e;
        EXPECT_EQ(e.rfind("chakra trace ", 0), 0u) << c.what << ": " << e;
    }
}

// Hostile bytes: truncations and random corruptions of a valid trace file either read into a
// graph that passes Check or raise a one-line ChakraTraceError, nothing else (no crash, no
// other exception, no unbounded allocation).
TEST(ChakraTraceErrors, CorruptedFilesRaiseChakraTraceErrorOnly)
{
    const Workload w = Workloads()[1]; // MoE: every attribute kind
    const WorkloadGraph g = TransformerWorkload::Build(w.model, w.par);
    TraceDir dir("corrupt");
    ChakraTrace::Write(g, dir.Str());
    const std::string file = ChakraTrace::FileName(dir.Str(), "trace", 1);
    std::string original;
    {
        std::ifstream in(file, std::ios::binary);
        original.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    ASSERT_GT(original.size(), 100u);
    std::mt19937 rng(7);
    uint32_t errors = 0;
    for (uint32_t k = 0; k < 300; ++k)
    {
        std::string bytes = original;
        if (k % 3 == 0)
        {
            bytes.resize(rng() % bytes.size());
        }
        else
        {
            for (uint32_t n = 1 + rng() % 4; n > 0; --n)
            {
                bytes[rng() % bytes.size()] = static_cast<char>(rng());
            }
        }
        std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
        try
        {
            EXPECT_EQ(ChakraTrace::Read(dir.Str()).Check(), "") << "corruption " << k;
        }
        catch (const ChakraTraceError& e)
        {
            ++errors;
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
        }
    }
    EXPECT_GT(errors, 100u);
}

// A node listed before one of its dependencies moves after it; the rest keep the file's order.
TEST(ChakraTraceRead, NodesBeforeTheirDependenciesAreSortedStably)
{
    TraceDir dir("sort");
    WriteTrace(dir, {{Comp(10, 1, {20}), Comp(20, 2), Comp(30, 3, {10}), Comp(5, 4)}});
    const WorkloadGraph g = ChakraTrace::Read(dir.Str());
    ASSERT_EQ(g.ops[0].size(), 4u);
    // 20 (no deps) first, then 10, 30, 5: each as early as the file allows.
    EXPECT_EQ(g.ops[0][0].durationNs, 2000);
    EXPECT_EQ(g.ops[0][1].durationNs, 1000);
    EXPECT_EQ(g.ops[0][2].durationNs, 3000);
    EXPECT_EQ(g.ops[0][3].durationNs, 4000);
    EXPECT_EQ(g.deps[0], (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(g.ops[0][1].depCount, 1u);
    EXPECT_EQ(g.ops[0][2].depBegin, 1u);
    EXPECT_EQ(g.Check(), "");
}

#else // AI_FABRIC_HAVE_CHAKRA

// Without protobuf the reader and writer say so.
TEST(ChakraTraceRead, WithoutProtobufReadingSaysSo)
{
    EXPECT_FALSE(ChakraTrace::Available());
    EXPECT_NE(ReadError("/tmp").find("no protobuf"), std::string::npos);
}

#endif // AI_FABRIC_HAVE_CHAKRA

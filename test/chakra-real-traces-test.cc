// SPDX-License-Identifier: GPL-2.0-only
// Chakra traces of the structure other tools write (issue 40), built here node by node: ASTRA-sim's
// custom ring all-reduce (sends and receives reusing comm_tag 0 between one pair), PyTorch's
// host-side c10d nodes and a broadcast, an all-gather whose comm_size is each rank's input (as
// Chakra's converter and ASTRA-sim mean it). Each parses, runs, and steps as the alpha-beta
// model of the same collective says (the cost nccl-tests' bus bandwidth is defined by); a trace
// we write keeps its compute times for tools that replay duration_micros.
#include "chakra-test-util.h"
#include "process-util.h"

#ifdef AI_FABRIC_HAVE_CHAKRA

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace chakra_test;

namespace
{

constexpr double kAlphaUs = 2;       // per message
constexpr double kGbps = 100;        // per message (IdealTransport: no contention)
constexpr uint64_t kBytes = 1 << 20; // 1 MiB, as the real examples

/// Step 0 of `g` on ranks that are one GPU per server, over IdealTransport (alpha, beta).
Time
StepOnIdealNetwork(const WorkloadGraph& g, uint32_t chunks = 1)
{
    auto shared = std::make_shared<const WorkloadGraph>(g);
    NodeContainer nodes;
    nodes.Create(g.ranks);
    std::vector<uint32_t> ranks;
    for (uint32_t r = 0; r < g.ranks; ++r)
    {
        ranks.push_back(r);
    }
    Ptr<IdealTransport> net = CreateObject<IdealTransport>();
    net->SetAttribute("Latency", TimeValue(NanoSeconds(int64_t(kAlphaUs * 1000))));
    net->SetAttribute("Bandwidth", DataRateValue(DataRate(uint64_t(kGbps * 1e9))));
    Ptr<ParallelTrainingJob> job = CreateObject<ParallelTrainingJob>();
    job->SetAttribute("Steps", UintegerValue(1));
    job->SetAttribute("Algorithm", StringValue("ring"));
    job->SetAttribute("Protocol", StringValue("simple"));
    job->SetAttribute("Channels", UintegerValue(1));
    job->SetAttribute("Chunks", UintegerValue(chunks));
    job->SetGraph(shared);
    job->Setup(nodes, ranks, 1, net, nullptr);
    Simulator::ScheduleNow(&ParallelTrainingJob::Start, job);
    Simulator::Run();
    EXPECT_TRUE(job->IsFinished());
    const Time t = job->IsFinished() ? job->GetSteps()[0].StepTime() : Time(0);
    Simulator::Destroy();
    return t;
}

/// Seconds of one message of `bytes` in the alpha-beta model.
double
MessageSeconds(double bytes)
{
    return kAlphaUs * 1e-6 + bytes * 8 / (kGbps * 1e9);
}

} // namespace

// ASTRA-sim's custom_ring_allreduce_8npus_1MB as its files are laid out: per rank, 14 rounds
// of a send to the next rank and a receive from the previous one, all with comm_tag 0 (reused
// between the same pair), each receive of the reduce-scatter half followed by a 7 us reduction
// kernel. It used to crash (matching by (src, dst, tag) kept only the last message). The step is
// 2(N-1) alpha-beta messages of S/N (nccl-tests' ring all-reduce) plus 7 reductions.
TEST_F(FabricTest, AstraSimCustomRingAllReduceWithReusedTagsRunsAsTheAlphaBetaRing)
{
    const int32_t n = 8;
    const int64_t part = kBytes / n;
    TraceDir dir("custom-ring");
    std::vector<std::vector<EtNode>> ranks(n);
    for (int32_t r = 0; r < n; ++r)
    {
        uint64_t id = 0;
        for (int32_t k = 0; k < 2 * (n - 1); ++k)
        {
            EtNode s = P2p(id, true, r, (r + 1) % n, 0, part);
            if (id > 0)
            {
                s.add_data_deps(id - 1);
            }
            ranks[r].push_back(s);
            ++id;
            EtNode v = P2p(id, false, (r + n - 1) % n, r, 0, part);
            v.add_data_deps(id - 1);
            ranks[r].push_back(v);
            ++id;
            if (k < n - 1)
            {
                ranks[r].push_back(Comp(id, 7, {id - 1}));
                ++id;
            }
        }
    }
    WriteTrace(dir, ranks);
    const WorkloadGraph g = ChakraTrace::Read(dir.Str());
    ASSERT_EQ(g.ranks, uint32_t(n));
    const double expected = 2 * (n - 1) * MessageSeconds(double(part)) + (n - 1) * 7e-6;
    const Time t = StepOnIdealNetwork(g);
    EXPECT_NEAR(t.GetSeconds(), expected, 28e-9) << t.GetSeconds(); // each message to the ns
    std::cout << "custom ring all-reduce, 8 ranks, 1 MiB: " << t.GetMicroSeconds()
              << " us (alpha-beta " << expected * 1e6 << " us)\n";
}

// PyTorch's trace (Chakra's feeder test data): host-side c10d::broadcast_ nodes (is_cpu_op,
// no comm_type) before the NCCL kernel node that carries comm_type BROADCAST and comm_size;
// they used to be refused. The host nodes take no GPU time; the broadcast runs (a chain from
// rank 0), 2 ranks: one message of S.
TEST_F(FabricTest, PyTorchHostSideNodesAndABroadcastRun)
{
    TraceDir dir("pytorch-broadcast");
    std::vector<std::vector<EtNode>> ranks(2);
    for (uint32_t r = 0; r < 2; ++r)
    {
        EtNode host = MakeNode(432, ChakraProtoMsg::COMM_COLL_NODE);
        host.set_name("c10d::broadcast_(0)");
        host.set_duration_micros(85);
        Attr(host, "is_cpu_op")->set_bool_val(true);
        EtNode kernel = Coll(435, ChakraProtoMsg::BROADCAST, int64_t(kBytes), "", {432});
        kernel.set_name("ncclKernel_Broadcast_RING_LL_Sum_int8_t");
        kernel.set_duration_micros(28);
        Attr(kernel, "is_cpu_op")->set_bool_val(false);
        EtNode barrier = Coll(436, ChakraProtoMsg::BARRIER, 1, "", {435});
        barrier.set_duration_micros(5); // not simulated: replayed for its recorded time
        ranks[r] = {host, kernel, barrier, Comp(541, 10, {436})};
    }
    WriteTrace(dir, ranks);
    const WorkloadGraph g = ChakraTrace::Read(dir.Str());
    ASSERT_EQ(g.ops[0].size(), 4u);
    EXPECT_EQ(g.ops[0][0].kind, WorkloadOp::COMPUTE);
    EXPECT_EQ(g.ops[0][0].durationNs, 0); // host-side: overlaps the GPU
    EXPECT_EQ(g.ops[0][1].kind, WorkloadOp::COLLECTIVE);
    EXPECT_EQ(g.ops[0][1].op, CollectiveSpec::BROADCAST);
    EXPECT_EQ(g.ops[0][1].bytes, kBytes);
    EXPECT_EQ(g.ops[0][2].kind, WorkloadOp::COMPUTE);
    EXPECT_EQ(g.ops[0][2].durationNs, 5000);
    // Chunks 1 and 1 MiB: the broadcast's slices (posted together, no contention here) end
    // with the last one, so the step is between one slice's and the whole buffer's message
    // time, plus 5 + 10 us.
    const double t = StepOnIdealNetwork(g).GetSeconds();
    EXPECT_GE(t, MessageSeconds(0) + 15e-6);
    EXPECT_LE(t, MessageSeconds(double(kBytes)) + 15e-6 + 1e-9);
}

// ASTRA-sim's all_gather_8npus_1MB: comm_size 1 MiB is each rank's input (ASTRA-sim's Ring
// gathers comm_size x N; Chakra's converter sums the input tensors). It runs as an all-gather
// of 8 MiB out, as the ring of nccl-tests: (N-1) messages of S_out/N = 1 MiB. And it is written
// back with comm_size 1 MiB.
TEST_F(FabricTest, AllGatherCommSizeIsEachRanksInput)
{
    const uint32_t n = 8;
    TraceDir dir("all-gather");
    std::vector<std::vector<EtNode>> ranks(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        ranks[r] = {Coll(0, ChakraProtoMsg::ALL_GATHER, int64_t(kBytes), "")};
    }
    WriteTrace(dir, ranks);
    const WorkloadGraph g = ChakraTrace::Read(dir.Str());
    ASSERT_EQ(g.ops[0][0].op, CollectiveSpec::ALLGATHER);
    EXPECT_EQ(g.ops[0][0].bytes, n * kBytes);
    // At least (N-1) x 1 MiB on the wire of each rank (1 MiB out would be 8 times less), at most
    // 20% above alpha-beta (the ring's per-step protocol latencies, NCCL's base latency).
    const double expected = (n - 1) * MessageSeconds(double(kBytes));
    const double t = StepOnIdealNetwork(g).GetSeconds();
    EXPECT_GT(t, (n - 1) * double(kBytes) * 8 / (kGbps * 1e9)) << t;
    EXPECT_LT(t, expected * 1.2) << t;
    // Exactly as the same all-gather of 8 MiB out, built directly.
    WorkloadGraph native(n);
    WorkloadOp ag;
    ag.kind = WorkloadOp::COLLECTIVE;
    ag.op = CollectiveSpec::ALLGATHER;
    ag.bytes = n * kBytes;
    ag.group = native.Group(g.groups[0]);
    for (uint32_t r = 0; r < n; ++r)
    {
        native.Add(r, ag);
    }
    EXPECT_EQ(StepOnIdealNetwork(native).GetSeconds(), t);
    std::cout << "all-gather, 8 ranks, comm_size 1 MiB: " << t * 1e6 << " us (alpha-beta "
              << expected * 1e6 << " us)\n";
    TraceDir back("all-gather-back");
    ChakraTrace::Write(g, back.Str());
    EXPECT_EQ(ChakraTrace::Read(back.Str()).ops[0][0].bytes, n * kBytes);
    std::ifstream in(ChakraTrace::FileName(back.Str(), "trace", 0), std::ios::binary);
    google::protobuf::io::IstreamInputStream zin(&in);
    ChakraProtoMsg::GlobalMetadata meta;
    EtNode node;
    bool eof = false;
    ASSERT_TRUE(google::protobuf::util::ParseDelimitedFromZeroCopyStream(&meta, &zin, &eof));
    ASSERT_TRUE(google::protobuf::util::ParseDelimitedFromZeroCopyStream(&node, &zin, &eof));
    for (const AttributeProto& a : node.attr())
    {
        if (a.name() == "comm_size")
        {
            EXPECT_EQ(a.int64_val(), int64_t(kBytes));
        }
    }
}

#endif // AI_FABRIC_HAVE_CHAKRA

namespace
{

/// The step (us) of the 8-rank trace `ranks` run by the runner as workload.kind chakra on 8
/// one-GPU servers (ring, simple, one channel), and the time nccl-tests gives `op` of `size`
/// on the same cluster.
std::pair<double, double>
TraceAndNcclTests(const std::string& tag,
                  const std::vector<std::vector<EtNode>>& ranks,
                  const std::string& op,
                  const std::string& size)
{
    const fs::path d = ScratchDir("aif-" + tag + "-vs-nccl");
    TraceDir dir(tag);
    WriteTrace(dir, ranks);
    const std::string cluster =
        R"("topology": {"servers": 8, "gpus_per_server": 1},
           "workload": {"algorithm": "ring", "protocol": "simple", "channels": 1)";
    WriteFile(d / "trace.json",
              "{" + cluster + R"(, "kind": "chakra", "trace": ")" + dir.Str() +
                  R"(", "steps": 1}})");
    WriteFile(d / "cluster.json", "{" + cluster + "}}");
    const Result run = RunCommand(std::string(AIFABRIC_RUNNER) + " " + (d / "trace.json").string() +
                                      " --quiet --out " + (d / "run").string(),
                                  tag + "-run");
    EXPECT_EQ(run.status, 0) << run.err;
    const Result nt = RunCommand(std::string(AIFABRIC_NCCL_TESTS) + " " +
                                     (d / "cluster.json").string() + " --op " + op + " -b " + size +
                                     " -e " + size + " --quiet --out " + (d / "nt").string(),
                                 tag + "-nccl");
    EXPECT_EQ(nt.status, 0) << nt.err;
    if (run.status != 0 || nt.status != 0)
    {
        return {0, -1};
    }
    const nlohmann::json s = nlohmann::json::parse(ReadFile(d / "run" / "summary.json"));
    const std::string csv = ReadFile(d / "nt" / "nccl-tests.csv");
    std::vector<std::string> cells;
    std::stringstream ss(csv.substr(csv.find('\n') + 1));
    for (std::string c; std::getline(ss, c, ',');)
    {
        cells.push_back(c);
    }
    EXPECT_GT(cells.size(), 5u) << csv;
    fs::remove_all(d);
    return {s["step_ms"]["mean"].get<double>() * 1e3, cells.size() > 5 ? std::stod(cells[5]) : -1};
}

} // namespace

// PyTorch's structure (host-side c10d::broadcast_ node, then the NCCL kernel node with
// comm_type BROADCAST) through the runner: the step is nccl-tests' broadcast of the same size on
// the same cluster (the host node takes no GPU time).
TEST(ChakraRealTraces, BroadcastTraceStepsAsNcclTests)
{
    std::vector<std::vector<EtNode>> ranks(8);
    for (auto& r : ranks)
    {
        EtNode host = MakeNode(432, ChakraProtoMsg::COMM_COLL_NODE);
        host.set_name("c10d::broadcast_(0)");
        host.set_duration_micros(85);
        Attr(host, "is_cpu_op")->set_bool_val(true);
        EtNode kernel = Coll(435, ChakraProtoMsg::BROADCAST, int64_t(8 * kBytes), "", {432});
        Attr(kernel, "is_cpu_op")->set_bool_val(false);
        r = {host, kernel};
    }
    const auto [stepUs, ncclUs] = TraceAndNcclTests("bcast", ranks, "broadcast", "8M");
    // The same schedule on the same cluster: equal to nccl-tests' printed nanosecond.
    EXPECT_NEAR(stepUs, ncclUs, 0.0015) << stepUs << " us against " << ncclUs;
    std::cout << "broadcast trace (8 MiB, 8 ranks, host-side nodes): step " << stepUs
              << " us; nccl-tests broadcast 8 MiB: " << ncclUs << " us\n";
}

// A kernel whose time no Time can hold (1e30 FLOPs: about 58 million years at an H100's
// 989.4 x 0.55 TFLOP/s; 1e50) used to run as a negative or zero compute time and report
// completed: true. Refused: exit 2, one line naming the rank and the operation.
TEST(ChakraRealTraces, AKernelBeyondAnyTimeIsRefused)
{
    for (const double flops : {1e30, 1e50})
    {
        const fs::path d = ScratchDir("aif-huge-kernel");
        TraceDir dir("huge-kernel");
        EtNode huge = MakeNode(1, ChakraProtoMsg::COMP_NODE);
        Attr(huge, "ai_fabric_flops")->set_double_val(flops);
        WriteTrace(dir, {{Comp(1, 5)}, {huge}});
        const Result r = Runner("--set workload.kind=chakra --set workload.trace=" + dir.Str() +
                                " --set topology.servers=1 --set topology.gpus_per_server=2"
                                " --out " +
                                (d / "out").string());
        EXPECT_EQ(r.status, 2) << flops << ": " << r.err;
        EXPECT_NE(r.err.find("workload.trace: rank 1 operation 0: a kernel of"), std::string::npos)
            << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(fs::exists(d / "out"));
        fs::remove_all(d);
    }
}

// The same all-gather through the runner (workload.kind chakra, the trace given as a file
// prefix relative to the scenario file) and through ai-fabric nccl-tests (all_gather of 8 MiB)
// on the same 8-GPU cluster, ring, simple, one channel: the step is the collective's time, to
// nccl-tests' printed nanosecond (before workload.channels reached a trace's collectives they
// ran on the ring's default channels: 247.569 against 247.947 us; a broadcast 397.7 against
// 333.7 us).
TEST(ChakraRealTraces, AllGatherTraceStepsAsNcclTestsOfTheOutputSize)
{
    const fs::path d = ScratchDir("aif-ag-vs-nccl");
    TraceDir dir("ag-runner");
    std::vector<std::vector<EtNode>> ranks(8);
    for (auto& r : ranks)
    {
        r = {Coll(0, ChakraProtoMsg::ALL_GATHER, int64_t(kBytes), "")};
    }
    WriteTrace(dir, ranks);
    fs::create_directories(d / "traces");
    for (uint32_t r = 0; r < 8; ++r)
    {
        fs::copy_file(ChakraTrace::FileName(dir.Str(), "trace", r),
                      ChakraTrace::FileName((d / "traces").string(), "ag", r));
    }
    const std::string cluster =
        R"("topology": {"servers": 8, "gpus_per_server": 1},
           "workload": {"algorithm": "ring", "protocol": "simple", "channels": 1)";
    WriteFile(d / "trace.json",
              "{" + cluster + R"(, "kind": "chakra", "trace": "traces/ag", "steps": 1}})");
    WriteFile(d / "cluster.json", "{" + cluster + "}}");
    const Result run =
        RunCommand("cd / && " + std::string(AIFABRIC_RUNNER) + " " + (d / "trace.json").string() +
                       " --quiet --out " + (d / "run").string(),
                   "ag-run");
    ASSERT_EQ(run.status, 0) << run.err;
    const nlohmann::json s = nlohmann::json::parse(ReadFile(d / "run" / "summary.json"));
    const nlohmann::json& r = s.contains("runs") ? s["runs"][0] : s;
    EXPECT_EQ(r["collective"], "allgather");
    EXPECT_EQ(r["bytes"], 8 * kBytes);
    const double stepUs = r["step_ms"]["mean"].get<double>() * 1e3;
    const Result nt =
        RunCommand(std::string(AIFABRIC_NCCL_TESTS) + " " + (d / "cluster.json").string() +
                       " --op all_gather -b 8M -e 8M --quiet --out " + (d / "nt").string(),
                   "ag-nccl");
    ASSERT_EQ(nt.status, 0) << nt.err;
    const std::string csv = ReadFile(d / "nt" / "nccl-tests.csv");
    const std::string row = csv.substr(csv.find('\n') + 1);
    std::vector<std::string> cells;
    std::stringstream ss(row);
    for (std::string c; std::getline(ss, c, ',');)
    {
        cells.push_back(c);
    }
    ASSERT_GT(cells.size(), 5u) << csv;
    const double ncclUs = std::stod(cells[5]);
    EXPECT_NEAR(stepUs, ncclUs, 0.0015) << stepUs << " us against " << ncclUs;
    std::cout << "all-gather trace (comm_size 1 MiB, 8 ranks): step " << stepUs
              << " us; nccl-tests all_gather 8 MiB: " << ncclUs << " us\n";
}

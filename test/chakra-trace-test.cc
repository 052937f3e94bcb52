// SPDX-License-Identifier: GPL-2.0-only
// Chakra execution traces (ChakraTrace): TransformerWorkload graphs written and read back equal
// the originals op by op; the files are Chakra's layout; a written trace, read back and run on
// a RoCEv2 fat-tree, steps exactly as the native workload; a trace laid out as Chakra's
// PyTorch converter writes it reads into the expected graph. Bad traces:
// chakra-trace-errors-test.cc.
#include "chakra-test-util.h"

#ifdef AI_FABRIC_HAVE_CHAKRA

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

using namespace chakra_test;

namespace
{

/// The step of `graph` on a fresh RoCEv2 fat-tree of one GPU per server (4 hosts per leaf:
/// pipeline and data-parallel traffic crosses the spines), random streams fixed.
struct FabricRun
{
    std::vector<TrainingStepRecord> steps;
    std::vector<RankPhaseTimes> phases;
    std::vector<uint64_t> bytes;

    explicit FabricRun(std::shared_ptr<const WorkloadGraph> graph)
    {
        Ptr<FabricTopology> topo = SharedSpineFatTree(graph->ranks);
        topo->AssignStreams(1);
        Ptr<RdmaCollectiveTransport> net = CreateObject<RdmaCollectiveTransport>();
        net->SetRanks(topo->GetHosts());
        NodeContainer nodes;
        std::vector<uint32_t> ranks;
        for (uint32_t r = 0; r < graph->ranks; ++r)
        {
            nodes.Add(topo->GetHostNode(r));
            ranks.push_back(r);
        }
        Ptr<ParallelTrainingJob> job = CreateObject<ParallelTrainingJob>();
        job->SetAttribute("Steps", UintegerValue(2));
        job->SetAttribute("Algorithm", StringValue("ring"));
        job->SetAttribute("Protocol", StringValue("simple"));
        job->SetGraph(graph);
        job->Setup(nodes, ranks, 1, net, nullptr);
        Simulator::ScheduleNow(&ParallelTrainingJob::Start, job);
        Simulator::Run();
        EXPECT_TRUE(job->IsFinished());
        steps = job->GetSteps();
        for (uint32_t k = 0; k < steps.size(); ++k)
        {
            for (uint32_t r = 0; r < graph->ranks; ++r)
            {
                phases.push_back(job->GetPhaseTimes(k, r));
                for (uint32_t p = 0; p < WorkloadOp::PHASES; ++p)
                {
                    bytes.push_back(job->GetBytesSent(k, r, static_cast<WorkloadOp::Phase>(p)));
                }
            }
        }
        Simulator::Destroy();
    }
};

class ChakraTraceTest : public FabricTest
{
};

} // namespace

// (a) Every workload shape (dense, MoE with skew, ZeRO-1 with sequence parallelism and the
// interleaved schedule, FSDP) reads back equal to the graph written, op by op: kind, phase,
// collective, communicator and its members, peer, tag, bytes, FLOPs, duration, skew and hot
// expert, dependencies; and the model FLOPs.
TEST(ChakraTraceRoundTrip, TransformerWorkloadsReadBackEqual)
{
    ASSERT_TRUE(ChakraTrace::Available());
    for (const Workload& w : Workloads())
    {
        ASSERT_EQ(TransformerWorkload::Check(w.model, w.par), "") << w.what;
        const WorkloadGraph g = TransformerWorkload::Build(w.model, w.par);
        ASSERT_EQ(g.Check(), "") << w.what;
        TraceDir dir("roundtrip");
        ChakraTrace::Write(g, dir.Str());
        for (uint32_t r = 0; r < g.ranks; ++r)
        {
            EXPECT_TRUE(fs::exists(ChakraTrace::FileName(dir.Str(), "trace", r))) << w.what;
        }
        const WorkloadGraph back = ChakraTrace::Read(dir.Str());
        EXPECT_EQ(FirstDifference(g, back), "") << w.what;
        EXPECT_EQ(back.Check(), "") << w.what;
        if (w.par.moeSkew != 1.0)
        {
            // The imbalance survived: some all-to-all carries it.
            bool skewed = false;
            for (const WorkloadOp& o : back.ops[0])
            {
                skewed =
                    skewed || (o.op == CollectiveSpec::ALLTOALL &&
                               o.kind == WorkloadOp::COLLECTIVE && o.skew == 1.5 && o.hot == 1);
            }
            EXPECT_TRUE(skewed) << w.what;
        }
    }
}

// The files are Chakra's layout, read here by protobuf's own delimited-message parser rather
// than ours: a GlobalMetadata of version 0.0.4 and the model FLOPs, then one node per
// operation with Chakra's attributes; comm_group.json is ASTRA-sim's {"<pg_name>": [ranks]}.
TEST(ChakraTraceRoundTrip, WrittenFilesAreChakrasLayout)
{
    const Workload w = Workloads()[0];
    const WorkloadGraph g = TransformerWorkload::Build(w.model, w.par);
    TraceDir dir("layout");
    ChakraTrace::Write(g, dir.Str(), "llm");
    std::ifstream in(ChakraTrace::FileName(dir.Str(), "llm", 0), std::ios::binary);
    google::protobuf::io::IstreamInputStream zin(&in);
    ChakraProtoMsg::GlobalMetadata meta;
    bool eof = false;
    ASSERT_TRUE(google::protobuf::util::ParseDelimitedFromZeroCopyStream(&meta, &zin, &eof));
    EXPECT_EQ(meta.version(), "0.0.4");
    ASSERT_EQ(meta.attr_size(), 1);
    EXPECT_EQ(meta.attr(0).name(), "ai_fabric_model_flops");
    EXPECT_EQ(meta.attr(0).double_val(), g.modelFlops);
    std::vector<EtNode> nodes;
    for (;;)
    {
        EtNode n; // ParseDelimited merges into what the message holds
        if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&n, &zin, &eof))
        {
            break;
        }
        nodes.push_back(n);
    }
    EXPECT_TRUE(eof);
    ASSERT_EQ(nodes.size(), g.ops[0].size());
    bool sawCollective = false;
    bool sawSend = false;
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        const WorkloadOp& o = g.ops[0][i];
        EXPECT_EQ(nodes[i].id(), i);
        ASSERT_EQ(uint32_t(nodes[i].data_deps_size()), o.depCount);
        std::map<std::string, AttributeProto> attrs;
        for (const AttributeProto& a : nodes[i].attr())
        {
            attrs[a.name()] = a;
        }
        EXPECT_FALSE(attrs.at("is_cpu_op").bool_val());
        EXPECT_EQ(attrs.at("ai_fabric_phase").string_val(), WorkloadGraph::PhaseName(o.phase));
        if (o.kind == WorkloadOp::COMPUTE)
        {
            EXPECT_EQ(nodes[i].type(), ChakraProtoMsg::COMP_NODE);
            if (o.flops > 0)
            {
                EXPECT_EQ(attrs.at("num_ops").int64_val(), std::llround(o.flops));
            }
            else
            {
                EXPECT_EQ(int64_t(nodes[i].duration_micros()), (o.durationNs + 500) / 1000);
                EXPECT_EQ(attrs.at("duration_ns").int64_val(), o.durationNs);
            }
        }
        else if (o.kind == WorkloadOp::COLLECTIVE && !sawCollective)
        {
            sawCollective = true;
            EXPECT_EQ(nodes[i].type(), ChakraProtoMsg::COMM_COLL_NODE);
            const int64_t type = o.op == CollectiveSpec::ALLREDUCE ? ChakraProtoMsg::ALL_REDUCE
                                 : o.op == CollectiveSpec::REDUCESCATTER
                                     ? ChakraProtoMsg::REDUCE_SCATTER
                                 : o.op == CollectiveSpec::ALLGATHER ? ChakraProtoMsg::ALL_GATHER
                                                                     : ChakraProtoMsg::ALL_TO_ALL;
            EXPECT_EQ(attrs.at("comm_type").int64_val(), type);
            // An all-gather's comm_size is each rank's input, as Chakra and ASTRA-sim read it.
            const uint64_t members =
                o.op == CollectiveSpec::ALLGATHER ? g.groups[o.group].size() : 1;
            EXPECT_EQ(uint64_t(attrs.at("comm_size").int64_val()),
                      (o.bytes + members - 1) / members);
            EXPECT_EQ(attrs.at("pg_name").string_val(), std::to_string(o.group + 1));
        }
        else if (o.kind == WorkloadOp::SEND && !sawSend)
        {
            sawSend = true;
            EXPECT_EQ(nodes[i].type(), ChakraProtoMsg::COMM_SEND_NODE);
            EXPECT_EQ(attrs.at("comm_src").int32_val(), 0);
            EXPECT_EQ(uint32_t(attrs.at("comm_dst").int32_val()), o.peer);
            EXPECT_EQ(uint32_t(attrs.at("comm_tag").int32_val()), o.tag);
            EXPECT_EQ(uint64_t(attrs.at("comm_size").int64_val()), o.bytes);
        }
    }
    EXPECT_TRUE(sawCollective);
    EXPECT_TRUE(sawSend);
    std::ifstream cg(dir.File("comm_group.json"));
    const nlohmann::json j = nlohmann::json::parse(cg);
    ASSERT_EQ(j.size(), g.groups.size());
    for (uint32_t k = 0; k < g.groups.size(); ++k)
    {
        EXPECT_EQ(j.at(std::to_string(k + 1)).get<std::vector<uint32_t>>(), g.groups[k]);
    }
    // Writing a smaller trace into the same directory removes the larger one's extra ranks.
    WorkloadGraph two(2);
    WorkloadOp c;
    c.durationNs = 1500;
    two.Add(0, c);
    two.Add(1, c);
    ChakraTrace::Write(two, dir.Str(), "llm");
    EXPECT_FALSE(fs::exists(ChakraTrace::FileName(dir.Str(), "llm", 2)));
    ChakraReadOptions o;
    o.prefix = "llm";
    EXPECT_EQ(FirstDifference(ChakraTrace::Read(dir.Str(), o), two), "");
}

// (b) THE MUST-SHOW: a Chakra trace written from a TransformerWorkload, read back and run on a
// RoCEv2 fat-tree (RDMA, ring collectives, pipeline sends across the spines), steps exactly as
// the native graph: every step's time to the nanosecond, every rank's phase times and bytes.
TEST_F(ChakraTraceTest, ReadBackTraceStepsAsTheNativeWorkloadOnAFabric)
{
    for (const Workload& w0 : {Workloads()[0], Workloads()[1]})
    {
        Workload w = w0;
        w.model.seqLen = 128; // communication-heavy enough to congest, small enough to be quick
        auto native =
            std::make_shared<const WorkloadGraph>(TransformerWorkload::Build(w.model, w.par));
        TraceDir dir("fabric");
        ChakraTrace::Write(*native, dir.Str());
        auto traced = std::make_shared<const WorkloadGraph>(ChakraTrace::Read(dir.Str()));
        const FabricRun a(native);
        const FabricRun b(traced);
        ASSERT_EQ(a.steps.size(), 2u);
        ASSERT_EQ(b.steps.size(), 2u);
        for (uint32_t k = 0; k < 2; ++k)
        {
            EXPECT_GT(a.steps[k].StepTime(), MicroSeconds(10)) << w.what;
            EXPECT_EQ(a.steps[k].StepTime().GetTimeStep(), b.steps[k].StepTime().GetTimeStep())
                << w.what << " step " << k;
            EXPECT_EQ(a.steps[k].waitedOn, b.steps[k].waitedOn) << w.what;
            EXPECT_EQ(a.steps[k].cause, b.steps[k].cause) << w.what;
        }
        ASSERT_EQ(a.phases.size(), b.phases.size());
        for (uint32_t i = 0; i < a.phases.size(); ++i)
        {
            EXPECT_EQ(a.phases[i].compute, b.phases[i].compute) << w.what;
            EXPECT_EQ(a.phases[i].tpExposed, b.phases[i].tpExposed) << w.what;
            EXPECT_EQ(a.phases[i].ppBubble, b.phases[i].ppBubble) << w.what;
            EXPECT_EQ(a.phases[i].dpExposed, b.phases[i].dpExposed) << w.what;
            EXPECT_EQ(a.phases[i].epExposed, b.phases[i].epExposed) << w.what;
            EXPECT_EQ(a.phases[i].barrier, b.phases[i].barrier) << w.what;
        }
        EXPECT_EQ(a.bytes, b.bytes) << w.what;
        std::cout << w.what << ": native step " << a.steps[0].StepTime().GetNanoSeconds()
                  << " ns, from the Chakra trace " << b.steps[0].StepTime().GetNanoSeconds()
                  << " ns\n";
    }
}

// (d) A trace in Chakra's own layout, as its PyTorch converter writes one: a GlobalMetadata of
// the converter's attributes, then nodes with sparse ids, a metadata node, GPU kernels with only
// duration_micros, a CPU operator, control dependencies, and an ALL_REDUCE with comm_size and
// no pg_name. It reads into the expected graph, and runs.
TEST_F(ChakraTraceTest, ChakraConverterLayoutReadsIntoTheExpectedGraph)
{
    TraceDir dir("converter");
    for (uint32_t r = 0; r < 2; ++r)
    {
        EtFile f(dir.File("megatron_gpt." + std::to_string(r) + ".et"));
        ChakraProtoMsg::GlobalMetadata meta;
        meta.set_version("0.0.4");
        auto* a = meta.add_attr();
        a->set_name("schema");
        a->set_string_val("1.0.2-chakra.0.0.4");
        a = meta.add_attr();
        a->set_name("pid");
        a->set_uint64_val(1234 + r);
        f.Put(meta);

        EtNode pg = MakeNode(2, ChakraProtoMsg::METADATA_NODE);
        pg.set_name("process_group:init");
        EtNode mm = Comp(5, 120, {2});
        mm.set_name("ampere_bf16_s16816gemm");
        mm.add_ctrl_deps(4); // the calling aten::mm, not in the trace: ignored
        Attr(mm, "is_cpu_op")->set_bool_val(false);
        Attr(mm, "tid")->set_int64_val(7);
        EtNode cpu = Comp(6, 30, {5});
        cpu.set_name("aten::add");
        Attr(cpu, "is_cpu_op")->set_bool_val(true);
        EtNode ar = Coll(9, ChakraProtoMsg::ALL_REDUCE, 4 << 20, "", {5});
        ar.set_name("ncclDevKernel_AllReduce_Sum_bf16_RING_LL");
        Attr(ar, "is_cpu_op")->set_bool_val(false);
        EtNode after = Comp(11, 80, {9, 6});
        for (const EtNode& n : {pg, mm, cpu, ar, after})
        {
            f.Put(n);
        }
    }
    const WorkloadGraph g = ChakraTrace::Read(dir.Str());
    ASSERT_EQ(g.ranks, 2u);
    ASSERT_EQ(g.groups.size(), 1u);
    EXPECT_EQ(g.groups[0], (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(g.modelFlops, 0.0);
    for (uint32_t r = 0; r < 2; ++r)
    {
        const auto& o = g.ops[r];
        ASSERT_EQ(o.size(), 5u);
        EXPECT_EQ(o[0].kind, WorkloadOp::COMPUTE); // metadata: zero time
        EXPECT_EQ(o[0].durationNs, 0);
        EXPECT_EQ(o[1].kind, WorkloadOp::COMPUTE);
        EXPECT_EQ(o[1].durationNs, 120000);
        EXPECT_EQ(o[1].flops, 0.0);
        EXPECT_EQ(o[1].phase, WorkloadOp::OTHER);
        EXPECT_EQ(o[2].durationNs, 0); // a CPU operator: zero time on the GPU's stream
        EXPECT_EQ(o[3].kind, WorkloadOp::COLLECTIVE);
        EXPECT_EQ(o[3].op, CollectiveSpec::ALLREDUCE);
        EXPECT_EQ(o[3].bytes, 4u << 20);
        EXPECT_EQ(o[3].group, 0u);
        EXPECT_EQ(o[4].durationNs, 80000);
        EXPECT_EQ(g.deps[r], (std::vector<uint32_t>{0, 1, 1, 3, 2}));
        EXPECT_EQ(o[4].depBegin, 3u);
        EXPECT_EQ(o[4].depCount, 2u);
    }
    // It runs: 120 us of kernel, the all-reduce, 80 us of kernel.
    auto shared = std::make_shared<const WorkloadGraph>(g);
    NodeContainer nodes;
    nodes.Create(2);
    Ptr<ParallelTrainingJob> job = CreateObject<ParallelTrainingJob>();
    job->SetAttribute("Steps", UintegerValue(1));
    job->SetAttribute("Algorithm", StringValue("ring"));
    job->SetAttribute("Protocol", StringValue("simple"));
    job->SetGraph(shared);
    Ptr<CollectiveTransport> ideal = CreateObject<IdealTransport>();
    job->Setup(nodes, {0, 1}, 2, ideal, ideal);
    Simulator::ScheduleNow(&ParallelTrainingJob::Start, job);
    Simulator::Run();
    ASSERT_TRUE(job->IsFinished());
    EXPECT_GT(job->GetSteps()[0].StepTime(), MicroSeconds(200));
}

// Process groups from comm_group.json in its order, members in communicator order; two groups
// over the same ranks stay two communicators; "0" not listed is every rank (ASTRA-sim's
// default group).
TEST(ChakraTraceRead, ProcessGroupsComeFromCommGroupJson)
{
    TraceDir dir("groups");
    std::vector<std::vector<EtNode>> ranks(4);
    for (int32_t r = 0; r < 4; ++r)
    {
        ranks[r].push_back(Coll(1, ChakraProtoMsg::ALL_GATHER, 1024, r < 2 ? "10" : "11"));
        ranks[r].push_back(Coll(2, ChakraProtoMsg::REDUCE_SCATTER_BLOCK, 1024, "0", {1}));
        ranks[r].push_back(Coll(3, ChakraProtoMsg::ALL_TO_ALL, 1024, r < 2 ? "12" : "11", {2}));
    }
    WriteTrace(dir, ranks);
    WriteText(dir.File("comm_group.json"),
              "{ \"10\": [1, 0],\n \"11\": [2, 3], \"12\": [0, 1] }\n");
    const WorkloadGraph g = ChakraTrace::Read(dir.Str());
    ASSERT_EQ(g.groups.size(), 4u);
    EXPECT_EQ(g.groups[0], (std::vector<uint32_t>{1, 0}));
    EXPECT_EQ(g.groups[1], (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(g.groups[2], (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(g.groups[3], (std::vector<uint32_t>{0, 1, 2, 3}));
    EXPECT_EQ(g.ops[0][0].group, 0u);
    EXPECT_EQ(g.ops[0][1].group, 3u);
    EXPECT_EQ(g.ops[0][1].op, CollectiveSpec::REDUCESCATTER);
    EXPECT_EQ(g.ops[0][2].group, 2u);
    EXPECT_EQ(g.ops[3][2].group, 1u);
    EXPECT_EQ(g.ops[3][1].phase, WorkloadOp::OTHER);
}

#endif // AI_FABRIC_HAVE_CHAKRA

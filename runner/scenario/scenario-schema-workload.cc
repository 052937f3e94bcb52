// SPDX-License-Identifier: GPL-2.0-only
// The workload.* keys of the scenario schema: what runs on the GPUs (collectives, flows,
// training, Chakra traces), in the order --help lists them.
#include "scenario-schema-workload.h"

#include "scenario-plugins.h"

namespace aifabric
{

namespace
{

/// workload.collective's values: ns3::CollectiveSpec's names of its operations.
std::vector<std::string>
CollectiveNames()
{
    std::vector<std::string> v;
    for (int op = ns3::CollectiveSpec::ALLREDUCE; op <= ns3::CollectiveSpec::SENDRECV; ++op)
    {
        v.emplace_back(ns3::CollectiveSpec::OpName(ns3::CollectiveSpec::Op(op)));
    }
    return v;
}

/// workload.protocol's values: auto and ns3::CollectiveProtocol's names.
std::vector<std::string>
ProtocolNames()
{
    std::vector<std::string> v{"auto"};
    for (auto k : {ns3::CollectiveProtocol::SIMPLE,
                   ns3::CollectiveProtocol::LL128,
                   ns3::CollectiveProtocol::LL})
    {
        v.emplace_back(ns3::CollectiveProtocol::Name(k));
    }
    return v;
}

} // namespace

/// The keys of a flow-traffic object (workload.flows, workload.background).
#define FLOW_KEYS(prefix, what, value)                                                             \
    ObjectKey(prefix, what).Default(value),                                                        \
        TextKey(                                                                                   \
            prefix ".cdf",                                                                         \
            0,                                                                                     \
            4096,                                                                                  \
            "flow sizes: websearch, fb-hadoop, or a file of 'bytes cumulative-percent' lines"),    \
        NumKey(prefix ".load",                                                                     \
               Above(0),                                                                           \
               AtMost(1),                                                                          \
               "offered load per host, fraction of its line rate (Poisson arrivals)"),             \
        ChoiceKey(prefix ".pattern",                                                               \
                  NamesOf<FlowsPattern>(),                                                         \
                  "destinations: uniformly random, or a random permutation"),                      \
        ObjectKey(prefix ".incast", "periodic N-to-1 bursts"),                                     \
        IntKey(prefix ".incast.fanin",                                                             \
               AtLeast(0),                                                                         \
               AtMost(65535),                                                                      \
               "senders per burst (0: no incast; below the number of hosts)"),                     \
        IntKey(prefix ".incast.bytes", AtLeast(1), AtMost(1e12), "bytes per sender"),              \
        NumKey(prefix ".incast.period_us",                                                         \
               AtLeast(0),                                                                         \
               AtMost(1e9),                                                                        \
               "time between bursts, us (0: no incast)")

std::vector<KeySpec>
WorkloadSchemaKeys()
{
    return {
        ObjectKey("workload", "the training job"),
        ChoiceKey(
            "workload.kind",
            NamesOf<WorkloadKind>(),
            "collective: training steps of compute and a collective; flows: flow traffic "
            "(workload.flows) with FCT slowdown, no GPUs' steps (RDMA fabrics); matrix: the flows "
            "of an htsim connection matrix (workload.matrix), FCTs; training: a "
            "parallel transformer job (workload.model, workload.parallelism); chakra: the step of "
            "a Chakra execution trace (workload.trace)")
            .Default(WorkloadKind::COLLECTIVE),
        TextKey(
            "workload.matrix",
            0,
            4096,
            "workload.kind matrix: an htsim connection-matrix file (.cm: 'Nodes N', 'Connections "
            "M', then 'a->b [id I] start <ps> size <bytes>' lines), relative to the scenario "
            "file")
            .Default(""),
        TextKey(
            "workload.trace",
            0,
            4096,
            "workload.kind chakra: a directory of Chakra ET files, <prefix>.<rank>.et for every "
            "GPU, and comm_group.json (ai-fabric chakra export writes them)")
            .Default(""),
        ChoiceKey(
            "workload.model",
            {"gpt3-175b", "llama3-8b", "llama3-70b", "llama3-405b", "mixtral-8x7b", "deepseek-v3"},
            "the model of workload.kind training (its published shape; workload.model_shape "
            "overrides fields)")
            .Default("llama3-8b"),
        ObjectKey("workload.model_shape", "fields of the model (0: the preset's)"),
        IntKey("workload.model_shape.layers", AtLeast(0), AtMost(100000), "transformer layers")
            .Default(0),
        IntKey("workload.model_shape.hidden", AtLeast(0), AtMost(1048576), "hidden size")
            .Default(0),
        IntKey("workload.model_shape.ffn", AtLeast(0), AtMost(4194304), "MLP width").Default(0),
        IntKey("workload.model_shape.heads", AtLeast(0), AtMost(65536), "attention heads")
            .Default(0),
        IntKey("workload.model_shape.kv_heads", AtLeast(0), AtMost(65536), "key/value heads")
            .Default(0),
        IntKey("workload.model_shape.seq_len", AtLeast(0), AtMost(16777216), "sequence length")
            .Default(0),
        IntKey("workload.model_shape.vocab", AtLeast(0), AtMost(16777216), "vocabulary").Default(0),
        IntKey("workload.model_shape.experts",
               AtLeast(0),
               AtMost(65536),
               "routed experts per MoE layer")
            .Default(0),
        IntKey("workload.model_shape.top_k", AtLeast(0), AtMost(65536), "experts per token")
            .Default(0),
        ChoiceKey("workload.model_shape.dtype",
                  {"auto", "bf16", "fp16", "fp8", "fp32"},
                  "activation, weight and gradient type (auto: bf16)")
            .Default("auto"),
        ObjectKey("workload.parallelism", "how workload.model is split"),
        IntKey("workload.parallelism.tp",
               AtLeast(1),
               AtMost(4096),
               "tensor parallelism (inside a server)")
            .Default(8),
        IntKey("workload.parallelism.pp", AtLeast(1), AtMost(4096), "pipeline stages").Default(1),
        IntKey("workload.parallelism.dp",
               AtLeast(0),
               AtMost(65536),
               "data parallelism (0: GPUs / (tp x pp))")
            .Default(0),
        IntKey("workload.parallelism.ep",
               AtLeast(1),
               AtMost(65536),
               "expert parallelism (divides dp)")
            .Default(1),
        IntKey("workload.parallelism.microbatches",
               AtLeast(1),
               AtMost(65536),
               "micro-batches per step")
            .Default(1),
        IntKey("workload.parallelism.global_batch",
               AtLeast(0),
               AtMost(16777216),
               "sequences per step (0: dp x microbatches, one sequence per micro-batch)")
            .Default(0),
        IntKey("workload.parallelism.zero", AtLeast(0), AtMost(3), "ZeRO stage (3: FSDP)")
            .Default(0),
        ChoiceKey("workload.parallelism.schedule",
                  {"1f1b", "gpipe", "interleaved"},
                  "pipeline schedule")
            .Default("1f1b"),
        IntKey("workload.parallelism.virtual_stages",
               AtLeast(1),
               AtMost(1024),
               "model chunks per GPU (interleaved)")
            .Default(2),
        NumKey("workload.parallelism.bucket_mib", Above(0), AtMost(1e6), "DDP gradient bucket, MiB")
            .Default(25),
        BoolKey("workload.parallelism.sequence_parallel",
                "TP all-gather + reduce-scatter instead of all-reduce")
            .Default(false),
        ChoiceKey(
            "workload.parallelism.order",
            {"tp-dp-pp", "tp-pp-dp", "dp-tp-pp", "dp-pp-tp", "pp-tp-dp", "pp-dp-tp"},
            "rank order, innermost first (tp-dp-pp: TP in a server, DP across servers on a rail, "
            "PP across blocks of servers)")
            .Default("tp-dp-pp"),
        NumKey("workload.parallelism.moe_skew",
               AtLeast(1),
               AtMost(65536),
               "tokens of the hottest expert rank / the mean")
            .Default(1),
        IntKey("workload.parallelism.moe_hot_rank",
               AtLeast(0),
               AtMost(65535),
               "its index in each expert-parallel group")
            .Default(0),
        IntKey("workload.steps", AtLeast(1), AtMost(100000), "training steps").Default(3),
        NumKey("workload.compute_ms", AtLeast(0), AtMost(1e7), "compute per step, ms").Default(82),
        ChoiceKey("workload.collective", CollectiveNames(), "collective")
            .Default(ns3::CollectiveSpec::OpName(ns3::CollectiveSpec::ALLREDUCE)),
        ChoiceKey("workload.algorithm", AlgorithmValues(), AlgorithmHelp()).Default("auto"),
        ChoiceKey("workload.protocol", ProtocolNames(), ProtocolHelp()).Default("auto"),
        IntKey("workload.bytes", AtLeast(1), AtMost(1125899906842624.0), "bytes per GPU")
            .Default(int64_t(64) << 20),
        IntKey("workload.chunks", AtLeast(1), AtMost(1024), "pipelining chunks").Default(1),
        IntKey(
            "workload.channels",
            AtLeast(0),
            AtMost(64),
            "parallel rings/trees on their own connections (0: auto, a ring per NIC of a server)")
            .Default(0),
        IntKey("workload.buckets",
               AtLeast(1),
               AtMost(1024),
               "gradient buckets overlapped with backward")
            .Default(1),
        FLOW_KEYS("workload.flows", "flow traffic, with workload.kind flows", FlowsDefaults(true)),
        NumKey("workload.flows.duration_ms",
               Above(0),
               AtMost(1e6),
               "flows arrive for this long, ms (the run ends when every flow has completed)"),
        FLOW_KEYS("workload.background",
                  "flow traffic beside the training job (workload.kind collective), for the "
                  "whole run",
                  nlohmann::json())};
}

} // namespace aifabric

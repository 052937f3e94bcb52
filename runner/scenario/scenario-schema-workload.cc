// SPDX-License-Identifier: GPL-2.0-only
// The workload.* keys of the scenario schema: what runs on the GPUs (collectives, flows,
// training, Chakra traces), in the order --help lists them.
#include "scenario-schema-workload.h"

#include "scenario-plugins.h"

namespace aifabric
{

/// The keys of a flow-traffic object (workload.flows, workload.background).
#define FLOW_KEYS(prefix, what)                                                                    \
    {prefix, Kind::OBJ, 0, 0, false, false, {}, what},                                             \
        {prefix ".cdf",                                                                            \
         Kind::STR,                                                                                \
         0,                                                                                        \
         4096,                                                                                     \
         false,                                                                                    \
         false,                                                                                    \
         {},                                                                                       \
         "flow sizes: websearch, fb-hadoop, or a file of 'bytes cumulative-percent' lines"},       \
        {prefix ".load",                                                                           \
         Kind::NUM,                                                                                \
         0,                                                                                        \
         1,                                                                                        \
         true,                                                                                     \
         false,                                                                                    \
         {},                                                                                       \
         "offered load per host, fraction of its line rate (Poisson arrivals)"},                   \
        {prefix ".pattern",                                                                        \
         Kind::ENUM,                                                                               \
         0,                                                                                        \
         0,                                                                                        \
         false,                                                                                    \
         false,                                                                                    \
         {"uniform", "permutation"},                                                               \
         "destinations: uniformly random, or a random permutation"},                               \
        {prefix ".incast", Kind::OBJ, 0, 0, false, false, {}, "periodic N-to-1 bursts"},           \
        {prefix ".incast.fanin",                                                                   \
         Kind::INT,                                                                                \
         0,                                                                                        \
         65535,                                                                                    \
         false,                                                                                    \
         false,                                                                                    \
         {},                                                                                       \
         "senders per burst (0: no incast; below the number of hosts)"},                           \
        {prefix ".incast.bytes", Kind::INT, 1, 1e12, false, false, {}, "bytes per sender"},        \
    {                                                                                              \
        prefix ".incast.period_us", Kind::NUM, 0, 1e9, false, false, {},                           \
            "time between bursts, us (0: no incast)"                                               \
    }

std::vector<KeySpec>
WorkloadSchemaKeys()
{
    return {
        {"workload", Kind::OBJ, 0, 0, false, false, {}, "the training job"},
        {"workload.kind",
         Kind::ENUM,
         0,
         0,
         false,
         false,
         {"collective", "flows", "matrix", "training", "chakra"},
         "collective: training steps of compute and a collective; flows: flow traffic "
         "(workload.flows) with FCT slowdown, no GPUs' steps (RDMA fabrics); matrix: the flows "
         "of an htsim connection matrix (workload.matrix), FCTs; training: a "
         "parallel transformer job (workload.model, workload.parallelism); chakra: the step of "
         "a Chakra execution trace (workload.trace)"},
        {"workload.matrix",
         Kind::STR,
         0,
         4096,
         false,
         false,
         {},
         "workload.kind matrix: an htsim connection-matrix file (.cm: 'Nodes N', 'Connections "
         "M', then 'a->b [id I] start <ps> size <bytes>' lines), relative to the scenario "
         "file"},
        {"workload.trace",
         Kind::STR,
         0,
         4096,
         false,
         false,
         {},
         "workload.kind chakra: a directory of Chakra ET files, <prefix>.<rank>.et for every "
         "GPU, and comm_group.json (ai-fabric chakra export writes them)"},
        {"workload.model",
         Kind::ENUM,
         0,
         0,
         false,
         false,
         {"gpt3-175b", "llama3-8b", "llama3-70b", "llama3-405b", "mixtral-8x7b", "deepseek-v3"},
         "the model of workload.kind training (its published shape; workload.model_shape "
         "overrides fields)"},
        {"workload.model_shape",
         Kind::OBJ,
         0,
         0,
         false,
         false,
         {},
         "fields of the model (0: the preset's)"},
        {"workload.model_shape.layers",
         Kind::INT,
         0,
         100000,
         false,
         false,
         {},
         "transformer layers"},
        {"workload.model_shape.hidden", Kind::INT, 0, 1048576, false, false, {}, "hidden size"},
        {"workload.model_shape.ffn", Kind::INT, 0, 4194304, false, false, {}, "MLP width"},
        {"workload.model_shape.heads", Kind::INT, 0, 65536, false, false, {}, "attention heads"},
        {"workload.model_shape.kv_heads", Kind::INT, 0, 65536, false, false, {}, "key/value heads"},
        {"workload.model_shape.seq_len",
         Kind::INT,
         0,
         16777216,
         false,
         false,
         {},
         "sequence length"},
        {"workload.model_shape.vocab", Kind::INT, 0, 16777216, false, false, {}, "vocabulary"},
        {"workload.model_shape.experts",
         Kind::INT,
         0,
         65536,
         false,
         false,
         {},
         "routed experts per MoE layer"},
        {"workload.model_shape.top_k", Kind::INT, 0, 65536, false, false, {}, "experts per token"},
        {"workload.model_shape.dtype",
         Kind::ENUM,
         0,
         0,
         false,
         false,
         {"auto", "bf16", "fp16", "fp8", "fp32"},
         "activation, weight and gradient type (auto: bf16)"},
        {"workload.parallelism", Kind::OBJ, 0, 0, false, false, {}, "how workload.model is split"},
        {"workload.parallelism.tp",
         Kind::INT,
         1,
         4096,
         false,
         false,
         {},
         "tensor parallelism (inside a server)"},
        {"workload.parallelism.pp", Kind::INT, 1, 4096, false, false, {}, "pipeline stages"},
        {"workload.parallelism.dp",
         Kind::INT,
         0,
         65536,
         false,
         false,
         {},
         "data parallelism (0: GPUs / (tp x pp))"},
        {"workload.parallelism.ep",
         Kind::INT,
         1,
         65536,
         false,
         false,
         {},
         "expert parallelism (divides dp)"},
        {"workload.parallelism.microbatches",
         Kind::INT,
         1,
         65536,
         false,
         false,
         {},
         "micro-batches per step"},
        {"workload.parallelism.global_batch",
         Kind::INT,
         0,
         16777216,
         false,
         false,
         {},
         "sequences per step (0: dp x microbatches, one sequence per micro-batch)"},
        {"workload.parallelism.zero", Kind::INT, 0, 3, false, false, {}, "ZeRO stage (3: FSDP)"},
        {"workload.parallelism.schedule",
         Kind::ENUM,
         0,
         0,
         false,
         false,
         {"1f1b", "gpipe", "interleaved"},
         "pipeline schedule"},
        {"workload.parallelism.virtual_stages",
         Kind::INT,
         1,
         1024,
         false,
         false,
         {},
         "model chunks per GPU (interleaved)"},
        {"workload.parallelism.bucket_mib",
         Kind::NUM,
         0,
         1e6,
         true,
         false,
         {},
         "DDP gradient bucket, MiB"},
        {"workload.parallelism.sequence_parallel",
         Kind::BOOL,
         0,
         0,
         false,
         false,
         {},
         "TP all-gather + reduce-scatter instead of all-reduce"},
        {"workload.parallelism.order",
         Kind::ENUM,
         0,
         0,
         false,
         false,
         {"tp-dp-pp", "tp-pp-dp", "dp-tp-pp", "dp-pp-tp", "pp-tp-dp", "pp-dp-tp"},
         "rank order, innermost first (tp-dp-pp: TP in a server, DP across servers on a rail, "
         "PP across blocks of servers)"},
        {"workload.parallelism.moe_skew",
         Kind::NUM,
         1,
         65536,
         false,
         false,
         {},
         "tokens of the hottest expert rank / the mean"},
        {"workload.parallelism.moe_hot_rank",
         Kind::INT,
         0,
         65535,
         false,
         false,
         {},
         "its index in each expert-parallel group"},
        {"workload.steps", Kind::INT, 1, 100000, false, false, {}, "training steps"},
        {"workload.compute_ms", Kind::NUM, 0, 1e7, false, false, {}, "compute per step, ms"},
        {"workload.collective",
         Kind::ENUM,
         0,
         0,
         false,
         false,
         {"allreduce", "reducescatter", "allgather", "alltoall", "broadcast", "sendrecv"},
         "collective"},
        {"workload.algorithm", Kind::ENUM, 0, 0, false, false, AlgorithmValues(), AlgorithmHelp()},
        {"workload.protocol",
         Kind::ENUM,
         0,
         0,
         false,
         false,
         {"auto", "simple", "ll128", "ll"},
         ProtocolHelp()},
        {"workload.bytes", Kind::INT, 1, 1125899906842624.0, false, false, {}, "bytes per GPU"},
        {"workload.chunks", Kind::INT, 1, 1024, false, false, {}, "pipelining chunks"},
        {"workload.channels",
         Kind::INT,
         0,
         64,
         false,
         false,
         {},
         "parallel rings/trees on their own connections (0: auto, a ring per NIC of a server)"},
        {"workload.buckets",
         Kind::INT,
         1,
         1024,
         false,
         false,
         {},
         "gradient buckets overlapped with backward"},
        FLOW_KEYS("workload.flows", "flow traffic, with workload.kind flows"),
        {"workload.flows.duration_ms",
         Kind::NUM,
         0,
         1e6,
         true,
         false,
         {},
         "flows arrive for this long, ms (the run ends when every flow has completed)"},
        FLOW_KEYS("workload.background",
                  "flow traffic beside the training job (workload.kind collective), for the "
                  "whole run")};
}

} // namespace aifabric

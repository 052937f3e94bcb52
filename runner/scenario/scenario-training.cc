// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-training.h"

#include "ns3/chakra-trace.h"

#include <filesystem>
#include <string>

namespace aifabric
{

using nlohmann::json;

namespace
{

/// Dense BF16 peak and HBM bandwidth of each GPU preset (datasheets; see doc/ai-fabric.rst).
void
GpuPreset(GpuModel model, double& tflops, double& hbm)
{
    if (model == GpuModel::A100_SXM)
    {
        tflops = 312;
        hbm = 2.039;
    }
    else if (model == GpuModel::B200)
    {
        tflops = 2250;
        hbm = 8.0;
    }
    else if (model == GpuModel::GB200_NVL72)
    {
        tflops = 2500;
        hbm = 8.0;
    }
    else
    {
        tflops = 989.4;
        hbm = 3.35;
    }
}

/// workload.kind chakra: the trace read and checked against the cluster.
void
ResolveChakra(const json& j, RunConfig& r)
{
    r.workload.trace = j["workload"]["trace"];
    if (r.workload.trace.empty())
    {
        throw ScenarioError("workload.trace: missing (workload.kind chakra runs the Chakra "
                            "trace in this directory; ai-fabric chakra export writes one)");
    }
    if (!ns3::ChakraTrace::Available())
    {
        throw ScenarioError("workload.kind: chakra needs a build with protobuf (apt-get install "
                            "libprotobuf-dev protobuf-compiler, then rebuild)");
    }
    try
    {
        // A directory (its one prefix), or a file prefix as ASTRA-sim takes one
        // (".../all_reduce" for all_reduce.0.et, all_reduce.1.et, ... beside it).
        std::string dir = r.workload.trace;
        ns3::ChakraReadOptions options;
        std::error_code ec;
        if (!std::filesystem::is_directory(r.workload.trace, ec))
        {
            const std::filesystem::path p(r.workload.trace);
            if (std::filesystem::exists(ns3::ChakraTrace::FileName(p.parent_path().empty()
                                                                       ? "."
                                                                       : p.parent_path().string(),
                                                                   p.filename().string(),
                                                                   0),
                                        ec))
            {
                dir = p.parent_path().empty() ? "." : p.parent_path().string();
                options.prefix = p.filename().string();
            }
        }
        r.workload.graph =
            std::make_shared<const ns3::WorkloadGraph>(ns3::ChakraTrace::Read(dir, options));
    }
    catch (const ns3::ChakraTraceError& e)
    {
        throw ScenarioError("workload.trace: " + std::string(e.what()));
    }
    if (r.workload.graph->ranks != r.Gpus())
    {
        throw ScenarioError("workload.trace: the trace has " +
                            std::to_string(r.workload.graph->ranks) + " ranks; the cluster has " +
                            std::to_string(r.Gpus()) +
                            " GPUs (topology.servers x gpus_per_server)");
    }
    if (r.fabric.infiniband.sharp)
    {
        throw ScenarioError("infiniband.sharp: workload.kind chakra runs NCCL's ring, tree, "
                            "NVLS and PAT, not CollNet (set sharp false)");
    }
    r.workload.model.name = "chakra";
}

} // namespace

void
ResolveTraining(const json& j, RunConfig& r)
{
    const json& gpu = j["gpu"];
    double tflops;
    double hbm;
    GpuPreset(r.gpu.model, tflops, hbm);
    r.gpu.peakTflops =
        gpu["peak_tflops"].get<double>() > 0 ? gpu["peak_tflops"].get<double>() : tflops;
    r.resolved["gpu"]["peak_tflops"] = r.gpu.peakTflops;
    const double hbmT =
        gpu["hbm_tbytes_per_s"].get<double>() > 0 ? gpu["hbm_tbytes_per_s"].get<double>() : hbm;
    r.resolved["gpu"]["hbm_tbytes_per_s"] = hbmT;
    r.gpu.computeEfficiency = gpu["compute_efficiency"];
    if (r.workload.kind == WorkloadKind::CHAKRA)
    {
        ResolveChakra(j, r);
        return;
    }
    if (r.workload.kind != WorkloadKind::TRAINING)
    {
        return;
    }
    const json& w = j["workload"];
    const std::string name = w["model"];
    ns3::TransformerModel::Preset(name, r.workload.model); // the schema allows presets only
    const json& shape = w["model_shape"];
    auto field = [&](const char* key, auto& into) {
        const uint64_t v = shape[key].get<uint64_t>();
        if (v > 0)
        {
            into = static_cast<std::remove_reference_t<decltype(into)>>(v);
            r.workload.model.name = name + "+shape";
        }
        r.resolved["workload"]["model_shape"][key] = uint64_t(into);
    };
    field("layers", r.workload.model.layers);
    field("hidden", r.workload.model.hidden);
    field("ffn", r.workload.model.ffn);
    field("heads", r.workload.model.heads);
    field("kv_heads", r.workload.model.kvHeads);
    field("seq_len", r.workload.model.seqLen);
    field("vocab", r.workload.model.vocab);
    field("experts", r.workload.model.experts);
    field("top_k", r.workload.model.topK);
    const std::string dtype = shape["dtype"];
    r.workload.model.dtypeBytes = dtype == "fp8" ? 1 : dtype == "fp32" ? 4 : 2;
    r.resolved["workload"]["model_shape"]["dtype"] = dtype == "auto" ? "bf16" : dtype;
    const std::string why = r.workload.model.Check();
    if (!why.empty())
    {
        throw ScenarioError("workload.model_shape: " + why);
    }

    const json& p = w["parallelism"];
    ns3::ParallelismConfig& c = r.workload.parallelism;
    c.tp = p["tp"];
    c.pp = p["pp"];
    c.ep = p["ep"];
    const uint32_t gpus = r.Gpus();
    if (gpus % (c.tp * c.pp) != 0)
    {
        throw ScenarioError("workload.parallelism: tp x pp (" + std::to_string(c.tp * c.pp) +
                            ") must divide the GPUs (" + std::to_string(gpus) + ")");
    }
    c.dp = p["dp"].get<uint32_t>() > 0 ? p["dp"].get<uint32_t>() : gpus / (c.tp * c.pp);
    r.resolved["workload"]["parallelism"]["dp"] = c.dp;
    if (c.Ranks() != gpus)
    {
        throw ScenarioError("workload.parallelism.dp: tp x pp x dp must equal the GPUs, " +
                            std::to_string(gpus) + " (got " + std::to_string(c.Ranks()) + ")");
    }
    c.microbatches = p["microbatches"];
    const uint32_t batch = p["global_batch"].get<uint32_t>() > 0 ? p["global_batch"].get<uint32_t>()
                                                                 : c.dp * c.microbatches;
    if (batch % (c.dp * c.microbatches) != 0)
    {
        throw ScenarioError("workload.parallelism.global_batch: must be a multiple of dp x "
                            "microbatches, " +
                            std::to_string(c.dp * c.microbatches) + " (got " +
                            std::to_string(batch) + ")");
    }
    r.resolved["workload"]["parallelism"]["global_batch"] = batch;
    c.microBatchSize = batch / (c.dp * c.microbatches);
    c.zero = p["zero"];
    ns3::ParallelismConfig::ScheduleByName(p["schedule"], c.schedule);
    c.virtualStages = p["virtual_stages"];
    c.bucketBytes = uint64_t(p["bucket_mib"].get<double>() * 1024 * 1024);
    c.sequenceParallel = p["sequence_parallel"];
    c.order = p["order"];
    c.moeSkew = p["moe_skew"];
    c.moeHotRank = p["moe_hot_rank"];
    c.hbmBytesPerS = hbmT * 1e12;
    const std::string err = ns3::TransformerWorkload::Check(r.workload.model, c);
    if (!err.empty())
    {
        throw ScenarioError("workload.parallelism: " + err);
    }
    if (r.fabric.infiniband.sharp)
    {
        throw ScenarioError("infiniband.sharp: workload.kind training runs NCCL's ring, tree, "
                            "NVLS and PAT, not CollNet (set sharp false)");
    }
}

} // namespace aifabric

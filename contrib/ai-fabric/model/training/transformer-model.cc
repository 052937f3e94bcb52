// SPDX-License-Identifier: GPL-2.0-only
#include "transformer-model.h"

namespace ns3
{

namespace
{

TransformerModel
Make(const char* name,
     uint32_t layers,
     uint64_t hidden,
     uint64_t ffn,
     uint32_t heads,
     uint32_t kvHeads,
     uint64_t seqLen,
     uint64_t vocab,
     bool gated,
     bool tied)
{
    TransformerModel m;
    m.name = name;
    m.layers = layers;
    m.hidden = hidden;
    m.ffn = ffn;
    m.heads = heads;
    m.kvHeads = kvHeads;
    m.seqLen = seqLen;
    m.vocab = vocab;
    m.gated = gated;
    m.tiedEmbedding = tied;
    return m;
}

} // namespace

std::vector<std::string>
TransformerModel::PresetNames()
{
    return {"gpt3-175b", "llama3-8b", "llama3-70b", "llama3-405b", "mixtral-8x7b", "deepseek-v3"};
}

bool
TransformerModel::Preset(const std::string& name, TransformerModel& m)
{
    // Shapes from each model's paper or released config (see doc/ai-fabric.rst, References).
    if (name == "gpt3-175b")
    {
        // Brown et al. 2020, Table 2.1: 96 layers, d 12288, 96 heads, context 2048; GELU MLP 4d.
        m = Make("gpt3-175b", 96, 12288, 49152, 96, 96, 2048, 50257, false, true);
    }
    else if (name == "llama3-8b")
    {
        // Llama 3 paper, Table 3; config.json: ffn 14336, GQA 8 KV heads, vocab 128256.
        m = Make("llama3-8b", 32, 4096, 14336, 32, 8, 8192, 128256, true, false);
    }
    else if (name == "llama3-70b")
    {
        m = Make("llama3-70b", 80, 8192, 28672, 64, 8, 8192, 128256, true, false);
    }
    else if (name == "llama3-405b")
    {
        m = Make("llama3-405b", 126, 16384, 53248, 128, 8, 8192, 128256, true, false);
    }
    else if (name == "mixtral-8x7b")
    {
        // Jiang et al. 2024: Mistral-7B's shape with 8 experts, top-2; trained sequences 4096.
        m = Make("mixtral-8x7b", 32, 4096, 14336, 32, 8, 4096, 32000, true, false);
        m.experts = 8;
        m.topK = 2;
    }
    else if (name == "deepseek-v3")
    {
        // DeepSeek-V3 technical report: 61 layers (3 dense, ffn 18432), d 7168, 128 heads,
        // MLA (q rank 1536, kv rank 512, qk head 128 + 64 rope, v head 128), 256 routed
        // experts + 1 shared of width 2048, top-8, vocab 129280, pre-training sequences 4096.
        m = Make("deepseek-v3", 61, 7168, 18432, 128, 128, 4096, 129280, true, false);
        m.headDim = 128;
        m.experts = 256;
        m.topK = 8;
        m.sharedExperts = 1;
        m.expertFfn = 2048;
        m.denseLayers = 3;
        // MLA's matrices: W_DQ 7168x1536, W_UQ 1536x(128x192), W_DKV 7168x576,
        // W_UK + W_UV 512x(128x256), W_O (128x128)x7168.
        m.attentionParams = 7168ULL * 1536 + 1536ULL * 128 * 192 + 7168ULL * 576 +
                            512ULL * 128 * 256 + 128ULL * 128 * 7168;
    }
    else
    {
        return false;
    }
    return true;
}

std::string
TransformerModel::Check() const
{
    if (layers == 0)
    {
        return "layers must be >= 1";
    }
    if (hidden == 0 || heads == 0)
    {
        return "hidden and heads must be >= 1";
    }
    if (kvHeads == 0 || kvHeads > heads || heads % kvHeads != 0)
    {
        return "kv_heads must divide heads (got " + std::to_string(kvHeads) + " for " +
               std::to_string(heads) + " heads)";
    }
    if (headDim == 0 && hidden % heads != 0)
    {
        return "heads must divide hidden (got " + std::to_string(heads) + " for " +
               std::to_string(hidden) + ")";
    }
    if (experts > 0 && (topK == 0 || topK > experts))
    {
        return "top_k must be in [1, experts] (got " + std::to_string(topK) + " for " +
               std::to_string(experts) + " experts)";
    }
    if (experts == 0 && topK > 0)
    {
        return "top_k needs experts >= 1";
    }
    if (denseLayers > layers)
    {
        return "dense_layers must be <= layers";
    }
    if (dtypeBytes != 1 && dtypeBytes != 2 && dtypeBytes != 4)
    {
        return "dtype must be fp8, bf16, fp16 or fp32";
    }
    return "";
}

uint64_t
TransformerModel::HeadDim() const
{
    return headDim ? headDim : hidden / heads;
}

bool
TransformerModel::IsMoeLayer(uint32_t layer) const
{
    return experts > 0 && layer >= denseLayers;
}

uint64_t
TransformerModel::AttentionParams() const
{
    if (attentionParams)
    {
        return attentionParams;
    }
    const uint64_t q = uint64_t(heads) * HeadDim();
    const uint64_t kv = uint64_t(kvHeads) * HeadDim();
    return hidden * q + 2 * hidden * kv + q * hidden;
}

uint64_t
TransformerModel::DenseMlpParams() const
{
    return (gated ? 3 : 2) * hidden * ffn;
}

uint64_t
TransformerModel::ExpertParams() const
{
    return (gated ? 3 : 2) * hidden * (expertFfn ? expertFfn : ffn);
}

uint64_t
TransformerModel::MoeParams() const
{
    return uint64_t(experts + sharedExperts) * ExpertParams() + hidden * experts;
}

uint64_t
TransformerModel::LayerParams(uint32_t layer) const
{
    return AttentionParams() + (IsMoeLayer(layer) ? MoeParams() : DenseMlpParams()) + 2 * hidden;
}

uint64_t
TransformerModel::ActiveLayerParams(uint32_t layer) const
{
    const uint64_t mlp = IsMoeLayer(layer)
                             ? uint64_t(topK + sharedExperts) * ExpertParams() + hidden * experts
                             : DenseMlpParams();
    return AttentionParams() + mlp + 2 * hidden;
}

uint64_t
TransformerModel::EmbeddingParams() const
{
    return (tiedEmbedding ? 1 : 2) * vocab * hidden;
}

uint64_t
TransformerModel::TotalParams() const
{
    uint64_t p = EmbeddingParams() + hidden; // + the final norm
    for (uint32_t l = 0; l < layers; ++l)
    {
        p += LayerParams(l);
    }
    return p;
}

uint64_t
TransformerModel::ActiveParams() const
{
    uint64_t p = EmbeddingParams() + hidden;
    for (uint32_t l = 0; l < layers; ++l)
    {
        p += ActiveLayerParams(l);
    }
    return p;
}

double
TransformerModel::AttentionForwardFlopsPerToken() const
{
    return 2.0 * double(AttentionParams()) +
           4.0 * double(seqLen) * double(heads) * double(HeadDim());
}

double
TransformerModel::LayerForwardFlopsPerToken(uint32_t layer) const
{
    // The norms are not matrix products: 2 FLOPs per active matrix parameter.
    const double mlp = double(ActiveLayerParams(layer) - 2 * hidden - AttentionParams());
    return 2.0 * mlp + AttentionForwardFlopsPerToken();
}

double
TransformerModel::HeadForwardFlopsPerToken() const
{
    return 2.0 * double(vocab) * double(hidden);
}

double
TransformerModel::TrainingFlopsPerToken() const
{
    double f = HeadForwardFlopsPerToken();
    for (uint32_t l = 0; l < layers; ++l)
    {
        f += LayerForwardFlopsPerToken(l);
    }
    return 3.0 * f;
}

} // namespace ns3

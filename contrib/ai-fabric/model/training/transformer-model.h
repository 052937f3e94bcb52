// SPDX-License-Identifier: GPL-2.0-only
#ifndef TRANSFORMER_MODEL_H
#define TRANSFORMER_MODEL_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A decoder-only transformer as a training workload sees it: its shape, from which parameters
 * and FLOPs follow. Dense layers have attention and an MLP (gated — SwiGLU, three matrices — or
 * not — GELU, two); MoE layers replace the MLP by `experts` routed experts (top_k per token) plus
 * `sharedExperts` always-active ones, each an MLP of width expertFfn, and a router.
 *
 * Parameters per layer (biases left out, as in the published counts):
 *  attention = h·(heads·headDim) [Q] + 2·h·(kvHeads·headDim) [K, V] + (heads·headDim)·h [O]
 *              (attentionParams overrides it: DeepSeek-V3's MLA is not grouped-query attention),
 *  MLP = (gated ? 3 : 2)·h·ffn, MoE = (experts + sharedExperts)·3·h·expertFfn + h·experts,
 *  norms 2h; embedding V·h, output head V·h unless tied.
 * FLOPs per token of one forward pass: 2 × the active matrix parameters (no embedding lookup,
 * the output head included) + attention scores 4·seqLen·heads·headDim per layer (QKᵀ and AV,
 * without causal masking: the PaLM / Megatron convention behind published MFU figures).
 * Backward is twice forward; Model FLOPs per token of a step: 3 × forward (PaLM's 6N + 12LHQT).
 */
struct TransformerModel
{
    std::string name{"custom"};
    uint32_t layers{32};
    uint64_t hidden{4096};
    uint64_t ffn{14336};
    uint32_t heads{32};
    uint32_t kvHeads{8};
    uint32_t headDim{0}; //!< 0: hidden / heads
    uint64_t seqLen{8192};
    uint64_t vocab{128256};
    bool gated{true}; //!< SwiGLU MLP (3 matrices); false: GELU (2)
    bool tiedEmbedding{false};
    uint32_t experts{0};       //!< routed experts per MoE layer (0: dense model)
    uint32_t topK{0};          //!< routed experts per token
    uint32_t sharedExperts{0}; //!< always-active experts per MoE layer
    uint64_t expertFfn{0};     //!< width of one expert's MLP (0: ffn)
    uint32_t denseLayers{0};   //!< the first layers are dense even in a MoE model (DeepSeek-V3: 3)
    uint64_t attentionParams{0}; //!< 0: from heads, kvHeads and headDim
    uint32_t dtypeBytes{2};      //!< bf16 activations, weights and gradients

    /// The preset called `name` (gpt3-175b, llama3-8b, llama3-70b, llama3-405b, mixtral-8x7b,
    /// deepseek-v3). \return false if there is none
    static bool Preset(const std::string& name, TransformerModel& m);
    /// The preset names, in that order.
    static std::vector<std::string> PresetNames();

    /// \return empty if the shape is consistent, else one line naming the field
    std::string Check() const;

    uint64_t HeadDim() const;
    bool IsMoeLayer(uint32_t layer) const;
    uint64_t AttentionParams() const;
    uint64_t DenseMlpParams() const;
    /// One expert's MLP.
    uint64_t ExpertParams() const;
    /// A MoE layer's MLP: every routed and shared expert and the router.
    uint64_t MoeParams() const;
    uint64_t LayerParams(uint32_t layer) const;
    /// Parameters a token uses in a layer (attention, and its MLP or top_k + shared experts).
    uint64_t ActiveLayerParams(uint32_t layer) const;
    uint64_t EmbeddingParams() const;
    uint64_t TotalParams() const;
    uint64_t ActiveParams() const;
    /// Forward FLOPs per token of a layer's attention: 2 × its parameters + 4·seqLen·heads·headDim.
    double AttentionForwardFlopsPerToken() const;
    /// Forward FLOPs per token of layer `layer`: 2 × active parameters + attention scores.
    double LayerForwardFlopsPerToken(uint32_t layer) const;
    /// Forward FLOPs per token of the output head (2·V·h).
    double HeadForwardFlopsPerToken() const;
    /// Model FLOPs of one token's forward and backward (3 × forward of every layer and the head).
    double TrainingFlopsPerToken() const;
};

} // namespace ns3

#endif // TRANSFORMER_MODEL_H

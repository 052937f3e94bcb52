// SPDX-License-Identifier: GPL-2.0-only
#ifndef TRANSFORMER_WORKLOAD_H
#define TRANSFORMER_WORKLOAD_H

#include "transformer-model.h"
#include "workload-graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// How a TransformerModel is split over GPUs and how its step is scheduled.
struct ParallelismConfig
{
    enum Schedule : uint8_t
    {
        ONE_F_ONE_B = 0, //!< PipeDream-Flush / Megatron-LM's default
        GPIPE = 1,       //!< every forward, then every backward
        INTERLEAVED = 2, //!< Megatron-LM's interleaved 1F1B over virtualStages model chunks
    };

    uint32_t tp{1};
    uint32_t pp{1};
    uint32_t dp{1};
    uint32_t ep{1};             //!< expert parallelism, inside the data-parallel dimension
    uint32_t microbatches{1};   //!< per step and pipeline
    uint32_t microBatchSize{1}; //!< sequences per micro-batch
    uint32_t zero{0};           //!< 0: all-reduce; 1, 2: distributed optimizer; 3: FSDP
    Schedule schedule{ONE_F_ONE_B};
    uint32_t virtualStages{2};         //!< model chunks per GPU (INTERLEAVED)
    uint64_t bucketBytes{25ULL << 20}; //!< DDP's gradient bucket (PyTorch: 25 MiB)
    bool sequenceParallel{false};      //!< TP all-gather + reduce-scatter instead of all-reduce
    /// Rank order, innermost first (Megatron-LM's "tp-dp-pp": TP on consecutive GPUs of a
    /// server, DP across servers on each rail, PP across blocks of servers).
    std::string order{"tp-dp-pp"};
    double moeSkew{1.0};               //!< the hottest expert rank gets moeSkew × the mean tokens
    uint32_t moeHotRank{0};            //!< its index in every expert-parallel group
    double hbmBytesPerS{3.35e12};      //!< the optimizer step is memory-bound (H100 SXM HBM3)
    double optimizerBytesPerParam{28}; //!< Adam, fp32 master: read grad, p, m, v; write p, m, v

    uint32_t Ranks() const
    {
        return tp * pp * dp;
    }

    /// \return one of "1f1b", "gpipe", "interleaved"
    static const char* ScheduleName(Schedule s);
    static bool ScheduleByName(const std::string& name, Schedule& s);
};

/**
 * \ingroup ai-fabric
 * A training step of a TransformerModel under a ParallelismConfig, as each rank's
 * WorkloadGraph (Megatron-LM's and PyTorch's structure):
 *
 * - per layer and micro-batch, forward: attention, a TP all-reduce of the activation
 *   (b·s·h bytes), the MLP, another TP all-reduce; backward mirrors it (twice the FLOPs). With
 *   sequenceParallel each all-reduce is an all-gather before and a reduce-scatter after the
 *   block. MoE layers (ep > 1) route tokens: router, EP all-to-all (dispatch, b·s/tp·k·h bytes),
 *   the experts on the tokens received (the hot rank's share moeSkew × the mean), all-to-all
 *   (combine), and a TP all-gather of the activation when tp > 1;
 * - pipeline stages: a chunk's activation (b·s·h, /tp with sequenceParallel) goes to the next
 *   chunk's GPU after its forward, its gradient back after the backward, in 1F1B, GPipe or
 *   interleaved order (Megatron's schedules, warm-up min(p − s − 1, m) for 1F1B);
 * - data parallelism: during the last micro-batch's backward the gradients of each layer are
 *   added to a bucket (bucketBytes); a full bucket is all-reduced (zero 0) or reduce-scattered
 *   (zero 1, 2) over the DP group as soon as it is full, routed experts' gradients over the
 *   expert-data-parallel group (dp / ep ranks); then the optimizer step (memory-bound:
 *   parameters × optimizerBytesPerParam / hbmBytesPerS); zero 1 and 2 all-gather the updated
 *   parameters by bucket. zero 3 (FSDP) all-gathers each layer's parameters before its forward
 *   and its backward (one layer ahead) and reduce-scatters its gradients after its backward.
 *
 * The output head runs on the last chunk (2·V·h FLOPs per token, /tp). Not modelled:
 * embedding lookups and their gradient exchange, activation recomputation, the loss's small
 * collectives, context parallelism, MoE capacity drops.
 */
class TransformerWorkload
{
  public:
    struct Coord
    {
        uint32_t tp{0};
        uint32_t dp{0};
        uint32_t pp{0};
    };

    /// \return empty if `p` can run `m`, else one line naming the field and the allowed range
    static std::string Check(const TransformerModel& m, const ParallelismConfig& p);
    static WorkloadGraph Build(const TransformerModel& m, const ParallelismConfig& p);

    static Coord CoordOf(const ParallelismConfig& p, uint32_t rank);
    static uint32_t RankOf(const ParallelismConfig& p, const Coord& c);
    /// The layers of model chunk c (of pp × virtual chunks): [first, first + count).
    static void ChunkLayers(const TransformerModel& m,
                            const ParallelismConfig& p,
                            uint32_t c,
                            uint32_t& first,
                            uint32_t& count);
    /// Model chunks per GPU: virtualStages when INTERLEAVED, else 1.
    static uint32_t Chunks(const ParallelismConfig& p);

    /// The order in which a GPU of stage `s` runs its units: (forward?, micro-batch, chunk).
    struct Unit
    {
        bool forward;
        uint32_t microbatch;
        uint32_t chunk; //!< the global chunk index
    };

    static std::vector<Unit> StageOrder(const ParallelismConfig& p, uint32_t stage);
    /// The analytic step on an ideal network with equal stages: (m + p − 1)(t_f + t_b) for
    /// 1F1B and GPipe, (m·v + p − 1)(t_f + t_b)/v interleaved; bubble fraction (p−1)/(m+p−1).
    static double BubbleFraction(const ParallelismConfig& p);
};

} // namespace ns3

#endif // TRANSFORMER_WORKLOAD_H

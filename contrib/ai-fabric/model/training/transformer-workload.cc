// SPDX-License-Identifier: GPL-2.0-only
// One file: the step builder's helpers (one per kind of operation) share the rank's build
// state, and splitting them would pass that state through every call.
#include "transformer-workload.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

const char*
ParallelismConfig::ScheduleName(Schedule s)
{
    switch (s)
    {
    case GPIPE:
        return "gpipe";
    case INTERLEAVED:
        return "interleaved";
    default:
        return "1f1b";
    }
}

bool
ParallelismConfig::ScheduleByName(const std::string& name, Schedule& s)
{
    for (Schedule x : {ONE_F_ONE_B, GPIPE, INTERLEAVED})
    {
        if (name == ScheduleName(x))
        {
            s = x;
            return true;
        }
    }
    return false;
}

namespace
{

/// The dimensions of `order` ("tp-dp-pp" and its permutations), innermost first.
bool
ParseOrder(const std::string& order, std::vector<std::string>& dims)
{
    dims.clear();
    std::istringstream is(order);
    std::string d;
    while (std::getline(is, d, '-'))
    {
        dims.push_back(d);
    }
    std::vector<std::string> sorted = dims;
    std::sort(sorted.begin(), sorted.end());
    return sorted == std::vector<std::string>{"dp", "pp", "tp"};
}

uint32_t
Size(const ParallelismConfig& p, const std::string& d)
{
    return d == "tp" ? p.tp : d == "dp" ? p.dp : p.pp;
}

uint32_t&
Index(TransformerWorkload::Coord& c, const std::string& d)
{
    return d == "tp" ? c.tp : d == "dp" ? c.dp : c.pp;
}

} // namespace

TransformerWorkload::Coord
TransformerWorkload::CoordOf(const ParallelismConfig& p, uint32_t rank)
{
    std::vector<std::string> dims;
    ParseOrder(p.order, dims);
    Coord c;
    for (const std::string& d : dims)
    {
        Index(c, d) = rank % Size(p, d);
        rank /= Size(p, d);
    }
    return c;
}

uint32_t
TransformerWorkload::RankOf(const ParallelismConfig& p, const Coord& c)
{
    std::vector<std::string> dims;
    ParseOrder(p.order, dims);
    uint32_t rank = 0;
    uint32_t stride = 1;
    Coord x = c;
    for (const std::string& d : dims)
    {
        rank += Index(x, d) * stride;
        stride *= Size(p, d);
    }
    return rank;
}

uint32_t
TransformerWorkload::Chunks(const ParallelismConfig& p)
{
    return p.schedule == ParallelismConfig::INTERLEAVED ? p.virtualStages : 1;
}

void
TransformerWorkload::ChunkLayers(const TransformerModel& m,
                                 const ParallelismConfig& p,
                                 uint32_t c,
                                 uint32_t& first,
                                 uint32_t& count)
{
    const uint32_t n = p.pp * Chunks(p);
    const uint32_t base = m.layers / n;
    const uint32_t extra = m.layers % n;
    count = base + (c < extra ? 1 : 0);
    first = c * base + std::min(c, extra);
}

double
TransformerWorkload::BubbleFraction(const ParallelismConfig& p)
{
    const double v = Chunks(p);
    return double(p.pp - 1) / (v * p.microbatches + p.pp - 1);
}

std::vector<TransformerWorkload::Unit>
TransformerWorkload::StageOrder(const ParallelismConfig& p, uint32_t s)
{
    std::vector<Unit> u;
    const uint32_t m = p.microbatches;
    const uint32_t P = p.pp;
    if (p.schedule == ParallelismConfig::GPIPE)
    {
        for (uint32_t i = 0; i < m; ++i)
        {
            u.push_back({true, i, s});
        }
        for (uint32_t i = 0; i < m; ++i)
        {
            u.push_back({false, i, s});
        }
        return u;
    }
    if (p.schedule == ParallelismConfig::ONE_F_ONE_B)
    {
        const uint32_t warm = std::min(P - s - 1, m);
        for (uint32_t i = 0; i < warm; ++i)
        {
            u.push_back({true, i, s});
        }
        for (uint32_t i = 0; i + warm < m; ++i)
        {
            u.push_back({true, i + warm, s});
            u.push_back({false, i, s});
        }
        for (uint32_t i = m - warm; i < m; ++i)
        {
            u.push_back({false, i, s});
        }
        return u;
    }
    // Megatron-LM's interleaved schedule (schedules.py, forward_backward_pipelining_with_
    // interleaving): micro-step k runs local chunk (k mod P·v) / P — reversed backward — on
    // micro-batch (k / P·v)·P + k mod P; warm-up (P − s − 1)·2 + (v − 1)·P forwards.
    const uint32_t v = p.virtualStages;
    const uint32_t total = m * v;
    const uint32_t warm = std::min(total, (P - s - 1) * 2 + (v - 1) * P);
    auto unit = [&](uint32_t k, bool forward) {
        const uint32_t inGroup = k % (P * v);
        uint32_t local = inGroup / P;
        if (!forward)
        {
            local = v - 1 - local;
        }
        return Unit{forward, (k / (P * v)) * P + k % P, local * P + s};
    };
    for (uint32_t k = 0; k < warm; ++k)
    {
        u.push_back(unit(k, true));
    }
    for (uint32_t k = 0; k + warm < total; ++k)
    {
        u.push_back(unit(k + warm, true));
        u.push_back(unit(k, false));
    }
    for (uint32_t k = total - warm; k < total; ++k)
    {
        u.push_back(unit(k, false));
    }
    return u;
}

std::string
TransformerWorkload::Check(const TransformerModel& m, const ParallelismConfig& p)
{
    const std::string e = m.Check();
    if (!e.empty())
    {
        return "model: " + e;
    }
    std::vector<std::string> dims;
    if (!ParseOrder(p.order, dims))
    {
        return "order must be tp, dp and pp joined by '-', innermost first (got '" + p.order + "')";
    }
    if (p.tp < 1 || p.pp < 1 || p.dp < 1 || p.ep < 1)
    {
        return "tp, pp, dp and ep must be >= 1";
    }
    if (m.heads % p.tp != 0)
    {
        return "tp must divide the model's heads (" + std::to_string(m.heads) + "), got " +
               std::to_string(p.tp);
    }
    const uint32_t chunks = p.pp * Chunks(p);
    if (m.layers < chunks)
    {
        return "pp x virtual_stages must be <= the model's layers (" + std::to_string(m.layers) +
               "), got " + std::to_string(chunks);
    }
    if (p.microbatches < 1 || p.microBatchSize < 1)
    {
        return "microbatches and the micro-batch size must be >= 1";
    }
    if (p.schedule == ParallelismConfig::INTERLEAVED &&
        (p.virtualStages < 2 || p.pp < 2 || p.microbatches % p.pp != 0))
    {
        return "schedule interleaved needs pp >= 2, virtual_stages >= 2 and microbatches a "
               "multiple of pp (got pp " +
               std::to_string(p.pp) + ", virtual_stages " + std::to_string(p.virtualStages) +
               ", microbatches " + std::to_string(p.microbatches) + ")";
    }
    if (p.zero > 3)
    {
        return "zero must be in [0, 3], got " + std::to_string(p.zero);
    }
    if (p.zero == 3 && p.pp > 1)
    {
        return "zero 3 (FSDP) runs with pp 1 here, got pp " + std::to_string(p.pp);
    }
    if (p.ep > 1 && m.experts == 0)
    {
        return "ep > 1 needs a MoE model (experts >= 1)";
    }
    if (p.dp % p.ep != 0 || (m.experts > 0 && m.experts % p.ep != 0))
    {
        return "ep must divide dp (" + std::to_string(p.dp) + ") and the experts (" +
               std::to_string(m.experts) + "), got " + std::to_string(p.ep);
    }
    if (p.moeSkew < 1 || p.moeSkew > double(p.ep))
    {
        return "moe_skew must be in [1, ep], got " + std::to_string(p.moeSkew);
    }
    if (p.moeHotRank >= p.ep)
    {
        return "moe_hot_rank must be below ep (" + std::to_string(p.ep) + ")";
    }
    if (p.bucketBytes < 1)
    {
        return "bucket bytes must be >= 1";
    }
    return "";
}

namespace
{

/// Builds one rank's program: the state the per-operation helpers share.
class RankBuilder
{
  public:
    RankBuilder(const TransformerModel& m,
                const ParallelismConfig& p,
                WorkloadGraph& g,
                uint32_t rank)
        : m_model(m),
          m_par(p),
          m_g(g),
          m_rank(rank),
          m_at(TransformerWorkload::CoordOf(p, rank))
    {
        const double tokens = double(p.microBatchSize) * double(m.seqLen);
        m_tokens = tokens;
        m_act = uint64_t(tokens) * m.hidden * m.dtypeBytes;
        std::vector<uint32_t> tp, dp, ep, edp;
        TransformerWorkload::Coord c = m_at;
        for (uint32_t t = 0; t < p.tp; ++t)
        {
            c.tp = t;
            tp.push_back(TransformerWorkload::RankOf(p, c));
        }
        c = m_at;
        const uint32_t block = m_at.dp / p.ep * p.ep;
        for (uint32_t d = 0; d < p.dp; ++d)
        {
            c.dp = d;
            const uint32_t r = TransformerWorkload::RankOf(p, c);
            dp.push_back(r);
            if (d >= block && d < block + p.ep)
            {
                ep.push_back(r);
            }
            if (d % p.ep == m_at.dp % p.ep)
            {
                edp.push_back(r);
            }
        }
        m_tpGroup = p.tp > 1 ? g.Group(tp) : UINT32_MAX;
        m_dpGroup = p.dp > 1 ? g.Group(dp) : UINT32_MAX;
        m_epGroup = p.ep > 1 ? g.Group(ep) : UINT32_MAX;
        m_edpGroup = edp.size() > 1 ? g.Group(edp) : UINT32_MAX;
        m_epIndex = m_at.dp - block;
    }

    void Build()
    {
        const auto order = TransformerWorkload::StageOrder(m_par, m_at.pp);
        // The last backward of each chunk produces its gradients (Megatron's DDP reduces them
        // on the last micro-batch).
        std::vector<uint32_t> lastBackward(m_par.pp * TransformerWorkload::Chunks(m_par), 0);
        for (uint32_t k = 0; k < order.size(); ++k)
        {
            if (!order[k].forward)
            {
                lastBackward[order[k].chunk] = k;
            }
        }
        for (uint32_t k = 0; k < order.size(); ++k)
        {
            const auto& u = order[k];
            if (u.forward)
            {
                Forward(u.microbatch, u.chunk);
            }
            else
            {
                Backward(u.microbatch, u.chunk, lastBackward[u.chunk] == k);
            }
        }
        Flush(m_dense, m_dpGroup);
        Flush(m_expert, m_edpGroup);
        Optimizer();
    }

  private:
    struct Bucket
    {
        uint64_t bytes{0};
        uint64_t params{0}; //!< every parameter added (the optimizer's work)
        uint32_t after{UINT32_MAX};
        std::vector<uint64_t> launched; //!< bucket sizes, for ZeRO's parameter all-gathers
    };

    uint32_t Chunks() const
    {
        return m_par.pp * TransformerWorkload::Chunks(m_par);
    }

    uint32_t OwnerOf(uint32_t chunk) const
    {
        TransformerWorkload::Coord c = m_at;
        c.pp = chunk % m_par.pp;
        return TransformerWorkload::RankOf(m_par, c);
    }

    uint32_t Compute(WorkloadOp::Phase phase, double flops, uint32_t after)
    {
        WorkloadOp o;
        o.kind = WorkloadOp::COMPUTE;
        o.phase = phase;
        o.flops = flops;
        return m_g.Add(m_rank, o, {after});
    }

    uint32_t Collective(uint32_t group,
                        WorkloadOp::Phase phase,
                        CollectiveSpec::Op op,
                        uint64_t bytes,
                        std::initializer_list<uint32_t> after)
    {
        if (group == UINT32_MAX || bytes == 0)
        {
            return after.size() ? *after.begin() : UINT32_MAX;
        }
        WorkloadOp o;
        o.kind = WorkloadOp::COLLECTIVE;
        o.phase = phase;
        o.op = op;
        o.group = group;
        o.bytes = bytes;
        if (op == CollectiveSpec::ALLTOALL)
        {
            o.hot = m_par.moeHotRank;
            o.skew = m_par.moeSkew;
        }
        return m_g.Add(m_rank, o, after);
    }

    uint32_t P2p(WorkloadOp::Kind kind, uint32_t peer, uint32_t tag, uint32_t after)
    {
        WorkloadOp o;
        o.kind = kind;
        o.phase = WorkloadOp::PP;
        o.peer = peer;
        o.tag = tag;
        o.bytes = m_par.sequenceParallel ? std::max<uint64_t>(1, m_act / m_par.tp) : m_act;
        return m_g.Add(m_rank, o, {after});
    }

    uint32_t Tag(uint32_t microbatch, uint32_t chunk, bool forward) const
    {
        return ((microbatch * Chunks() + chunk) << 1) | (forward ? 0 : 1);
    }

    /// The TP exchange around a block: an all-reduce after it, or with sequence parallelism an
    /// all-gather before it and a reduce-scatter after it. \return the block's last operation
    uint32_t TpBlock(WorkloadOp::Phase phase, double flops, uint32_t after)
    {
        if (m_par.sequenceParallel)
        {
            after =
                Collective(m_tpGroup, WorkloadOp::TP, CollectiveSpec::ALLGATHER, m_act, {after});
            const uint32_t c = Compute(phase, flops, after);
            return Collective(m_tpGroup, WorkloadOp::TP, CollectiveSpec::REDUCESCATTER, m_act, {c});
        }
        const uint32_t c = Compute(phase, flops, after);
        return Collective(m_tpGroup, WorkloadOp::TP, CollectiveSpec::ALLREDUCE, m_act, {c});
    }

    bool RoutesTokens(uint32_t layer) const
    {
        return m_model.IsMoeLayer(layer) && m_par.ep > 1;
    }

    double AttentionFlops() const
    {
        return m_tokens * m_model.AttentionForwardFlopsPerToken() / m_par.tp;
    }

    /// Forward FLOPs of a dense (or unrouted MoE) MLP.
    double MlpFlops(uint32_t layer) const
    {
        return m_tokens *
               (m_model.LayerForwardFlopsPerToken(layer) -
                m_model.AttentionForwardFlopsPerToken()) /
               m_par.tp;
    }

    /// Tokens each TP rank routes (its sequence shard).
    double RoutedTokens() const
    {
        return m_tokens / m_par.tp;
    }

    /// Forward FLOPs of this rank's experts: the routed tokens it receives.
    double ExpertFlops() const
    {
        const double ep = m_par.ep;
        const double share =
            m_epIndex == m_par.moeHotRank ? m_par.moeSkew : (ep - m_par.moeSkew) / (ep - 1);
        return RoutedTokens() * m_model.topK * share * 2.0 * double(m_model.ExpertParams());
    }

    /// Router and shared experts on the routed tokens.
    double RouterFlops() const
    {
        return RoutedTokens() * 2.0 *
               (double(m_model.hidden) * m_model.experts +
                double(m_model.sharedExperts) * double(m_model.ExpertParams()));
    }

    uint64_t A2aBytes() const
    {
        return uint64_t(RoutedTokens() * m_model.topK) * m_model.hidden * m_model.dtypeBytes;
    }

    /// One layer's forward. \return its last operation
    uint32_t LayerForward(uint32_t layer, uint32_t after)
    {
        if (m_par.zero == 3 && m_dpGroup != UINT32_MAX)
        {
            after = Gather(layer, after);
        }
        after = TpBlock(WorkloadOp::FORWARD, AttentionFlops(), after);
        if (!RoutesTokens(layer))
        {
            return TpBlock(WorkloadOp::FORWARD, MlpFlops(layer), after);
        }
        after = Compute(WorkloadOp::FORWARD, RouterFlops(), after);
        after =
            Collective(m_epGroup, WorkloadOp::EP, CollectiveSpec::ALLTOALL, A2aBytes(), {after});
        after = Compute(WorkloadOp::EP, ExpertFlops(), after);
        after =
            Collective(m_epGroup, WorkloadOp::EP, CollectiveSpec::ALLTOALL, A2aBytes(), {after});
        if (!m_par.sequenceParallel)
        {
            after =
                Collective(m_tpGroup, WorkloadOp::TP, CollectiveSpec::ALLGATHER, m_act, {after});
        }
        return after;
    }

    /// One layer's backward (twice the forward's FLOPs). \return its last operation
    uint32_t LayerBackward(uint32_t layer, uint32_t after)
    {
        if (m_par.zero == 3 && m_dpGroup != UINT32_MAX)
        {
            after = Gather(layer, after);
        }
        if (!RoutesTokens(layer))
        {
            after = TpBlock(WorkloadOp::BACKWARD, 2 * MlpFlops(layer), after);
        }
        else
        {
            if (!m_par.sequenceParallel)
            {
                after = Collective(m_tpGroup,
                                   WorkloadOp::TP,
                                   CollectiveSpec::REDUCESCATTER,
                                   m_act,
                                   {after});
            }
            after = Collective(m_epGroup,
                               WorkloadOp::EP,
                               CollectiveSpec::ALLTOALL,
                               A2aBytes(),
                               {after});
            after = Compute(WorkloadOp::EP, 2 * ExpertFlops(), after);
            after = Collective(m_epGroup,
                               WorkloadOp::EP,
                               CollectiveSpec::ALLTOALL,
                               A2aBytes(),
                               {after});
            after = Compute(WorkloadOp::BACKWARD, 2 * RouterFlops(), after);
        }
        after = TpBlock(WorkloadOp::BACKWARD, 2 * AttentionFlops(), after);
        if (m_par.zero == 3 && m_dpGroup != UINT32_MAX)
        {
            Collective(m_dpGroup,
                       WorkloadOp::FSDP,
                       CollectiveSpec::REDUCESCATTER,
                       ShardBytes(layer),
                       {after});
        }
        return after;
    }

    /// Bytes of layer `layer`'s parameters (or gradients) this TP rank holds.
    uint64_t ShardBytes(uint32_t layer) const
    {
        return m_model.LayerParams(layer) / m_par.tp * m_model.dtypeBytes;
    }

    /// FSDP: gather layer's parameters one layer ahead of their use.
    uint32_t Gather(uint32_t layer, uint32_t after)
    {
        // Issued when the compute two layers back finished (prefetching one layer), and after
        // `after` at the latest.
        const uint32_t ahead = m_recent.size() >= 2 ? m_recent[m_recent.size() - 2] : UINT32_MAX;
        const uint32_t g = Collective(m_dpGroup,
                                      WorkloadOp::FSDP,
                                      CollectiveSpec::ALLGATHER,
                                      ShardBytes(layer),
                                      {ahead});
        WorkloadOp join;
        join.kind = WorkloadOp::COMPUTE;
        join.phase = WorkloadOp::OTHER;
        // A zero-time marker: the layer waits for its parameters and its input.
        return m_g.Add(m_rank, join, {g, after});
    }

    void Forward(uint32_t mb, uint32_t chunk)
    {
        uint32_t after = UINT32_MAX;
        if (chunk > 0)
        {
            after = P2p(WorkloadOp::RECV, OwnerOf(chunk - 1), Tag(mb, chunk, true), UINT32_MAX);
        }
        uint32_t first;
        uint32_t count;
        TransformerWorkload::ChunkLayers(m_model, m_par, chunk, first, count);
        m_recent.clear();
        for (uint32_t l = first; l < first + count; ++l)
        {
            after = LayerForward(l, after);
            m_recent.push_back(after);
        }
        if (chunk + 1 == Chunks())
        {
            after = Compute(WorkloadOp::FORWARD,
                            m_tokens * m_model.HeadForwardFlopsPerToken() / m_par.tp,
                            after);
        }
        else
        {
            P2p(WorkloadOp::SEND, OwnerOf(chunk + 1), Tag(mb, chunk + 1, true), after);
        }
    }

    void Backward(uint32_t mb, uint32_t chunk, bool last)
    {
        uint32_t after = UINT32_MAX;
        if (chunk + 1 < Chunks())
        {
            after = P2p(WorkloadOp::RECV, OwnerOf(chunk + 1), Tag(mb, chunk, false), UINT32_MAX);
        }
        else
        {
            after = Compute(WorkloadOp::BACKWARD,
                            2 * m_tokens * m_model.HeadForwardFlopsPerToken() / m_par.tp,
                            after);
            if (last)
            {
                AddGradients(m_dense, m_model.vocab * m_model.hidden / m_par.tp, after);
            }
        }
        uint32_t first;
        uint32_t count;
        TransformerWorkload::ChunkLayers(m_model, m_par, chunk, first, count);
        m_recent.clear();
        for (uint32_t l = first + count; l-- > first;)
        {
            after = LayerBackward(l, after);
            m_recent.push_back(after);
            if (last && m_par.zero != 3)
            {
                AddGradients(m_dense, DenseGradParams(l), after);
                AddGradients(m_expert, ExpertGradParams(l), after);
            }
        }
        if (chunk == 0 && last && (!m_model.tiedEmbedding || Chunks() > 1))
        {
            AddGradients(m_dense, m_model.vocab * m_model.hidden / m_par.tp, after);
        }
        if (chunk > 0)
        {
            P2p(WorkloadOp::SEND, OwnerOf(chunk - 1), Tag(mb, chunk - 1, false), after);
        }
    }

    /// Parameters of layer `layer` this rank holds that every data-parallel rank shares: all of
    /// them, split over TP, except the routed experts (with ep > 1: attention over TP, router
    /// and shared experts whole, as RouterFlops computes them).
    uint64_t DenseGradParams(uint32_t layer) const
    {
        if (!RoutesTokens(layer))
        {
            return m_model.LayerParams(layer) / m_par.tp;
        }
        return m_model.AttentionParams() / m_par.tp + 2 * m_model.hidden +
               m_model.hidden * m_model.experts +
               uint64_t(m_model.sharedExperts) * m_model.ExpertParams();
    }

    /// This rank's routed experts of layer `layer` (ep > 1), shared with the other
    /// expert-data-parallel ranks only.
    uint64_t ExpertGradParams(uint32_t layer) const
    {
        return RoutesTokens(layer) ? uint64_t(m_model.experts / m_par.ep) * m_model.ExpertParams()
                                   : 0;
    }

    /// Gradients of `params` parameters are ready after `after`: launch full buckets.
    void AddGradients(Bucket& b, uint64_t params, uint32_t after)
    {
        b.params += params;
        b.bytes += params * m_model.dtypeBytes;
        b.after = after;
        if (b.bytes >= m_par.bucketBytes)
        {
            Flush(b, &b == &m_dense ? m_dpGroup : m_edpGroup);
        }
    }

    void Flush(Bucket& b, uint32_t group)
    {
        if (b.bytes == 0)
        {
            return;
        }
        if (group != UINT32_MAX)
        {
            // ZeRO 3 buckets hold only the embedding and head (replicated, all-reduced).
            const auto op = m_par.zero == 0 || m_par.zero == 3 ? CollectiveSpec::ALLREDUCE
                                                               : CollectiveSpec::REDUCESCATTER;
            m_reductions.push_back(Collective(group, WorkloadOp::DP, op, b.bytes, {b.after}));
            b.launched.push_back(b.bytes);
        }
        b.bytes = 0;
    }

    void Optimizer()
    {
        std::vector<uint32_t> after = m_reductions;
        uint64_t params = m_dense.params + m_expert.params;
        if (m_par.zero == 1 || m_par.zero == 2)
        {
            // The distributed optimizer: each rank updates its shard.
            params = m_dense.params / m_par.dp + m_expert.params / (m_par.dp / m_par.ep);
        }
        if (m_par.zero == 3)
        {
            // FSDP: this rank's shard of the layers (the embedding and head are whole).
            for (uint32_t l = 0; l < m_model.layers; ++l)
            {
                params += m_model.LayerParams(l) / m_par.tp / m_par.dp;
            }
        }
        WorkloadOp o;
        o.kind = WorkloadOp::COMPUTE;
        o.phase = WorkloadOp::OPTIMIZER;
        o.durationNs = int64_t(
            std::llround(double(params) * m_par.optimizerBytesPerParam / m_par.hbmBytesPerS * 1e9));
        const uint32_t opt = m_g.Add(m_rank, o, after);
        if (m_par.zero == 1 || m_par.zero == 2)
        {
            for (uint64_t bytes : m_dense.launched)
            {
                Collective(m_dpGroup, WorkloadOp::DP, CollectiveSpec::ALLGATHER, bytes, {opt});
            }
            for (uint64_t bytes : m_expert.launched)
            {
                Collective(m_edpGroup, WorkloadOp::DP, CollectiveSpec::ALLGATHER, bytes, {opt});
            }
        }
    }

    const TransformerModel& m_model;
    const ParallelismConfig& m_par;
    WorkloadGraph& m_g;
    uint32_t m_rank;
    TransformerWorkload::Coord m_at;
    double m_tokens{0};
    uint64_t m_act{0};
    uint32_t m_tpGroup{UINT32_MAX};
    uint32_t m_dpGroup{UINT32_MAX};
    uint32_t m_epGroup{UINT32_MAX};
    uint32_t m_edpGroup{UINT32_MAX};
    uint32_t m_epIndex{0};
    Bucket m_dense;
    Bucket m_expert;
    std::vector<uint32_t> m_reductions;
    std::vector<uint32_t> m_recent; //!< the last operation of each layer of the current chunk
};

} // namespace

WorkloadGraph
TransformerWorkload::Build(const TransformerModel& m, const ParallelismConfig& p)
{
    WorkloadGraph g(p.Ranks());
    for (uint32_t r = 0; r < p.Ranks(); ++r)
    {
        RankBuilder(m, p, g, r).Build();
    }
    const double tokens = double(p.dp) * p.microbatches * p.microBatchSize * double(m.seqLen);
    g.modelFlops = tokens * m.TrainingFlopsPerToken();
    return g;
}

} // namespace ns3

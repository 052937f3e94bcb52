// SPDX-License-Identifier: GPL-2.0-only
#include "collective-algorithm.h"

#include "collective-algorithm-registry.h"

#include "ns3/abort.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CollectiveAlgorithm);

const char*
CollectiveSpec::OpName(Op op)
{
    switch (op)
    {
    case ALLREDUCE:
        return "allreduce";
    case REDUCESCATTER:
        return "reducescatter";
    case ALLGATHER:
        return "allgather";
    case ALLTOALL:
        return "alltoall";
    case BROADCAST:
        return "broadcast";
    case SENDRECV:
        return "sendrecv";
    }
    return "unknown";
}

bool
CollectiveSpec::OpByName(const std::string& name, Op& op)
{
    for (Op o : {ALLREDUCE, REDUCESCATTER, ALLGATHER, ALLTOALL, BROADCAST, SENDRECV})
    {
        if (name == OpName(o))
        {
            op = o;
            return true;
        }
    }
    return false;
}

double
CollectiveSpec::BusBwFactor(Op op, uint32_t n)
{
    if (n <= 1)
    {
        return 0.0;
    }
    if (op == BROADCAST || op == SENDRECV)
    {
        return 1.0;
    }
    return op == ALLREDUCE ? 2.0 * (n - 1) / n : double(n - 1) / n;
}

uint32_t
CollectiveSchedule::Add(uint32_t src,
                        uint32_t dst,
                        uint64_t bytes,
                        const uint32_t* dep,
                        uint32_t nDeps,
                        uint32_t nic)
{
    CollectiveTransfer t;
    t.src = src;
    t.dst = dst;
    t.bytes = std::max<uint64_t>(bytes, 1);
    t.depBegin = static_cast<uint32_t>(deps.size());
    for (uint32_t i = 0; i < nDeps; ++i)
    {
        if (dep[i] != UINT32_MAX)
        {
            deps.push_back(dep[i]);
        }
    }
    t.depCount = static_cast<uint32_t>(deps.size()) - t.depBegin;
    t.channel = static_cast<uint16_t>(channel);
    t.follower = follower;
    if (nic != UINT32_MAX)
    {
        const int64_t delta = int64_t(nic) - int64_t(src);
        NS_ABORT_MSG_IF(delta < INT16_MIN || delta > INT16_MAX,
                        "CollectiveSchedule: NIC rank " << nic << " too far from " << src);
        t.nicDelta = static_cast<int16_t>(delta);
    }
    transfers.push_back(t);
    return static_cast<uint32_t>(transfers.size() - 1);
}

uint32_t
CollectiveSchedule::AddNvls(CollectiveTransfer::Kind kind,
                            uint32_t rank,
                            uint64_t bytes,
                            const uint32_t* dep,
                            uint32_t nDeps)
{
    const uint32_t i = Add(rank, rank, bytes, dep, nDeps);
    transfers[i].kind = kind;
    return i;
}

uint64_t
CollectiveRing::Bytes(uint32_t k, uint32_t p, uint32_t c) const
{
    const uint32_t n = Size();
    const uint32_t seg = (p + n - (k % n)) % n;
    const uint64_t segBytes = total / n + (seg < total % n ? 1 : 0);
    const uint64_t b = segBytes / chunks + (c < segBytes % chunks ? 1 : 0);
    return std::max<uint64_t>(b, 1);
}

bool
CollectiveRing::HasPxnHop(uint32_t p) const
{
    return pxn && nic[p] != UINT32_MAX && nic[p] != order[p];
}

uint64_t
CollectiveRing::Transfers() const
{
    uint64_t hops = 0;
    for (uint32_t p = 0; p < Size(); ++p)
    {
        hops += HasPxnHop(p) ? 2 : 1;
    }
    return uint64_t(steps) * chunks * hops;
}

std::vector<uint64_t>
CollectiveSchedule::BytesSentPerRank(uint32_t ranks) const
{
    std::vector<uint64_t> v(ranks, 0);
    for (const auto& t : transfers)
    {
        v[t.src] += t.bytes; // a RING_DONE mark has none
    }
    for (const CollectiveRing& r : rings)
    {
        for (uint32_t k = 0; k < r.steps; ++k)
        {
            for (uint32_t p = 0; p < r.Size(); ++p)
            {
                for (uint32_t c = 0; c < r.chunks; ++c)
                {
                    const uint64_t b = r.Bytes(k, p, c);
                    v[r.order[p]] += b;
                    if (r.HasPxnHop(p))
                    {
                        v[r.nic[p]] += b;
                    }
                }
            }
        }
    }
    return v;
}

uint64_t
CollectiveSchedule::TransferCount() const
{
    uint64_t n = 0;
    for (const CollectiveTransfer& t : transfers)
    {
        n += t.kind != CollectiveTransfer::RING_DONE;
    }
    for (const CollectiveRing& r : rings)
    {
        n += r.Transfers();
    }
    return n;
}

CollectiveSchedule
CollectiveSchedule::Materialized() const
{
    CollectiveSchedule s;
    s.costs = costs;
    s.aggregators = aggregators;
    // Old DAG index -> new; a RING_DONE mark -> the written-out transfer it stands for.
    std::vector<uint32_t> map(transfers.size(), UINT32_MAX);
    std::vector<uint32_t> ringAt(transfers.size(), UINT32_MAX);
    for (uint32_t i = 0; i < rings.size(); ++i)
    {
        if (rings[i].done != UINT32_MAX)
        {
            ringAt[rings[i].done] = i;
        }
    }
    auto writeOut = [&](const CollectiveRing& r) {
        s.channel = r.channel;
        std::vector<std::vector<uint32_t>> first(r.Size(),
                                                 std::vector<uint32_t>(r.chunks, UINT32_MAX));
        for (uint32_t i = 0; i < r.after.size(); ++i)
        {
            if (r.after[i] != UINT32_MAX)
            {
                first[i / r.chunks][i % r.chunks] = map[r.after[i]];
            }
        }
        std::vector<std::vector<uint32_t>> last;
        CollectiveAlgorithm::AppendRing(s,
                                        r.order,
                                        r.steps,
                                        r.total,
                                        r.chunks,
                                        first,
                                        last,
                                        &r.nic,
                                        r.pxn);
        for (uint32_t i = 0; r.done != UINT32_MAX && i < r.Size() * r.chunks; ++i)
        {
            map[r.done + i] = last[i / r.chunks][i % r.chunks];
        }
    };
    for (uint32_t t = 0; t < transfers.size(); ++t)
    {
        if (ringAt[t] != UINT32_MAX)
        {
            writeOut(rings[ringAt[t]]);
        }
        const CollectiveTransfer& x = transfers[t];
        if (x.kind == CollectiveTransfer::RING_DONE)
        {
            continue; // mapped by its ring
        }
        CollectiveTransfer y = x;
        y.depBegin = static_cast<uint32_t>(s.deps.size());
        for (uint32_t k = 0; k < x.depCount; ++k)
        {
            s.deps.push_back(map[deps[x.depBegin + k]]);
        }
        map[t] = static_cast<uint32_t>(s.transfers.size());
        s.transfers.push_back(y);
    }
    for (const CollectiveRing& r : rings)
    {
        if (r.done == UINT32_MAX)
        {
            writeOut(r);
        }
    }
    s.channel = 0;
    return s;
}

TypeId
CollectiveAlgorithm::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveAlgorithm").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

CollectiveAlgorithm::~CollectiveAlgorithm() = default;

std::string
CollectiveAlgorithm::Check(const CollectiveSpec& spec) const
{
    if (spec.ranks < 1)
    {
        return "ranks must be >= 1";
    }
    if (spec.bytes < 1)
    {
        return "bytes must be >= 1";
    }
    if (spec.chunks < 1)
    {
        return "chunks must be >= 1";
    }
    if (spec.channels < 1 || spec.channels > 64)
    {
        return "channels must be in [1, 64]";
    }
    if (spec.gpusPerServer < 1 || spec.gpusPerServer > 4096)
    {
        return "GPUs per server must be in [1, 4096]";
    }
    if (!IsBuiltByBase(spec.op) && !CollectiveProtocol::Supports(GetName(), spec.protocol))
    {
        return GetName() + " runs the simple protocol only (as NCCL's does)";
    }
    return "";
}

uint32_t
CollectiveAlgorithm::EffectiveChannels(const CollectiveSpec& spec)
{
    const uint64_t fit = std::max<uint64_t>(1, spec.bytes / kMinChannelBytes);
    return static_cast<uint32_t>(std::min<uint64_t>(spec.channels, fit));
}

std::string
CollectiveAlgorithm::TypeIdName(const std::string& name)
{
    const CollectiveAlgorithmInfo* e = CollectiveAlgorithmRegistry::Find(name);
    return e ? e->typeId : "";
}

std::vector<std::string>
CollectiveAlgorithm::Names()
{
    return CollectiveAlgorithmRegistry::Names();
}

bool
CollectiveAlgorithm::IsBuiltByBase(CollectiveSpec::Op op)
{
    return op == CollectiveSpec::ALLTOALL || op == CollectiveSpec::BROADCAST ||
           op == CollectiveSpec::SENDRECV;
}

uint64_t
CollectiveAlgorithm::Part(uint64_t bytes, uint32_t n, uint32_t i)
{
    return bytes / n + (i < bytes % n ? 1 : 0);
}

uint32_t
CollectiveAlgorithm::PipelineChunks(uint64_t bytes,
                                    uint64_t step,
                                    uint32_t specChunks,
                                    uint32_t maxChunks)
{
    const uint64_t natural = (bytes + step - 1) / step;
    return static_cast<uint32_t>(
        std::max<uint64_t>(1,
                           std::min<uint64_t>(maxChunks, std::max<uint64_t>(specChunks, natural))));
}

CollectiveSchedule
CollectiveAlgorithm::Build(const CollectiveSpec& spec) const
{
    const std::string err = Check(spec);
    NS_ABORT_MSG_UNLESS(err.empty(), GetName() << ": " << err);
    CollectiveSchedule s;
    // Schedules every algorithm makes the same way are charged as NCCL's rings.
    s.costs =
        CollectiveProtocol::CostsOf(IsBuiltByBase(spec.op) ? "ring" : GetName(), spec.protocol);
    if (spec.ranks < 2)
    {
        return s;
    }
    if (spec.op == CollectiveSpec::ALLTOALL)
    {
        // Direct pairwise exchange: rank i sends its block for j at round (j - i) mod N, all
        // rounds posted at once (the transport queues them).
        const uint32_t n = spec.ranks;
        for (uint32_t r = 1; r < n; ++r)
        {
            for (uint32_t i = 0; i < n; ++i)
            {
                const uint64_t block = Part(spec.bytes, n, (i + r) % n);
                for (uint32_t c = 0; c < spec.chunks; ++c)
                {
                    s.Add(i, (i + r) % n, Part(block, spec.chunks, c), nullptr, 0);
                }
            }
        }
        return s;
    }
    const uint32_t channels = EffectiveChannels(spec);
    if (spec.op == CollectiveSpec::SENDRECV || spec.op == CollectiveSpec::BROADCAST)
    {
        for (uint32_t ch = 0; ch < channels; ++ch)
        {
            s.channel = ch;
            const uint64_t bytes = Part(spec.bytes, channels, ch);
            if (bytes == 0)
            {
                continue;
            }
            if (spec.op == CollectiveSpec::SENDRECV)
            {
                for (uint32_t i = 0; i < spec.ranks; ++i)
                {
                    s.Add(i, (i + 1) % spec.ranks, bytes, nullptr, 0);
                }
                continue;
            }
            // Broadcast from rank 0 down the chain 0 -> 1 -> ... -> N-1, slice by slice: a rank
            // forwards a slice once it has it.
            const uint64_t slices = std::max<uint64_t>(
                spec.chunks,
                std::min<uint64_t>(1024,
                                   (bytes + kBroadcastSliceBytes - 1) / kBroadcastSliceBytes));
            for (uint64_t k = 0; k < slices; ++k)
            {
                uint32_t dep = UINT32_MAX;
                const uint64_t b =
                    Part(bytes, static_cast<uint32_t>(slices), static_cast<uint32_t>(k));
                for (uint32_t i = 0; i + 1 < spec.ranks && b > 0; ++i)
                {
                    dep = s.Add(i, i + 1, b, &dep, 1);
                }
            }
        }
        s.channel = 0;
        return s;
    }
    // Channels: independent instances of the algorithm on disjoint parts of the buffer.
    for (uint32_t ch = 0; ch < channels; ++ch)
    {
        CollectiveSpec part = spec;
        part.bytes = Part(spec.bytes, channels, ch);
        part.channels = 1;
        s.channel = ch;
        if (part.bytes > 0)
        {
            DoBuild(part, s);
        }
    }
    s.channel = 0;
    return s;
}

void
CollectiveAlgorithm::AppendLazyRing(CollectiveSchedule& s,
                                    const std::vector<uint32_t>& order,
                                    uint32_t steps,
                                    uint64_t total,
                                    uint32_t chunks,
                                    const std::vector<std::vector<uint32_t>>& first,
                                    std::vector<std::vector<uint32_t>>& lastArrival)
{
    const uint32_t n = static_cast<uint32_t>(order.size());
    if (n < 2 || steps == 0)
    {
        lastArrival = first; // as AppendRing: nothing moves
        return;
    }
    CollectiveRing r;
    r.channel = static_cast<uint16_t>(s.channel);
    r.steps = steps;
    r.total = total;
    r.chunks = chunks;
    r.order = order;
    r.nic.assign(n, UINT32_MAX);
    bool waits = false;
    for (const auto& f : first)
    {
        waits =
            waits || std::any_of(f.begin(), f.end(), [](uint32_t d) { return d != UINT32_MAX; });
    }
    if (waits)
    {
        r.after.reserve(size_t(n) * chunks);
        for (const auto& f : first)
        {
            r.after.insert(r.after.end(), f.begin(), f.end());
        }
    }
    r.done = static_cast<uint32_t>(s.transfers.size());
    lastArrival.assign(n, std::vector<uint32_t>(chunks, UINT32_MAX));
    for (uint32_t p = 0; p < n; ++p)
    {
        for (uint32_t c = 0; c < chunks; ++c)
        {
            const uint32_t i = s.Add(order[p], order[p], 0, nullptr, 0);
            s.transfers[i].kind = CollectiveTransfer::RING_DONE;
            s.transfers[i].bytes = 0;
            lastArrival[p][c] = i;
        }
    }
    s.rings.push_back(std::move(r));
}

void
CollectiveAlgorithm::AppendRing(CollectiveSchedule& s,
                                const std::vector<uint32_t>& order,
                                uint32_t steps,
                                uint64_t total,
                                uint32_t chunks,
                                const std::vector<std::vector<uint32_t>>& first,
                                std::vector<std::vector<uint32_t>>& lastArrival,
                                const std::vector<uint32_t>* nic,
                                bool pxn)
{
    const uint32_t n = static_cast<uint32_t>(order.size());
    lastArrival.assign(n, std::vector<uint32_t>(chunks, UINT32_MAX));
    if (n < 2)
    {
        lastArrival = first;
        return;
    }
    // prev[p][c]: the transfer of chunk c that arrived at position p in the previous step.
    std::vector<std::vector<uint32_t>> prev = first;
    std::vector<std::vector<uint32_t>> cur(n, std::vector<uint32_t>(chunks, UINT32_MAX));
    for (uint32_t k = 0; k < steps; ++k)
    {
        for (uint32_t p = 0; p < n; ++p)
        {
            const uint32_t next = (p + 1) % n;
            const uint32_t seg = (p + n - (k % n)) % n;
            const uint64_t segBytes = Part(total, n, seg);
            const uint32_t via = nic ? (*nic)[p] : UINT32_MAX;
            for (uint32_t c = 0; c < chunks; ++c)
            {
                uint32_t dep = prev[p][c];
                const uint64_t bytes = Part(segBytes, chunks, c);
                if (via == UINT32_MAX || via == order[p])
                {
                    cur[next][c] = s.Add(order[p], order[next], bytes, &dep, 1);
                }
                else if (pxn)
                {
                    // NVLink to the GPU beside the NIC, then out of that NIC.
                    dep = s.Add(order[p], via, bytes, &dep, 1);
                    cur[next][c] = s.Add(via, order[next], bytes, &dep, 1);
                }
                else
                {
                    cur[next][c] = s.Add(order[p], order[next], bytes, &dep, 1, via);
                }
            }
        }
        std::swap(prev, cur);
    }
    lastArrival = prev;
}

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "workload-graph.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace ns3
{

WorkloadGraph::WorkloadGraph(uint32_t n)
    : ranks(n),
      ops(n),
      deps(n)
{
}

uint32_t
WorkloadGraph::Add(uint32_t rank, WorkloadOp op, std::initializer_list<uint32_t> after)
{
    return Add(rank, op, std::vector<uint32_t>(after));
}

uint32_t
WorkloadGraph::Add(uint32_t rank, WorkloadOp op, const std::vector<uint32_t>& after)
{
    std::vector<uint32_t>& d = deps[rank];
    op.depBegin = static_cast<uint32_t>(d.size());
    op.depCount = 0;
    for (uint32_t a : after)
    {
        if (a != UINT32_MAX)
        {
            d.push_back(a);
            ++op.depCount;
        }
    }
    ops[rank].push_back(op);
    return static_cast<uint32_t>(ops[rank].size() - 1);
}

uint32_t
WorkloadGraph::Group(const std::vector<uint32_t>& members)
{
    for (uint32_t g = 0; g < groups.size(); ++g)
    {
        if (groups[g] == members)
        {
            return g;
        }
    }
    groups.push_back(members);
    return static_cast<uint32_t>(groups.size() - 1);
}

uint32_t
WorkloadGraph::MemberIndex(uint32_t g, uint32_t rank) const
{
    const auto& m = groups[g];
    const auto it = std::find(m.begin(), m.end(), rank);
    return it == m.end() ? UINT32_MAX : static_cast<uint32_t>(it - m.begin());
}

const char*
WorkloadGraph::PhaseName(WorkloadOp::Phase p)
{
    static const char* names[] =
        {"forward", "backward", "optimizer", "tp", "pp", "dp", "ep", "fsdp", "other"};
    return p < WorkloadOp::PHASES ? names[p] : "unknown";
}

std::string
WorkloadGraph::Check() const
{
    if (ranks == 0 || ops.size() != ranks || deps.size() != ranks)
    {
        return "the graph has no ranks";
    }
    for (uint32_t g = 0; g < groups.size(); ++g)
    {
        std::vector<uint32_t> m = groups[g];
        std::sort(m.begin(), m.end());
        if (m.empty() || m.back() >= ranks || std::adjacent_find(m.begin(), m.end()) != m.end())
        {
            return "communicator " + std::to_string(g) + " must list distinct ranks below " +
                   std::to_string(ranks);
        }
    }
    // Per communicator, the sequence of collectives each member runs.
    std::vector<std::vector<std::vector<const WorkloadOp*>>> seq(groups.size());
    for (uint32_t g = 0; g < groups.size(); ++g)
    {
        seq[g].resize(groups[g].size());
    }
    // (src, dst, tag) -> sends minus receives
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, int> p2p;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        for (uint32_t i = 0; i < ops[r].size(); ++i)
        {
            const WorkloadOp& o = ops[r][i];
            const std::string where =
                "rank " + std::to_string(r) + " operation " + std::to_string(i) + ": ";
            if (o.depBegin + o.depCount > deps[r].size())
            {
                return where + "dependencies out of range";
            }
            for (uint32_t k = 0; k < o.depCount; ++k)
            {
                if (deps[r][o.depBegin + k] >= i)
                {
                    return where + "depends on a later operation (" +
                           std::to_string(deps[r][o.depBegin + k]) + ")";
                }
            }
            switch (o.kind)
            {
            case WorkloadOp::COMPUTE:
                if (o.flops < 0 || o.durationNs < 0)
                {
                    return where + "negative compute";
                }
                break;
            case WorkloadOp::COLLECTIVE: {
                if (o.group >= groups.size())
                {
                    return where + "communicator " + std::to_string(o.group) + " does not exist";
                }
                const uint32_t m = MemberIndex(o.group, r);
                if (m == UINT32_MAX)
                {
                    return where + "rank is not in communicator " + std::to_string(o.group);
                }
                if (o.bytes == 0)
                {
                    return where + "a collective of 0 bytes";
                }
                if (o.op == CollectiveSpec::SENDRECV)
                {
                    return where + "collectives are allreduce, reducescatter, allgather, "
                                   "alltoall or broadcast (point-to-point is SEND/RECV)";
                }
                seq[o.group][m].push_back(&o);
                break;
            }
            case WorkloadOp::SEND:
            case WorkloadOp::RECV: {
                if (o.peer >= ranks || o.peer == r)
                {
                    return where + "peer " + std::to_string(o.peer) + " must be another rank";
                }
                if (o.bytes == 0)
                {
                    return where + "a message of 0 bytes";
                }
                const bool send = o.kind == WorkloadOp::SEND;
                auto key =
                    send ? std::make_tuple(r, o.peer, o.tag) : std::make_tuple(o.peer, r, o.tag);
                p2p[key] += send ? 1 : -1;
                break;
            }
            default:
                return where + "unknown kind";
            }
        }
    }
    for (uint32_t g = 0; g < groups.size(); ++g)
    {
        const auto& s = seq[g];
        for (uint32_t m = 1; m < s.size(); ++m)
        {
            if (s[m].size() != s[0].size())
            {
                return "communicator " + std::to_string(g) + ": rank " +
                       std::to_string(groups[g][m]) + " runs " + std::to_string(s[m].size()) +
                       " collectives, rank " + std::to_string(groups[g][0]) + " " +
                       std::to_string(s[0].size());
            }
            for (uint32_t k = 0; k < s[m].size(); ++k)
            {
                if (s[m][k]->op != s[0][k]->op || s[m][k]->bytes != s[0][k]->bytes ||
                    s[m][k]->skew != s[0][k]->skew || s[m][k]->hot != s[0][k]->hot)
                {
                    return "communicator " + std::to_string(g) + ": collective " +
                           std::to_string(k) + " differs between ranks " +
                           std::to_string(groups[g][0]) + " and " + std::to_string(groups[g][m]);
                }
            }
        }
    }
    for (const auto& [key, n] : p2p)
    {
        if (n != 0)
        {
            return "send " + std::to_string(std::get<0>(key)) + " -> " +
                   std::to_string(std::get<1>(key)) + " tag " + std::to_string(std::get<2>(key)) +
                   (n > 0 ? " has no matching receive" : " has no matching send");
        }
    }
    return "";
}

double
WorkloadGraph::TheoreticalBytesSent(uint32_t rank, WorkloadOp::Phase phase) const
{
    double b = 0;
    for (const WorkloadOp& o : ops[rank])
    {
        if (o.phase != phase)
        {
            continue;
        }
        if (o.kind == WorkloadOp::SEND)
        {
            b += double(o.bytes);
        }
        else if (o.kind == WorkloadOp::COLLECTIVE)
        {
            const double n = double(groups[o.group].size());
            const double s = double(o.bytes);
            if (o.op == CollectiveSpec::ALLREDUCE)
            {
                b += 2 * (n - 1) / n * s;
            }
            else if (o.op == CollectiveSpec::ALLTOALL && o.skew != 1.0)
            {
                // Every block scaled by its destination's share.
                const uint32_t self = MemberIndex(o.group, rank);
                const double cold = n > 1 ? (n - o.skew) / (n - 1) : 1.0;
                for (uint32_t j = 0; j < n; ++j)
                {
                    if (j != self)
                    {
                        b += s / n * (j == o.hot ? o.skew : cold);
                    }
                }
            }
            else
            {
                b += (n - 1) / n * s;
            }
        }
    }
    return b;
}

double
WorkloadGraph::ComputeFlops(uint32_t rank) const
{
    double f = 0;
    for (const WorkloadOp& o : ops[rank])
    {
        if (o.kind == WorkloadOp::COMPUTE)
        {
            f += o.flops;
        }
    }
    return f;
}

uint64_t
WorkloadGraph::OpCount() const
{
    uint64_t n = 0;
    for (const auto& v : ops)
    {
        n += v.size();
    }
    return n;
}

} // namespace ns3

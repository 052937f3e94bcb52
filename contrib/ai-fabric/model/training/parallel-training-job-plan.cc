// SPDX-License-Identifier: GPL-2.0-only
// ParallelTrainingJob's plan, made once at Setup: communicators (their transport ranks and
// shape), each collective's schedule (the tuner's or the named algorithm and protocol), the
// matching of sends and receives, and every operation's dependents.
#include "parallel-training-job.h"

#include "ns3/abort.h"
#include "ns3/object-factory.h"

#include <map>
#include <sstream>
#include <tuple>

namespace ns3
{

uint32_t
ParallelTrainingJob::ScheduleFor(uint32_t group, const WorkloadOp& o)
{
    const Comm& c = m_comms[group];
    CollectiveSpec spec;
    spec.op = o.op;
    spec.bytes = o.bytes;
    spec.ranks = static_cast<uint32_t>(c.transport.size());
    spec.gpusPerServer = c.localGpusPerServer;
    spec.chunks = m_chunks;
    std::string algorithm = m_algorithm == "auto" ? "ring" : m_algorithm;
    CollectiveProtocol::Kind protocol = CollectiveProtocol::SIMPLE;
    CollectiveProtocol::ByName(m_protocol, protocol);
    auto channelsOf = [this, &c](const std::string& a) {
        return m_channels ? m_channels : CollectiveTuner::DefaultChannels(a, c.localGpusPerServer);
    };
    if (!CollectiveAlgorithm::IsBuiltByBase(o.op) && m_algorithm == "auto" && m_tuner)
    {
        std::vector<std::string> candidates;
        for (const std::string& a : CollectiveTuner::Candidates())
        {
            // NVLS in one server's NVSwitch; NVLS-Tree and CollNet need the whole fabric.
            if ((a == "nvls" && !(c.oneServer && m_nvls && m_nvlink)) || a == "nvls-tree" ||
                a == "collnet")
            {
                continue;
            }
            candidates.push_back(a);
        }
        std::vector<CollectiveProtocol::Kind> protocols = CollectiveTuner::Protocols();
        if (m_protocol != "auto")
        {
            protocols = {protocol};
        }
        const CollectiveTuner::Choice ch = m_tuner->Choose(spec, candidates, protocols, channelsOf);
        algorithm = ch.algorithm;
        protocol = ch.protocol;
    }
    spec.protocol = protocol;
    spec.channels = channelsOf(algorithm);
    std::ostringstream key;
    key << spec.op << ' ' << spec.bytes << ' ' << spec.ranks << ' ' << spec.gpusPerServer << ' '
        << algorithm << ' ' << int(protocol) << ' ' << spec.channels << ' ' << o.hot << ' '
        << o.skew;
    for (uint32_t s = 0; s < m_schedules.size(); ++s)
    {
        if (m_schedules[s].key == key.str())
        {
            return s;
        }
    }
    ObjectFactory f;
    f.SetTypeId(CollectiveAlgorithm::TypeIdName(algorithm));
    Ptr<CollectiveAlgorithm> alg = f.Create<CollectiveAlgorithm>();
    std::string why = alg->Check(spec);
    if (!why.empty())
    {
        // The named algorithm cannot run this communicator: NCCL falls back to its ring.
        f.SetTypeId("ns3::RingCollective");
        alg = f.Create<CollectiveAlgorithm>();
        spec.channels = channelsOf("ring");
        if (!CollectiveProtocol::Supports("ring", spec.protocol))
        {
            spec.protocol = CollectiveProtocol::SIMPLE;
        }
        why = alg->Check(spec);
        NS_ABORT_MSG_UNLESS(why.empty(), "ParallelTrainingJob: " << why);
        algorithm = "ring";
    }
    CollectiveSchedule s = alg->Build(spec);
    if (o.op == CollectiveSpec::ALLTOALL && o.skew != 1.0)
    {
        // All-to-All-v: every rank's block for the hot member is skew × the mean block, the
        // others' (n − skew)/(n − 1) ×, so that every rank sends as many bytes in all.
        const uint32_t n = spec.ranks;
        const double cold = (double(n) - o.skew) / double(n - 1);
        CollectiveSchedule v;
        v.costs = s.costs;
        for (uint32_t round = 1; round < n; ++round)
        {
            for (uint32_t i = 0; i < n; ++i)
            {
                const uint32_t j = (i + round) % n;
                const double share = j == o.hot ? o.skew : cold;
                const uint64_t block =
                    std::max<uint64_t>(1, uint64_t(double(spec.bytes) / n * share + 0.5));
                v.Add(i, j, block, nullptr, 0);
            }
        }
        s = std::move(v);
    }
    if (!m_protocolLatency)
    {
        s.costs.ClearLatencies();
    }
    Schedule x;
    x.schedule = std::make_shared<const CollectiveSchedule>(std::move(s));
    x.localGpusPerServer = c.localGpusPerServer;
    x.key = key.str();
    // All-to-All, Broadcast and SendRecv have one schedule whatever the algorithm (the names the
    // runner's summary gives them on a collective workload).
    x.choice = CollectiveChoice{o.op == CollectiveSpec::ALLTOALL    ? "pairwise"
                                : o.op == CollectiveSpec::BROADCAST ? "chain"
                                : o.op == CollectiveSpec::SENDRECV  ? "p2p"
                                                                    : algorithm,
                                CollectiveProtocol::Name(spec.protocol),
                                spec.channels};
    std::ostringstream label;
    label << WorkloadGraph::PhaseName(o.phase) << ' ' << CollectiveSpec::OpName(o.op) << ' '
          << spec.bytes << " B over " << spec.ranks << " GPUs (" << spec.gpusPerServer
          << " per server): " << x.choice.algorithm << '/' << x.choice.protocol << ", "
          << spec.channels << " channels";
    if (o.op == CollectiveSpec::ALLTOALL && o.skew != 1.0)
    {
        label << ", skew " << o.skew << " to member " << o.hot;
    }
    x.label = label.str();
    m_schedules.push_back(std::move(x));
    return static_cast<uint32_t>(m_schedules.size() - 1);
}

void
ParallelTrainingJob::Prepare()
{
    const WorkloadGraph& g = *m_graph;
    const uint32_t n = g.ranks;
    // --- communicators: transport ranks and shape
    m_comms.assign(g.groups.size(), Comm());
    for (uint32_t k = 0; k < g.groups.size(); ++k)
    {
        Comm& c = m_comms[k];
        for (uint32_t r : g.groups[k])
        {
            c.transport.push_back(m_transport[r]);
        }
        const uint32_t size = static_cast<uint32_t>(c.transport.size());
        // Members per server, if the communicator is server-major (each server's members
        // consecutive, as many on each): what hierarchical algorithms and NVLS need.
        uint32_t local = 0;
        while (local < size &&
               c.transport[local] / m_gpusPerServer == c.transport[0] / m_gpusPerServer)
        {
            ++local;
        }
        auto server = [&](uint32_t i) { return c.transport[i] / m_gpusPerServer; };
        bool regular = size % local == 0;
        for (uint32_t i = 1; regular && i < size; ++i)
        {
            regular = i % local == 0 ? server(i) != server(i - 1) : server(i) == server(i - 1);
        }
        c.localGpusPerServer = regular ? local : 1;
        bool consecutive = local == size;
        for (uint32_t i = 1; consecutive && i < size; ++i)
        {
            consecutive = c.transport[i] == c.transport[i - 1] + 1;
        }
        c.oneServer = consecutive;
        c.channelBase = 64 * (k % 1000);
    }
    // --- per operation: instance numbers, schedules, messages, implicit dependencies
    m_opSchedule.assign(n, {});
    m_opAux.assign(n, {});
    m_implicit.assign(n, {});
    std::vector<std::vector<uint32_t>> perMemberCount(g.groups.size());
    for (uint32_t k = 0; k < g.groups.size(); ++k)
    {
        perMemberCount[k].assign(g.groups[k].size(), 0);
    }
    // (src, dst, tag) -> the sends (receives) in their rank's order: the k-th send of a key
    // matches its k-th receive, as MPI and ASTRA-sim match messages (tags are reused, e.g. a
    // ring's every step between one pair with tag 0).
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<uint32_t>> sends;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<uint32_t>> recvs;
    std::map<std::tuple<uint32_t, uint32_t, uint8_t>, uint32_t> schedOf;
    for (uint32_t r = 0; r < n; ++r)
    {
        const auto& ops = g.ops[r];
        m_opSchedule[r].assign(ops.size(), UINT32_MAX);
        m_opAux[r].assign(ops.size(), UINT32_MAX);
        m_implicit[r].assign(ops.size(), UINT32_MAX);
        uint32_t prevCompute = UINT32_MAX;
        std::map<std::pair<uint32_t, uint8_t>, uint32_t> prevColl;
        for (uint32_t i = 0; i < ops.size(); ++i)
        {
            const WorkloadOp& o = ops[i];
            if (o.kind == WorkloadOp::COMPUTE)
            {
                m_implicit[r][i] = prevCompute;
                prevCompute = i;
            }
            else if (o.kind == WorkloadOp::COLLECTIVE)
            {
                const uint32_t member = g.MemberIndex(o.group, r);
                m_opAux[r][i] = perMemberCount[o.group][member]++;
                const auto key = std::make_pair(o.group, uint8_t(o.op));
                const auto it = prevColl.find(key);
                m_implicit[r][i] = it == prevColl.end() ? UINT32_MAX : it->second;
                prevColl[key] = i;
            }
            else if (o.kind == WorkloadOp::SEND)
            {
                sends[{r, o.peer, o.tag}].push_back(i);
            }
            else
            {
                recvs[{o.peer, r, o.tag}].push_back(i);
            }
        }
    }
    for (uint32_t k = 0; k < g.groups.size(); ++k)
    {
        Comm& c = m_comms[k];
        const uint32_t size = static_cast<uint32_t>(g.groups[k].size());
        c.count = perMemberCount[k].empty() ? 0 : perMemberCount[k][0];
        c.ops.assign(uint64_t(c.count) * size, UINT32_MAX);
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t i = 0; i < g.ops[r].size(); ++i)
        {
            const WorkloadOp& o = g.ops[r][i];
            if (o.kind != WorkloadOp::COLLECTIVE)
            {
                continue;
            }
            Comm& c = m_comms[o.group];
            const uint32_t member = g.MemberIndex(o.group, r);
            c.ops[uint64_t(m_opAux[r][i]) * c.transport.size() + member] = i;
            if (member == 0)
            {
                m_opSchedule[r][i] = ScheduleFor(o.group, o);
            }
        }
    }
    // Every member runs the schedule member 0's operation chose.
    for (uint32_t k = 0; k < g.groups.size(); ++k)
    {
        Comm& c = m_comms[k];
        const uint32_t size = static_cast<uint32_t>(c.transport.size());
        for (uint32_t q = 0; q < c.count; ++q)
        {
            const uint32_t s = m_opSchedule[g.groups[k][0]][c.ops[uint64_t(q) * size]];
            for (uint32_t j = 1; j < size; ++j)
            {
                m_opSchedule[g.groups[k][j]][c.ops[uint64_t(q) * size + j]] = s;
            }
        }
    }
    m_p2p.clear();
    for (const auto& [key, sendOps] : sends)
    {
        const uint32_t src = std::get<0>(key);
        const uint32_t dst = std::get<1>(key);
        const std::vector<uint32_t>& recvOps = recvs.at(key); // Check: as many as sends
        for (size_t k = 0; k < sendOps.size(); ++k)
        {
            m_opAux[src][sendOps[k]] = static_cast<uint32_t>(m_p2p.size());
            m_opAux[dst][recvOps[k]] = static_cast<uint32_t>(m_p2p.size());
            m_p2p.push_back(P2p{src, sendOps[k], dst, recvOps[k]});
        }
    }
    // --- dependents (explicit and implicit), CSR per rank
    m_depOffset.assign(n, {});
    m_dependents.assign(n, {});
    for (uint32_t r = 0; r < n; ++r)
    {
        const auto& ops = g.ops[r];
        std::vector<uint32_t> count(ops.size() + 1, 0);
        auto each = [&](auto&& f) {
            for (uint32_t i = 0; i < ops.size(); ++i)
            {
                for (uint32_t k = 0; k < ops[i].depCount; ++k)
                {
                    f(g.deps[r][ops[i].depBegin + k], i);
                }
                if (m_implicit[r][i] != UINT32_MAX)
                {
                    f(m_implicit[r][i], i);
                }
            }
        };
        each([&](uint32_t from, uint32_t) { ++count[from + 1]; });
        for (uint32_t i = 0; i < ops.size(); ++i)
        {
            count[i + 1] += count[i];
        }
        m_depOffset[r] = count;
        m_dependents[r].assign(count.back(), 0);
        std::vector<uint32_t> fill(count.begin(), count.end() - 1);
        each([&](uint32_t from, uint32_t to) { m_dependents[r][fill[from]++] = to; });
    }
    m_state.assign(n, {});
    for (uint32_t r = 0; r < n; ++r)
    {
        m_state[r].assign(g.ops[r].size(), OpState());
    }
    m_prepared = true;
}

std::vector<std::string>
ParallelTrainingJob::GetCollectiveChoices() const
{
    std::vector<std::string> v;
    for (const auto& s : m_schedules)
    {
        v.push_back(s.label);
    }
    return v;
}

std::vector<ParallelTrainingJob::CollectiveChoice>
ParallelTrainingJob::GetCollectiveChoiceParts() const
{
    std::vector<CollectiveChoice> v;
    for (const auto& s : m_schedules)
    {
        v.push_back(s.choice);
    }
    return v;
}

uint64_t
ParallelTrainingJob::GetCollectivesPerStep() const
{
    uint64_t n = 0;
    for (const auto& c : m_comms)
    {
        n += c.count;
    }
    return n;
}

} // namespace ns3

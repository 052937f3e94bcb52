// SPDX-License-Identifier: GPL-2.0-only
// One file over 600 lines: the step's run (launch, completion, collectives' instances, messages)
// and its accounting (phase charges, critical path) read and write the same per-operation
// state on every completion.
#include "parallel-training-job.h"

#include "gpu-training-app.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(ParallelTrainingJob);

namespace
{
/// Point-to-point messages travel on their own connections, apart from every communicator's.
constexpr uint32_t kP2pChannel = 64 * 1024 - 64;
} // namespace

TypeId
ParallelTrainingJob::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ParallelTrainingJob")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<ParallelTrainingJob>()
            .AddAttribute("Steps",
                          "Training steps to run (>= 1).",
                          UintegerValue(3),
                          MakeUintegerAccessor(&ParallelTrainingJob::m_steps),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("PeakTflops",
                          "Peak dense TFLOP/s of a GPU (H100 SXM BF16: 989.4).",
                          DoubleValue(989.4),
                          MakeDoubleAccessor(&ParallelTrainingJob::m_peakTflops),
                          MakeDoubleChecker<double>(1e-3))
            .AddAttribute("ComputeEfficiency",
                          "Fraction of the peak a kernel achieves (an assumption, UNCONFIRMED: "
                          "large BF16 GEMMs and FlashAttention reach 0.5-0.7 on H100).",
                          DoubleValue(0.55),
                          MakeDoubleAccessor(&ParallelTrainingJob::m_efficiency),
                          MakeDoubleChecker<double>(1e-6, 1.0))
            .AddAttribute("Algorithm",
                          "Every collective's algorithm: auto (the tuner's choice per "
                          "communicator shape and size) or ring, tree, nvls, pat, "
                          "halving-doubling, hierarchical.",
                          StringValue("auto"),
                          MakeStringAccessor(&ParallelTrainingJob::m_algorithm),
                          MakeStringChecker())
            .AddAttribute("Protocol",
                          "auto (the tuner's choice), simple, ll128 or ll.",
                          StringValue("auto"),
                          MakeStringAccessor(&ParallelTrainingJob::m_protocol),
                          MakeStringChecker())
            .AddAttribute("Channels",
                          "Channels per collective (0: NCCL's count for the algorithm and the "
                          "communicator's GPUs per server).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&ParallelTrainingJob::m_channels),
                          MakeUintegerChecker<uint32_t>(0, 64))
            .AddAttribute("Chunks",
                          "Pipelining chunks of every collective transfer.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&ParallelTrainingJob::m_chunks),
                          MakeUintegerChecker<uint32_t>(1, 1024))
            .AddAttribute("ProtocolLatency",
                          "Add NCCL's protocol latencies to every collective.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&ParallelTrainingJob::m_protocolLatency),
                          MakeBooleanChecker())
            .AddAttribute("Nvls",
                          "Single-server communicators may run NVLS (the NVSwitch reduces).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&ParallelTrainingJob::m_nvls),
                          MakeBooleanChecker())
            .AddTraceSource("StepDone",
                            "A training step ended (its record).",
                            MakeTraceSourceAccessor(&ParallelTrainingJob::m_stepTrace),
                            "ns3::TrainingJob::StepTracedCallback")
            .AddTraceSource("OpDone",
                            "An operation of a rank finished: rank, index, start, end.",
                            MakeTraceSourceAccessor(&ParallelTrainingJob::m_opTrace),
                            "ns3::ParallelTrainingJob::OpTracedCallback");
    return tid;
}

ParallelTrainingJob::ParallelTrainingJob()
{
    m_listener.job = this;
}

ParallelTrainingJob::~ParallelTrainingJob() = default;

void
ParallelTrainingJob::DoDispose()
{
    m_comms.clear();
    m_schedules.clear();
    m_apps.clear();
    m_lossProbes.Disconnect();
    m_network = nullptr;
    m_nvlink = nullptr;
    m_tuner = nullptr;
    m_gpus = NodeContainer();
    Object::DoDispose();
}

void
ParallelTrainingJob::SetGraph(std::shared_ptr<const WorkloadGraph> g)
{
    m_graph = std::move(g);
    m_prepared = false;
}

std::shared_ptr<const WorkloadGraph>
ParallelTrainingJob::GetGraph() const
{
    return m_graph;
}

void
ParallelTrainingJob::SetTuner(Ptr<CollectiveTuner> t)
{
    m_tuner = t;
}

double
ParallelTrainingJob::GetPeakFlops() const
{
    return m_peakTflops * 1e12;
}

std::string
ParallelTrainingJob::Check() const
{
    if (!m_graph)
    {
        return "no workload graph";
    }
    const std::string e = m_graph->Check();
    if (!e.empty())
    {
        return e;
    }
    // A kernel's time must fit a Time (int64 ns, ~292 years; Seconds() of more overflows into a
    // negative or zero time): at most 1e9 s, so that a few of them still add up.
    const double flopsPerSecond = m_peakTflops * 1e12 * m_efficiency;
    for (uint32_t r = 0; r < m_graph->ranks; ++r)
    {
        for (uint32_t i = 0; i < m_graph->ops[r].size(); ++i)
        {
            const WorkloadOp& o = m_graph->ops[r][i];
            if (o.kind == WorkloadOp::COMPUTE && o.flops > 0 && !(o.flops / flopsPerSecond <= 1e9))
            {
                return "rank " + std::to_string(r) + " operation " + std::to_string(i) +
                       ": a kernel of " + std::to_string(o.flops) +
                       " FLOPs at PeakTflops x ComputeEfficiency takes more than 1e9 s";
            }
        }
    }
    if (!m_transport.empty() && m_transport.size() != m_graph->ranks)
    {
        return "the graph has " + std::to_string(m_graph->ranks) + " ranks, the job " +
               std::to_string(m_transport.size()) + " GPUs";
    }
    if (m_algorithm != "auto" && CollectiveAlgorithm::TypeIdName(m_algorithm).empty())
    {
        return "Algorithm must be auto or a collective algorithm's name (got '" + m_algorithm +
               "')";
    }
    CollectiveProtocol::Kind k;
    if (m_protocol != "auto" && !CollectiveProtocol::ByName(m_protocol, k))
    {
        return "Protocol must be auto, simple, ll128 or ll (got '" + m_protocol + "')";
    }
    return "";
}

void
ParallelTrainingJob::Setup(NodeContainer gpus,
                           const std::vector<uint32_t>& transportRanks,
                           uint32_t gpusPerServer,
                           Ptr<CollectiveTransport> network,
                           Ptr<CollectiveTransport> nvlink)
{
    m_gpus = gpus;
    m_transport = transportRanks;
    m_gpusPerServer = std::max<uint32_t>(1, gpusPerServer);
    m_network = network;
    m_lossProbes.Connect(network);
    m_nvlink = nvlink;
    const std::string err = Check();
    NS_ABORT_MSG_UNLESS(err.empty(), "ParallelTrainingJob: " << err);
    NS_ABORT_MSG_UNLESS(gpus.GetN() == m_graph->ranks,
                        "ParallelTrainingJob: " << gpus.GetN() << " GPUs for " << m_graph->ranks
                                                << " ranks");
    m_apps.assign(gpus.GetN(), nullptr);
    for (uint32_t r = 0; r < gpus.GetN(); ++r)
    {
        for (uint32_t a = 0; a < gpus.Get(r)->GetNApplications() && !m_apps[r]; ++a)
        {
            m_apps[r] = DynamicCast<GpuTrainingApp>(gpus.Get(r)->GetApplication(a));
        }
    }
    Prepare();
}

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

void
ParallelTrainingJob::Start()
{
    NS_ABORT_MSG_UNLESS(m_prepared, "ParallelTrainingJob: call Setup first");
    StartStep(0);
}

bool
ParallelTrainingJob::IsFinished() const
{
    return m_finished;
}

void
ParallelTrainingJob::StartStep(uint32_t k)
{
    const WorkloadGraph& g = *m_graph;
    const uint32_t n = g.ranks;
    m_step = k;
    TrainingStepRecord rec;
    rec.step = k;
    rec.start = Simulator::Now();
    rec.computeEnd.assign(n, rec.start);
    m_records.push_back(rec);
    m_phases.emplace_back(n, RankPhaseTimes());
    m_bytes.emplace_back(n, std::array<uint64_t, WorkloadOp::PHASES>{});
    m_kernel.emplace_back(n, std::array<int64_t, WorkloadOp::PHASES>{});
    m_retx0 = m_network ? m_network->GetRetransmissions() : 0;
    m_timeouts0 = m_network ? m_network->GetTimeouts() : 0;
    m_probes0 = m_lossProbes.GetCount();
    m_arrived.assign(m_p2p.size(), 0);
    m_posted.assign(m_p2p.size(), 0);
    m_opsLeft.assign(n, 0);
    m_rankEnd.assign(n, Simulator::Now());
    m_streamFree.assign(n, Simulator::Now().GetTimeStep());
    m_ranksLeft = n;
    for (auto& c : m_comms)
    {
        c.open.clear();
        c.base = 0;
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        m_opsLeft[r] = static_cast<uint32_t>(g.ops[r].size());
        for (uint32_t i = 0; i < g.ops[r].size(); ++i)
        {
            OpState& s = m_state[r][i];
            s = OpState();
            s.remaining = g.ops[r][i].depCount + (m_implicit[r][i] != UINT32_MAX ? 1 : 0);
        }
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        if (m_opsLeft[r] == 0)
        {
            RankDone(r);
            continue;
        }
        for (uint32_t i = 0; i < g.ops[r].size(); ++i)
        {
            if (m_state[r][i].remaining == 0)
            {
                Launch(r, i);
            }
        }
    }
}

void
ParallelTrainingJob::Charge(uint32_t r, Time gap, uint32_t byRank, uint32_t byOp)
{
    if (gap.IsZero())
    {
        return;
    }
    RankPhaseTimes& p = m_phases.back()[r];
    if (byRank == UINT32_MAX)
    {
        p.barrier += gap;
        return;
    }
    const WorkloadOp& o = m_graph->ops[byRank][byOp];
    if (o.kind == WorkloadOp::SEND || o.kind == WorkloadOp::RECV)
    {
        p.ppBubble += gap;
        return;
    }
    if (o.kind != WorkloadOp::COLLECTIVE)
    {
        p.barrier += gap;
        return;
    }
    switch (o.phase)
    {
    case WorkloadOp::TP:
        p.tpExposed += gap;
        break;
    case WorkloadOp::EP:
        p.epExposed += gap;
        break;
    case WorkloadOp::FSDP:
        p.fsdpExposed += gap;
        break;
    case WorkloadOp::PP:
        p.ppBubble += gap;
        break;
    default:
        p.dpExposed += gap;
        break;
    }
}

void
ParallelTrainingJob::Launch(uint32_t r, uint32_t i)
{
    const WorkloadOp& o = m_graph->ops[r][i];
    OpState& s = m_state[r][i];
    const int64_t now = Simulator::Now().GetTimeStep();
    s.start = now;
    switch (o.kind)
    {
    case WorkloadOp::COMPUTE: {
        Charge(r, TimeStep(now - m_streamFree[r]), s.byRank, s.byOp);
        double scale = 1.0;
        Time extra;
        if (m_apps[r])
        {
            scale = m_apps[r]->GetComputeScale(m_step);
            if (m_implicit[r][i] == UINT32_MAX)
            {
                extra = m_apps[r]->GetExtraDelay(m_step); // the step's first kernel
            }
        }
        const double seconds = o.flops > 0 ? o.flops / (m_peakTflops * 1e12 * m_efficiency)
                                           : double(o.durationNs) * 1e-9;
        const Time d = Seconds(seconds * scale) + extra;
        m_streamFree[r] = now + d.GetTimeStep();
        Simulator::Schedule(d, &ParallelTrainingJob::ComputeDone, this, r, i);
        break;
    }
    case WorkloadOp::COLLECTIVE:
        Join(r, i);
        break;
    case WorkloadOp::SEND: {
        const uint32_t a = m_transport[r];
        const uint32_t b = m_transport[o.peer];
        m_bytes.back()[r][o.phase] += o.bytes;
        if (m_nvlink && a / m_gpusPerServer == b / m_gpusPerServer)
        {
            m_nvlink->Send(a, b, o.bytes, &m_listener, m_opAux[r][i], kP2pChannel);
        }
        else
        {
            m_network->Send(a, b, o.bytes, &m_listener, m_opAux[r][i], kP2pChannel);
        }
        break;
    }
    case WorkloadOp::RECV: {
        const uint32_t x = m_opAux[r][i];
        m_posted[x] = 1;
        if (m_arrived[x])
        {
            Complete(r, i, s.byRank, s.byOp);
        }
        break;
    }
    }
}

void
ParallelTrainingJob::ComputeDone(uint32_t r, uint32_t i)
{
    const OpState& s = m_state[r][i];
    m_kernel.back()[r][m_graph->ops[r][i].phase] += Simulator::Now().GetTimeStep() - s.start;
    Complete(r, i, s.byRank, s.byOp);
}

void
ParallelTrainingJob::Join(uint32_t r, uint32_t i)
{
    const WorkloadOp& o = m_graph->ops[r][i];
    Comm& c = m_comms[o.group];
    const uint32_t k = m_opAux[r][i];
    const uint32_t size = static_cast<uint32_t>(c.transport.size());
    if (size == 1)
    {
        Simulator::ScheduleNow(&ParallelTrainingJob::Complete,
                               this,
                               r,
                               i,
                               m_state[r][i].byRank,
                               m_state[r][i].byOp);
        return;
    }
    NS_ASSERT(k >= c.base);
    while (c.open.size() <= k - c.base)
    {
        c.open.emplace_back();
    }
    Instance& inst = c.open[k - c.base];
    Schedule& sched = m_schedules[m_opSchedule[r][i]];
    if (!inst.exec)
    {
        if (!sched.idle.empty())
        {
            inst.exec = sched.idle.back();
            sched.idle.pop_back();
        }
        else
        {
            inst.exec = CreateObject<CollectiveExecutor>();
            inst.exec->SetNetworkTransport(m_network);
            if (m_nvlink && m_gpusPerServer > 1)
            {
                inst.exec->SetNvlinkTransport(m_nvlink, m_gpusPerServer);
            }
        }
        inst.exec->SetRankMap(&c.transport, sched.localGpusPerServer);
        inst.exec->SetChannelBase(c.channelBase);
        inst.exec->Start(sched.schedule,
                         size,
                         MakeBoundCallback(&ParallelTrainingJob::InstanceDone, this, o.group, k));
    }
    ++inst.joined;
    inst.lastRank = r;
    inst.lastOp = i;
    inst.exec->MarkReady(m_graph->MemberIndex(o.group, r));
}

void
ParallelTrainingJob::InstanceDone(ParallelTrainingJob* job, uint32_t group, uint32_t k)
{
    // Not from inside the executor's arrival: its completions may start other collectives.
    Simulator::ScheduleNow(&ParallelTrainingJob::FinishInstance, job, group, k);
}

void
ParallelTrainingJob::FinishInstance(uint32_t group, uint32_t k)
{
    Comm& c = m_comms[group];
    Instance& inst = c.open[k - c.base];
    const auto& members = m_graph->groups[group];
    const uint32_t size = static_cast<uint32_t>(members.size());
    Ptr<CollectiveExecutor> exec = inst.exec;
    const uint32_t lastRank = inst.lastRank;
    const uint32_t lastOp = inst.lastOp;
    const uint32_t sched = m_opSchedule[members[0]][c.ops[uint64_t(k) * size]];
    for (uint32_t j = 0; j < size; ++j)
    {
        const uint32_t r = members[j];
        const uint32_t i = c.ops[uint64_t(k) * size + j];
        m_bytes.back()[r][m_graph->ops[r][i].phase] += exec->GetBytesSent(j);
    }
    inst.exec = nullptr;
    inst.joined = UINT32_MAX; // finished
    m_schedules[sched].idle.push_back(exec);
    while (!c.open.empty() && c.open.front().joined == UINT32_MAX)
    {
        c.open.pop_front();
        ++c.base;
    }
    for (uint32_t j = 0; j < size; ++j)
    {
        const uint32_t r = members[j];
        const uint32_t i = c.ops[uint64_t(k) * size + j];
        const OpState& s = m_state[r][i];
        // Its end was set by the member that joined last (that member's own cause is what
        // made it join).
        if (r == lastRank && i == lastOp)
        {
            Complete(r, i, s.byRank, s.byOp);
        }
        else
        {
            Complete(r, i, lastRank, lastOp);
        }
    }
}

void
ParallelTrainingJob::Listener::MessageArrived(uint64_t token)
{
    job->MessageArrived(token);
}

void
ParallelTrainingJob::MessageArrived(uint64_t token)
{
    const P2p& p = m_p2p[token];
    m_arrived[token] = 1;
    Complete(p.src, p.sendOp, m_state[p.src][p.sendOp].byRank, m_state[p.src][p.sendOp].byOp);
    if (m_posted[token])
    {
        Complete(p.dst, p.recvOp, p.src, p.sendOp);
    }
}

void
ParallelTrainingJob::Complete(uint32_t r, uint32_t i, uint32_t byRank, uint32_t byOp)
{
    OpState& s = m_state[r][i];
    const int64_t now = Simulator::Now().GetTimeStep();
    s.end = now;
    s.byRank = byRank;
    s.byOp = byOp;
    m_opTrace(r, i, TimeStep(s.start), TimeStep(now));
    for (uint32_t d = m_depOffset[r][i]; d < m_depOffset[r][i + 1]; ++d)
    {
        const uint32_t j = m_dependents[r][d];
        OpState& t = m_state[r][j];
        if (--t.remaining == 0)
        {
            t.byRank = r;
            t.byOp = i;
            Launch(r, j);
        }
    }
    if (--m_opsLeft[r] == 0)
    {
        // The compute stream's last gap: charged to what it waited for.
        Charge(r, TimeStep(now - m_streamFree[r]), r, i);
        m_records.back().computeEnd[r] = TimeStep(m_streamFree[r]);
        RankDone(r);
    }
}

void
ParallelTrainingJob::RankDone(uint32_t r)
{
    m_rankEnd[r] = Simulator::Now();
    if (--m_ranksLeft == 0)
    {
        Simulator::ScheduleNow(&ParallelTrainingJob::EndStep, this);
    }
}

void
ParallelTrainingJob::Blame(TrainingStepRecord& rec)
{
    const WorkloadGraph& g = *m_graph;
    const uint32_t n = g.ranks;
    // The critical path: from the last completion back through what made each finish.
    uint32_t r = UINT32_MAX;
    uint32_t i = 0;
    int64_t latest = -1;
    for (uint32_t x = 0; x < n; ++x)
    {
        for (uint32_t y = 0; y < g.ops[x].size(); ++y)
        {
            if (m_state[x][y].end > latest)
            {
                latest = m_state[x][y].end;
                r = x;
                i = y;
            }
        }
    }
    std::vector<int64_t> onPath(n, 0);
    rec.lastRank = r == UINT32_MAX ? 0 : r;
    bool first = true;
    for (uint64_t guard = 0; r != UINT32_MAX && guard <= g.OpCount(); ++guard)
    {
        const OpState& s = m_state[r][i];
        if (g.ops[r][i].kind == WorkloadOp::COMPUTE)
        {
            onPath[r] += s.end - s.start;
            if (first && s.end > s.start && g.ops[r][i].phase != WorkloadOp::OPTIMIZER)
            {
                rec.lastRank = r; // the rank whose work ended last (before the optimizer)
                first = false;
            }
        }
        const uint32_t nr = s.byRank;
        i = s.byOp;
        r = nr;
    }
    uint32_t w = 0;
    for (uint32_t x = 1; x < n; ++x)
    {
        if (onPath[x] > onPath[w])
        {
            w = x;
        }
    }
    rec.waitedOn = w;
    rec.slowestComputeRank = w;
    // Kernel time per rank against the median rank's.
    std::vector<int64_t> total(n, 0);
    std::vector<int64_t> expert(n, 0);
    for (uint32_t x = 0; x < n; ++x)
    {
        for (uint32_t p = 0; p < WorkloadOp::PHASES; ++p)
        {
            total[x] += m_kernel.back()[x][p];
        }
        expert[x] = m_kernel.back()[x][WorkloadOp::EP];
    }
    auto median = [](std::vector<int64_t> v) {
        std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
        return v[v.size() / 2];
    };
    const double step = double(rec.StepTime().GetTimeStep());
    const uint64_t retx = m_network ? m_network->GetRetransmissions() - m_retx0 : 0;
    const uint64_t timeouts = m_network ? m_network->GetTimeouts() - m_timeouts0 : 0;
    const uint64_t probes = m_lossProbes.GetCount() - m_probes0;
    rec.retransmissions = retx;
    rec.timeouts = timeouts;
    rec.lossProbes = probes;
    if (double(expert[w] - median(expert)) > 0.05 * step)
    {
        rec.cause = "expert-imbalance";
    }
    else if (double(total[w] - median(total)) > 0.05 * step)
    {
        rec.cause = "straggler";
    }
    else if (timeouts > 0)
    {
        rec.cause = "timeout";
        if (m_network->GetLastTimeoutReceiver() >= 0)
        {
            rec.waitedOn = static_cast<uint32_t>(m_network->GetLastTimeoutReceiver());
        }
    }
    else if (probes > 0)
    {
        rec.cause = "tail-loss-probe";
    }
    else if (retx > 0)
    {
        rec.cause = "retransmission";
    }
    else
    {
        rec.cause = "network";
    }
}

void
ParallelTrainingJob::EndStep()
{
    TrainingStepRecord& rec = m_records.back();
    rec.barrier = Simulator::Now();
    rec.collectiveEnd = m_rankEnd; // marks the step complete
    rec.lastComputeEnd = rec.start;
    for (uint32_t r = 0; r < m_graph->ranks; ++r)
    {
        rec.lastComputeEnd = std::max(rec.lastComputeEnd, rec.computeEnd[r]);
        RankPhaseTimes& p = m_phases.back()[r];
        p.barrier += rec.barrier - rec.collectiveEnd[r];
        for (uint32_t q = 0; q < WorkloadOp::PHASES; ++q)
        {
            p.compute += TimeStep(m_kernel.back()[r][q]);
        }
    }
    Blame(rec);
    m_stepTrace(rec);
    if (m_step + 1 < m_steps)
    {
        StartStep(m_step + 1);
    }
    else
    {
        m_finished = true;
    }
}

const std::vector<TrainingStepRecord>&
ParallelTrainingJob::GetSteps() const
{
    return m_records;
}

const RankPhaseTimes&
ParallelTrainingJob::GetPhaseTimes(uint32_t step, uint32_t rank) const
{
    return m_phases.at(step).at(rank);
}

uint64_t
ParallelTrainingJob::GetBytesSent(uint32_t step, uint32_t rank, WorkloadOp::Phase phase) const
{
    return m_bytes.at(step).at(rank).at(phase);
}

Time
ParallelTrainingJob::GetKernelTime(uint32_t step, uint32_t rank, WorkloadOp::Phase phase) const
{
    return TimeStep(m_kernel.at(step).at(rank).at(phase));
}

double
ParallelTrainingJob::GetMfu() const
{
    double sum = 0;
    uint32_t done = 0;
    for (const auto& r : m_records)
    {
        if (!r.collectiveEnd.empty())
        {
            sum += r.StepTime().GetSeconds();
            ++done;
        }
    }
    if (done == 0 || !m_graph || sum <= 0)
    {
        return 0;
    }
    return m_graph->modelFlops / (double(m_graph->ranks) * GetPeakFlops() * (sum / done));
}

Time
ParallelTrainingJob::GetMeanComputeTime() const
{
    if (!m_graph || m_graph->ranks == 0)
    {
        return Time(0);
    }
    double flops = 0;
    double fixed = 0;
    for (uint32_t r = 0; r < m_graph->ranks; ++r)
    {
        for (const WorkloadOp& o : m_graph->ops[r])
        {
            if (o.kind == WorkloadOp::COMPUTE)
            {
                flops += o.flops;
                fixed += o.flops > 0 ? 0 : double(o.durationNs) * 1e-9;
            }
        }
    }
    return Seconds((flops / (m_peakTflops * 1e12 * m_efficiency) + fixed) / m_graph->ranks);
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

// SPDX-License-Identifier: GPL-2.0-only
// The step's run: launching operations, their completions, collectives' instances and
// messages. Its preparation (communicators, schedules, dependents) is in
// parallel-training-job-plan.cc; its accounting is TrainingStepAccounting.
#include "parallel-training-job.h"

#include "gpu-training-app.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/fabric-rank-mailbox.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstring>

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
    m_accounting.Dispose();
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
    m_nvlink = nvlink;
    const std::string err = Check();
    NS_ABORT_MSG_UNLESS(err.empty(), "ParallelTrainingJob: " << err);
    m_accounting.Setup(m_graph, network);
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
    m_split = network && network->IsPartitioned();
    if (m_split)
    {
        // A message arrives at its receiver's MPI rank, which tells every rank (Delivered). The
        // transport names this listener to the receiving rank by its index, and creates the
        // messages' connections in one order on every rank: here, in the messages' order.
        network->AddListener(&m_listener);
        m_handler = FabricRankMailbox::AddHandler([this](const uint8_t* data, uint32_t size) {
            NS_ABORT_MSG_IF(size != sizeof(uint64_t), "ParallelTrainingJob: bad message");
            uint64_t token;
            std::memcpy(&token, data, sizeof(token));
            Delivered(token);
        });
        for (const P2p& p : m_p2p)
        {
            const uint32_t a = m_transport[p.src];
            const uint32_t b = m_transport[p.dst];
            if (!m_nvlink || a / m_gpusPerServer != b / m_gpusPerServer)
            {
                network->Prepare(a, b, kP2pChannel);
            }
        }
    }
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
    m_accounting.BeginStep(k);
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
ParallelTrainingJob::Launch(uint32_t r, uint32_t i)
{
    const WorkloadOp& o = m_graph->ops[r][i];
    OpState& s = m_state[r][i];
    const int64_t now = Simulator::Now().GetTimeStep();
    s.start = now;
    switch (o.kind)
    {
    case WorkloadOp::COMPUTE: {
        m_accounting.Charge(r, TimeStep(now - m_streamFree[r]), s.byRank, s.byOp);
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
        if (m_split && !m_network->IsLocal(a))
        {
            break; // the sender's MPI rank sends it (and counts its bytes)
        }
        m_accounting.AddBytes(r, o.phase, o.bytes);
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
    m_accounting.AddKernelTime(r,
                               m_graph->ops[r][i].phase,
                               Simulator::Now().GetTimeStep() - s.start);
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
        m_accounting.AddBytes(r, m_graph->ops[r][i].phase, exec->GetBytesSent(j));
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
    if (m_split)
    {
        // Only the receiver's MPI rank sees it arrive: every rank learns it alike, D later.
        FabricRankMailbox::Broadcast(m_handler,
                                     &token,
                                     sizeof(token),
                                     m_network->GetMessageDelay(),
                                     m_gpus.Get(m_p2p[token].dst)->GetId());
        return;
    }
    Delivered(token);
}

void
ParallelTrainingJob::Delivered(uint64_t token)
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
        m_accounting.Charge(r, TimeStep(now - m_streamFree[r]), r, i);
        m_accounting.SetComputeEnd(r, TimeStep(m_streamFree[r]));
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
ParallelTrainingJob::EndStep()
{
    m_stepTrace(m_accounting.EndStep(m_rankEnd, m_state));
    if (m_step + 1 < m_steps)
    {
        StartStep(m_step + 1);
    }
    else
    {
        m_finished = true;
    }
}

void
ParallelTrainingJob::MergeSteps(const std::function<void(TrainingStepRecord&)>& merge,
                                const std::function<void(std::vector<uint64_t>&)>& sum)
{
    m_accounting.Merge(merge, sum);
}

const std::vector<TrainingStepRecord>&
ParallelTrainingJob::GetSteps() const
{
    return m_accounting.GetSteps();
}

const RankPhaseTimes&
ParallelTrainingJob::GetPhaseTimes(uint32_t step, uint32_t rank) const
{
    return m_accounting.GetPhaseTimes(step, rank);
}

uint64_t
ParallelTrainingJob::GetBytesSent(uint32_t step, uint32_t rank, WorkloadOp::Phase phase) const
{
    return m_accounting.GetBytesSent(step, rank, phase);
}

Time
ParallelTrainingJob::GetKernelTime(uint32_t step, uint32_t rank, WorkloadOp::Phase phase) const
{
    return m_accounting.GetKernelTime(step, rank, phase);
}

double
ParallelTrainingJob::GetMfu() const
{
    return m_accounting.GetMfu(GetPeakFlops());
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

} // namespace ns3

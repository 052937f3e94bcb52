// SPDX-License-Identifier: GPL-2.0-only
// TrainingJob: its attributes, set-up, and the step cycle (compute, the buckets' collectives,
// the barrier, its cause, the next step; split across MPI ranks, the barrier learnt late and the
// records merged after). About 610 lines in one file because every part of the cycle reads and
// writes the open step's record and the per-step counters' baselines.
#include "training-job.h"

#include "gpu-training-app.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/fabric-net-device.h"
#include "ns3/node.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/ring-collective.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TrainingJob);

TypeId
TrainingJob::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TrainingJob")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<TrainingJob>()
            .AddAttribute("Steps",
                          "Training steps to run (>= 1).",
                          UintegerValue(3),
                          MakeUintegerAccessor(&TrainingJob::m_steps),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Collective",
                          "allreduce, reducescatter, allgather, alltoall, broadcast (from rank "
                          "0) or sendrecv (rank i to i+1).",
                          StringValue("allreduce"),
                          MakeStringAccessor(&TrainingJob::m_collective),
                          MakeStringChecker())
            .AddAttribute("Algorithm",
                          "The collective algorithm (a CollectiveAlgorithm TypeId).",
                          TypeIdValue(RingCollective::GetTypeId()),
                          MakeTypeIdAccessor(&TrainingJob::m_algorithmTid),
                          MakeTypeIdChecker())
            .AddAttribute("Bytes",
                          "Collective buffer per rank in bytes (gradients per step).",
                          UintegerValue(64 * 1024 * 1024),
                          MakeUintegerAccessor(&TrainingJob::m_bytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("Chunks",
                          "Pipelining: each transfer is split in this many messages.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TrainingJob::m_chunks),
                          MakeUintegerChecker<uint32_t>(1, 1024))
            .AddAttribute("Channels",
                          "Parallel instances of the collective (NCCL channels), each on its own "
                          "connections and so on its own ECMP paths.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TrainingJob::m_channels),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("Protocol",
                          "NCCL's protocol: simple, ll128 or ll (CollectiveProtocol: wire bytes, "
                          "step size and NCCL's per-hop latency).",
                          StringValue("simple"),
                          MakeStringAccessor(&TrainingJob::m_protocol),
                          MakeStringChecker())
            .AddAttribute("ProtocolLatency",
                          "Add the protocol's latencies (NCCL's base and per-hop figures beyond "
                          "the model's physical hop) to every collective; false leaves only "
                          "the physical latencies (the wire bytes stay the protocol's).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TrainingJob::m_protocolLatency),
                          MakeBooleanChecker())
            .AddAttribute("LazySchedules",
                          "Run rings lazily (their transfers produced as ranks progress: memory "
                          "O(ranks x chunks) per ring); false writes every transfer out first "
                          "(the same results, O(ranks^2) memory).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TrainingJob::m_lazySchedules),
                          MakeBooleanChecker())
            .AddAttribute("Buckets",
                          "Gradient buckets overlapped with the backward pass (1 = no overlap: "
                          "the collective starts when compute ends).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TrainingJob::m_buckets),
                          MakeUintegerChecker<uint32_t>(1, 1024))
            .AddTraceSource("StepDone",
                            "A training step ended (its record).",
                            MakeTraceSourceAccessor(&TrainingJob::m_stepTrace),
                            "ns3::TrainingJob::StepTracedCallback");
    return tid;
}

TrainingJob::TrainingJob() = default;
TrainingJob::~TrainingJob() = default;

void
TrainingJob::DoDispose()
{
    m_apps.clear();
    m_exec = nullptr;
    m_execs.clear();
    m_schedules.clear();
    m_lossProbes.Disconnect();
    m_network = nullptr;
    m_ranks = NodeContainer();
    Object::DoDispose();
}

CollectiveSpec
TrainingJob::GetSpec() const
{
    CollectiveSpec spec;
    CollectiveSpec::OpByName(m_collective, spec.op); // Check() refuses other names
    spec.bytes = m_bytes;
    spec.ranks = m_ranks.GetN();
    spec.gpusPerServer = m_gpusPerServer;
    spec.chunks = m_chunks;
    spec.channels = m_channels;
    CollectiveProtocol::ByName(m_protocol, spec.protocol); // Check() refuses other names
    spec.inNetwork = m_inNetwork;
    return spec;
}

void
TrainingJob::SetInNetworkTree(std::shared_ptr<const InNetworkTree> tree)
{
    m_inNetwork = std::move(tree);
}

std::string
TrainingJob::Check() const
{
    CollectiveSpec::Op op;
    if (!CollectiveSpec::OpByName(m_collective, op))
    {
        return "Collective must be allreduce, reducescatter, allgather, alltoall, broadcast or "
               "sendrecv (got '" +
               m_collective + "')";
    }
    CollectiveProtocol::Kind protocol;
    if (!CollectiveProtocol::ByName(m_protocol, protocol))
    {
        return "Protocol must be simple, ll128 or ll (got '" + m_protocol + "')";
    }
    ObjectFactory f;
    f.SetTypeId(m_algorithmTid);
    Ptr<CollectiveAlgorithm> alg = f.Create<CollectiveAlgorithm>();
    return alg->Check(GetSpec());
}

void
TrainingJob::Setup(NodeContainer ranks,
                   uint32_t gpusPerServer,
                   Ptr<CollectiveTransport> network,
                   Ptr<CollectiveTransport> nvlink)
{
    m_ranks = ranks;
    m_gpusPerServer = gpusPerServer ? gpusPerServer : 1;
    NS_ABORT_MSG_IF(!m_transportRanks.empty() && m_transportRanks.size() != ranks.GetN(),
                    "TrainingJob: " << m_transportRanks.size() << " transport ranks for "
                                    << ranks.GetN() << " ranks");
    m_apps.clear();
    for (uint32_t r = 0; r < ranks.GetN(); ++r)
    {
        Ptr<GpuTrainingApp> app;
        for (uint32_t a = 0; a < ranks.Get(r)->GetNApplications() && !app; ++a)
        {
            app = DynamicCast<GpuTrainingApp>(ranks.Get(r)->GetApplication(a));
        }
        NS_ABORT_MSG_IF(!app, "TrainingJob: rank " << r << " has no GpuTrainingApp");
        app->SetAttribute("Rank", UintegerValue(r));
        app->SetStopCallback(MakeCallback(&TrainingJob::RankStopped, this));
        m_apps.push_back(app);
        for (uint32_t d = 0; d < ranks.Get(r)->GetNDevices(); ++d)
        {
            Ptr<FabricNetDevice> dev = DynamicCast<FabricNetDevice>(ranks.Get(r)->GetDevice(d));
            if (dev)
            {
                m_rankOfAddress[dev->GetIpv4Address().Get()] = r;
            }
        }
    }
    m_network = network;
    m_split = network && network->IsPartitioned();
    m_lossProbes.Connect(network);
    const std::string err = Check();
    NS_ABORT_MSG_UNLESS(err.empty(), "TrainingJob: " << err);
    ObjectFactory f;
    f.SetTypeId(m_algorithmTid);
    Ptr<CollectiveAlgorithm> alg = f.Create<CollectiveAlgorithm>();
    m_execs.clear();
    m_schedules.clear();
    for (uint32_t b = 0; b < m_buckets; ++b)
    {
        Ptr<CollectiveExecutor> e = CreateObject<CollectiveExecutor>();
        e->SetNetworkTransport(network);
        if (nvlink && m_gpusPerServer > 1)
        {
            e->SetNvlinkTransport(nvlink, m_gpusPerServer);
        }
        if (!m_transportRanks.empty())
        {
            e->SetRankMap(&m_transportRanks, m_gpusPerServer);
        }
        CollectiveSpec spec = GetSpec();
        spec.bytes = m_bytes / m_buckets + (b < m_bytes % m_buckets ? 1 : 0);
        CollectiveSchedule schedule = alg->Build(spec);
        if (!m_protocolLatency)
        {
            schedule.costs.ClearLatencies();
        }
        if (!m_lazySchedules)
        {
            schedule = schedule.Materialized();
        }
        m_schedules.push_back(std::make_shared<const CollectiveSchedule>(std::move(schedule)));
        m_execs.push_back(e);
    }
    m_exec = m_execs.front();
}

void
TrainingJob::SetTransportRanks(std::vector<uint32_t> ranks)
{
    m_transportRanks = std::move(ranks);
}

int32_t
TrainingJob::JobRank(int32_t transportRank) const
{
    if (m_transportRanks.empty() || transportRank < 0)
    {
        return transportRank;
    }
    const auto it =
        std::find(m_transportRanks.begin(), m_transportRanks.end(), uint32_t(transportRank));
    return it == m_transportRanks.end() ? -1 : int32_t(it - m_transportRanks.begin());
}

void
TrainingJob::Start()
{
    NS_ABORT_MSG_IF(!m_exec, "TrainingJob: call Setup first");
    StartStep(0, Time(0));
}

bool
TrainingJob::IsFinished() const
{
    return m_finished;
}

bool
TrainingJob::WasStopped() const
{
    return m_stopped;
}

uint32_t
TrainingJob::GetStoppedRank() const
{
    return m_stoppedRank;
}

void
TrainingJob::RankStopped(uint32_t rank)
{
    if (m_finished)
    {
        return;
    }
    m_finished = true;
    m_stopped = true;
    m_stoppedRank = rank;
    if (m_stepOpen)
    {
        m_records.pop_back(); // the step in progress never reaches its barrier
        m_stepOpen = false;
    }
    for (auto& app : m_apps)
    {
        app->CancelCompute();
    }
}

void
TrainingJob::CountNetwork(uint64_t& retx, uint64_t& timeouts) const
{
    retx = m_network ? m_network->GetRetransmissions() : 0;
    timeouts = m_network ? m_network->GetTimeouts() : 0;
}

int32_t
TrainingJob::TimedOutReceiver(uint32_t& nicIndex) const
{
    size_t i = 0;
    for (uint32_t r = 0; r < m_ranks.GetN(); ++r)
    {
        Ptr<RdmaNic> nic = m_ranks.Get(r)->GetObject<RdmaNic>();
        if (!nic)
        {
            continue;
        }
        for (uint32_t q = 1; q <= nic->GetNQueuePairs(); ++q, ++i)
        {
            Ptr<RdmaQueuePair> qp = nic->GetQueuePair(q);
            const uint64_t before = i < m_qpTimeouts0.size() ? m_qpTimeouts0[i] : 0;
            if (qp->GetStats().timeouts > before)
            {
                auto it = m_rankOfAddress.find(qp->GetRemoteAddress().Get());
                if (it != m_rankOfAddress.end())
                {
                    nicIndex = r;
                    return static_cast<int32_t>(it->second);
                }
            }
        }
    }
    return -1;
}

void
TrainingJob::StartStep(uint32_t k, Time since)
{
    if (m_finished)
    {
        return;
    }
    m_stepOpen = true;
    TrainingStepRecord rec;
    rec.step = k;
    rec.start = Simulator::Now() - since;
    rec.computeEnd.assign(m_ranks.GetN(), Time(0));
    m_records.push_back(rec);
    CountNetwork(m_retx0, m_timeouts0);
    m_probes0 = m_lossProbes.GetCount();
    m_qpTimeouts0.clear();
    for (uint32_t r = 0; r < m_ranks.GetN(); ++r)
    {
        Ptr<RdmaNic> nic = m_ranks.Get(r)->GetObject<RdmaNic>();
        for (uint32_t q = 1; nic && q <= nic->GetNQueuePairs(); ++q)
        {
            m_qpTimeouts0.push_back(nic->GetQueuePair(q)->GetStats().timeouts);
        }
    }
    m_bucketsDone = 0;
    for (uint32_t b = 0; b < m_buckets; ++b)
    {
        m_execs[b]->Start(m_schedules[b],
                          m_ranks.GetN(),
                          MakeCallback(&TrainingJob::BucketDone, this));
    }
    for (uint32_t r = 0; r < m_apps.size(); ++r)
    {
        Ptr<GpuTrainingApp> app = m_apps[r];
        // A rank computes from its StartTime on (GpuTrainingApp::StartCompute waits too).
        const Time compute = app->GetComputeTime(k);
        const Time begin = app->GetStartDelay();
        // Earlier buckets' gradients are ready part-way through the backward pass.
        for (uint32_t b = 0; b + 1 < m_buckets; ++b)
        {
            Simulator::Schedule(
                std::max(Time(0), begin + compute * (double(b + 1) / m_buckets) - since),
                &TrainingJob::BucketReady,
                this,
                b,
                r);
        }
        app->StartCompute(k, MakeCallback(&TrainingJob::ComputeDone, this), since);
    }
}

void
TrainingJob::ComputeDone(uint32_t rank)
{
    if (m_finished)
    {
        return;
    }
    m_records.back().computeEnd[rank] = Simulator::Now();
    for (auto& e : m_execs)
    {
        e->MarkReady(rank); // the last bucket, and any not yet released
    }
}

void
TrainingJob::BucketReady(uint32_t bucket, uint32_t rank)
{
    if (m_finished)
    {
        return;
    }
    m_execs[bucket]->MarkReady(rank);
}

void
TrainingJob::BucketDone()
{
    if (++m_bucketsDone == m_buckets)
    {
        CollectiveDone();
    }
}

void
TrainingJob::CollectiveDone()
{
    if (m_finished)
    {
        return; // a rank stopped the job; transfers still in flight drain without a step
    }
    // Only complete once every rank has also finished computing (a rank that receives nothing
    // is done when it is ready).
    m_stepOpen = false;
    TrainingStepRecord& rec = m_records.back();
    const uint32_t n = m_ranks.GetN();
    rec.collectiveEnd.resize(n);
    rec.barrier = Time(0);
    rec.lastComputeEnd = Time(0);
    for (uint32_t r = 0; r < n; ++r)
    {
        rec.collectiveEnd[r] = rec.computeEnd[r];
        for (auto& e : m_execs)
        {
            rec.collectiveEnd[r] = std::max(rec.collectiveEnd[r], e->GetRankEnd(r));
        }
        if (rec.collectiveEnd[r] >= rec.barrier)
        {
            rec.barrier = rec.collectiveEnd[r];
            rec.lastRank = r;
        }
        if (rec.computeEnd[r] >= rec.lastComputeEnd)
        {
            rec.lastComputeEnd = rec.computeEnd[r];
            rec.slowestComputeRank = r;
        }
    }
    if (m_split)
    {
        // This MPI rank has only its own GPUs' ends; the executors' reports have everyone's
        // (the latest, the largest rank on a tie, as above).
        rec.barrier = Time(0);
        rec.lastRank = 0;
        auto latest = [&rec](Time t, uint32_t r) {
            if (t > rec.barrier || (t == rec.barrier && r >= rec.lastRank))
            {
                rec.barrier = t;
                rec.lastRank = r;
            }
        };
        for (auto& e : m_execs)
        {
            latest(e->GetLastEnd(), e->GetLastEndRank());
        }
        for (uint32_t r = 0; r < n; ++r)
        {
            latest(rec.computeEnd[r], r);
        }
    }
    uint64_t retx = 0;
    uint64_t timeouts = 0;
    CountNetwork(retx, timeouts);
    rec.retransmissions = retx - m_retx0;
    rec.timeouts = timeouts - m_timeouts0;
    rec.lossProbes = m_lossProbes.GetCount() - m_probes0;
    if (rec.timeouts > 0)
    {
        rec.timeoutVictim = TimedOutReceiver(rec.timeoutNic);
        if (rec.timeoutVictim < 0 && m_network)
        {
            rec.timeoutVictim = JobRank(m_network->GetLastTimeoutReceiver());
            rec.timeoutAt = m_network->GetLastTimeoutTime().GetTimeStep();
        }
    }
    DecideCause(rec);
    m_stepTrace(rec);
    if (rec.step + 1 < m_steps)
    {
        // All ranks resume together after the barrier (split across MPI ranks, it is learnt a
        // message delay late: the step begins then at the barrier all the same).
        const Time now = Simulator::Now();
        if (rec.barrier < now)
        {
            StartStep(rec.step + 1, now - rec.barrier);
        }
        else
        {
            Simulator::Schedule(rec.barrier - now,
                                &TrainingJob::StartStep,
                                this,
                                rec.step + 1,
                                Time(0));
        }
    }
    else
    {
        m_finished = true;
    }
}

void
TrainingJob::DecideCause(TrainingStepRecord& rec) const
{
    const uint32_t n = static_cast<uint32_t>(rec.computeEnd.size());
    std::vector<Time> sorted = rec.computeEnd;
    std::nth_element(sorted.begin(), sorted.begin() + n / 2, sorted.end());
    const Time spread = rec.lastComputeEnd - sorted[n / 2];
    if (rec.timeouts > 0)
    {
        // Everyone waited on the rank whose data needed a retransmission timeout.
        rec.cause = "timeout";
        const int32_t victim = rec.timeoutVictim;
        rec.waitedOn = victim >= 0 ? static_cast<uint32_t>(victim) : rec.lastRank;
    }
    else if (rec.lossProbes > 0 && spread <= (rec.barrier - rec.start) * 0.05)
    {
        // A kernel-TCP tail loss repaired by a loss probe (2 SRTT + 2 ms, or + 200 ms with one
        // packet out) instead of an RTO.
        rec.cause = "tail-loss-probe";
        const int32_t victim = JobRank(m_lossProbes.GetLastReceiver());
        rec.waitedOn = victim >= 0 ? static_cast<uint32_t>(victim) : rec.lastRank;
    }
    else if (spread > (rec.barrier - rec.start) * 0.05)
    {
        rec.cause = "straggler";
        rec.waitedOn = rec.slowestComputeRank;
    }
    else if (rec.retransmissions > 0)
    {
        rec.cause = "retransmission";
        rec.waitedOn = rec.lastRank;
    }
    else
    {
        rec.cause = "network";
        rec.waitedOn = rec.lastRank;
    }
}

void
TrainingJob::MergeSteps(const std::function<void(TrainingStepRecord&)>& merge)
{
    for (TrainingStepRecord& rec : m_records)
    {
        if (rec.collectiveEnd.empty())
        {
            continue; // never reached its barrier
        }
        merge(rec);
        DecideCause(rec);
    }
}

const std::vector<TrainingStepRecord>&
TrainingJob::GetSteps() const
{
    return m_records;
}

Ptr<CollectiveExecutor>
TrainingJob::GetExecutor() const
{
    return m_exec;
}

std::vector<uint64_t>
TrainingJob::GetBytesSentPerRank() const
{
    std::vector<uint64_t> v(m_ranks.GetN());
    for (uint32_t r = 0; r < v.size(); ++r)
    {
        for (auto& e : m_execs)
        {
            v[r] += e->GetBytesSent(r);
        }
    }
    return v;
}

Time
TrainingJob::GetMeanComputeTime() const
{
    double s = 0;
    for (auto& app : m_apps)
    {
        s += app->GetNominalComputeTime().GetSeconds();
    }
    return Seconds(s / std::max<size_t>(1, m_apps.size()));
}

double
TrainingJob::GetMfuInsideCompute() const
{
    double s = 0;
    for (auto& app : m_apps)
    {
        s += app->GetMfuInsideCompute();
    }
    return s / std::max<size_t>(1, m_apps.size());
}

} // namespace ns3

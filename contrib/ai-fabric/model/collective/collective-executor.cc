// SPDX-License-Identifier: GPL-2.0-only
#include "collective-executor.h"

#include "ns3/abort.h"
#include "ns3/fabric-rank-mailbox.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <tuple>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CollectiveExecutor);

TypeId
CollectiveExecutor::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CollectiveExecutor")
                            .SetParent<Object>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<CollectiveExecutor>();
    return tid;
}

CollectiveExecutor::CollectiveExecutor() = default;
CollectiveExecutor::~CollectiveExecutor() = default;

void
CollectiveExecutor::DoDispose()
{
    m_network = nullptr;
    m_nvlink = nullptr;
    m_nvls = nullptr;
    m_schedule.reset();
    m_nodes.clear();
    m_dependents.clear();
    m_held.clear();
    m_done = Callback<void>();
    Object::DoDispose();
}

void
CollectiveExecutor::SetNetworkTransport(Ptr<CollectiveTransport> t)
{
    m_network = t;
    m_networkCosts = t && !t->ModelsHostSoftware();
    if (t)
    {
        t->AddListener(this);
        if (t->IsPartitioned() && m_handler == UINT32_MAX)
        {
            m_handler = FabricRankMailbox::AddHandler(
                [this](const uint8_t* data, uint32_t size) { Received(data, size); });
        }
    }
}

void
CollectiveExecutor::SetNvlinkTransport(Ptr<CollectiveTransport> t, uint32_t gpusPerServer)
{
    m_nvlink = t;
    m_nvls = DynamicCast<NvlinkTransport>(t);
    m_gpusPerServer = gpusPerServer ? gpusPerServer : 1;
    if (!m_rankMap)
    {
        m_localGpusPerServer = m_gpusPerServer;
    }
}

void
CollectiveExecutor::SetRankMap(const std::vector<uint32_t>* map, uint32_t localGpusPerServer)
{
    m_rankMap = map;
    m_localGpusPerServer = map ? std::max<uint32_t>(1, localGpusPerServer) : m_gpusPerServer;
}

void
CollectiveExecutor::Start(std::shared_ptr<const CollectiveSchedule> s,
                          uint32_t ranks,
                          Callback<void> done)
{
    NS_ABORT_MSG_IF(!m_network, "CollectiveExecutor: no network transport");
    const std::vector<CollectiveTransfer>& tr = s->transfers;
    const uint32_t n = static_cast<uint32_t>(tr.size());
    // The schedule's in-network aggregators follow the GPUs.
    m_gpuRanks = ranks;
    ranks += s->aggregators;
    const bool same = m_schedule == s && m_nodes.size() == n && m_held.size() == ranks;
    m_schedule = s;
    m_costs = s->costs;
    m_noProtocolDelay = m_costs.HasNoLatency();
    m_done = done;
    m_arrived = 0;
    if (!same)
    {
        // Invert the dependency lists (built once per schedule): most transfers have exactly
        // one dependent, kept in the record itself; the others get a range of m_dependents.
        m_nodes.assign(n, Node());
        std::vector<uint32_t> count(n, 0);
        for (uint32_t t = 0; t < n; ++t)
        {
            Node& x = m_nodes[t];
            x.bytes = tr[t].bytes;
            x.src = tr[t].src;
            x.dst = tr[t].dst;
            x.channel = static_cast<uint8_t>(tr[t].channel | (tr[t].follower ? kFollower : 0));
            x.kind = tr[t].kind;
            NS_ABORT_MSG_IF(x.kind != CollectiveTransfer::P2P && !m_nvls,
                            "CollectiveExecutor: an NVLS operation needs an NvlinkTransport");
            x.nicDelta = tr[t].nicDelta;
            for (uint32_t k = 0; k < tr[t].depCount; ++k)
            {
                ++count[s->deps[tr[t].depBegin + k]];
            }
        }
        uint32_t total = 0;
        for (uint32_t t = 0; t < n; ++t)
        {
            if (count[t] > 1)
            {
                m_nodes[t].dependents = total;
                total += count[t];
            }
        }
        m_dependents.assign(total, 0);
        for (uint32_t t = 0; t < n; ++t)
        {
            for (uint32_t k = 0; k < tr[t].depCount; ++k)
            {
                Node& d = m_nodes[s->deps[tr[t].depBegin + k]];
                if (count[s->deps[tr[t].depBegin + k]] == 1)
                {
                    d.dependents = t;
                    d.nDependents = 1;
                }
                else
                {
                    m_dependents[d.dependents + d.nDependents++] = t;
                }
            }
        }
        m_ringDependents.clear();
        for (uint32_t i = 0; i < s->rings.size(); ++i)
        {
            const CollectiveRing& r = s->rings[i];
            for (uint32_t j = 0; j < r.after.size(); ++j)
            {
                if (r.after[j] != UINT32_MAX)
                {
                    m_ringDependents.emplace_back(
                        r.after[j],
                        RingToken::Make(i, 0, j / r.chunks, j % r.chunks, 0));
                }
            }
        }
        std::sort(m_ringDependents.begin(), m_ringDependents.end());
    }
    m_held.assign(ranks, {});
    for (uint32_t t = 0; t < n; ++t)
    {
        // A RING_DONE mark waits for its ring, not for dependencies.
        const bool mark = tr[t].kind == CollectiveTransfer::RING_DONE;
        m_nodes[t].remaining = mark ? 1 : tr[t].depCount;
        if (!mark && tr[t].depCount == 0)
        {
            m_held[tr[t].src].push_back(t);
        }
    }
    m_total = n;
    NS_ABORT_MSG_IF(s->rings.size() > (1u << 18), "CollectiveExecutor: at most 262,144 rings");
    for (uint32_t i = 0; i < s->rings.size(); ++i)
    {
        const CollectiveRing& r = s->rings[i];
        NS_ABORT_MSG_IF(r.Size() >= (1u << 17) || r.steps >= (1u << 17) || r.chunks > 1024,
                        "CollectiveExecutor: ring too large for its tokens");
        m_total += r.Transfers();
        for (uint32_t p = 0; p < r.Size() && r.steps > 0; ++p)
        {
            for (uint32_t c = 0; c < r.chunks; ++c)
            {
                if (r.after.empty() || r.after[p * r.chunks + c] == UINT32_MAX)
                {
                    m_held[r.order[p]].push_back(RingToken::Make(i, 0, p, c, 0));
                }
            }
        }
    }
    m_ready.assign(ranks, 0);
    m_startAt.assign(ranks, Time(0));
    m_rankEnd.assign(ranks, Time(0));
    m_lastSender.assign(ranks, 0);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        m_lastSender[r] = r;
    }
    for (uint32_t r = m_gpuRanks; r < ranks; ++r)
    {
        m_ready[r] = 1; // a switch: no compute to wait for, no start latency
    }
    m_bytesSent.assign(ranks, 0);
    m_networkBytes = 0;
    m_nvlinkBytes = 0;
    m_gpusReady = 0;
    m_split = m_network->IsPartitioned() && m_total > 0;
    if (m_split)
    {
        NS_ABORT_MSG_IF(m_handler == UINT32_MAX,
                        "CollectiveExecutor: partition the network transport before "
                        "SetNetworkTransport");
        // Again for the same schedule on other ranks (a pooled executor of another
        // communicator of the same shape): other GPUs are this MPI rank's, other connections.
        if (!same || m_splitMap != m_rankMap || m_splitChannelBase != m_channelBase)
        {
            PrepareSplit();
            m_splitMap = m_rankMap;
            m_splitChannelBase = m_channelBase;
        }
        m_reportsLeft = FabricRankMailbox::GetNRanks();
        m_reported = false;
        m_lastEnd = Time(0);
        m_lastEndRank = 0;
        if (m_localTotal == 0)
        {
            Report(); // nothing arrives at this rank's GPUs
        }
    }
    if (m_total == 0 && m_gpuRanks == 0)
    {
        Simulator::ScheduleNow(&CollectiveExecutor::Arrived, this, uint64_t(UINT32_MAX));
    }
}

void
CollectiveExecutor::Satisfy(uint64_t d)
{
    if (!(d & RingToken::kRing))
    {
        Node& y = m_nodes[d];
        if (y.remaining == ISSUED || --y.remaining != 0)
        {
            return;
        }
    }
    Release(d);
}

void
CollectiveExecutor::MarkReady(uint32_t r)
{
    if (m_ready[r])
    {
        return;
    }
    m_ready[r] = 1;
    if (r < m_gpuRanks && ++m_gpusReady == m_gpuRanks && m_total == 0)
    {
        // Nothing to send (one rank): done when every rank has joined, not at Start (a
        // one-GPU step ended before its compute: 0 ms).
        Simulator::ScheduleNow(&CollectiveExecutor::Arrived, this, uint64_t(UINT32_MAX));
    }
    m_startAt[r] = Simulator::Now() + m_costs.start;
    if (m_rankEnd[r] < Simulator::Now())
    {
        m_rankEnd[r] = Simulator::Now();
    }
    // In schedule order, whatever order their dependencies arrived in: a lazy ring's transfers
    // stand where its RING_DONE marks are (before that DAG index), or after the whole DAG.
    std::vector<uint64_t> held;
    held.swap(m_held[r]);
    auto position = [this](uint64_t t) {
        if (!(t & RingToken::kRing))
        {
            return std::make_tuple(static_cast<uint32_t>(t), 1, t);
        }
        return std::make_tuple(m_schedule->rings[RingToken::Ring(t)].done, 0, t);
    };
    std::sort(held.begin(), held.end(), [&position](uint64_t a, uint64_t b) {
        return position(a) < position(b);
    });
    for (uint64_t t : held)
    {
        Release(t);
    }
}

uint32_t
CollectiveExecutor::Source(uint64_t token) const
{
    if (!(token & RingToken::kRing))
    {
        return m_nodes[token].src;
    }
    const CollectiveRing& r = m_schedule->rings[RingToken::Ring(token)];
    const uint32_t p = RingToken::Position(token);
    return RingToken::Hop(token) ? r.nic[p] : r.order[p];
}

CollectiveExecutor::Send
CollectiveExecutor::Describe(uint64_t token) const
{
    if (!(token & RingToken::kRing))
    {
        const Node& x = m_nodes[token];
        return Send{x.src,
                    x.dst,
                    x.src + x.nicDelta,
                    x.bytes,
                    static_cast<uint32_t>(x.channel & ~kFollower)};
    }
    const CollectiveRing& r = m_schedule->rings[RingToken::Ring(token)];
    const uint32_t k = RingToken::Step(token);
    const uint32_t p = RingToken::Position(token);
    const uint32_t next = p + 1 == r.Size() ? 0 : p + 1;
    Send x{r.order[p],
           r.order[next],
           r.order[p],
           r.Bytes(k, p, RingToken::Chunk(token)),
           r.channel};
    if (r.HasPxnHop(p))
    {
        // Hop 0: NVLink to the GPU beside the NIC; hop 1: out of that NIC.
        if (RingToken::Hop(token))
        {
            x.src = r.nic[p];
            x.nic = r.nic[p];
        }
        else
        {
            x.dst = r.nic[p];
        }
    }
    else if (r.nic[p] != UINT32_MAX)
    {
        x.nic = r.nic[p];
    }
    return x;
}

void
CollectiveExecutor::Release(uint64_t t)
{
    const uint32_t src = Source(t);
    if (m_split && !LocalRank(src))
    {
        return; // another MPI rank's GPU sends it
    }
    if (!m_ready[src])
    {
        m_held[src].push_back(t);
        return;
    }
    if (!(t & RingToken::kRing) && m_nodes[t].kind == CollectiveTransfer::NVLS_REDUCE)
    {
        // It reads every GPU of the server: held by the first one not ready yet.
        const uint32_t first = src / m_localGpusPerServer * m_localGpusPerServer;
        for (uint32_t g = first; g < first + m_localGpusPerServer && g < m_ready.size(); ++g)
        {
            if (!m_ready[g])
            {
                m_held[g].push_back(t);
                return;
            }
        }
    }
    Issue(t);
}

void
CollectiveExecutor::Issue(uint64_t t)
{
    const bool dag = !(t & RingToken::kRing);
    if (dag)
    {
        m_nodes[t].remaining = ISSUED;
    }
    const Send x = Describe(t);
    if (m_noProtocolDelay)
    {
        Hand(t, x);
        return;
    }
    // The protocol's latency for the link, and the rank's start latency.
    Time delay;
    // A later chunk of a pipeline: its protocol latency overlaps the first chunk's. An NVLS
    // operation: NCCL charges NVLS's latency once, at the start.
    // An aggregator is switch hardware: no GPU or proxy software on its sends.
    if (!dag || (!(m_nodes[t].channel & kFollower) && m_nodes[t].kind == CollectiveTransfer::P2P &&
                 x.src < m_gpuRanks))
    {
        delay = SameServer(x.src, x.dst) ? m_costs.nvlinkHop
                                         : (m_networkCosts ? m_costs.networkHop : Time(0));
    }
    const Time now = Simulator::Now();
    const Time at = std::max(now + delay, m_startAt[x.src]);
    if (at > now)
    {
        Simulator::Schedule(at - now, &CollectiveExecutor::Transmit, this, t);
    }
    else
    {
        Hand(t, x);
    }
}

void
CollectiveExecutor::Transmit(uint64_t t)
{
    Hand(t, Describe(t));
}

void
CollectiveExecutor::Hand(uint64_t t, const Send& x)
{
    m_bytesSent[x.src] += x.bytes;
    const uint64_t wire = CollectiveProtocol::WireBytes(m_costs, x.bytes);
    if (!(t & RingToken::kRing) && m_nodes[t].kind != CollectiveTransfer::P2P)
    {
        const uint32_t first = x.src / m_localGpusPerServer * m_localGpusPerServer;
        const uint32_t count =
            std::min<uint32_t>(m_localGpusPerServer, static_cast<uint32_t>(m_ready.size()) - first);
        m_nvlinkBytes += x.bytes;
        // A mapped group's server is consecutive GPUs (ParallelTrainingJob checks it).
        m_nvls->SendNvls(m_nodes[t].kind, Global(x.src), Global(first), count, wire, this, t);
        return;
    }
    if (SameServer(x.src, x.dst))
    {
        m_nvlinkBytes += x.bytes;
        m_nvlink->Send(Global(x.src), Global(x.dst), wire, this, t, x.channel);
    }
    else
    {
        m_networkBytes += x.bytes;
        m_network->Send(Global(x.nic), Global(x.dst), wire, this, t, x.channel + m_channelBase);
    }
}

void
CollectiveExecutor::MessageArrived(uint64_t token)
{
    Arrived(token);
}

void
CollectiveExecutor::ArrivedRing(uint64_t t)
{
    const Send x = Describe(t);
    m_rankEnd[x.dst] = Simulator::Now();
    m_lastSender[x.dst] = x.src;
    ++m_arrived;
    const uint32_t ring = RingToken::Ring(t);
    const CollectiveRing& r = m_schedule->rings[ring];
    const uint32_t k = RingToken::Step(t);
    const uint32_t p = RingToken::Position(t);
    const uint32_t c = RingToken::Chunk(t);
    if (r.HasPxnHop(p) && RingToken::Hop(t) == 0)
    {
        Release(RingToken::Make(ring, k, p, c, 1));
    }
    else if (k + 1 < r.steps)
    {
        Release(RingToken::Make(ring, k + 1, p + 1 == r.Size() ? 0 : p + 1, c, 0));
    }
    else if (r.done != UINT32_MAX)
    {
        // The ring's last arrival of chunk c at the next position: its RING_DONE mark.
        m_arrivalNode = x.dst;
        Arrived(r.done + (p + 1 == r.Size() ? 0 : p + 1) * r.chunks + c);
    }
}

void
CollectiveExecutor::ReleaseDependents(uint32_t t)
{
    const Node& x = m_nodes[t];
    const uint32_t* dep = x.nDependents == 1 ? &x.dependents : m_dependents.data() + x.dependents;
    uint32_t i = 0;
    // One dependency of d arrived: released once all have (split: through ReleaseAfter).
    auto releaseDag = [this](uint32_t d) {
        if (m_split)
        {
            ReleaseAfter(d, m_arrivalNode);
            return;
        }
        Satisfy(d);
    };
    if (!m_ringDependents.empty())
    {
        auto it = std::lower_bound(m_ringDependents.begin(),
                                   m_ringDependents.end(),
                                   std::make_pair(t, uint64_t(0)));
        for (; it != m_ringDependents.end() && it->first == t; ++it)
        {
            // Written out, the ring's transfers stand where its marks are.
            const uint32_t at = m_schedule->rings[RingToken::Ring(it->second)].done;
            while (i < x.nDependents && dep[i] < at)
            {
                releaseDag(dep[i++]);
            }
            if (m_split)
            {
                ReleaseAfter(it->second, m_arrivalNode);
            }
            else
            {
                Satisfy(it->second);
            }
        }
    }
    while (i < x.nDependents)
    {
        releaseDag(dep[i++]);
    }
}

void
CollectiveExecutor::Arrived(uint64_t token)
{
    if (token & RingToken::kRing)
    {
        ArrivedRing(token);
    }
    else if (token != UINT32_MAX)
    {
        const uint32_t t = static_cast<uint32_t>(token);
        const Node& x = m_nodes[t];
        if (x.kind != CollectiveTransfer::RING_DONE) // the ring's own arrival recorded it
        {
            m_rankEnd[x.dst] = Simulator::Now();
            m_lastSender[x.dst] = x.src;
            m_arrivalNode = x.dst;
        }
        if (x.kind == CollectiveTransfer::NVLS_MULTICAST)
        {
            // Written to every GPU of the server.
            const uint32_t first = x.src / m_localGpusPerServer * m_localGpusPerServer;
            for (uint32_t g = first; g < first + m_localGpusPerServer && g < m_rankEnd.size(); ++g)
            {
                m_rankEnd[g] = Simulator::Now();
                m_lastSender[g] = x.src;
            }
        }
        ++m_arrived;
        ReleaseDependents(t);
    }
    if (m_split)
    {
        // Only this MPI rank's arrivals count here; the others' reports complete it.
        if (!m_reported && m_arrived == m_localTotal)
        {
            Report();
        }
        return;
    }
    if (m_arrived == m_total && !m_done.IsNull())
    {
        Callback<void> done = m_done;
        m_done = Callback<void>();
        done();
    }
}

bool
CollectiveExecutor::IsDone() const
{
    return m_split ? m_reportsLeft == 0 : m_arrived == m_total;
}

Time
CollectiveExecutor::GetRankEnd(uint32_t r) const
{
    return m_rankEnd.at(r);
}

uint32_t
CollectiveExecutor::GetLastSender(uint32_t r) const
{
    return m_lastSender.at(r);
}

uint64_t
CollectiveExecutor::GetBytesSent(uint32_t r) const
{
    return m_bytesSent.at(r);
}

uint64_t
CollectiveExecutor::GetNetworkBytes() const
{
    return m_networkBytes;
}

uint64_t
CollectiveExecutor::GetNvlinkBytes() const
{
    return m_nvlinkBytes;
}

} // namespace ns3

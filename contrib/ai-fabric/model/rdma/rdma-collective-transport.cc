// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-collective-transport.h"

#include "ns3/abort.h"
#include "ns3/fabric-rank-mailbox.h"
#include "ns3/node.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstring>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaCollectiveTransport);

TypeId
RdmaCollectiveTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCollectiveTransport")
            .SetParent<CollectiveTransport>()
            .SetGroupName("AiFabric")
            .AddConstructor<RdmaCollectiveTransport>()
            .AddAttribute("Dscp",
                          "DSCP of the collective's queue pairs (0 = the NIC's "
                          "DataDscp).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaCollectiveTransport::m_dscp),
                          MakeUintegerChecker<uint8_t>(0, 63))
            .AddAttribute("QpsPerConnection",
                          "Queue pairs per connection (rank pair and channel) and NIC port, "
                          "messages round robin over them (NCCL_IB_QPS_PER_CONNECTION, "
                          "default 1; each queue pair has its own UDP source port, so ECMP "
                          "hashes them apart: Meta's QP scaling, SIGCOMM'24).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RdmaCollectiveTransport::m_qpsPerConnection),
                          MakeUintegerChecker<uint32_t>(1, 64));
    return tid;
}

RdmaCollectiveTransport::RdmaCollectiveTransport() = default;
RdmaCollectiveTransport::~RdmaCollectiveTransport() = default;

void
RdmaCollectiveTransport::DoDispose()
{
    m_pairs.clear();
    m_index.clear();
    m_splits.clear();
    m_freeSplits.clear();
    m_nodes = NodeContainer();
    CollectiveTransport::DoDispose();
}

void
RdmaCollectiveTransport::SetRanks(NodeContainer nodes)
{
    m_nodes = nodes;
    m_index.assign(nodes.GetN(), {});
}

std::string
RdmaCollectiveTransport::GetName() const
{
    return "rdma";
}

void
RdmaCollectiveTransport::SetPartitioned(Time messageDelay)
{
    NS_ABORT_MSG_IF(!m_pairs.empty(), "RdmaCollectiveTransport: SetPartitioned before any send");
    m_handler = SetPartitionedBase(messageDelay, [this](const uint8_t* data, uint32_t size) {
        Announced(data, size);
    });
}

bool
RdmaCollectiveTransport::CanPartition() const
{
    return true;
}

uint32_t
RdmaCollectiveTransport::GetNodeId(uint32_t rank) const
{
    return m_nodes.Get(rank)->GetId();
}

bool
RdmaCollectiveTransport::IsLocal(uint32_t rank) const
{
    return !m_partitioned || m_nodes.Get(rank)->GetSystemId() == m_mpiRank;
}

void
RdmaCollectiveTransport::Prepare(uint32_t src, uint32_t dst, uint32_t channel)
{
    const uint32_t first = GetPair(src, dst, channel, 0);
    const uint32_t n = m_qpsPerConnection * m_pairs[first].ports;
    for (uint32_t k = 1; k < n; ++k)
    {
        GetPair(src, dst, channel, k);
    }
}

uint32_t
RdmaCollectiveTransport::PreparedPair(uint32_t src,
                                      uint32_t dst,
                                      uint32_t channel,
                                      uint32_t k) const
{
    const uint32_t idx = FindPair(src, dst, channel * kKeysPerChannel + k);
    NS_ABORT_MSG_IF(idx == UINT32_MAX,
                    "RdmaCollectiveTransport: connection " << src << " -> " << dst << " channel "
                                                           << channel
                                                           << " was not prepared (Prepare)");
    return idx;
}

void
RdmaCollectiveTransport::Send(uint32_t src,
                              uint32_t dst,
                              uint64_t bytes,
                              CollectiveTransportListener* listener,
                              uint64_t token,
                              uint32_t channel)
{
    const uint32_t q = m_qpsPerConnection;
    const uint32_t first =
        m_partitioned ? PreparedPair(src, dst, channel, 0) : GetPair(src, dst, channel, 0);
    const uint32_t ports = m_pairs[first].ports;
    uint32_t group = 0; // which of the connection's q queue pairs per port
    if (q > 1)
    {
        group = m_pairs[first].nextQp;
        m_pairs[first].nextQp = (group + 1) % q;
    }
    // On P ports, pieces of ceil(S / P) rounded up to 128 B (ncclIbMultiSend's alignment), one
    // per port while bytes remain.
    constexpr uint64_t kAlign = 128;
    const uint64_t piece = (bytes + ports - 1) / ports;
    const uint64_t chunk = std::max<uint64_t>(kAlign, (piece + kAlign - 1) / kAlign * kAlign);
    const uint32_t pieces =
        ports > 1 ? static_cast<uint32_t>(std::min<uint64_t>(ports, (bytes + chunk - 1) / chunk))
                  : 1;
    if (m_partitioned)
    {
        // Post here; the receiving rank learns what arrives from the announcement.
        for (uint32_t j = 0; j < std::max<uint32_t>(pieces, 1); ++j)
        {
            const uint32_t idx = PreparedPair(src, dst, channel, group * ports + j);
            m_pairs[idx].requester->PostWrite(pieces <= 1 ? bytes
                                                          : std::min(chunk, bytes - j * chunk));
        }
        const Announcement a{src,
                             dst,
                             channel,
                             group,
                             pieces,
                             GetListenerIndex(listener),
                             token,
                             bytes,
                             Simulator::Now().GetTimeStep()};
        FabricRankMailbox::Broadcast(m_handler, &a, sizeof(a), m_messageDelay);
        return;
    }
    if (pieces <= 1)
    {
        const uint32_t idx = group * ports == 0 ? first : GetPair(src, dst, channel, group * ports);
        m_pairs[idx].pending.push_back(Pending{listener, token, bytes, Simulator::Now()});
        m_pairs[idx].requester->PostWrite(bytes);
        return;
    }
    const uint32_t split =
        NewSplit(Split{listener, token, pieces, src, dst, bytes, Simulator::Now()});
    for (uint32_t j = 0; j < pieces; ++j)
    {
        const uint32_t idx = GetPair(src, dst, channel, group * ports + j);
        m_pairs[idx].pending.push_back(
            Pending{static_cast<CollectiveTransportListener*>(this), split, 0, Time(0)});
        m_pairs[idx].requester->PostWrite(std::min(chunk, bytes - j * chunk));
    }
}

uint32_t
RdmaCollectiveTransport::NewSplit(const Split& s)
{
    uint32_t split;
    if (m_freeSplits.empty())
    {
        split = static_cast<uint32_t>(m_splits.size());
        m_splits.emplace_back();
    }
    else
    {
        split = m_freeSplits.back();
        m_freeSplits.pop_back();
    }
    m_splits[split] = s;
    return split;
}

void
RdmaCollectiveTransport::MessageArrived(uint64_t token)
{
    Split& s = m_splits[token];
    if (--s.remaining == 0)
    {
        CollectiveTransportListener* listener = s.listener;
        const uint64_t t = s.token;
        NotifyMessageLatency(s.src, s.dst, s.bytes, s.posted);
        m_freeSplits.push_back(static_cast<uint32_t>(token));
        listener->MessageArrived(t);
    }
}

uint32_t
RdmaCollectiveTransport::GetPair(uint32_t src, uint32_t dst, uint32_t channel, uint32_t k)
{
    const uint32_t key = channel * kKeysPerChannel + k;
    uint32_t idx = FindPair(src, dst, key);
    if (idx != UINT32_MAX)
    {
        return idx;
    }
    Ptr<Node> a = m_nodes.Get(src);
    Ptr<Node> b = m_nodes.Get(dst);
    Ptr<RdmaNic> na = a->GetObject<RdmaNic>();
    Ptr<RdmaNic> nb = b->GetObject<RdmaNic>();
    NS_ABORT_MSG_IF(!na || !nb, "RdmaCollectiveTransport: ranks need an RdmaNic");
    NS_ABORT_MSG_IF(m_qpsPerConnection * na->GetNPorts() > kKeysPerChannel,
                    "RdmaCollectiveTransport: too many queue pairs per connection");
    Pair p;
    p.src = src;
    p.dst = dst;
    p.ports = na->GetNPorts();
    // One port of each NIC: the stripe of NCCL's merged multi-port NIC (queue pair k on port
    // k mod P); a single-port NIC keeps its PortSelection.
    const uint32_t portA = p.ports > 1 ? k % p.ports : RdmaNic::kAnyPort;
    const uint32_t portB = nb->GetNPorts() > 1 ? k % nb->GetNPorts() : RdmaNic::kAnyPort;
    p.requester = na->CreateQueuePair(nb->GetDevice()->GetIpv4Address(), m_dscp, portA);
    p.responder = nb->CreateQueuePair(na->GetDevice()->GetIpv4Address(), m_dscp, portB);
    RdmaNic::Connect(p.requester, p.responder);
    idx = static_cast<uint32_t>(m_pairs.size());
    p.responder->SetReceiveCallback(
        MakeCallback(&RdmaCollectiveTransport::Arrived, this).Bind(idx));
    p.requester->SetCompletionCallback(
        MakeCallback(&RdmaCollectiveTransport::Completed, this).Bind(idx));
    m_pairs.push_back(p);
    const std::pair<uint64_t, uint32_t> entry((uint64_t(key) << 32) | dst, idx);
    auto& row = m_index[src];
    row.insert(std::lower_bound(row.begin(), row.end(), entry), entry);
    return idx;
}

void
RdmaCollectiveTransport::Announced(const uint8_t* data, uint32_t size)
{
    NS_ABORT_MSG_IF(size != sizeof(Announcement), "RdmaCollectiveTransport: bad announcement");
    Announcement a;
    std::memcpy(&a, data, sizeof(a));
    if (!IsLocal(a.dst))
    {
        return; // another rank's message
    }
    CollectiveTransportListener* listener = GetListener(a.listener);
    const Time posted = TimeStep(a.posted);
    const uint32_t ports = m_pairs[PreparedPair(a.src, a.dst, a.channel, 0)].ports;
    if (a.pieces <= 1)
    {
        Expect(PreparedPair(a.src, a.dst, a.channel, a.group * ports),
               Pending{listener, a.token, a.bytes, posted});
        return;
    }
    const uint32_t split =
        NewSplit(Split{listener, a.token, a.pieces, a.src, a.dst, a.bytes, posted});
    for (uint32_t j = 0; j < a.pieces; ++j)
    {
        Expect(PreparedPair(a.src, a.dst, a.channel, a.group * ports + j),
               Pending{static_cast<CollectiveTransportListener*>(this), split, 0, Time(0)});
    }
}

void
RdmaCollectiveTransport::Expect(uint32_t pair, const Pending& m)
{
    Pair& p = m_pairs[pair];
    if (p.early == 0)
    {
        p.pending.push_back(m);
        return;
    }
    // Its last byte is already in GPU memory: it arrives now, in the receiver's context.
    --p.early;
    Simulator::ScheduleWithContext(m_nodes.Get(p.dst)->GetId(),
                                   Time(0),
                                   &RdmaCollectiveTransport::Deliver,
                                   this,
                                   pair,
                                   m);
}

void
RdmaCollectiveTransport::Arrived(uint32_t pair, const RdmaCompletion&)
{
    Pair& p = m_pairs[pair];
    if (m_partitioned && p.pending.empty())
    {
        ++p.early; // before its announcement (Expect delivers it then)
        return;
    }
    NS_ABORT_MSG_IF(p.pending.empty(), "RdmaCollectiveTransport: unexpected message");
    const Pending m = p.pending.front();
    p.pending.pop_front();
    Deliver(pair, m);
}

void
RdmaCollectiveTransport::Deliver(uint32_t pair, Pending m)
{
    const Pair& p = m_pairs[pair];
    if (m.listener != static_cast<CollectiveTransportListener*>(this))
    {
        NotifyMessageLatency(p.src, p.dst, m.bytes, m.posted);
    }
    m.listener->MessageArrived(m.token);
}

void
RdmaCollectiveTransport::Completed(uint32_t pair, const RdmaCompletion& c)
{
    Pair& p = m_pairs[pair];
    if (c.status != RdmaCompletion::SUCCESS && !p.failed)
    {
        p.failed = true;
        NotifyConnectionFailed(p.src, p.dst);
    }
}

uint64_t
RdmaCollectiveTransport::GetRetransmissions() const
{
    uint64_t n = 0;
    for (uint32_t r = 0; r < m_nodes.GetN(); ++r)
    {
        Ptr<RdmaNic> nic = m_nodes.Get(r)->GetObject<RdmaNic>();
        n += nic ? nic->GetCounters().retransmittedPackets : 0;
    }
    return n;
}

uint64_t
RdmaCollectiveTransport::GetTimeouts() const
{
    uint64_t n = 0;
    for (uint32_t r = 0; r < m_nodes.GetN(); ++r)
    {
        Ptr<RdmaNic> nic = m_nodes.Get(r)->GetObject<RdmaNic>();
        n += nic ? nic->GetCounters().timeouts : 0;
    }
    return n;
}

uint32_t
RdmaCollectiveTransport::FindPair(uint32_t src, uint32_t dst, uint32_t channel) const
{
    if (src >= m_index.size())
    {
        return UINT32_MAX;
    }
    const uint64_t key = (uint64_t(channel) << 32) | dst;
    const auto& row = m_index[src];
    auto it = std::lower_bound(
        row.begin(),
        row.end(),
        key,
        [](const std::pair<uint64_t, uint32_t>& e, uint64_t k) { return e.first < k; });
    return it != row.end() && it->first == key ? it->second : UINT32_MAX;
}

Ptr<RdmaQueuePair>
RdmaCollectiveTransport::GetQueuePair(uint32_t src, uint32_t dst) const
{
    const uint32_t idx = FindPair(src, dst, 0); // channel 0, the first queue pair
    return idx == UINT32_MAX ? nullptr : m_pairs[idx].requester;
}

uint32_t
RdmaCollectiveTransport::GetNQueuePairs() const
{
    return static_cast<uint32_t>(m_pairs.size());
}

} // namespace ns3

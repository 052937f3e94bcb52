// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-collective-transport.h"

#include "ns3/abort.h"
#include "ns3/node.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/uinteger.h"

#include <algorithm>

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
                          "Queue pairs per connection (rank pair and channel), messages "
                          "round robin over them (NCCL_IB_QPS_PER_CONNECTION, default 1; "
                          "each queue pair has its own UDP source port, so ECMP hashes "
                          "them apart: Meta's QP scaling, SIGCOMM'24).",
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
RdmaCollectiveTransport::Send(uint32_t src,
                              uint32_t dst,
                              uint64_t bytes,
                              CollectiveTransportListener* listener,
                              uint64_t token,
                              uint32_t channel)
{
    const uint32_t q = m_qpsPerConnection;
    uint32_t idx = GetPair(src, dst, channel * q);
    if (q > 1)
    {
        const uint32_t k = m_pairs[idx].nextQp;
        m_pairs[idx].nextQp = (k + 1) % q;
        idx = k == 0 ? idx : GetPair(src, dst, channel * q + k);
    }
    m_pairs[idx].pending.emplace_back(listener, token);
    m_pairs[idx].requester->PostWrite(bytes);
}

uint32_t
RdmaCollectiveTransport::GetPair(uint32_t src, uint32_t dst, uint32_t key)
{
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
    Pair p;
    p.src = src;
    p.dst = dst;
    p.requester = na->CreateQueuePair(nb->GetDevice()->GetIpv4Address(), m_dscp);
    p.responder = nb->CreateQueuePair(na->GetDevice()->GetIpv4Address(), m_dscp);
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
RdmaCollectiveTransport::Arrived(uint32_t pair, const RdmaCompletion&)
{
    Pair& p = m_pairs[pair];
    NS_ABORT_MSG_IF(p.pending.empty(), "RdmaCollectiveTransport: unexpected message");
    const auto [listener, token] = p.pending.front();
    p.pending.pop_front();
    listener->MessageArrived(token);
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
    const uint32_t idx = FindPair(src, dst, 0);
    return idx == UINT32_MAX ? nullptr : m_pairs[idx].requester;
}

uint32_t
RdmaCollectiveTransport::GetNQueuePairs() const
{
    return static_cast<uint32_t>(m_pairs.size());
}

} // namespace ns3

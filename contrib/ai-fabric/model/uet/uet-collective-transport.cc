// SPDX-License-Identifier: GPL-2.0-only
#include "uet-collective-transport.h"

#include "uet-nic.h"

#include "ns3/abort.h"
#include "ns3/fabric-rank-mailbox.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <cstring>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(UetCollectiveTransport);

TypeId
UetCollectiveTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UetCollectiveTransport")
                            .SetParent<CollectiveTransport>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<UetCollectiveTransport>();
    return tid;
}

UetCollectiveTransport::UetCollectiveTransport() = default;
UetCollectiveTransport::~UetCollectiveTransport() = default;

void
UetCollectiveTransport::DoDispose()
{
    m_pairs.clear();
    m_index.clear();
    m_nodes = NodeContainer();
    CollectiveTransport::DoDispose();
}

void
UetCollectiveTransport::SetRanks(NodeContainer nodes)
{
    m_nodes = nodes;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        Ptr<UetNic> nic = nodes.Get(i)->GetObject<UetNic>();
        NS_ABORT_MSG_IF(!nic, "UetCollectiveTransport: rank " << i << " has no UetNic");
        nic->SetReceiveCallback(MakeCallback(&UetCollectiveTransport::Arrived, this));
        nic->TraceConnectWithoutContext(
            "PdcFailed",
            MakeBoundCallback(&UetCollectiveTransport::PdcFailed, this, i));
    }
}

std::string
UetCollectiveTransport::GetName() const
{
    return "uet";
}

uint64_t
UetCollectiveTransport::Key(uint32_t src, uint32_t dst, uint32_t channel)
{
    return (uint64_t(src) << 40) ^ (uint64_t(channel) << 24) ^ dst;
}

uint32_t
UetCollectiveTransport::PairOf(uint32_t src, uint32_t dst, uint32_t channel, bool create)
{
    const uint64_t key = Key(src, dst, channel);
    auto it = m_index.find(key);
    if (it != m_index.end())
    {
        return it->second;
    }
    NS_ABORT_MSG_IF(!create,
                    "UetCollectiveTransport: connection " << src << " -> " << dst << " channel "
                                                          << channel
                                                          << " was not prepared (Prepare)");
    const uint32_t idx = static_cast<uint32_t>(m_pairs.size());
    Ptr<UetNic> nic = m_nodes.Get(src)->GetObject<UetNic>();
    Ptr<UetNic> peer = m_nodes.Get(dst)->GetObject<UetNic>();
    Pair p;
    p.pdc = nic->CreatePdc(peer->GetDevice()->GetIpv4Address(), idx);
    p.src = src;
    p.dst = dst;
    p.local = nic->GetDevice()->GetIpv4Address();
    m_pairs.push_back(std::move(p));
    m_index.emplace(key, idx);
    return idx;
}

void
UetCollectiveTransport::SetPartitioned(Time messageDelay)
{
    NS_ABORT_MSG_IF(!m_pairs.empty(), "UetCollectiveTransport: SetPartitioned before any send");
    m_handler = SetPartitionedBase(messageDelay, [this](const uint8_t* data, uint32_t size) {
        Announced(data, size);
    });
}

bool
UetCollectiveTransport::CanPartition() const
{
    return true;
}

uint32_t
UetCollectiveTransport::GetNodeId(uint32_t rank) const
{
    return m_nodes.Get(rank)->GetId();
}

bool
UetCollectiveTransport::IsLocal(uint32_t rank) const
{
    return !m_partitioned || m_nodes.Get(rank)->GetSystemId() == m_mpiRank;
}

void
UetCollectiveTransport::Prepare(uint32_t src, uint32_t dst, uint32_t channel)
{
    PairOf(src, dst, channel, true);
}

void
UetCollectiveTransport::Send(uint32_t src,
                             uint32_t dst,
                             uint64_t bytes,
                             CollectiveTransportListener* listener,
                             uint64_t token,
                             uint32_t channel)
{
    const uint32_t idx = PairOf(src, dst, channel, !m_partitioned);
    if (m_partitioned)
    {
        m_pairs[idx].pdc->Send(bytes);
        const Announcement a{idx,
                             GetListenerIndex(listener),
                             token,
                             Simulator::Now().GetTimeStep()};
        FabricRankMailbox::Broadcast(m_handler, &a, sizeof(a), m_messageDelay);
        return;
    }
    m_pairs[idx].pending.push_back(Pair::Pending{listener, token, Simulator::Now()});
    m_pairs[idx].pdc->Send(bytes);
}

void
UetCollectiveTransport::Announced(const uint8_t* data, uint32_t size)
{
    NS_ABORT_MSG_IF(size != sizeof(Announcement), "UetCollectiveTransport: bad announcement");
    Announcement a;
    std::memcpy(&a, data, sizeof(a));
    Pair& p = m_pairs.at(a.pair);
    if (!IsLocal(p.dst))
    {
        return; // another rank's message
    }
    const Pair::Pending w{GetListener(a.listener), a.token, TimeStep(a.posted)};
    if (p.early.empty())
    {
        p.pending.push_back(w);
        return;
    }
    // Already in the target's memory: it arrives now, in the receiver's context.
    const uint64_t bytes = p.early.front();
    p.early.pop_front();
    Simulator::ScheduleWithContext(m_nodes.Get(p.dst)->GetId(),
                                   Time(0),
                                   &UetCollectiveTransport::Deliver,
                                   this,
                                   a.pair,
                                   bytes,
                                   w);
}

void
UetCollectiveTransport::Arrived(const UetMessage& m)
{
    // Another user of the NICs (FlowWorkload's background flows) sends on PDCs of its own:
    // a message is the transport's when its (source, PDC id) is one of the transport's PDCs.
    if (m.flowId >= m_pairs.size() || m_pairs[m.flowId].pdc->GetId() != m.pdc ||
        m_pairs[m.flowId].local != m.src)
    {
        return;
    }
    Pair& p = m_pairs[m.flowId];
    if (m_partitioned && p.pending.empty())
    {
        p.early.push_back(m.bytes); // before its announcement (Announced delivers it then)
        return;
    }
    NS_ABORT_MSG_IF(p.pending.empty(), "UetCollectiveTransport: a message nobody waits for");
    const Pair::Pending w = p.pending.front();
    p.pending.pop_front();
    Deliver(static_cast<uint32_t>(m.flowId), m.bytes, w);
}

void
UetCollectiveTransport::Deliver(uint32_t pair, uint64_t bytes, Pair::Pending w)
{
    // GPU memory to GPU memory: from the hand-over to the message in the target's memory
    // (UetNic's DeliverLatency), as RdmaCollectiveTransport reports it.
    const Pair& p = m_pairs[pair];
    NotifyMessageLatency(p.src, p.dst, bytes, w.posted);
    w.listener->MessageArrived(w.token);
}

void
UetCollectiveTransport::PdcFailed(UetCollectiveTransport* t, uint32_t src, uint32_t pdcId)
{
    Ptr<UetPdc> pdc = t->m_nodes.Get(src)->GetObject<UetNic>()->GetPdc(pdcId);
    if (pdc && pdc->GetFlowId() < t->m_pairs.size() && t->m_pairs[pdc->GetFlowId()].pdc == pdc)
    {
        const Pair& p = t->m_pairs[pdc->GetFlowId()];
        t->NotifyConnectionFailed(p.src, p.dst);
    }
}

Ptr<UetPdc>
UetCollectiveTransport::GetPdc(uint32_t src, uint32_t dst, uint32_t channel) const
{
    auto it = m_index.find(Key(src, dst, channel));
    return it == m_index.end() ? nullptr : m_pairs[it->second].pdc;
}

uint32_t
UetCollectiveTransport::GetNPdcs() const
{
    return static_cast<uint32_t>(m_pairs.size());
}

uint64_t
UetCollectiveTransport::GetRetransmissions() const
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < m_nodes.GetN(); ++i)
    {
        n += m_nodes.Get(i)->GetObject<UetNic>()->GetCounters().retransmissions;
    }
    return n;
}

uint64_t
UetCollectiveTransport::GetTimeouts() const
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < m_nodes.GetN(); ++i)
    {
        n += m_nodes.Get(i)->GetObject<UetNic>()->GetCounters().timeouts;
    }
    return n;
}

} // namespace ns3

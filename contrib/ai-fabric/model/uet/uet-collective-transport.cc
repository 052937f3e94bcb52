// SPDX-License-Identifier: GPL-2.0-only
#include "uet-collective-transport.h"

#include "uet-nic.h"

#include "ns3/abort.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

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

void
UetCollectiveTransport::Send(uint32_t src,
                             uint32_t dst,
                             uint64_t bytes,
                             CollectiveTransportListener* listener,
                             uint64_t token,
                             uint32_t channel)
{
    const uint64_t key = Key(src, dst, channel);
    auto it = m_index.find(key);
    uint32_t idx;
    if (it == m_index.end())
    {
        idx = static_cast<uint32_t>(m_pairs.size());
        Ptr<UetNic> nic = m_nodes.Get(src)->GetObject<UetNic>();
        Ptr<UetNic> peer = m_nodes.Get(dst)->GetObject<UetNic>();
        Pair p;
        p.pdc = nic->CreatePdc(peer->GetDevice()->GetIpv4Address(), idx);
        p.src = src;
        p.dst = dst;
        p.local = nic->GetDevice()->GetIpv4Address();
        m_pairs.push_back(std::move(p));
        m_index.emplace(key, idx);
    }
    else
    {
        idx = it->second;
    }
    m_pairs[idx].pending.push_back(Pair::Pending{listener, token, Simulator::Now()});
    m_pairs[idx].pdc->Send(bytes);
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
    NS_ABORT_MSG_IF(p.pending.empty(), "UetCollectiveTransport: a message nobody waits for");
    const Pair::Pending w = p.pending.front();
    p.pending.pop_front();
    // GPU memory to GPU memory: from the hand-over to the message in the target's memory
    // (UetNic's DeliverLatency), as RdmaCollectiveTransport reports it.
    NotifyMessageLatency(p.src, p.dst, m.bytes, w.posted);
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

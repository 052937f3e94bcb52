// SPDX-License-Identifier: GPL-2.0-only
#include "uet-pdc.h"

#include "uet-nic.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(UetPdc);

TypeId
UetPdc::GetTypeId()
{
    static TypeId tid = TypeId("ns3::UetPdc").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

UetPdc::UetPdc() = default;
UetPdc::~UetPdc() = default;

void
UetPdc::DoDispose()
{
    m_rto.Cancel();
    m_cc = nullptr;
    m_lb = nullptr;
    m_nic = nullptr;
    m_completionCb = MakeNullCallback<void, uint64_t, uint64_t>();
    Object::DoDispose();
}

uint64_t
UetPdc::Send(uint64_t bytes)
{
    return m_nic->Post(this, bytes);
}

void
UetPdc::SetCompletionCallback(Callback<void, uint64_t, uint64_t> cb)
{
    m_completionCb = cb;
}

uint32_t
UetPdc::GetId() const
{
    return m_id;
}

Ipv4Address
UetPdc::GetRemote() const
{
    return m_remote;
}

uint32_t
UetPdc::GetFlowId() const
{
    return m_flowId;
}

Ptr<UetCongestionOps>
UetPdc::GetCongestionControl() const
{
    return m_cc;
}

Ptr<UetLoadBalancer>
UetPdc::GetLoadBalancer() const
{
    return m_lb;
}

const UetCcState&
UetPdc::GetCcState() const
{
    return m_state;
}

const UetPdcStats&
UetPdc::GetStats() const
{
    return m_stats;
}

uint32_t
UetPdc::GetPendingMessages() const
{
    return static_cast<uint32_t>(m_msgs.size());
}

bool
UetPdc::IsFailed() const
{
    return m_failed;
}

uint64_t
UetPdc::GetCreditGranted() const
{
    return m_creditGranted;
}

uint64_t
UetPdc::GetCreditTarget() const
{
    return m_creditTarget;
}

} // namespace ns3

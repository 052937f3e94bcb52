// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-go-back-n.h"

#include "rdma-loss-recovery-registry.h"
#include "rdma-queue-pair.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaGoBackN);

TypeId
RdmaGoBackN::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaGoBackN")
                            .SetParent<RdmaLossRecovery>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RdmaGoBackN>();
    return tid;
}

std::string
RdmaGoBackN::GetName() const
{
    return "go-back-n";
}

uint32_t
RdmaGoBackN::NextPsn(RdmaQueuePair& qp, bool& retransmission)
{
    return TakeNew(qp, retransmission);
}

void
RdmaGoBackN::OnAck(RdmaQueuePair& qp, uint32_t cumulative)
{
    if (qp.GetSndNxt() < cumulative)
    {
        qp.SetSndNxt(cumulative);
    }
}

void
RdmaGoBackN::OnNack(RdmaQueuePair& qp, uint32_t epsn, uint32_t)
{
    qp.SetSndNxt(epsn);
}

void
RdmaGoBackN::OnTimeout(RdmaQueuePair& qp)
{
    qp.SetSndNxt(qp.GetSndUna());
}

bool
RdmaGoBackN::KeepsOutOfOrder() const
{
    return false;
}

namespace
{

const bool g_goBackNRegistered = RdmaLossRecoveryRegistry::Add([] {
    RdmaLossRecoveryInfo e;
    e.name = "go-back-n";
    e.typeId = "ns3::RdmaGoBackN";
    e.help = "a NAK rewinds the sender to the first missing PSN, as RoCE NICs classically do";

    e.isDefault = true;
    return e;
}());

} // namespace

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-loss-recovery.h"

#include "rdma-queue-pair.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaLossRecovery);

TypeId
RdmaLossRecovery::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaLossRecovery").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

RdmaLossRecovery::~RdmaLossRecovery() = default;

bool
RdmaLossRecovery::HasPending(const RdmaQueuePair& qp) const
{
    return qp.GetSndNxt() < qp.GetPsnEnd();
}

bool
RdmaLossRecovery::HasQueuedRetransmission() const
{
    return false;
}

uint32_t
RdmaLossRecovery::TakeNew(RdmaQueuePair& qp, bool& retransmission)
{
    const uint32_t psn = qp.GetSndNxt();
    retransmission = psn < qp.GetSndMax();
    qp.SetSndNxt(psn + 1);
    return psn;
}

} // namespace ns3

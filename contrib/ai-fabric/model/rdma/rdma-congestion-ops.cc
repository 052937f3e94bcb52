// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-congestion-ops.h"

#include "rdma-queue-pair.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaCongestionOps);

TypeId
RdmaCongestionOps::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCongestionOps").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

RdmaCongestionOps::~RdmaCongestionOps() = default;

void
RdmaCongestionOps::Init(Ptr<RdmaQueuePair> qp)
{
    qp->SetRate(qp->GetLineRate());
}

void
RdmaCongestionOps::PacketSent(Ptr<RdmaQueuePair>, uint32_t)
{
}

void
RdmaCongestionOps::AckReceived(Ptr<RdmaQueuePair>, uint32_t, Time)
{
}

void
RdmaCongestionOps::CnpReceived(Ptr<RdmaQueuePair>)
{
}

void
RdmaCongestionOps::Stop()
{
}

} // namespace ns3

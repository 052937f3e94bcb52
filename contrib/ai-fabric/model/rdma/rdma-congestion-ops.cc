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

bool
RdmaCongestionOps::WantsTelemetry() const
{
    return false;
}

void
RdmaCongestionOps::AckReceived(Ptr<RdmaQueuePair>, const RdmaAck&)
{
}

void
RdmaCongestionOps::Timeout(Ptr<RdmaQueuePair>)
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

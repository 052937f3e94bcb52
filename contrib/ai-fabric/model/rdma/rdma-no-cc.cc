// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-no-cc.h"

#include "rdma-congestion-registry.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaNoCc);

TypeId
RdmaNoCc::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaNoCc")
                            .SetParent<RdmaCongestionOps>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RdmaNoCc>();
    return tid;
}

std::string
RdmaNoCc::GetName() const
{
    return "none";
}

namespace
{

const bool g_noCcRegistered = RdmaCongestionRegistry::Add([] {
    RdmaCongestionControlInfo e;
    e.name = "none";
    e.typeId = "ns3::RdmaNoCc";
    e.help = "no congestion control, every queue pair at line rate";
    return e;
}());

} // namespace

} // namespace ns3

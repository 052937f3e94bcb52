// SPDX-License-Identifier: GPL-2.0-only
#include "rdma-no-cc.h"

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

} // namespace ns3

// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_NO_CC_H
#define RDMA_NO_CC_H

#include "rdma-congestion-ops.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * No end-to-end congestion control: every queue pair sends at line rate and relies on PFC.
 */
class RdmaNoCc : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
};

} // namespace ns3

#endif // RDMA_NO_CC_H

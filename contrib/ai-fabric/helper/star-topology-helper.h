// SPDX-License-Identifier: GPL-2.0-only
#ifndef STAR_TOPOLOGY_HELPER_H
#define STAR_TOPOLOGY_HELPER_H

#include "fabric-topology-helper.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * All Servers × GpusPerServer hosts on one switch: the smallest fabric, for incast and
 * single-bottleneck experiments and for tests.
 */
class StarTopologyHelper : public FabricTopologyHelper
{
  public:
    static TypeId GetTypeId();
    StarTopologyHelper();

  protected:
    void DoValidate() const override;
    void DoBuild(Ptr<FabricTopology> topo) override;
    std::string GetKind() const override;
    uint32_t PlannedSwitches() const override;

  private:
    uint32_t m_radix{0};
};

} // namespace ns3

#endif // STAR_TOPOLOGY_HELPER_H

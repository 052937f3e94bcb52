// SPDX-License-Identifier: GPL-2.0-only
#include "ring-collective.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RingCollective);

TypeId
RingCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingCollective")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<RingCollective>();
    return tid;
}

std::string
RingCollective::GetName() const
{
    return "ring";
}

void
RingCollective::DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const
{
    std::vector<uint32_t> order(spec.ranks);
    for (uint32_t i = 0; i < spec.ranks; ++i)
    {
        order[i] = i;
    }
    const uint32_t steps =
        spec.op == CollectiveSpec::ALLREDUCE ? 2 * (spec.ranks - 1) : spec.ranks - 1;
    std::vector<std::vector<uint32_t>> none(spec.ranks,
                                            std::vector<uint32_t>(spec.chunks, UINT32_MAX));
    std::vector<std::vector<uint32_t>> last;
    AppendRing(s, order, steps, spec.bytes, spec.chunks, none, last);
}

} // namespace ns3

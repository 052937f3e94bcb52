// SPDX-License-Identifier: GPL-2.0-only
#include "uet-congestion-ops.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(UetCongestionOps);

TypeId
UetCongestionOps::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::UetCongestionOps").SetParent<Object>().SetGroupName("AiFabric");
    return tid;
}

UetCongestionOps::~UetCongestionOps() = default;

void
UetCongestionOps::NackReceived(UetCcState& s, uint32_t bytes, bool /* lastHop */)
{
    s.cwnd = std::max(s.minCwnd, s.cwnd > bytes ? s.cwnd - bytes : 0);
}

void
UetCongestionOps::Timeout(UetCcState& s, uint64_t lostBytes)
{
    s.cwnd = std::max(s.minCwnd, s.cwnd > lostBytes ? s.cwnd - lostBytes : 0);
}

void
UetCongestionOps::CreditReceived(UetCcState& s, uint64_t bytes)
{
    s.credit += static_cast<int64_t>(bytes);
}

uint64_t
UetCongestionOps::CreditTarget(const UetCcState& /* s */, const UetCreditDemand& d) const
{
    return d.granted;
}

} // namespace ns3

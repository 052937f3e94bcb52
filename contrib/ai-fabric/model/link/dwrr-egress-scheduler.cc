// SPDX-License-Identifier: GPL-2.0-only
#include "dwrr-egress-scheduler.h"

#include "ns3/abort.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(DwrrEgressScheduler);

TypeId
DwrrEgressScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DwrrEgressScheduler")
            .SetParent<FabricEgressScheduler>()
            .SetGroupName("AiFabric")
            .AddConstructor<DwrrEgressScheduler>()
            .AddAttribute("Quantum",
                          "Bytes of credit added per round for a queue of weight 1 (>= the "
                          "largest frame keeps one frame per visit).",
                          UintegerValue(9216),
                          MakeUintegerAccessor(&DwrrEgressScheduler::m_quantum),
                          MakeUintegerChecker<uint32_t>(64))
            .AddAttribute("Weights",
                          "Eight space-separated integer weights, priority 0 first.",
                          StringValue("1 1 1 1 1 1 1 1"),
                          MakeStringAccessor(&DwrrEgressScheduler::SetWeights,
                                             &DwrrEgressScheduler::GetWeights),
                          MakeStringChecker())
            .AddAttribute("StrictPriorities",
                          "Bitmask of queues served by strict priority before the DWRR queues "
                          "(default 0xc0: priorities 6 and 7).",
                          UintegerValue(0xc0),
                          MakeUintegerAccessor(&DwrrEgressScheduler::m_strictMask),
                          MakeUintegerChecker<uint8_t>());
    return tid;
}

DwrrEgressScheduler::DwrrEgressScheduler()
{
    m_weight.fill(1);
}

void
DwrrEgressScheduler::SetWeights(std::string s)
{
    std::istringstream is(s);
    for (uint8_t p = 0; p < 8; ++p)
    {
        long w = 0;
        NS_ABORT_MSG_UNLESS(is >> w && w >= 1,
                            "DwrrEgressScheduler::Weights: expected 8 integers >= 1, got '" << s
                                                                                            << "'");
        m_weight[p] = static_cast<uint32_t>(w);
    }
}

std::string
DwrrEgressScheduler::GetWeights() const
{
    std::ostringstream os;
    for (uint8_t p = 0; p < 8; ++p)
    {
        os << (p ? " " : "") << m_weight[p];
    }
    return os.str();
}

void
DwrrEgressScheduler::SetWeight(uint8_t prio, uint32_t weight)
{
    NS_ABORT_MSG_UNLESS(weight >= 1, "DwrrEgressScheduler: weight must be >= 1");
    m_weight[prio & 7] = weight;
}

uint32_t
DwrrEgressScheduler::GetWeight(uint8_t prio) const
{
    return m_weight[prio & 7];
}

uint8_t
DwrrEgressScheduler::Select(uint8_t eligible, const uint32_t* headBytes)
{
    uint8_t strict = eligible & m_strictMask;
    if (strict)
    {
        return HighestBit(strict);
    }
    uint8_t e = eligible & static_cast<uint8_t>(~m_strictMask);
    // Bounded: every full round adds at least Quantum (>= 64 B) to each backlogged queue.
    for (uint32_t iter = 0; iter < 8u * 4096u; ++iter)
    {
        uint8_t q = m_current;
        if ((e >> q) & 1U)
        {
            if (!m_visitCredited)
            {
                m_deficit[q] += int64_t(m_quantum) * m_weight[q];
                m_visitCredited = true;
            }
            if (m_deficit[q] >= int64_t(headBytes[q]))
            {
                return q;
            }
        }
        else
        {
            m_deficit[q] = 0;
        }
        m_current = static_cast<uint8_t>((q + 1) & 7);
        m_visitCredited = false;
    }
    return HighestBit(e);
}

void
DwrrEgressScheduler::NotifySent(uint8_t prio, uint32_t wireBytes)
{
    if (!((m_strictMask >> prio) & 1U))
    {
        m_deficit[prio] -= wireBytes;
    }
}

} // namespace ns3

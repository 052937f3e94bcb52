// SPDX-License-Identifier: GPL-2.0-only
#include "uet-reps.h"

#include "uet-registry.h"

#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(UetReps);

TypeId
UetReps::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::UetReps")
            .SetParent<UetLoadBalancer>()
            .SetGroupName("AiFabric")
            .AddConstructor<UetReps>()
            .AddAttribute("CacheSize",
                          "EVs of unmarked ACKs kept for reuse (htsim buffer_reps.h: 8).",
                          UintegerValue(8),
                          MakeUintegerAccessor(&UetReps::m_cacheSize),
                          MakeUintegerChecker<uint32_t>(1, 1024))
            .AddAttribute("FreezeDuration",
                          "How long a retransmission timeout freezes the cache (facts.md: "
                          "htsim's exit_freeze_after, 10 ms).",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&UetReps::m_freeze),
                          MakeTimeChecker())
            .AddAttribute("ExploreAfterFreeze",
                          "Random EVs sent after a freeze ends (htsim uec_mp.cpp: 16).",
                          UintegerValue(16),
                          MakeUintegerAccessor(&UetReps::m_exploreAfter),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

std::string
UetReps::GetName() const
{
    return "reps";
}

void
UetReps::Init(uint16_t paths, uint32_t seed)
{
    UetLoadBalancer::Init(paths, seed);
    m_cache.assign(m_cacheSize, Entry());
    m_head = 0;
    m_count = 0;
    m_fresh = 0;
}

bool
UetReps::IsFrozen() const
{
    return m_frozen;
}

uint32_t
UetReps::GetFreshCount() const
{
    return m_fresh;
}

void
UetReps::Add(uint16_t ev)
{
    const uint32_t n = static_cast<uint32_t>(m_cache.size());
    if (m_count == n)
    {
        // full: the oldest entry gives way
        if (m_cache[m_head].fresh)
        {
            --m_fresh;
        }
        m_head = (m_head + 1) % n;
        --m_count;
    }
    m_cache[(m_head + m_count) % n] = Entry{ev, true};
    ++m_count;
    ++m_fresh;
}

void
UetReps::Feedback(uint16_t ev, UetPathFeedback fb)
{
    const int64_t now = Simulator::Now().GetTimeStep();
    if (fb == UetPathFeedback::TIMEOUT && !m_frozen && m_explore == 0)
    {
        m_frozen = true;
        m_frozenUntil = now + m_freeze.GetTimeStep();
        m_cycle = 0;
    }
    if (m_frozen && now > m_frozenUntil)
    {
        m_frozen = false;
        m_head = 0;
        m_count = 0;
        m_fresh = 0;
        m_explore = m_exploreAfter;
    }
    if (fb == UetPathFeedback::GOOD)
    {
        Add(ev);
    }
}

uint16_t
UetReps::NextEv()
{
    if (m_explore > 0)
    {
        --m_explore;
        return ToEv(Random());
    }
    const uint32_t n = static_cast<uint32_t>(m_cache.size());
    if (m_frozen)
    {
        if (m_count == 0)
        {
            return ToEv(Random());
        }
        // reuse the cached EVs in turn, keeping them
        const Entry& e = m_cache[(m_head + m_cycle % m_count) % n];
        ++m_cycle;
        return e.ev;
    }
    if (m_fresh == 0)
    {
        return ToEv(Random());
    }
    // the oldest fresh EV, used once (it stays cached for a freeze)
    for (uint32_t i = 0; i < m_count; ++i)
    {
        Entry& e = m_cache[(m_head + i) % n];
        if (e.fresh)
        {
            e.fresh = false;
            --m_fresh;
            return e.ev; // kept (used) for a freeze to cycle through
        }
    }
    return ToEv(Random());
}

namespace
{

const bool g_repsRegistered = UetLoadBalancerRegistry::Add([] {
    UetLoadBalancerInfo e;
    e.name = "reps";
    e.typeId = "ns3::UetReps";
    e.help = "REPS, recycles entropy values that came back unmarked";
    e.isDefault = true;
    return e;
}());

} // namespace

} // namespace ns3

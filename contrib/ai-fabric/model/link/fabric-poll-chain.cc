// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-poll-chain.h"

#include "fabric-rank-mailbox.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <cstring>

namespace ns3
{

FabricPollChain::FabricPollChain(Time interval, Time delay, PollFn poll)
    : m_interval(interval.GetTimeStep()),
      m_delay(delay),
      m_poll(std::move(poll))
{
    NS_ABORT_MSG_IF(interval <= delay * 2,
                    "FabricPollChain: the poll interval ("
                        << interval << ") must exceed two message delays (" << delay << " each)");
    m_handler = FabricRankMailbox::AddHandler(
        [this](const uint8_t* data, uint32_t size) { Receive(data, size); });
}

FabricPollChain::~FabricPollChain()
{
    m_pending.Cancel();
}

Time
FabricPollChain::GetDelay() const
{
    return m_delay;
}

void
FabricPollChain::Send(Kind kind, int64_t value)
{
    uint8_t msg[9];
    msg[0] = kind;
    std::memcpy(msg + 1, &value, 8);
    FabricRankMailbox::Broadcast(m_handler, msg, sizeof(msg), m_delay);
}

void
FabricPollChain::Wake()
{
    if (!m_pending.IsExpired())
    {
        return; // a poll is coming
    }
    const int64_t now = Simulator::Now().GetTimeStep();
    if (m_deciding)
    {
        // Whether the chain goes on is known D after the poll; if it ends, this PAUSE starts
        // the next one from its own time.
        m_held = m_held < 0 ? now : m_held;
        return;
    }
    if (!m_wakeSent)
    {
        m_wakeSent = true;
        Send(WAKE, now);
    }
}

void
FabricPollChain::ScheduleAt(int64_t step)
{
    m_pendingAt = step;
    m_pending =
        Simulator::Schedule(TimeStep(step) - Simulator::Now(), &FabricPollChain::Poll, this);
}

void
FabricPollChain::Receive(const uint8_t* data, uint32_t size)
{
    NS_ABORT_MSG_IF(size != 9, "FabricPollChain: a message of " << size << " bytes");
    int64_t value = 0;
    std::memcpy(&value, data + 1, 8);
    if (data[0] == WAKE)
    {
        // The earliest PAUSE of the gap wins; every one reaches every rank before its poll
        // would run (interval > 2 D), never while a poll's answers are awaited.
        NS_ABORT_MSG_IF(m_deciding, "FabricPollChain: a PAUSE announced during a poll");
        const int64_t at = value + m_interval;
        if (!m_pending.IsExpired())
        {
            if (at >= m_pendingAt)
            {
                return;
            }
            m_pending.Cancel();
        }
        ScheduleAt(at);
        return;
    }
    m_again = m_again || value != 0;
    if (++m_votes < FabricRankMailbox::GetNRanks())
    {
        return;
    }
    const bool again = m_again;
    const int64_t held = m_held;
    m_deciding = false;
    m_votes = 0;
    m_again = false;
    m_held = -1;
    if (again)
    {
        ScheduleAt(m_polledAt + m_interval);
        return;
    }
    m_wakeSent = false;
    if (held >= 0)
    {
        m_wakeSent = true;
        Send(WAKE, held);
    }
}

void
FabricPollChain::Poll()
{
    m_deciding = true;
    m_polledAt = Simulator::Now().GetTimeStep();
    const bool again = m_poll();
    Send(DECIDE, again ? 1 : 0);
}

} // namespace ns3

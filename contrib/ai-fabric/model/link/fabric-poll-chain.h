// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_POLL_CHAIN_H
#define FABRIC_POLL_CHAIN_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <functional>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A poll of the whole fabric that runs while anything wants it, split across MPI ranks
 * (issue 45): PfcWatchdog's and PfcDeadlockDetector's polls in the partition event order.
 *
 * In one process those polls follow one rule: a PAUSE received while no poll is pending
 * schedules one an interval later, and a poll that finds any watched queue paused (or stormed)
 * schedules the next. Split across ranks, each rank sees only its own nodes' PAUSEs and queues.
 * The chain keeps the rule's poll times on every rank with messages of FabricRankMailbox, one
 * message delay D later:
 *
 * - a rank that receives a PAUSE while it knows of no pending poll tells every rank (once per
 *   idle gap); each schedules the poll an interval after the earliest such PAUSE;
 * - at each poll, every rank runs its poll function on its own nodes and tells every rank
 *   whether it wants another; D later each rank knows whether any does and schedules the next
 *   poll an interval after this one, or ends the chain;
 * - a PAUSE received in those D, if the chain ends, starts the next chain from its own time.
 *
 * So the polls happen when they would in one process, on every rank, provided the interval
 * exceeds 2 D (a rank's PAUSE reaches every rank before the poll it schedules). One process in
 * the partition order runs the same chain on its one rank and gives the same run.
 */
class FabricPollChain
{
  public:
    /// Called at every poll on every rank; returns whether this rank wants another poll.
    using PollFn = std::function<bool()>;

    /**
     * \param interval from a PAUSE to the poll it starts, and between polls
     * \param delay the message delay between ranks (FabricRankMailbox::GetMessageDelay)
     * \param poll this rank's poll
     */
    FabricPollChain(Time interval, Time delay, PollFn poll);
    ~FabricPollChain();
    FabricPollChain(const FabricPollChain&) = delete;
    FabricPollChain& operator=(const FabricPollChain&) = delete;

    /// This rank received a PAUSE now.
    void Wake();

    /// The message delay D: what the polls' findings take to reach every rank.
    Time GetDelay() const;

  private:
    enum Kind : uint8_t
    {
        WAKE = 1,   //!< a PAUSE at the time carried, while no poll was pending
        DECIDE = 2, //!< at a poll: whether the sender wants another (0 or 1)
    };

    void Send(Kind kind, int64_t value);
    void Receive(const uint8_t* data, uint32_t size);
    void ScheduleAt(int64_t step);
    void Poll();

    int64_t m_interval; //!< time steps
    Time m_delay;
    PollFn m_poll;
    uint32_t m_handler{0};
    EventId m_pending; //!< the next poll
    int64_t m_pendingAt{0};
    bool m_deciding{false}; //!< between a poll and every rank's answer
    int64_t m_polledAt{0};
    bool m_wakeSent{false}; //!< this rank told the others of a PAUSE in this idle gap
    int64_t m_held{-1};     //!< a PAUSE received while deciding (-1: none)
    uint32_t m_votes{0};
    bool m_again{false};
};

} // namespace ns3

#endif // FABRIC_POLL_CHAIN_H

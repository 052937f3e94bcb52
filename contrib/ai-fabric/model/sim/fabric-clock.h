// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_CLOCK_H
#define FABRIC_CLOCK_H

#include "ns3/simulator.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The current time step for the per-packet paths. Simulator::Now() is two out-of-line calls,
 * one of them virtual, and a Time construction (about 50 instructions), and a packet-hop asked
 * for it three times or more. While a TimingWheelScheduler runs the simulation, the time stamp
 * of the event it removed last is the current time (ns-3's simulator sets Now() from the event
 * it removes); the scheduler publishes it here, and NowStep() reads it with one load. With any
 * other scheduler NowStep() is Simulator::Now().GetTimeStep().
 *
 * The published stamp is that of the scheduler that removed an event last, so a
 * TimingWheelScheduler driven by hand (as a unit test does) must not remove events while model
 * code runs a simulation on another scheduler.
 */
class FabricClock
{
  public:
    /// \return the current simulation time in time steps
    static int64_t NowStep()
    {
        return s_now != nullptr ? static_cast<int64_t>(*s_now) : Simulator::Now().GetTimeStep();
    }

  private:
    friend class TimingWheelScheduler;
    /// the time stamp of the last event the running TimingWheelScheduler removed, or null
    static inline const uint64_t* s_now = nullptr;
};

} // namespace ns3

#endif // FABRIC_CLOCK_H

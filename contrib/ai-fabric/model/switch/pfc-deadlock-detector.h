// SPDX-License-Identifier: GPL-2.0-only
#ifndef PFC_DEADLOCK_DETECTOR_H
#define PFC_DEADLOCK_DETECTOR_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

namespace ns3
{

class FabricNetDevice;
class FabricPollChain;
class FabricSwitch;
class PfcFlowControl;

/// One queue of a PFC deadlock cycle: an egress queue paused by the next switch.
struct PfcDeadlockHop
{
    Ptr<FabricSwitch> sw;        //!< the switch the queue is on
    Ptr<FabricNetDevice> device; //!< its egress port
    uint16_t port{0};            //!< port index on the switch
    uint8_t prio{0};             //!< the paused priority
    Time pausedFor;              //!< how long it had been paused when the cycle was found
};

/**
 * \ingroup ai-fabric
 * Finds PFC deadlocks: cycles of lossless egress queues each paused by the next hop, each
 * holding frames that can only leave through the next queue of the cycle (the cyclic buffer
 * dependency of Hu et al., HotNets'16, and Guo et al., SIGCOMM'16). No frame in such a cycle
 * ever moves again without a drop, so the detector reports it instead of letting a simulation
 * run silently to its time limit.
 *
 * Every PollInterval while any watched queue is paused, it builds the wait-for graph: an egress
 * queue Q of switch A, paused for at least Threshold and not empty, waits for the peer switch B's
 * ingress port, which holds the pause because frames from it sit in B's egress queues; the edge
 * goes from Q to each paused queue Q' of B holding a frame that entered B through that port
 * (the frames' ingress ports are read, so a congestion tree that only looks cyclic is not
 * reported). A cycle in that graph is a deadlock; each distinct cycle (set of queues) is
 * reported once: counted, traced (Deadlock) and, with StopSimulation, the run is stopped.
 *
 * The scan visits paused queues' frames only, at poll time: nothing is added to the per-frame
 * path. Pauses from hosts (a storming NIC) end chains and are not deadlocks (PfcWatchdog's job).
 */
class PfcDeadlockDetector : public Object
{
  public:
    static TypeId GetTypeId();
    PfcDeadlockDetector();
    ~PfcDeadlockDetector() override;

    /// Watch the PFC ports of `sw`.
    void AddSwitch(Ptr<FabricSwitch> sw);

    /// Cycles found so far, in the order found; each lists its queues in wait-for order.
    const std::vector<std::vector<PfcDeadlockHop>>& GetDeadlocks() const;
    uint64_t GetDeadlocksDetected() const;

    /// Run the search now (also what each poll does). \return the number of new cycles.
    uint32_t Check();

    /**
     * Search across MPI ranks (the partition event order, issue 45): each rank polls its own
     * switches when one process would (FabricPollChain), tells every rank what it found (its
     * queues paused past Threshold with their frames' ingress ports, and which of its ports hold
     * a PAUSE), and every rank searches the union `delay` after the poll: the same cycles, with
     * the times paused at the poll, found and (StopSimulation) stopped at one message delay
     * after the poll on every rank, in one process as on N. Call before the simulation starts,
     * on every rank alike, after the switches are added.
     */
    void SetPartitioned(Time delay);

    typedef void (*DeadlockTracedCallback)(const std::vector<PfcDeadlockHop>& cycle);

  protected:
    void DoDispose() override;

  private:
    struct Port
    {
        Ptr<FabricSwitch> sw;
        Ptr<FabricNetDevice> dev;
        PfcFlowControl* fc{nullptr};
        uint32_t sw_index{0};
        uint16_t port{0};
        uint8_t lossless{0};
    };

    /// What a search reads: queues paused past the threshold, and ports holding a PAUSE.
    struct Snapshot
    {
        struct Queue
        {
            int64_t pausedSince{0};        //!< time step
            std::vector<uint16_t> ingress; //!< ingress ports of its frames, sorted, unique
        };

        std::map<uint64_t, Queue> paused;  //!< port index * 8 + priority
        std::map<uint32_t, uint8_t> holds; //!< port index: priorities it holds a PAUSE on
    };

    void Wake(uint8_t prio, uint16_t quanta);
    void Poll();
    /// Whether any watched lossless queue (of this rank's) is paused: the poll goes on.
    bool AnyPaused() const;
    /// This rank's queues paused past the threshold at `now`, and the PAUSEs their peers hold
    /// (`allHolds`: every port's that holds one, for the other ranks).
    void Gather(Snapshot& s, Time now, bool allHolds) const;
    /// Cycles in `s`'s wait-for graph, as of `at`; reports the new ones.
    uint32_t Search(const Snapshot& s, Time at);
    bool PollSplit();
    void ReceiveSplit(const uint8_t* data, uint32_t size);

    Time m_threshold;
    Time m_poll;
    bool m_stop{false};
    std::vector<Port> m_ports;
    std::unordered_map<const FabricNetDevice*, uint32_t> m_byDevice; //!< device -> m_ports index
    std::vector<std::vector<uint32_t>> m_switchPorts; //!< per watched switch: its m_ports indices
    std::vector<std::vector<PfcDeadlockHop>> m_cycles;
    std::set<std::vector<uint64_t>> m_seen; //!< sorted queue keys of reported cycles
    EventId m_pollEvent;
    std::unique_ptr<FabricPollChain> m_chain; //!< across ranks (SetPartitioned)
    uint32_t m_handler{0};
    Snapshot m_incoming; //!< every rank's findings at the last poll
    uint32_t m_ends{0};  //!< ranks whose findings are all in
    TracedCallback<const std::vector<PfcDeadlockHop>&> m_deadlockTrace;
};

} // namespace ns3

#endif // PFC_DEADLOCK_DETECTOR_H

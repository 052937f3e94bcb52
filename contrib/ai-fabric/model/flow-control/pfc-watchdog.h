// SPDX-License-Identifier: GPL-2.0-only
#ifndef PFC_WATCHDOG_H
#define PFC_WATCHDOG_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ns3
{

class FabricNetDevice;
class FabricPollChain;
class FabricSwitch;
class PfcFlowControl;

/**
 * \ingroup ai-fabric
 * A PFC watchdog in the shape of SONiC's (sonic-net/SONiC wiki "PFC Watchdog Design"; the same
 * three blocks as Juniper's and Cisco's): it watches the lossless egress queues of switch ports
 * and
 *
 * - **detects** a storm when a queue has been paused by its peer without a break for
 *   DetectionTime while holding frames (nothing can leave it), checked every PollInterval;
 * - **mitigates**: action `drop` (SONiC's default) ignores the peer's PAUSEs on that queue and
 *   discards what is queued on it and what arrives for it (drop reason pfc-watchdog), so the
 *   switch's buffer drains and the pauses it sent upstream end: the victims behind the storm
 *   resume; `forward` ignores the PAUSEs and keeps sending; `alert` only counts and traces;
 * - **restores** the queue (PAUSEs honoured again, nothing discarded) once no PAUSE has arrived
 *   on it for RestorationTime.
 *
 * Defaults are SONiC's `pfcwd start` values: detection 200 ms, restoration 200 ms, action drop;
 * the poll interval is 100 ms (SONiC accepts 100–3000 ms; Juniper's default is 100 ms), so a
 * storm is caught between DetectionTime and DetectionTime + PollInterval after it began.
 *
 * Polling runs only while a watched queue is paused or mitigated (the watchdog listens to its
 * ports' PauseReceived traces to wake up), so an idle fabric's simulation still ends by itself.
 * Not modelled: SONiC's drop of ingress frames from the stormed port (only the egress queue is
 * discarded here) and the per-platform counter granularity.
 */
class PfcWatchdog : public Object
{
  public:
    static TypeId GetTypeId();
    PfcWatchdog();
    ~PfcWatchdog() override;

    /// What the watchdog does to a stormed queue.
    enum Action : uint8_t
    {
        DROP = 0,    //!< ignore PAUSEs, discard the queue's frames
        FORWARD = 1, //!< ignore PAUSEs, keep sending
        ALERT = 2,   //!< count and trace only
    };

    /// Watch the PFC-enabled (lossless) priorities of `device` (its flow control must be PFC).
    void AddPort(Ptr<FabricNetDevice> device);
    /// Watch every PFC port of `sw`.
    void Install(Ptr<FabricSwitch> sw);

    /// \return true while the watchdog mitigates `prio` on `device`
    /**
     * Poll across MPI ranks (the partition event order, issue 45): each rank polls its own
     * queues at the times one process would (FabricPollChain, `delay` the message delay), so a
     * storm is detected and restored at the same time as in one process. The counts are then
     * each rank's own (the runner sums them). Call before the simulation starts, on every rank
     * alike.
     */
    void SetPartitioned(Time delay);

    bool IsStormed(Ptr<FabricNetDevice> device, uint8_t prio) const;
    /// Storms detected so far (one per queue and episode).
    uint64_t GetStormsDetected() const;
    /// Queues restored so far.
    uint64_t GetRestorations() const;
    /// Frames the drop action discarded on the watched ports so far.
    uint64_t GetDroppedFrames() const;
    /// Queues mitigated now.
    uint32_t GetStormedQueues() const;

    /// Signature of StormDetected / StormRestored: the port's device, the priority.
    typedef void (*StormTracedCallback)(Ptr<FabricNetDevice> device, uint8_t prio);

  protected:
    void DoDispose() override;

  private:
    struct Queue
    {
        Ptr<FabricNetDevice> dev;
        PfcFlowControl* fc{nullptr};
        uint8_t prio{0};
        bool stormed{false};
    };

    void Wake(uint8_t prio, uint16_t quanta);
    void Poll();
    /// One poll of this rank's queues. \return whether any is paused or stormed
    bool PollQueues();
    void Mitigate(Queue& q, bool on);

    Time m_detection;
    Time m_restoration;
    Time m_poll;
    Action m_action{DROP};
    std::vector<Queue> m_queues;
    EventId m_pollEvent;
    std::unique_ptr<FabricPollChain> m_chain; //!< across ranks (SetPartitioned)
    uint64_t m_storms{0};
    uint64_t m_restorations{0};
    TracedCallback<Ptr<FabricNetDevice>, uint8_t> m_detectedTrace;
    TracedCallback<Ptr<FabricNetDevice>, uint8_t> m_restoredTrace;
};

} // namespace ns3

#endif // PFC_WATCHDOG_H

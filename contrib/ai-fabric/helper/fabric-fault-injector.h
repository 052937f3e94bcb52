// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_FAULT_INJECTOR_H
#define FABRIC_FAULT_INJECTOR_H

#include "fabric-topology.h"

#include "ns3/event-id.h"
#include "ns3/fabric-frame.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ns3
{

/// One scheduled change of a fabric (a fault timeline entry).
struct FabricFaultEvent
{
    enum Action : uint8_t
    {
        DOWN = 0,        //!< the link(s) go down at both ends
        UP = 1,          //!< the link(s) come back
        DEGRADE = 2,     //!< the link(s) run at `gbps` (both directions, or with `oneWay` what
                         //!< the `stormEnd` end transmits)
        LOSS = 3,        //!< each end drops a received data frame (and, with allFrames, a control
                         //!< frame: PFC, IB flow control) with probability `rate`
        FLAP = 4,        //!< down, up, down, ... every period / 2 from `at` to `until`
        PAUSE_STORM = 5, //!< the `stormEnd` end of the link pauses its peer's `priority`
                         //!< without end (PfcFlowControl::SetStorm), until `until` if set
    };

    Time at;
    Action action{DOWN};
    std::vector<uint32_t> links; //!< the links it applies to (a switch: all of its links)
    double gbps{0};              //!< DEGRADE
    double rate{0};              //!< LOSS
    bool allFrames{false};       //!< LOSS: control frames too (PFC pauses can be lost)
    Time period;                 //!< FLAP: one down + up cycle
    Time until;                  //!< FLAP: last change no later than this; PAUSE_STORM: its end
    uint32_t stormEnd{0};        //!< PAUSE_STORM: the vertex (host or switch) that storms;
                                 //!< DEGRADE with oneWay: the end whose transmitter slows
    bool oneWay{false};          //!< DEGRADE: one direction only (from stormEnd)
    bool scaleQueue{false};      //!< DEGRADE: a switch port's queue limit and ECN thresholds
                                 //!< scale with its rate (htsim's failed links)
    uint8_t priority{3};         //!< PAUSE_STORM: the paused priority
    std::string target;          //!< the name it was given ("leaf0-spine1", "spine3")
};

/**
 * \ingroup ai-fabric
 * Changes a built fabric while it runs, and reconverges its routes as a Clos's routing would.
 *
 * A link goes down at both ends at once (FabricTopology::SetLinkUp): frames queued for it, on
 * the cable and arriving are dropped (reason link-down), and until the routes reconverge,
 * switches keep hashing flows onto it (black-holed as link-down). ConvergenceTime after each
 * topology change (down or up; changes at the same instant, such as a switch's links, converge
 * together), every switch's table is recomputed over the links that are up
 * (FabricTopology::PopulateRoutes; InfiniBand's linear forwarding tables are rebuilt as a subnet
 * manager's sweep would): ECMP groups through a dead link shrink, and grow back after a repair.
 * Degraded rates and link loss apply at once and change no route.
 *
 * Counters: changes applied, reconvergences, frames dropped as link-down (all ports). Traces:
 * LinkChange (link, up), Reconverged ().
 */
class FabricFaultInjector : public Object
{
  public:
    static TypeId GetTypeId();
    FabricFaultInjector();
    ~FabricFaultInjector() override;

    void SetTopology(Ptr<FabricTopology> topo);
    /// Schedule `e` (its `at` relative to now).
    void AddEvent(const FabricFaultEvent& e);
    /**
     * Random independent failures of every link (or only switch-switch links): each fails after
     * an exponential time of mean `mtbf` and is repaired `repair` later, again and again, as
     * long as a failure starts before `horizon` (from now).
     *
     * Drawn as the simulation goes: a link's next time to failure is drawn when its repair
     * happens, so one event per link is pending, whatever mtbf and horizon (they used to be
     * drawn up front: memory and start-up grew with horizon / mtbf). Each link draws from a
     * stream of its own (AssignStreams: the k-th link that can fail takes stream + k), so its
     * failures do not depend on when the others' are drawn.
     * \return the number of links that can fail
     */
    uint32_t AddRandomFailures(Time mtbf, Time repair, bool hostLinks, Time horizon);
    /// Random failures started so far (AddRandomFailures).
    uint64_t GetRandomFailures() const;

    // Immediate changes (what scheduled events call; usable from scripts too).
    void SetLinkUp(uint32_t link, bool up);
    void SetLinkRate(uint32_t link, DataRate rate);
    /**
     * What `end`'s port on `link` transmits (a vertex; `end` = every end of the link when it is
     * neither) runs at `rate`; with `scaleQueue` a switch port's egress queue limit and ECN
     * thresholds scale by the new rate over the old (SwitchBufferManager::SetPortScale).
     */
    void SetPortRate(uint32_t link, uint32_t end, DataRate rate, bool scaleQueue);
    /// Data frames (and with `allFrames` control frames) received at either end of `link` are
    /// lost with probability `rate`.
    void SetLinkLoss(uint32_t link, double rate, bool allFrames = false);
    /**
     * Start or end a pause storm: the port of vertex `end` on `link` holds its peer's `prio`
     * paused (refreshing PAUSE frames) whatever its buffer holds. The port's flow control must
     * be PFC (FabricConfigError otherwise).
     */
    void SetPauseStorm(uint32_t link, uint32_t end, uint8_t prio, bool on);
    /// Pause storms started so far.
    uint64_t GetPauseStorms() const;
    /// Recompute every switch's routes over the links that are up, now.
    void Reconverge();

    uint64_t GetChanges() const;
    uint64_t GetReconvergences() const;
    /// Frames dropped as link-down: by the ports of the fabric (queued, on the cable, arriving;
    /// host NICs included) and by switches forwarding to a port that is down.
    uint64_t GetLinkDownDrops() const;
    /// Links down now.
    uint32_t GetLinksDown() const;
    /**
     * How long data kept being lost to down links: from the first link going down to the last
     * data packet (a frame with payload: not an ACK, not a control frame) dropped as link-down
     * (by a port of the fabric or a switch forwarding to a dead port) so far; zero before any
     * link went down or without such a drop. The transport's
     * recovery from a failure, before routing reconverges: a sender that moves its traffic off
     * the dead path (UEC's REPS) ends it early; per-flow ECMP ends it at reconvergence.
     */
    Time GetLossWindow() const;
    /// When the first link went down (-1 ns if none has).
    Time GetFirstDownTime() const;
    /**
     * Per connection (a data packet's source, destination and flow id: an RDMA queue pair, a
     * UET PDC, a TCP connection) that lost data packets to a down link: from its first such loss
     * to its last, sorted. How long each sender kept using a dead path: the REPS paper's "re-routes
     * traffic away from a failure in under 100 us" is this figure.
     */
    std::vector<Time> GetConnectionLossWindows() const;
    /**
     * Per connection that lost data packets to a down link, its first burst of such losses
     * (losses closer than LossBurstGap, 1 ms by default), sorted: how long it kept sending onto
     * the dead path before it stopped, whether by moving away (REPS; a later burst is a probe
     * after its freeze) or by waiting for a retransmission timeout (go-back-N, whose later
     * bursts are its retries until routing converges: GetConnectionLossWindows shows them).
     */
    std::vector<Time> GetConnectionFirstBursts() const;

    /// A data packet lost to a down link: its connection and when.
    struct LinkDownDrop
    {
        uint32_t src{0};
        uint32_t dst{0};
        uint32_t flowId{0};
        int64_t step{0};
    };

    /// Keep every LinkDownDrop (off by default): a run across MPI ranks sees each rank's ports
    /// drop, and merges the logs (ReplayLinkDownDrops).
    void SetKeepDropLog(bool keep);
    const std::vector<LinkDownDrop>& GetDropLog() const;
    /**
     * What the link-down losses tell (GetLossWindow, GetConnectionLossWindows,
     * GetConnectionFirstBursts) from `drops` instead of those seen here: e.g. every MPI rank's
     * log, replayed in time order (drops at equal times in any order give the same).
     */
    void ReplayLinkDownDrops(std::vector<LinkDownDrop> drops);

    /// Streams `stream`, `stream` + 1, ...: one per link that AddRandomFailures (called after
    /// SetTopology and this) makes fail. \return the number reserved: one per link
    int64_t AssignStreams(int64_t stream);

    typedef void (*LinkChangeCallback)(uint32_t link, bool up);

  protected:
    void DoDispose() override;

  private:
    /// A link that fails at random: its times to failure, repair time and horizon.
    struct RandomLink
    {
        uint32_t link;
        Ptr<ExponentialRandomVariable> ttf;
        Time repair;
        Time horizon; //!< absolute: no failure starts at or after it
    };

    void Apply(FabricFaultEvent e);
    void Flap(uint32_t link, Time halfPeriod, Time until, bool up);
    /// Random link `i` fails now: its repair is scheduled.
    void RandomDown(uint32_t i);
    /// Random link `i` is repaired now: its next failure is drawn and scheduled.
    void RandomUp(uint32_t i);
    /// Draw random link `i`'s time to its next failure; schedule it if it starts before the
    /// link's horizon.
    void ScheduleRandomFailure(uint32_t i);
    /// The first link going down connects every port's and switch's Drop trace here (nothing
    /// is connected before, so a run without a failure pays nothing per frame); DoDispose
    /// disconnects them (`on` false).
    void WatchLinkDownDrops(bool on);
    void OnDrop(const FabricFrame& frame, FabricDropReason reason);

    Ptr<FabricTopology> m_topo;
    Time m_convergence;
    uint64_t m_changes{0};
    uint64_t m_reconvergences{0};
    std::unordered_map<uint64_t, bool> m_storming; //!< (link, end, priority): storm on
    uint64_t m_storms{0};
    EventId m_pending;    //!< the latest scheduled reconvergence
    Time m_pendingAt;     //!< when it runs
    int64_t m_stream{-1}; //!< AssignStreams' first stream (-1: automatic streams)
    std::vector<RandomLink> m_random;
    uint64_t m_randomFailures{0};
    Time m_firstDown{-1};      //!< the first link going down (-1: none yet)
    Time m_lastLinkDownDrop{}; //!< the last data packet dropped as link-down

    /// Per connection that lost data frames to a down link: its first and last such loss.
    struct ConnectionLoss
    {
        Time first;
        Time last;
        Time firstBurstEnd;
        bool inFirstBurst{true};
    };

    /// Per connection, from its first loss to `end`, sorted.
    std::vector<Time> ConnectionSpans(Time ConnectionLoss::*end) const;

    /// Account a data packet lost to a down link at `now`.
    void LinkDownLoss(uint32_t src, uint32_t dst, uint32_t flowId, Time now);

    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, ConnectionLoss> m_connectionLoss;
    bool m_keepDropLog{false};
    std::vector<LinkDownDrop> m_dropLog;
    Time m_burstGap; //!< LossBurstGap
    TracedCallback<uint32_t, bool> m_linkTrace;
    TracedCallback<> m_reconvergedTrace;
};

} // namespace ns3

#endif // FABRIC_FAULT_INJECTOR_H

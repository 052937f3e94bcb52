// SPDX-License-Identifier: GPL-2.0-only
#ifndef FLOW_WORKLOAD_H
#define FLOW_WORKLOAD_H

#include "flow-size-distribution.h"

#include "ns3/event-id.h"
#include "ns3/fabric-path-timing.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <unordered_map>
#include <vector>

namespace ns3
{

class FabricTopology;
class RdmaQueuePair;
class UetPdc;
struct RdmaCompletion;

/// One flow of a FlowWorkload: a message from one host to another and its completion.
struct FlowRecord
{
    uint32_t src{0};
    uint32_t dst{0};
    uint64_t bytes{0};
    Time start;         //!< posted at the sender
    Time end;           //!< acknowledged in full at the sender (valid when `completed`)
    Time ideal;         //!< the same flow alone on the idle fabric (see the class comment)
    bool incast{false}; //!< part of a periodic incast burst (not a Poisson arrival)
    bool completed{false};
    bool failed{false};     //!< its queue pair exhausted its retries
    uint32_t connection{0}; //!< the queue-pair pair that carried it (FlowWorkload::GetFlowPath)

    /// FCT / ideal FCT (>= 1 up to rounding; valid when `completed`)
    double Slowdown() const
    {
        return (end - start).GetSeconds() / ideal.GetSeconds();
    }
};

/// Slowdown quantiles of the flows whose size is at most `maxBytes` (and above the previous
/// bucket's), as FlowWorkload::SlowdownBySize reports them.
struct FlowSlowdownBucket
{
    uint64_t maxBytes{0}; //!< upper edge (inclusive); UINT64_MAX: the open last bucket
    uint64_t count{0};
    double p50{0};
    double p95{0};
    double p99{0};
};

/**
 * \ingroup ai-fabric
 * The standard workload of congestion-control evaluations (DCTCP, HPCC, Swift): flows between
 * hosts with sizes drawn from a distribution (FlowSizeDistribution: web search, FB Hadoop or
 * a file) and Poisson arrivals at each host, at a Load fraction of the host's line rate
 * (rate = Load x line rate / (8 x mean size)); destinations uniformly random among the other
 * hosts, or a fixed random permutation; optionally periodic N-to-1 incast bursts. It runs on
 * the hosts' RdmaNics (RoCEv2 or InfiniBand): a flow is one RDMA WRITE on a queue pair of its
 * own (idle queue pairs to the same destination are reused with fresh congestion-control
 * state, RdmaNic::RestartCongestionControl), whose base RTT is set from the path. On hosts
 * with a UetNic (Ultra Ethernet) instead, a flow is one message on a PDC of its own, reused
 * the same way (UetNic::RestartCongestionControl); its packets are sprayed, so its path is
 * the one its first entropy value hashes to (every path of a fat-tree has the same timing).
 *
 * Each flow is recorded with its ideal FCT: the same flow alone on the idle fabric, from the
 * model's own parameters — the NIC's requester delay, every data packet's wire bytes through
 * the path at line rate (FabricPathTiming: rates, cables, switch latencies, cut-through), and
 * the ACK's way back — so FCT slowdown is FCT / ideal, 1 for a flow that met nobody.
 *
 * Arrivals run from Start() for Duration; a host draws its next arrival when one happens (one
 * pending event per host). Drained fires when arrivals are over and every flow has completed
 * or failed.
 *
 * Across MPI ranks (issue 45; under FabricPartitionScheduler, on one rank as on many): every
 * rank keeps the whole workload — arrivals and their random draws, the flow table, the
 * connections (both queue pairs of each, on every rank's copy of the NICs; creating them
 * schedules nothing) and which are idle — and only the sender's rank posts a flow, in its
 * host's context. A completion, seen by the sender's rank alone, reaches every rank's copy a
 * message delay later (FabricRankMailbox::Broadcast; the longest cable's delay plus a step):
 * the flow's end is its true end, but its connection is idle, FlowCompleted fires and Drained
 * counts it only then. Without that scheduler the workload runs on one rank as it always did. Not
 * modelled: flows over kernel TCP (RDMA fabrics only), closed-loop (request / response) traffic,
 * and per-flow priorities.
 */
class FlowWorkload : public Object
{
  public:
    enum Pattern
    {
        UNIFORM = 0,     //!< each flow to a host drawn uniformly among the others
        PERMUTATION = 1, //!< each host sends to one partner of a random derangement
    };

    static TypeId GetTypeId();
    FlowWorkload();
    ~FlowWorkload() override;

    void SetDistribution(const FlowSizeDistribution& d);
    const FlowSizeDistribution& GetDistribution() const;
    /**
     * The hosts that send and receive: endpoint indices of `topo`, each with an RdmaNic
     * (RdmaHelper::Install), or each with a UetNic (UetHelper::Install); empty: every GPU host.
     */
    void Install(Ptr<FabricTopology> topo, std::vector<uint32_t> hosts = {});
    /// Fix the random streams. \return the number of streams used (3)
    int64_t AssignStreams(int64_t stream);
    /// Begin arrivals now; they end Duration later.
    void Start();

    /**
     * Start one flow of `bytes` from endpoint `src` to `dst` now (what every arrival does; a
     * script can also start flows by hand after Install). \return its index in GetFlows()
     */
    uint32_t StartFlow(uint32_t src, uint32_t dst, uint64_t bytes, bool incast = false);
    /**
     * Start a flow of `bytes` from endpoint `src` to `dst` at `at` after Start() (a connection
     * matrix's flows, ConnectionMatrix). Call before Start(); flows due at the same time start
     * in the order added; Drained waits for them. One pending event for all of them.
     */
    void AddScheduledFlow(Time at, uint32_t src, uint32_t dst, uint64_t bytes);
    /// The path flow `flow` (an index of GetFlows()) sends its data on, hop by hop.
    const FabricPathTiming& GetFlowPath(uint32_t flow) const;
    const std::vector<FlowRecord>& GetFlows() const;
    uint64_t GetNCompleted() const;
    uint64_t GetNFailed() const;
    /// \return true when arrivals are over and no flow is still running
    bool IsDrained() const;
    /// Queue pairs made so far (both ends counted), for memory accounting.
    uint64_t GetNQueuePairs() const;
    /// Flows per second each host starts (the Poisson rate).
    double GetArrivalRate() const;

    /**
     * Slowdown quantiles (nearest rank) of the completed flows by size: one bucket per upper
     * edge of `edges` (increasing, inclusive; a bucket holds the sizes above the previous
     * edge), then one open bucket (maxBytes UINT64_MAX). Incast flows are left out unless
     * `withIncast`. With no edges, one bucket of every flow.
     */
    static std::vector<FlowSlowdownBucket> SlowdownBySize(const std::vector<FlowRecord>& flows,
                                                          const std::vector<uint64_t>& edges,
                                                          bool withIncast);

    typedef void (*FlowTracedCallback)(const FlowRecord& flow);

  protected:
    void DoDispose() override;

  private:
    /// A connected queue-pair pair (or a UET PDC) that carries one flow at a time.
    struct Connection
    {
        uint32_t src{0};
        uint32_t dst{0};
        Ptr<RdmaQueuePair> requester;
        Ptr<RdmaQueuePair> responder;
        Ptr<UetPdc> pdc; //!< the UET PDC (UetNic hosts) instead of the queue pairs
        FabricPathTiming forward;
        FabricPathTiming backward;
        uint32_t flow{0};
    };

    void Arrival(uint32_t hostIndex);
    /// Host `i`'s next Poisson arrival, or no event when it falls after the end.
    EventId ScheduleArrival(uint32_t i);
    void Incast();
    void RunScheduled();
    uint32_t Acquire(uint32_t src, uint32_t dst);
    /// Acquire's UET case: a new PDC from `src` to `dst` and its paths.
    Connection ConnectUet(uint32_t src, uint32_t dst, uint32_t index);
    void Completed(uint32_t connection, const RdmaCompletion& c);
    /// A UET PDC's message completed (every byte acknowledged).
    void UetCompleted(uint32_t connection, uint64_t msgId, uint64_t bytes);
    /// A UET PDC exhausted its retransmissions: its flow fails.
    void UetPdcFailed(uint32_t srcHost, uint32_t pdc);
    /// Record the end of connection `connection`'s flow at `end`.
    void Finish(uint32_t connection, Time end, bool success);
    void CheckDrained();
    /// The sender's rank posts connection `connection`'s flow (split across ranks).
    void Post(uint32_t connection);
    /// A flow ended on its sender's rank: tell every rank (split) or finish it now.
    void Ended(uint32_t connection, Time end, bool success);
    /// A message of Ended from any rank.
    void EndedMessage(const uint8_t* data, uint32_t size);
    /// The ideal FCT of `bytes` on connection `c` (see the class comment).
    Time Ideal(const Connection& c, uint64_t bytes) const;

    // attributes
    double m_load{0.3};
    Time m_duration;
    Pattern m_pattern{UNIFORM};
    uint32_t m_incastFanin{0};
    uint64_t m_incastBytes{0};
    Time m_incastPeriod;
    uint8_t m_dscp{0};

    FlowSizeDistribution m_dist;
    Ptr<FabricTopology> m_topo;
    std::unique_ptr<FabricPathTimer> m_paths;
    std::vector<uint32_t> m_hosts;
    std::vector<uint32_t> m_partner; //!< PERMUTATION: index into m_hosts
    std::vector<EventId> m_next;     //!< each host's next arrival
    EventId m_incastEvent;

    /// A flow of AddScheduledFlow, not started yet.
    struct Scheduled
    {
        Time at;
        uint32_t src{0};
        uint32_t dst{0};
        uint64_t bytes{0};
    };

    std::vector<Scheduled> m_scheduled; //!< sorted by `at` at Start() (stable)
    size_t m_nextScheduled{0};
    EventId m_scheduledEvent;
    Time m_end;
    bool m_started{false};
    double m_rate{0}; //!< arrivals per second per host
    Ptr<ExponentialRandomVariable> m_gap;
    Ptr<UniformRandomVariable> m_size;
    Ptr<UniformRandomVariable> m_pick;

    std::vector<FlowRecord> m_flows;
    std::vector<Connection> m_conns;
    std::unordered_map<uint64_t, std::vector<uint32_t>> m_idle; //!< (src << 32 | dst) -> idle
    std::unordered_map<uint64_t, uint32_t> m_uetConn; //!< (src host << 32 | PDC id) -> connection
    std::vector<bool> m_uetWatched;                   //!< a host's PdcFailed is connected
    bool m_uet{false};                                //!< the hosts run UetNics
    bool m_split{false};   //!< FabricPartitionScheduler orders the run: ready for MPI ranks
    uint32_t m_rank{0};    //!< this process's MPI rank
    uint32_t m_handler{0}; //!< EndedMessage's FabricRankMailbox handler
    Time m_messageDelay;   //!< FabricRankMailbox::GetMessageDelay of the topology
    uint64_t m_completed{0};
    uint64_t m_failed{0};
    TracedCallback<const FlowRecord&> m_flowCompleted;
    TracedCallback<> m_drained;
};

} // namespace ns3

#endif // FLOW_WORKLOAD_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_EXECUTOR_H
#define COLLECTIVE_EXECUTOR_H

#include "collective-algorithm.h"
#include "collective-transport.h"
#include "nvlink-transport.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Runs a CollectiveSchedule over transports: a transfer is sent when its source rank is ready
 * (MarkReady: its compute phase is over) and every transfer it depends on has arrived. Transfers
 * between GPUs of the same server go over the NVLink transport when one is set, all others over
 * the network transport (through the NIC of rank src + CollectiveTransfer::nicDelta: a
 * rail-local ring leaves a server through its channel's rail). The schedule's rings
 * (CollectiveRing) run lazily: their transfers are produced as they are released, in the order
 * and with the timing of their written-out DAG (CollectiveSchedule::Materialized), so memory is
 * O(ranks × chunks) per ring. NVLS operations (CollectiveTransfer::NVLS_REDUCE, NVLS_MULTICAST)
 * go to the NvlinkTransport's SendNvls; an in-switch reduction reads every GPU of the server, so
 * it waits until all of them are ready. The schedule's protocol costs (CollectiveProtocol) hold
 * each send back by the protocol's latency for its link, and each rank's first sends by its
 * start latency (none on the network hops of a transport that models the host's software path
 * itself). Wire bytes are the protocol's (LL ×2, LL128 ×128/120); byte counters are data.
 * Records, per rank, when its last
 * transfer arrived and which one it was.
 */
class CollectiveExecutor : public Object, public CollectiveTransportListener
{
  public:
    static TypeId GetTypeId();
    CollectiveExecutor();
    ~CollectiveExecutor() override;

    void SetNetworkTransport(Ptr<CollectiveTransport> t);
    /// Route same-server transfers (rank / gpusPerServer equal) over `t`.
    void SetNvlinkTransport(Ptr<CollectiveTransport> t, uint32_t gpusPerServer);
    /**
     * Run the schedule's ranks as transport ranks (*map)[r] (a communicator over part of the
     * cluster: a tensor-, pipeline- or data-parallel group); null: rank r is transport rank r.
     * Which transfers go over NVLink is decided on the transport ranks (SetNvlinkTransport's
     * gpusPerServer); NVLS operations read and write the schedule's servers of
     * `localGpusPerServer` ranks, which must be consecutive transport ranks. `map` is not
     * copied: it must outlive the run.
     */
    void SetRankMap(const std::vector<uint32_t>* map, uint32_t localGpusPerServer);

    /// Network sends use connections channel + base: communicators between the same two GPUs
    /// keep their own queue pairs or sockets, as NCCL's do.
    void SetChannelBase(uint32_t base)
    {
        m_channelBase = base;
    }

    /**
     * Start executing `s` (shared, not copied: a 1,024-rank ring has millions of transfers) for
     * `ranks` ranks; `done` is called when every transfer arrived.
     */
    void Start(std::shared_ptr<const CollectiveSchedule> s, uint32_t ranks, Callback<void> done);
    void MessageArrived(uint64_t token) override;
    /// Rank `r` may start sending (its compute phase ended).
    void MarkReady(uint32_t r);

    bool IsDone() const;
    /**
     * The last arrival of the collective and the largest GPU rank it reached: across MPI ranks
     * (a partitioned network transport) the maxima every rank's report carried; else over
     * every rank. Valid once done.
     */
    Time GetLastEnd() const;
    uint32_t GetLastEndRank() const;
    /// When rank r had everything (its last arrival, or its ready time if it receives nothing).
    Time GetRankEnd(uint32_t r) const;
    /// Source rank of the transfer that arrived last at r (r itself if none).
    uint32_t GetLastSender(uint32_t r) const;
    uint64_t GetBytesSent(uint32_t r) const;
    uint64_t GetNetworkBytes() const;
    uint64_t GetNvlinkBytes() const;

  protected:
    void DoDispose() override;

  private:
    /**
     * Everything the executor reads about one transfer while it runs, in one 32-byte record
     * (two per cache line): a 1,024-rank ring has 2 M transfers, and arrivals jump between
     * distant ones, so each arrival should cost one cache miss for the transfer and one for
     * its dependent, not one per array.
     */
    struct alignas(32) Node
    {
        uint64_t bytes{0};
        uint32_t src{0};
        uint32_t dst{0};
        uint32_t remaining{0}; //!< dependencies not arrived yet; ISSUED once sent
        uint8_t channel{0};    //!< the channel (< 128) | kFollower
        uint8_t kind{0};       //!< CollectiveTransfer::Kind
        int16_t nicDelta{0};   //!< the network send leaves through rank src + nicDelta's NIC
        uint32_t nDependents{0};
        uint32_t dependents{0}; //!< the dependent if nDependents == 1, else into m_dependents
    };

    static constexpr uint32_t ISSUED = UINT32_MAX;
    static constexpr uint8_t kFollower = 0x80; //!< in Node::channel: CollectiveTransfer::follower

    /**
     * A transfer of a lazily run ring (CollectiveRing) as a token, ordered as AppendRing would
     * index it: ring, step, position, chunk, hop (PXN's NVLink hop 0, then the network hop 1).
     * Transfers of the DAG are their index (bit 63 clear), so a sort puts them first.
     */
    struct RingToken
    {
        static constexpr uint64_t kRing = uint64_t(1) << 63;

        static uint64_t Make(uint32_t ring, uint32_t k, uint32_t p, uint32_t c, uint32_t hop)
        {
            return kRing | (uint64_t(ring) << 45) | (uint64_t(k) << 28) | (uint64_t(p) << 11) |
                   (uint64_t(c) << 1) | hop;
        }

        static uint32_t Ring(uint64_t t)
        {
            return static_cast<uint32_t>((t >> 45) & 0x3ffff);
        }

        static uint32_t Step(uint64_t t)
        {
            return static_cast<uint32_t>((t >> 28) & 0x1ffff);
        }

        static uint32_t Position(uint64_t t)
        {
            return static_cast<uint32_t>((t >> 11) & 0x1ffff);
        }

        static uint32_t Chunk(uint64_t t)
        {
            return static_cast<uint32_t>((t >> 1) & 0x3ff);
        }

        static uint32_t Hop(uint64_t t)
        {
            return static_cast<uint32_t>(t & 1);
        }
    };

    /// What a token sends: from, to, through whose NIC (network), how many bytes, on which
    /// channel.
    struct Send
    {
        uint32_t src;
        uint32_t dst;
        uint32_t nic;
        uint64_t bytes;
        uint32_t channel;
    };

    /// What a partitioned executor tells the other MPI ranks (FabricRankMailbox::Broadcast).
    struct Message
    {
        static constexpr uint32_t kReport = 0;  //!< every arrival at this rank's GPUs is in
        static constexpr uint32_t kRelease = 1; //!< a dependency of `token` arrived
        uint32_t kind;
        uint32_t rank; //!< kReport: the GPU rank of `at`
        uint64_t token;
        int64_t at; //!< kReport: the rank's last arrival (time steps)
    };

    /// Whether GPU rank `r`'s node runs on this MPI rank (always, unpartitioned).
    bool LocalRank(uint32_t r) const
    {
        return !m_split || r >= m_gpuRanks || m_network->IsLocal(Global(r));
    }

    uint32_t ServerOf(uint32_t r) const
    {
        return r >= m_gpuRanks ? UINT32_MAX - r : Global(r) / m_gpusPerServer;
    }

    /// Partitioned: prepare the schedule's network connections in its order, and count the
    /// arrivals this MPI rank's GPUs will see.
    void PrepareSplit();
    /// Partitioned: every arrival here is in; tell every rank.
    void Report();
    /// The latest rank end over the GPU ranks (only this MPI rank's if `localOnly`) and its
    /// rank, the largest on a tie.
    std::pair<Time, uint32_t> LatestArrival(bool localOnly) const;
    /// One dependency of `d` arrived: release it once all have (a ring token has one).
    void Satisfy(uint64_t d);
    void Received(const uint8_t* data, uint32_t size);
    /// Release `d` after an arrival at `node`: at once on the same server, else through the
    /// other ranks' mailbox a message delay later (on every partition alike).
    void ReleaseAfter(uint64_t d, uint32_t node);

    Send Describe(uint64_t token) const;
    uint32_t Source(uint64_t token) const;
    void Issue(uint64_t token);
    void Arrived(uint64_t token);
    void ArrivedRing(uint64_t token);
    /// DAG transfer t arrived: release what waited for it, in the written-out schedule's
    /// order (a lazy ring sits where its RING_DONE marks are).
    void ReleaseDependents(uint32_t t);
    /// A transfer of rank r whose dependencies arrived: send it now, or when r is ready.
    void Release(uint64_t token);
    /// Hand a transfer to its transport after the protocol's latency (scheduled by Issue).
    void Transmit(uint64_t token);
    /// Hand transfer `token`, described by `x`, to its transport.
    void Hand(uint64_t token, const Send& x);

    Ptr<CollectiveTransport> m_network;
    Ptr<CollectiveTransport> m_nvlink;
    Ptr<NvlinkTransport> m_nvls; //!< m_nvlink, if it is one (NVLS operations)
    uint32_t m_gpusPerServer{1};
    uint32_t m_gpuRanks{0}; //!< ranks from here on are in-network aggregators (switches)

    /// The transport rank of schedule rank r.
    uint32_t Global(uint32_t r) const
    {
        return m_rankMap ? (*m_rankMap)[r] : r;
    }

    /// Both ranks are GPUs of one server: the transfer goes over NVLink.
    bool SameServer(uint32_t a, uint32_t b) const
    {
        return m_nvlink && std::max(a, b) < m_gpuRanks &&
               Global(a) / m_gpusPerServer == Global(b) / m_gpusPerServer;
    }

    const std::vector<uint32_t>* m_rankMap{nullptr};
    uint32_t m_localGpusPerServer{1}; //!< the schedule's ranks per server (NVLS)
    uint32_t m_channelBase{0};

    std::shared_ptr<const CollectiveSchedule> m_schedule;
    std::vector<Node> m_nodes;
    std::vector<uint32_t> m_dependents; //!< dependents of transfers with more than one
    /// (DAG transfer, ring token): a lazy ring's first send that waits for that transfer
    /// (CollectiveRing::after), sorted
    std::vector<std::pair<uint32_t, uint64_t>> m_ringDependents;
    std::vector<std::vector<uint64_t>> m_held; //!< per rank: released before the rank was ready
    uint64_t m_total{0};                       //!< transfers of the schedule (rings included)
    std::vector<uint8_t> m_ready;
    uint32_t m_gpusReady{0}; //!< GPU ranks marked ready
    std::vector<Time> m_rankEnd;
    std::vector<uint32_t> m_lastSender;
    std::vector<uint64_t> m_bytesSent;
    std::vector<Time> m_startAt;       //!< per rank: ready time + the protocol's start latency
    CollectiveProtocol::Costs m_costs; //!< the running schedule's protocol costs
    bool m_networkCosts{true};         //!< add protocol latency to network hops
    bool m_noProtocolDelay{true};      //!< the schedule's protocol adds no latency at all
    uint64_t m_networkBytes{0};
    uint64_t m_nvlinkBytes{0};
    uint64_t m_arrived{0};
    Callback<void> m_done;

    // Split across MPI ranks (the network transport is partitioned).
    bool m_split{false};
    /// The rank map and channel base PrepareSplit last counted and prepared for.
    const std::vector<uint32_t>* m_splitMap{nullptr};
    uint32_t m_splitChannelBase{UINT32_MAX};
    uint32_t m_handler{UINT32_MAX}; //!< the mailbox handler of Message
    uint64_t m_localTotal{0};       //!< arrivals at this MPI rank's GPUs
    uint32_t m_reportsLeft{0};      //!< MPI ranks not yet reported
    bool m_reported{false};
    uint32_t m_arrivalNode{0}; //!< the GPU rank of the arrival being handled
    Time m_lastEnd;
    uint32_t m_lastEndRank{0};
};

} // namespace ns3

#endif // COLLECTIVE_EXECUTOR_H

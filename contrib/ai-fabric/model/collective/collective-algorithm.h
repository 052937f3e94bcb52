// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_ALGORITHM_H
#define COLLECTIVE_ALGORITHM_H

#include "collective-protocol.h"
#include "in-network-tree.h"

#include "ns3/object.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/// What a collective computes and over whom.
struct CollectiveSpec
{
    enum Op : uint8_t
    {
        ALLREDUCE = 0,
        REDUCESCATTER = 1,
        ALLGATHER = 2,
        ALLTOALL = 3,
        BROADCAST = 4, //!< from rank 0, pipelined down the rank chain (any algorithm)
        SENDRECV = 5,  //!< every rank sends S to rank + 1 (mod N), nccl-tests' sendrecv
    };

    Op op{ALLREDUCE};
    uint64_t bytes{0};         //!< S: the buffer size per rank (AllGather: the output size)
    uint32_t ranks{0};         //!< N
    uint32_t gpusPerServer{1}; //!< G: ranks s*G .. s*G+G-1 share a server (NVLink)
    uint32_t chunks{1};        //!< pipelining: each transfer is split in this many chunks
    uint32_t channels{1};      //!< parallel instances (NCCL channels), each on S/channels bytes
                               //!< and on its own connections (distinct ECMP paths)
    CollectiveProtocol::Kind protocol{CollectiveProtocol::SIMPLE}; //!< NCCL's protocol
    /// The fabric's SHARP trees (CollNetCollective), or null: no in-network aggregation
    std::shared_ptr<const InNetworkTree> inNetwork;

    static const char* OpName(Op op);
    /// The operation OpName calls `name`. \return false (and `op` unchanged) if none does
    static bool OpByName(const std::string& name, Op& op);
    /// \return the nccl-tests bus-bandwidth factor: 2(n-1)/n for AllReduce, 1 for Broadcast and
    /// SendRecv, (n-1)/n otherwise
    static double BusBwFactor(Op op, uint32_t n);
};

/**
 * One point-to-point transfer of a collective schedule: `src` sends `bytes` to `dst` once every
 * transfer listed in its dependencies has arrived (at `src`). Dependencies are indices into the
 * schedule's transfer vector and always point backwards.
 */
struct CollectiveTransfer
{
    uint32_t src{0};
    uint32_t dst{0};
    uint64_t bytes{0};
    uint32_t depBegin{0}; //!< into CollectiveSchedule::deps
    uint32_t depCount{0};
    uint16_t channel{0}; //!< which parallel instance (connection set) carries it
    /// The NIC that carries a network transfer is rank src + nicDelta's (a GPU of the same
    /// server: a rail-local ring leaves through the NIC of its channel's rail); 0: src's own.
    int16_t nicDelta{0};

    /// What the transfer is: a message src -> dst, or one of NVLS's in-switch operations on
    /// the NVLink domain of src's server (then dst == src).
    enum Kind : uint8_t
    {
        P2P = 0,
        /// multimem.ld_reduce: src gets the sum of `bytes` read from every GPU of its server
        /// (each GPU's NVLink egress and src's ingress carry `bytes`).
        NVLS_REDUCE = 1,
        /// multimem.st: src's `bytes` written to every GPU of its server (src's egress and
        /// every GPU's ingress carry `bytes`).
        NVLS_MULTICAST = 2,
        /// Not a send: a lazily run ring's last arrival of one chunk at rank src (== dst),
        /// which "arrives" when that ring transfer does, so that later transfers can depend on
        /// a lazy ring as on a written-out one (CollectiveRing::done). Carries no bytes.
        RING_DONE = 3,
    };

    Kind kind{P2P};
    /// A later chunk of a pipeline (chunk > 0 of a tree or NVLS connection): the protocol's
    /// per-hop latency overlaps the first chunk's, as NCCL's tuner charges it once per
    /// collective, so the executor does not add it again.
    bool follower{false};
};

/**
 * A ring run lazily: the CollectiveExecutor produces its transfers as ranks progress, holding
 * O(N × chunks) state instead of the 2(N-1)·N·chunks transfers AppendRing writes out (8.4 M
 * for one channel of a 2,048-rank AllReduce). Transfer (step k, position p, chunk c) goes from
 * order[p] to order[p+1] with chunk c of segment (p - k) mod N, once (k-1, p-1, c) has arrived
 * at order[p] (step 0: at once, or once the transfer `after` names has arrived): exactly
 * AppendRing's DAG, in the same order. A ring with RING_DONE transfers (`done`) sits in the
 * DAG where they are: what depends on its last arrivals depends on them.
 */
struct CollectiveRing
{
    uint16_t channel{0};
    uint32_t steps{0};           //!< N-1 (ReduceScatter, AllGather) or 2(N-1) (AllReduce)
    uint64_t total{0};           //!< bytes of the buffer, split in N segments
    uint32_t chunks{1};          //!< every segment split in this many transfers
    bool pxn{false};             //!< with nic: NVLink to the NIC's GPU first, then the network
    std::vector<uint32_t> order; //!< ranks in ring order
    std::vector<uint32_t> nic;   //!< per position: the rank whose NIC sends, or UINT32_MAX
    /// Per position and chunk (p × chunks + c): the DAG transfer that must have arrived at
    /// order[p] before chunk c's first send from there (UINT32_MAX: none); empty: none at all.
    std::vector<uint32_t> after;
    /// The first of Size() × chunks RING_DONE transfers of the DAG (p × chunks + c: the ring's
    /// last arrival of chunk c at order[p]), or UINT32_MAX: nothing depends on the ring.
    uint32_t done{UINT32_MAX};

    uint32_t Size() const
    {
        return static_cast<uint32_t>(order.size());
    }

    /// Bytes of transfer (k, p, c): chunk c of segment (p - k) mod N (at least 1).
    uint64_t Bytes(uint32_t k, uint32_t p, uint32_t c) const;
    /// Whether the send from position p takes an NVLink hop to the NIC's GPU first (PXN).
    bool HasPxnHop(uint32_t p) const;
    /// Transfers the ring makes (PXN hops included).
    uint64_t Transfers() const;
};

/// A collective as a DAG of transfers (compact: dependencies in one flat array), plus rings the
/// executor runs lazily (independent of the transfers and of each other).
struct CollectiveSchedule
{
    std::vector<CollectiveTransfer> transfers;
    std::vector<uint32_t> deps;
    std::vector<CollectiveRing> rings;
    /// What the protocol adds to every hop and to each rank's start (Build sets it).
    CollectiveProtocol::Costs costs;
    /// In-network aggregation nodes among the ranks: N .. N + aggregators - 1 after the N GPUs
    /// (CollNet). The executor runs them as switches: always ready, network only, and free of
    /// the protocol's per-hop software latency.
    uint32_t aggregators{0};

    /**
     * Append a transfer. \return its index. A transfer of 0 bytes (a ring step whose segment
     * is empty, when S < N) is sent as a 1-byte message: the step still synchronizes the two
     * ranks, as NCCL's flag does.
     * \param nic the rank whose NIC carries it over the network (a GPU of src's server), or
     *            UINT32_MAX for src's own
     */
    uint32_t Add(uint32_t src,
                 uint32_t dst,
                 uint64_t bytes,
                 const uint32_t* dep,
                 uint32_t nDeps,
                 uint32_t nic = UINT32_MAX);
    /// Append an NVLS operation (CollectiveTransfer::Kind) of rank `rank`. \return its index
    uint32_t AddNvls(CollectiveTransfer::Kind kind,
                     uint32_t rank,
                     uint64_t bytes,
                     const uint32_t* dep,
                     uint32_t nDeps);
    uint32_t channel{0};  //!< channel stamped on transfers added from now on
    bool follower{false}; //!< CollectiveTransfer::follower stamped on transfers added from now on
    /// Total bytes each rank sends (the rings' included).
    std::vector<uint64_t> BytesSentPerRank(uint32_t ranks) const;
    /// Transfers in all (the rings' included; RING_DONE marks are not transfers).
    uint64_t TransferCount() const;
    /// The same schedule with every ring written out as transfers (AppendRing): a ring with
    /// RING_DONE marks in place of them, the others after the DAG. What the executor runs, as
    /// a DAG (for tests and the memory comparison).
    CollectiveSchedule Materialized() const;
};

/**
 * \ingroup ai-fabric
 * A collective algorithm: turns a CollectiveSpec into a schedule of transfers with data
 * dependencies ("a rank forwards data only after it has received what it depends on"). It knows
 * nothing of the transport that will carry the transfers. One subclass per file pair:
 * RingCollective, DoubleBinaryTreeCollective, HalvingDoublingCollective,
 * HierarchicalCollective. All-to-All is always the direct pairwise exchange.
 *
 * How a subclass is used: TrainingJob (Algorithm attribute, a TypeId) creates one instance with
 * an ObjectFactory, calls Check(spec) and, if that returns empty, Build(spec) once per bucket;
 * the CollectiveExecutor then runs the schedule over the transports, again every step.
 * Broadcast and SendRecv, like All-to-All, are built by Build itself for every algorithm.
 *
 * What it receives: the CollectiveSpec (operation, bytes per rank, ranks, GPUs per server — ranks
 * s*G .. s*G+G-1 share a server and their transfers go over NVLink —, chunks, channels). For
 * All-to-All, Broadcast and SendRecv, Build makes the schedule itself and DoBuild is not
 * called.
 *
 * What it must do: in Check, return one line naming what it cannot run (an operation, a rank
 * count); in DoBuild, append transfers with CollectiveSchedule::Add so that every rank ends
 * with the bytes the operation defines (the tests check bytes per rank against theory), each
 * transfer depending only on earlier transfers that arrived at its source, and stamp
 * CollectiveSchedule::channel before the transfers of each channel.
 */
class CollectiveAlgorithm : public Object
{
  public:
    static TypeId GetTypeId();
    ~CollectiveAlgorithm() override;

    virtual std::string GetName() const = 0;
    /// \return empty if the algorithm can run `spec`, else why not (one line)
    virtual std::string Check(const CollectiveSpec& spec) const;
    /**
     * The channels a collective of `spec.bytes` runs on: spec.channels, reduced for small
     * messages as NCCL reduces them, so that every channel has at least kMinChannelBytes
     * (NCCL_MIN_CHANNEL_SIZE = NCCL_LL_THREAD_THRESHOLD × 64 = 512 B, src/include/enqueue.h).
     */
    static uint32_t EffectiveChannels(const CollectiveSpec& spec);
    static constexpr uint64_t kMinChannelBytes = 512;
    /// Whether Build makes `op`'s schedule itself, for every algorithm (All-to-All, Broadcast,
    /// SendRecv): a subclass's Check must not refuse them.
    static bool IsBuiltByBase(CollectiveSpec::Op op);
    /**
     * The TypeId name of the algorithm a scenario calls `name` (workload.algorithm), as
     * registered in CollectiveAlgorithmRegistry beside its class, or empty if none.
     */
    static std::string TypeIdName(const std::string& name);
    /// The names TypeIdName knows, sorted.
    static std::vector<std::string> Names();
    /// Build the schedule (call Check first).
    CollectiveSchedule Build(const CollectiveSpec& spec) const;

    /**
     * Append a ring collective over `order` (ranks in ring order) to `s`.
     * \param steps N-1 for ReduceScatter / AllGather, 2(N-1) for AllReduce
     * \param total bytes of the whole buffer (split in N segments)
     * \param first per-position dependency of the first step (transfer index or UINT32_MAX)
     * \param lastArrival filled with, per position, the index of the last transfer that arrived
     * \param nic per position, the rank whose NIC carries the send from that position
     *            (UINT32_MAX: the sender's own), or null
     * \param pxn with `nic`: send to the NIC's GPU over NVLink first, then over the network
     */
    static void AppendRing(CollectiveSchedule& s,
                           const std::vector<uint32_t>& order,
                           uint32_t steps,
                           uint64_t total,
                           uint32_t chunks,
                           const std::vector<std::vector<uint32_t>>& first,
                           std::vector<std::vector<uint32_t>>& lastArrival,
                           const std::vector<uint32_t>* nic = nullptr,
                           bool pxn = false);

    /**
     * AppendRing's ring (no NIC override), run lazily: a CollectiveRing waiting for `first`,
     * and Size() × chunks RING_DONE marks returned in `lastArrival` for what comes after it.
     * The executor runs it exactly as the written-out ring, holding O(N × chunks) state instead
     * of 2(N-1)·N·chunks transfers (a 2,048-server rail ring: 8.4 M per chunk).
     */
    static void AppendLazyRing(CollectiveSchedule& s,
                               const std::vector<uint32_t>& order,
                               uint32_t steps,
                               uint64_t total,
                               uint32_t chunks,
                               const std::vector<std::vector<uint32_t>>& first,
                               std::vector<std::vector<uint32_t>>& lastArrival);

  protected:
    virtual void DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const = 0;
    /// Broadcast's pipeline slice: NCCL's Simple protocol moves NCCL_BUFFSIZE / NCCL_STEPS
    /// (4 MiB / 8) per step.
    static constexpr uint64_t kBroadcastSliceBytes = 512 * 1024;
    /// Split `bytes` into `n` near-equal parts; part i.
    static uint64_t Part(uint64_t bytes, uint32_t n, uint32_t i);
    /// The chunks a pipeline moves `bytes` in: one per `step` bytes, or `specChunks` if more,
    /// within [1, maxChunks].
    static uint32_t PipelineChunks(uint64_t bytes,
                                   uint64_t step,
                                   uint32_t specChunks,
                                   uint32_t maxChunks);
};

} // namespace ns3

#endif // COLLECTIVE_ALGORITHM_H

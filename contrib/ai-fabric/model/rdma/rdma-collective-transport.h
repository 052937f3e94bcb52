// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_COLLECTIVE_TRANSPORT_H
#define RDMA_COLLECTIVE_TRANSPORT_H

#include "ns3/collective-transport.h"
#include "ns3/node-container.h"

#include <deque>
#include <vector>

namespace ns3
{

class RdmaQueuePair;
struct RdmaCompletion;

/**
 * \ingroup ai-fabric
 * CollectiveTransport over RoCEv2: persistent connected queue-pair pairs per (src, dst) rank
 * pair and channel, created on first use on the ranks' RdmaNics; a message is an RDMA WRITE;
 * "arrived" is the responder's receive completion (data in GPU memory). Ranks are the nodes
 * given, in order. A requester that exhausts its retries fires ConnectionFailed.
 *
 * On NICs of several ports (a multi-plane fabric) a connection is NCCL's merged multi-port NIC
 * (NCCL_IB_MERGE_NICS, net_ib's virtual device): QpsPerConnection queue pairs per port,
 * striped over the ports (queue pair k on port k mod P), and each message split over one
 * queue pair of every port in pieces of ceil(S / P) rounded up to 128 bytes (ncclIbMultiSend),
 * arrived when every piece has.
 */
class RdmaCollectiveTransport : public CollectiveTransport, private CollectiveTransportListener
{
  public:
    static TypeId GetTypeId();
    RdmaCollectiveTransport();
    ~RdmaCollectiveTransport() override;

    /// The rank -> host node map (each node needs an RdmaNic).
    void SetRanks(NodeContainer nodes);
    std::string GetName() const override;
    uint64_t GetRetransmissions() const override;
    uint64_t GetTimeouts() const override;
    void Send(uint32_t src,
              uint32_t dst,
              uint64_t bytes,
              CollectiveTransportListener* listener,
              uint64_t token,
              uint32_t channel = 0) override;

    /// \return the requester queue pair from src to dst (null before their first message)
    /**
     * Split across MPI ranks: a message is posted by the sender's MPI rank, which announces it
     * (listener, token, size, post time) to the receiver's through FabricRankMailbox; the
     * receiving rank expects it from the announcement on, `messageDelay` after the post. A
     * message whose last byte lands before its announcement (a path shorter than the delay)
     * arrives when the announcement does. Connections must be prepared (Prepare) in the same
     * order on every rank before their first message.
     */
    void SetPartitioned(Time messageDelay) override;
    bool CanPartition() const override;
    bool IsLocal(uint32_t rank) const override;
    uint32_t GetNodeId(uint32_t rank) const override;
    /// Create every queue pair of connection (src, dst, channel): QpsPerConnection per port.
    void Prepare(uint32_t src, uint32_t dst, uint32_t channel) override;

    Ptr<RdmaQueuePair> GetQueuePair(uint32_t src, uint32_t dst) const;
    uint32_t GetNQueuePairs() const;

  protected:
    void DoDispose() override;

  private:
    /// A message (or a piece of a split one) on its way: whom to tell, and for MessageLatency
    /// its size and when it was handed over.
    struct Pending
    {
        CollectiveTransportListener* listener{nullptr};
        uint64_t token{0};
        uint64_t bytes{0};
        Time posted;
    };

    struct Pair
    {
        Ptr<RdmaQueuePair> requester;
        Ptr<RdmaQueuePair> responder;
        std::deque<Pending> pending;
        uint32_t nextQp{0}; //!< the connection's first pair: the queue pairs of its next message
        uint32_t ports{1};  //!< ports of the source NIC (the connection's stripe)
        uint32_t src{0};
        uint32_t dst{0};
        bool failed{false}; //!< ConnectionFailed fired
        uint32_t early{0};  //!< partitioned: messages arrived before their announcement
    };

    /// What a partitioned sender tells the receiving rank about a message (Broadcast's bytes).
    struct Announcement
    {
        uint32_t src;
        uint32_t dst;
        uint32_t channel;
        uint32_t group; //!< which of the connection's queue pairs per port
        uint32_t pieces;
        uint32_t listener; //!< CollectiveTransport::AddListener's index
        uint64_t token;
        uint64_t bytes;
        int64_t posted; //!< time steps
    };

    /// A message split over the ports: whose it is and how many pieces are still on the way.
    struct Split
    {
        CollectiveTransportListener* listener{nullptr};
        uint64_t token{0};
        uint32_t remaining{0};
        uint32_t src{0};
        uint32_t dst{0};
        uint64_t bytes{0};
        Time posted;
    };

    /// Queue pairs of one connection at most (QpsPerConnection x ports): keys are channel x this.
    static constexpr uint32_t kKeysPerChannel = 1024;

    /**
     * The pair `k` of connection (src, dst, channel), created on first use (its requester on
     * port k mod P of src's NIC, its responder on port k mod P' of dst's). \return its index
     */
    uint32_t GetPair(uint32_t src, uint32_t dst, uint32_t channel, uint32_t k);
    /// A piece of a split message arrived (`token`: the Split).
    void MessageArrived(uint64_t token) override;
    /// A split message's record (from the free list). \return its index
    uint32_t NewSplit(const Split& s);

    void Arrived(uint32_t pair, const RdmaCompletion& c);
    /// A requester's completion: an error status fires ConnectionFailed (once per pair).
    void Completed(uint32_t pair, const RdmaCompletion& c);
    /// \return the index in m_pairs of (src, dst, channel), or UINT32_MAX
    uint32_t FindPair(uint32_t src, uint32_t dst, uint32_t channel) const;
    /// FindPair, for a connection a partitioned transport must have prepared.
    uint32_t PreparedPair(uint32_t src, uint32_t dst, uint32_t channel, uint32_t k) const;
    /// Partitioned: the receiving rank learns of a message (a Broadcast's handler).
    void Announced(const uint8_t* data, uint32_t size);
    /// Partitioned: pair `pair` will carry `m` (or already has: it arrives now).
    void Expect(uint32_t pair, const Pending& m);
    /// A message of pair `pair` fully arrived: tell its listener.
    void Deliver(uint32_t pair, Pending m);

    NodeContainer m_nodes;
    std::vector<Pair> m_pairs;
    /// Per source rank: (channel << 32 | dst, pair index), sorted. Ranks talk to few peers
    /// (All-to-All: N-1), and a small sorted array stays in cache where a hash map's
    /// chained nodes did not (one lookup per message).
    std::vector<std::vector<std::pair<uint64_t, uint32_t>>> m_index;
    std::vector<Split> m_splits;
    std::vector<uint32_t> m_freeSplits;
    uint32_t m_qpsPerConnection{1};
    uint8_t m_dscp{0};
    uint32_t m_handler{0}; //!< partitioned: the mailbox handler of announcements
};

} // namespace ns3

#endif // RDMA_COLLECTIVE_TRANSPORT_H

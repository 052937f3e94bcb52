// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_COLLECTIVE_TRANSPORT_H
#define RDMA_COLLECTIVE_TRANSPORT_H

#include "collective-transport.h"

#include "ns3/node-container.h"

#include <deque>
#include <vector>

namespace ns3
{

class RdmaQueuePair;
struct RdmaCompletion;

/**
 * \ingroup ai-fabric
 * CollectiveTransport over RoCEv2: one persistent connected queue-pair pair per (src, dst) rank
 * pair, created on first use on the ranks' RdmaNics; a message is one RDMA WRITE; "arrived" is
 * the responder's receive completion (data in GPU memory). Ranks are the nodes given, in order.
 * A requester that exhausts its retries fires ConnectionFailed.
 */
class RdmaCollectiveTransport : public CollectiveTransport
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
    Ptr<RdmaQueuePair> GetQueuePair(uint32_t src, uint32_t dst) const;
    uint32_t GetNQueuePairs() const;

  protected:
    void DoDispose() override;

  private:
    struct Pair
    {
        Ptr<RdmaQueuePair> requester;
        Ptr<RdmaQueuePair> responder;
        std::deque<std::pair<CollectiveTransportListener*, uint64_t>> pending;
        uint32_t nextQp{0}; //!< the connection's first pair: the queue pair of its next message
        uint32_t src{0};
        uint32_t dst{0};
        bool failed{false}; //!< ConnectionFailed fired
    };

    /// The pair of (src, dst, key), created on first use. \return its index in m_pairs
    uint32_t GetPair(uint32_t src, uint32_t dst, uint32_t key);

    void Arrived(uint32_t pair, const RdmaCompletion& c);
    /// A requester's completion: an error status fires ConnectionFailed (once per pair).
    void Completed(uint32_t pair, const RdmaCompletion& c);
    /// \return the index in m_pairs of (src, dst, channel), or UINT32_MAX
    uint32_t FindPair(uint32_t src, uint32_t dst, uint32_t channel) const;

    NodeContainer m_nodes;
    std::vector<Pair> m_pairs;
    /// Per source rank: (channel << 32 | dst, pair index), sorted. Ranks talk to few peers
    /// (All-to-All: N-1), and a small sorted array stays in cache where a hash map's
    /// chained nodes did not (one lookup per message).
    std::vector<std::vector<std::pair<uint64_t, uint32_t>>> m_index;
    uint32_t m_qpsPerConnection{1};
    uint8_t m_dscp{0};
};

} // namespace ns3

#endif // RDMA_COLLECTIVE_TRANSPORT_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef UET_COLLECTIVE_TRANSPORT_H
#define UET_COLLECTIVE_TRANSPORT_H

#include "ns3/collective-transport.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"

#include <deque>
#include <unordered_map>
#include <vector>

namespace ns3
{

class UetPdc;
struct UetMessage;

/**
 * \ingroup ai-fabric
 * CollectiveTransport over Ultra Ethernet, as NCCL's network plugins use UET: one PDC per
 * (source rank, destination rank, channel), created on first use on the source's UetNic; a
 * message is one SES message (a WRITE into the peer's buffer) whose packets the PDC's load
 * balancer sprays over many paths; "arrived" is the target NIC's message completion (every
 * packet in, in posting order per PDC). Ranks are the nodes given, in order; each needs a
 * UetNic (UetHelper), whose receive callback this transport takes.
 */
class UetCollectiveTransport : public CollectiveTransport
{
  public:
    static TypeId GetTypeId();
    UetCollectiveTransport();
    ~UetCollectiveTransport() override;

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

    /// The PDC from src to dst on `channel` (null before their first message).
    /**
     * Split across MPI ranks as RdmaCollectiveTransport is: the sender's rank posts a message
     * and announces it (listener, token, post time) to the receiving rank through
     * FabricRankMailbox, which expects it `messageDelay` after the post (a message in before
     * its announcement arrives with it); PDCs are created by Prepare, in the schedule's order on
     * every rank.
     */
    void SetPartitioned(Time messageDelay) override;
    bool CanPartition() const override;
    bool IsLocal(uint32_t rank) const override;
    uint32_t GetNodeId(uint32_t rank) const override;
    /// Create the PDC of (src, dst, channel) on src's UetNic if it does not exist.
    void Prepare(uint32_t src, uint32_t dst, uint32_t channel) override;

    Ptr<UetPdc> GetPdc(uint32_t src, uint32_t dst, uint32_t channel = 0) const;
    uint32_t GetNPdcs() const;

  protected:
    void DoDispose() override;

  private:
    struct Pair
    {
        Ptr<UetPdc> pdc;

        /// A message in flight: who waits for it, its token, and when it was handed over.
        struct Pending
        {
            CollectiveTransportListener* listener{nullptr};
            uint64_t token{0};
            Time posted;
        };

        std::deque<Pending> pending;
        std::deque<uint64_t> early; //!< partitioned: sizes of messages in before announced
        uint32_t src{0};
        uint32_t dst{0};
        Ipv4Address local; //!< src's address (with the PDC id: a message is this pair's)
    };

    /// A PDC of rank `src`'s NIC stopped: its connection failed (NCCL aborts on it).
    static void PdcFailed(UetCollectiveTransport* t, uint32_t src, uint32_t pdcId);

    /// What a partitioned sender tells the receiving rank about a message (Broadcast's bytes).
    struct Announcement
    {
        uint32_t pair;
        uint32_t listener; //!< CollectiveTransport::AddListener's index
        uint64_t token;
        int64_t posted; //!< time steps
    };

    static uint64_t Key(uint32_t src, uint32_t dst, uint32_t channel);
    /// The pair of (src, dst, channel), created if `create` (else it must exist).
    uint32_t PairOf(uint32_t src, uint32_t dst, uint32_t channel, bool create);
    void Arrived(const UetMessage& m);
    void Announced(const uint8_t* data, uint32_t size);
    /// Pair `pair`'s message of `bytes` and `w` fully arrived: tell its listener.
    void Deliver(uint32_t pair, uint64_t bytes, Pair::Pending w);

    NodeContainer m_nodes;
    std::vector<Pair> m_pairs;
    std::unordered_map<uint64_t, uint32_t> m_index;
    uint32_t m_handler{0}; //!< partitioned: the mailbox handler of announcements
};

} // namespace ns3

#endif // UET_COLLECTIVE_TRANSPORT_H

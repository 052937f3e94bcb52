// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_TRANSPORT_H
#define COLLECTIVE_TRANSPORT_H

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/// Told by a CollectiveTransport that a message has fully arrived.
class CollectiveTransportListener
{
  public:
    virtual ~CollectiveTransportListener() = default;
    /// The message sent with `token` has fully arrived at its destination.
    virtual void MessageArrived(uint64_t token) = 0;
};

/**
 * \ingroup ai-fabric
 * Transport-neutral messaging between ranks: "send N bytes from rank a to rank b, tell me when
 * they have all arrived". Collective algorithms run over it without knowing what is below:
 * RdmaCollectiveTransport (RoCEv2 queue pairs), NvlinkTransport (inside a server), and the
 * kernel-TCP transport. Messages between the same two ranks arrive in the order sent.
 */
class CollectiveTransport : public Object
{
  public:
    static TypeId GetTypeId();
    ~CollectiveTransport() override;

    virtual std::string GetName() const = 0;
    /// Packets this transport resent so far (all ranks).
    virtual uint64_t GetRetransmissions() const;
    /// Retransmission timeouts so far (all ranks).
    virtual uint64_t GetTimeouts() const;
    /// The receiving rank of the most recent retransmission timeout, or -1.
    virtual int32_t GetLastTimeoutReceiver() const;
    /// When that timeout fired, or -1 ns when none did.
    virtual Time GetLastTimeoutTime() const;
    /// Whether the transport models the host's software path of a message itself (copies,
    /// syscalls, threads: kernel TCP): the executor then adds no protocol latency to its hops.
    virtual bool ModelsHostSoftware() const;

    /**
     * Split the transport across MPI ranks, under FabricPartitionScheduler (on N ranks, or in
     * the same order on one): each rank's sends are issued only by the MPI rank that runs its
     * node, and what that MPI rank alone learns reaches the others `messageDelay` later
     * (FabricRankMailbox::GetMessageDelay). Call before the first Send. The base class refuses
     * (aborts): a transport that can run split overrides it.
     */
    virtual void SetPartitioned(Time messageDelay);
    /// Whether SetPartitioned is supported (false here).
    virtual bool CanPartition() const;

    /// Whether SetPartitioned was called.
    bool IsPartitioned() const
    {
        return m_partitioned;
    }

    /// SetPartitioned's delay (0 when not partitioned).
    Time GetMessageDelay() const
    {
        return m_messageDelay;
    }

    /// Whether the node of `rank` runs on this process's MPI rank (always, unpartitioned).
    virtual bool IsLocal(uint32_t rank) const;
    /**
     * The ns-3 id of the node of `rank`, or Simulator::NO_CONTEXT if this transport does not
     * know its nodes (the base class). A partitioned transport's users name with it the node a
     * message to the other MPI ranks is from (FabricRankMailbox::Broadcast's `origin`).
     */
    virtual uint32_t GetNodeId(uint32_t rank) const;
    /**
     * Create the connection (`src`, `dst`, `channel`) now if it does not exist yet. A
     * partitioned transport needs every connection created in an order every MPI rank shares
     * (queue pair numbers, and with them ECMP paths, follow the order): the executor prepares
     * a schedule's connections in the schedule's order before its first send. The base class
     * does nothing (connections of its own, or none).
     */
    virtual void Prepare(uint32_t src, uint32_t dst, uint32_t channel);
    /**
     * Name `listener` to other MPI ranks: a partitioned transport tells the receiving rank
     * which listener a message is for by this index. Every rank registers its listeners in
     * the same order (their objects are built alike). \return the index
     */
    uint32_t AddListener(CollectiveTransportListener* listener);
    /**
     * Send `bytes` from rank `src` to rank `dst`; tell `listener` (not owned) with `token` when
     * all of them are at `dst`. No allocation per message is needed: this is on the path of
     * every transfer of every collective. Messages of different `channel`s travel on separate
     * connections (queue pairs, sockets), hence on separate ECMP paths.
     */
    virtual void Send(uint32_t src,
                      uint32_t dst,
                      uint64_t bytes,
                      CollectiveTransportListener* listener,
                      uint64_t token,
                      uint32_t channel = 0) = 0;

    /**
     * Signature of ConnectionFailed: the connection from rank `src` to rank `dst` failed (its
     * queue pair exhausted its retries); messages on it never arrive. NCCL aborts the
     * communicator on such an error (a work completion with an error status is fatal to it),
     * so a job that sees this cannot finish its step.
     */
    typedef void (*ConnectionFailedTracedCallback)(uint32_t src, uint32_t dst);

    /**
     * Signature of MessageLatency: a message of `bytes` from rank `src` to rank `dst` arrived
     * `oneWay` after it was handed to the transport: one way, GPU memory to GPU memory, with
     * every cost on the way (RDMA: NIC, PCIe reads and writes, queueing behind earlier
     * messages of the connection, the fabric; kernel TCP: GPU<->host copies, syscalls and
     * user<->kernel copies, queueing for CPU cores, interrupt coalescing, the fabric).
     */
    typedef void (*MessageLatencyTracedCallback)(uint32_t src,
                                                 uint32_t dst,
                                                 uint64_t bytes,
                                                 Time oneWay);

  protected:
    /// Fire ConnectionFailed: once per failed connection, by the transport that lost it.
    void NotifyConnectionFailed(uint32_t src, uint32_t dst);
    /// Fire MessageLatency for a message sent at `posted` that has just fully arrived.
    void NotifyMessageLatency(uint32_t src, uint32_t dst, uint64_t bytes, Time posted);

    /**
     * For SetPartitioned: mark the transport partitioned with `messageDelay`, note this
     * process's MPI rank (m_mpiRank) and add `announced`, the receiver of the transport's
     * announcements, to FabricRankMailbox; from now on a failed connection is told to every MPI
     * rank, `messageDelay` after it failed (ConnectionFailed then fires on every rank at the
     * same time, so that all stop alike). \return the announcements' handler
     */
    uint32_t SetPartitionedBase(Time messageDelay,
                                std::function<void(const uint8_t*, uint32_t)> announced);
    /// AddListener's listener `index`.
    CollectiveTransportListener* GetListener(uint32_t index) const;
    /// AddListener's index of `listener` (aborts if it was not added).
    uint32_t GetListenerIndex(CollectiveTransportListener* listener) const;

    bool m_partitioned{false};
    Time m_messageDelay;
    uint32_t m_mpiRank{0}; //!< partitioned: this process's MPI rank

  private:
    std::vector<CollectiveTransportListener*> m_listeners;
    uint32_t m_failedHandler{0}; //!< partitioned: the mailbox handler of failed connections
    TracedCallback<uint32_t, uint32_t> m_connectionFailed;
    TracedCallback<uint32_t, uint32_t, uint64_t, Time> m_messageLatency;
};

} // namespace ns3

#endif // COLLECTIVE_TRANSPORT_H

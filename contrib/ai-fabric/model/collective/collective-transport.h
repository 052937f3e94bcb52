// SPDX-License-Identifier: GPL-2.0-only
#ifndef COLLECTIVE_TRANSPORT_H
#define COLLECTIVE_TRANSPORT_H

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <string>

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
    /// Whether the transport models the host's software path of a message itself (copies,
    /// syscalls, threads: kernel TCP): the executor then adds no protocol latency to its hops.
    virtual bool ModelsHostSoftware() const;
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

  private:
    TracedCallback<uint32_t, uint32_t> m_connectionFailed;
    TracedCallback<uint32_t, uint32_t, uint64_t, Time> m_messageLatency;
};

} // namespace ns3

#endif // COLLECTIVE_TRANSPORT_H

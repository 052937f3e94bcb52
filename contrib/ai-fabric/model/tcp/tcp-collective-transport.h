// SPDX-License-Identifier: GPL-2.0-only
#ifndef TCP_COLLECTIVE_TRANSPORT_H
#define TCP_COLLECTIVE_TRANSPORT_H

#include "host-stack-cost-model.h"

#include "ns3/address.h"
#include "ns3/collective-transport.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-socket-state.h"
#include "ns3/traced-callback.h"
#include "ns3/type-id.h"

#include <deque>
#include <unordered_map>
#include <vector>

namespace ns3
{

class Socket;
class Packet;

/**
 * \ingroup ai-fabric
 * CollectiveTransport over ns-3's own TCP (kernel TCP), one persistent connection per (src,
 * dst) rank pair opened on first use. The sender writes each message into the connection as
 * the send buffer allows; the receiver counts bytes, and a message has arrived when the stream
 * has delivered every byte up to its end (message sizes are agreed out of band, as NCCL's
 * protocols do, so no framing header is simulated). Every socket gets the Linux-like settings
 * of this object's attributes (defaults: facts.md §4): minimum RTO 200 ms, initial RTO 1 s,
 * delayed ACK 40 ms, CUBIC, MSS from the NIC's MTU (8,948 B for 9000), 4 MiB buffers.
 *
 * Hosts need ns-3's internet stack on their fabric NIC (FabricInternetHelper). When a host
 * also has a HostStackCostModel, messages pay its costs: the GPU -> host copy before the
 * socket writes, send calls on a core (one writer per connection), interrupt moderation and
 * softirq work before TCP sees the data, receive calls on a core (one reader per connection)
 * and the host -> GPU copy; the MessageBreakdown trace says where each message's time went.
 */
class TcpCollectiveTransport : public CollectiveTransport
{
  public:
    static TypeId GetTypeId();
    TcpCollectiveTransport();
    ~TcpCollectiveTransport() override;

    /// The rank -> host map; listening sockets are opened on every rank.
    void SetRanks(NodeContainer nodes);
    std::string GetName() const override;
    void Send(uint32_t src,
              uint32_t dst,
              uint64_t bytes,
              CollectiveTransportListener* listener,
              uint64_t token,
              uint32_t channel = 0) override;

    uint64_t GetRetransmissions() const override;
    uint64_t GetTimeouts() const override;
    int32_t GetLastTimeoutReceiver() const override;
    Time GetLastTimeoutTime() const override;
    /// True: the host cost model is the software path.
    bool ModelsHostSoftware() const override;
    /// Sums of every arrived message's breakdown (bytes = total bytes), and the message count.
    const HostStackBreakdown& GetBreakdownTotals() const;
    uint64_t GetMessagesArrived() const;
    /// The breakdown of the last message that arrived.
    const HostStackBreakdown& GetLastBreakdown() const;
    typedef void (*BreakdownTracedCallback)(const HostStackBreakdown& b);

    /// Fast retransmits (entries into TCP recovery) so far.
    uint64_t GetFastRecoveries() const;

    /// Apply the transport's TCP settings to a socket (also useful for other TCP apps).
    void ConfigureSocket(Ptr<Socket> s) const;
    uint32_t GetNConnections() const;

  protected:
    void DoDispose() override;

  private:
    struct Pending
    {
        uint64_t end;
        uint64_t bytes;
        CollectiveTransportListener* listener;
        uint64_t token;
        Time posted;
        Time copiedToHost; //!< GPU -> host copy done
        Time written;      //!< last byte written to the socket
        Time readable;     //!< last byte readable at the receiver
        Time copiedToUser; //!< last byte copied to user space
        bool hasWritten{false};
        bool hasReadable{false};
        bool hasCopiedToUser{false};
    };

    struct Conn
    {
        uint32_t src{0};
        uint32_t dst{0};
        Ptr<Socket> tx;
        Ptr<Socket> rx;
        bool connected{false};
        uint64_t queued{0};    //!< bytes posted by the sender
        uint64_t written{0};   //!< bytes handed to the socket
        uint64_t received{0};  //!< bytes readable at dst (in the kernel)
        uint64_t ready{0};     //!< bytes copied to host memory, ready to write (cost model)
        uint64_t user{0};      //!< bytes copied to the receiving user (cost model)
        uint64_t h2dIssued{0}; //!< bytes whose host -> GPU copy was started (cost model)
        uint64_t h2dDone{0};   //!< bytes in GPU memory at the receiver
        bool writerBusy{false};
        int64_t readerFree{0};
        size_t nextCopiedToHost{0}; //!< index into pending of the next message to reach host memory
        uint32_t highSent{0};       //!< highest sequence number sent + 1 (retransmission detection)
        std::deque<Pending> pending;
    };

    void Push(uint32_t c);
    void CopiedToHost(uint32_t c, uint64_t bytes);
    void Written(uint32_t c, uint32_t bytes);
    void CopiedToUser(uint32_t c, uint64_t bytes);
    void StageToGpu(uint32_t c);
    void CopiedToGpu(uint32_t c, uint64_t bytes);
    void Complete(uint32_t c);
    void Arrive(CollectiveTransportListener* listener, uint64_t token, HostStackBreakdown b);
    Ptr<HostStackCostModel> CostModel(uint32_t rank) const;
    void ConnectOk(Ptr<Socket> s);
    void ConnectFail(Ptr<Socket> s);
    void SendSpace(Ptr<Socket> s, uint32_t available);
    bool AcceptRequest(Ptr<Socket> s, const Address& from);
    void Accepted(Ptr<Socket> s, const Address& from);
    void Receive(Ptr<Socket> s);
    void CongState(uint32_t c,
                   TcpSocketState::TcpCongState_t from,
                   TcpSocketState::TcpCongState_t to);
    void SegmentSent(uint32_t c,
                     Ptr<const Packet> p,
                     const TcpHeader& h,
                     Ptr<const TcpSocketBase> s);

    NodeContainer m_nodes;
    std::vector<Ptr<Socket>> m_listeners;
    std::vector<Conn> m_conns;
    std::unordered_map<uint64_t, uint32_t> m_index;         //!< (src, dst) -> connection
    std::unordered_map<const Socket*, uint32_t> m_bySocket; //!< socket -> connection
    std::unordered_map<uint32_t, uint32_t> m_rankOf;        //!< IPv4 address -> rank

    HostStackBreakdown m_lastBreakdown;
    HostStackBreakdown m_totals;
    uint64_t m_messages{0};
    TracedCallback<const HostStackBreakdown&> m_breakdownTrace;
    uint64_t m_retransmissions{0};
    uint64_t m_timeouts{0};
    uint64_t m_fastRecoveries{0};
    int32_t m_lastTimeoutReceiver{-1};
    Time m_lastTimeoutAt{TimeStep(-1)};
    uint16_t m_port{5001};
    uint32_t m_segmentSize{0};
    Time m_minRto;
    Time m_initialRto;
    Time m_delAck;
    uint32_t m_bufferBytes{4 << 20};
    uint32_t m_staging{512 * 1024};
    TypeId m_cc;
};

} // namespace ns3

#endif // TCP_COLLECTIVE_TRANSPORT_H

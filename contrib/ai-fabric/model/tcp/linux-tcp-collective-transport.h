// SPDX-License-Identifier: GPL-2.0-only
#ifndef LINUX_TCP_COLLECTIVE_TRANSPORT_H
#define LINUX_TCP_COLLECTIVE_TRANSPORT_H

#include "host-stack-cost-model.h"
#include "linux-tcp-stack.h"

#include "ns3/collective-transport.h"
#include "ns3/node-container.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * CollectiveTransport as NCCL's socket transport (src/transport/net_socket.cc) runs it over the
 * Linux TCP model (LinuxTcpStack on every rank's host): every (src, dst, channel) connection is
 * SocketsPerPeer x Threads sockets (NCCL_NSOCKS_PERTHREAD x NCCL_SOCKET_NTHREADS); a message is
 * split into tasks of max(MinTaskBytes, size / sockets) (MIN_CHUNKSIZE 64 KiB), handed to the
 * sockets round robin, and socket k is served by helper thread k mod Threads on both sides, so
 * sender and receiver agree on which bytes travel where without a framing header.
 *
 * With a HostStackCostModel on a host, messages pay its costs: the GPU -> host copy (pipelined
 * in StagingBytes pieces), send calls of up to SendChunk bytes on a core (one call at a time
 * per helper thread), the interrupt and softirq work of the stack's receive path, receive
 * calls on a core (one at a time per helper thread) and the host -> GPU copy of each task; the
 * MessageBreakdown trace says where each message's time went. Without one, writes and reads
 * happen as soon as buffer space or data allows.
 *
 * Split across MPI ranks (SetPartitioned), a message's sender side (tasks to write, the copy to
 * the host, the send calls) runs on the sender's rank and its receiver side (tasks to read, the
 * receive calls, the copy to the GPU) on the receiver's: the sender announces the message to
 * every rank (FabricRankMailbox), and the receiver's rank queues its tasks a message delay D
 * after it was posted (bytes that arrive earlier wait in the socket until then); when the last
 * task is written the sender tells the receiver's rank its copy and write times, for the
 * breakdown. Connections must be prepared (Prepare) in one order on every rank.
 */
class LinuxTcpCollectiveTransport : public CollectiveTransport, public LinuxTcpListener
{
  public:
    static TypeId GetTypeId();
    LinuxTcpCollectiveTransport();
    ~LinuxTcpCollectiveTransport() override;

    /// The rank -> host map; every host needs a LinuxTcpStack (aggregated to its node).
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
    /// Tail loss probes sent so far (all ranks' stacks; the LossProbe trace fires on each).
    uint64_t GetLossProbes() const;
    /// The receiving rank of the most recent tail loss probe, or -1.
    int32_t GetLastLossProbeReceiver() const;
    bool ModelsHostSoftware() const override;
    void SetPartitioned(Time messageDelay) override;
    bool CanPartition() const override;
    bool IsLocal(uint32_t rank) const override;
    uint32_t GetNodeId(uint32_t rank) const override;
    /// Open the connection's sockets now (in one order on every rank when partitioned).
    void Prepare(uint32_t src, uint32_t dst, uint32_t channel) override;

    /// Sums over every rank's stack.
    LinuxTcpStackCounters GetCounters() const;
    const HostStackBreakdown& GetBreakdownTotals() const;
    uint64_t GetMessagesArrived() const;
    uint32_t GetNSockets() const;
    typedef void (*BreakdownTracedCallback)(const HostStackBreakdown& b);
    /**
     * Signature of LossProbe: rank `sender`'s stack sent a tail loss probe to rank `receiver`
     * (-1 when the probing socket is not one of this transport's).
     */
    typedef void (*LossProbeTracedCallback)(uint32_t sender, int32_t receiver);

    void SendSpace(uint64_t sock) override;
    void Readable(uint64_t sock) override;

  protected:
    void DoDispose() override;

  private:
    struct Msg
    {
        CollectiveTransportListener* listener{nullptr};
        uint64_t token{0};
        uint64_t bytes{0};
        uint64_t copied{0};    //!< bytes in host memory at the sender
        uint32_t tasksLeft{0}; //!< tasks not yet in GPU memory at the receiver
        uint32_t src{0};
        uint32_t dst{0};
        uint32_t conn{0};
        bool done{false};
        uint32_t tasksUnwritten{0}; //!< partitioned sender: tasks not yet fully written
        bool inGpu{false};          //!< partitioned receiver: every task is in GPU memory
        bool senderTimes{true};     //!< the sender's times (copiedToHost, written) are known
        Time posted;
        Time arrived; //!< in GPU memory
        Time copiedToHost;
        Time written;
        Time readable;
        Time read;
    };

    struct Task
    {
        uint64_t msg;    //!< message id
        uint64_t offset; //!< within the message
        uint64_t bytes;
        uint64_t done{0};
    };

    struct Sock
    {
        uint32_t src{0};
        uint32_t dst{0};
        uint32_t thread{0}; //!< index into m_threads (sender side) and m_rxThreads
        LinuxTcpStack::Connection conn;
        std::deque<Task> tx; //!< tasks still to write
        std::deque<Task> rx; //!< tasks still to read
    };

    struct Thread
    {
        std::vector<uint32_t> socks;
        uint32_t rr{0};
        bool busy{false};
    };

    struct Conn
    {
        uint32_t firstSock{0};
        uint32_t nSocks{0};
        uint32_t nextSock{0};   //!< the next message's first task's socket (sender)
        uint32_t nextRxSock{0}; //!< the same at the receiver, split (announcements)
    };

    /// A message posted, told to every MPI rank when split.
    struct Announcement
    {
        uint32_t src;
        uint32_t dst;
        uint32_t conn;
        uint32_t listener;
        uint64_t token;
        uint64_t bytes;
        uint64_t id; //!< the sender's message id
        int64_t posted;
    };

    /// A message's last task written: the sender's times, for the receiver's breakdown.
    struct WrittenTimes
    {
        uint64_t id; //!< the sender's message id
        uint32_t src;
        uint32_t dst;
        int64_t copiedToHost;
        int64_t written;
    };

    uint32_t Open(uint32_t src, uint32_t dst, uint32_t channel);
    /// Send's work, in the sender's node's context.
    void Post(const Announcement& a, CollectiveTransportListener* listener);
    /// Split, on every rank: the receiver's rank queues the announced message's tasks.
    void Announced(const uint8_t* data, uint32_t size);
    /// Split: read what came before the announcement, in the receiver's node's context.
    void Expect(const Announcement& a);
    /// Split, on every rank: the receiver's rank notes the sender's times of a message.
    void SenderTimes(const uint8_t* data, uint32_t size);
    /// Emit a message's breakdown once it is in GPU memory and its sender's times are known.
    void Account(Msg& m);
    void Write(uint32_t thread);
    void Written(uint32_t thread, uint32_t sock, uint64_t bytes);
    void ReadSome(uint32_t thread);
    void ReadDone(uint32_t thread, uint32_t sock, uint64_t bytes);
    void TaskRead(uint32_t sock, const Task& t);
    void TaskInGpu(uint64_t msg);
    void CopiedToHost(uint64_t msg, uint64_t bytes);
    Msg& GetMsg(uint64_t id);
    HostStackCostModel* Cost(uint32_t rank) const;
    void Prune();
    void TimedOut(uint32_t rank, uint32_t sender);
    void Probed(uint32_t rank, uint32_t sender);

    NodeContainer m_nodes;
    std::vector<Ptr<LinuxTcpStack>> m_stacks;
    std::vector<HostStackCostModel*> m_costs;
    std::unordered_map<uint64_t, uint32_t> m_index; //!< (channel, src, dst) -> connection
    std::vector<Conn> m_conns;
    std::vector<Sock> m_socks;
    std::vector<Thread> m_txThreads;
    std::vector<Thread> m_rxThreads;
    std::deque<Msg> m_msgs; //!< messages in flight; index = id - m_msgBase
    uint64_t m_msgBase{0};
    std::vector<std::unordered_map<uint32_t, uint32_t>> m_senderSock; //!< per rank: sender -> sock
    int32_t m_lastTimeoutReceiver{-1};
    Time m_lastTimeoutAt{TimeStep(-1)};
    int32_t m_lastProbeReceiver{-1};
    uint64_t m_probes{0};
    uint32_t m_socketsPerThread{1};
    uint32_t m_threads{1};
    uint32_t m_minTask{65536};
    uint32_t m_staging{512 * 1024};
    uint16_t m_port{5001};
    HostStackBreakdown m_totals;
    uint32_t m_handler{0};        //!< split: announcements
    uint32_t m_writtenHandler{0}; //!< split: the sender's times
    /// split, at the receiver: (src, the sender's id) -> this rank's message id
    std::unordered_map<uint64_t, uint64_t> m_remote;
    uint64_t m_arrived{0};
    TracedCallback<const HostStackBreakdown&> m_breakdownTrace;
    TracedCallback<uint32_t, int32_t> m_lossProbeTrace;
};

} // namespace ns3

#endif // LINUX_TCP_COLLECTIVE_TRANSPORT_H

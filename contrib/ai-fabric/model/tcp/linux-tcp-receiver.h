// SPDX-License-Identifier: GPL-2.0-only
#ifndef LINUX_TCP_RECEIVER_H
#define LINUX_TCP_RECEIVER_H

#include "linux-tcp-segment.h"

#include "ns3/event-id.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class LinuxTcpStack;

/// Receiver counters.
struct LinuxTcpReceiverStats
{
    uint64_t segments{0}; //!< data frames received (after GRO: their segs)
    uint64_t acksSent{0};
    uint64_t delayedAcks{0}; //!< ACKs sent by the delayed-ACK timer
    uint64_t dsacksSent{0};
    uint64_t outOfOrder{0}; //!< segments that arrived above a hole
    uint64_t duplicates{0}; //!< segments that carried only data already received
    uint64_t ceSegments{0};
};

/**
 * \ingroup ai-fabric
 * The receiving half of one Linux TCP connection: in-order delivery into the receive buffer,
 * the out-of-order queue as SACK blocks, ACK decisions as __tcp_ack_snd_check makes them (at
 * once when more than one full segment is unacknowledged, in quick-ACK mode, for out-of-order
 * data and duplicates; otherwise the delayed-ACK timer, TCP_DELACK_MIN 40 ms), quick-ACK mode
 * at the start and after out-of-order data (TCP_MAX_QUICKACKS 16), D-SACK for duplicates,
 * DCTCP's exact CE echo (an immediate ACK when the CE state changes, ECE on ACKs while it is
 * set), timestamps (ts_recent from the segment at the last ACK point) and the receive window
 * (the buffer minus unread and out-of-order bytes, window updates when the application frees
 * space).
 */
class LinuxTcpReceiver
{
  public:
    LinuxTcpReceiver(LinuxTcpStack* stack, uint32_t id);
    ~LinuxTcpReceiver();

    void SetPeer(uint32_t localAddr,
                 uint32_t remoteAddr,
                 uint16_t localPort,
                 uint16_t remotePort,
                 uint32_t peerEndpoint,
                 uint32_t mss,
                 bool ecn);

    /// A data segment (GRO unit) arrived.
    void ReceiveData(const LinuxTcpRxSegment& seg);
    /// In-order bytes not yet read by the application.
    uint64_t GetReadable() const;
    /// The application read `bytes` (<= GetReadable()).
    void Read(uint64_t bytes);
    /// Bytes received in order so far (rcv_nxt).
    uint64_t GetRcvNxt() const;
    uint32_t GetWindow() const;
    const LinuxTcpReceiverStats& GetStats() const;

  private:
    struct Block
    {
        uint64_t start;
        uint64_t end;
    };

    void SendAck(bool delayed);
    void DelAckFired();
    void ScheduleDelAck();

    LinuxTcpStack* m_stack;
    uint32_t m_id;
    LinuxTcpReceiverStats m_stats;
    uint32_t m_local{0};
    uint32_t m_remote{0};
    uint16_t m_localPort{0};
    uint16_t m_remotePort{0};
    uint32_t m_peerEndpoint{0};
    uint32_t m_flowHash{0};
    uint32_t m_mss{1448};
    bool m_ecn{false};

    uint64_t m_rcvNxt{0};
    uint64_t m_rcvWup{0};     //!< rcv_nxt at the last ACK sent
    uint64_t m_read{0};       //!< bytes the application has read
    uint32_t m_lastWindow{0}; //!< window in the last ACK
    std::vector<Block> m_ofo; //!< out-of-order blocks, sorted
    Block m_lastSack{0, 0};   //!< the block with the most recent segment
    Block m_dsack{0, 0};      //!< a duplicate to report (end > start)
    int64_t m_tsRecent{0};
    uint32_t m_quick{16}; //!< quick ACKs left
    bool m_ceState{false};
    bool m_ackPending{false};
    bool m_pushed{false}; //!< a short segment arrived since the last ACK
    EventId m_delAck;
    int64_t m_delAckAt{-1};      //!< when the scheduled event runs (-1: none)
    int64_t m_delAckDeadline{0}; //!< when the pending delayed ACK is due
};

} // namespace ns3

#endif // LINUX_TCP_RECEIVER_H

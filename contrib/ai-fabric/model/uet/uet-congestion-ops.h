// SPDX-License-Identifier: GPL-2.0-only
#ifndef UET_CONGESTION_OPS_H
#define UET_CONGESTION_OPS_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The window state of one UET packet-delivery context (PDC) that congestion control acts on.
 * Bytes are payload bytes (what the window limits in flight).
 */
struct UetCcState
{
    uint64_t cwnd{0};     //!< congestion window (bytes)
    uint64_t minCwnd{0};  //!< lower bound (one MSS)
    uint64_t maxCwnd{0};  //!< upper bound
    uint64_t inFlight{0}; //!< payload bytes sent and neither acknowledged nor known lost
    uint32_t mss{4096};   //!< payload bytes of a full packet
    DataRate lineRate;    //!< the NIC's line rate
    Time networkRtt;      //!< the unloaded RTT the network is sized for (NSCC's BDP)
    Time baseRtt;         //!< the smallest RTT seen on this PDC (starts at networkRtt)
    bool trimming{true};  //!< the network trims instead of dropping (NSCC's target delay)
    uint32_t mtuWire{0};  //!< wire bytes of a full data packet (what credit is counted in)

    // Receiver credit (RCCC). With useCredit the NIC sends a packet only while credit > 0 (and
    // the window allows), takes the packet's wire bytes off it, and carries CreditTarget() to
    // the target in the packet's CC state; the target's UetCreditScheduler paces CREDITs back.
    bool useCredit{false};   //!< the PDC sends only on credit (set by Init)
    int64_t credit{0};       //!< wire bytes the PDC may still send (may go below 0 by a packet)
    int64_t maxCredit{0};    //!< cap on credit
    bool speculating{false}; //!< credit is still the initial (speculative) credit
};

/// What the PDC has to send, for its credit target (UetCongestionOps::CreditTarget).
struct UetCreditDemand
{
    uint64_t granted{0};       //!< wire bytes the target granted so far (cumulative)
    uint64_t backlog{0};       //!< wire bytes still to send: new data and retransmissions
    uint32_t activeSources{1}; //!< PDCs of this NIC with something to send (>= 1)
};

/// What one ACK tells congestion control (UetCongestionOps::AckReceived).
struct UetAckSample
{
    uint64_t newlyAckedBytes{0}; //!< payload bytes this ACK newly acknowledged (cumulative+SACK)
    Time rtt;                    //!< now minus the send time of the packet that triggered it
    bool ecn{false};             //!< that packet arrived CE-marked
    /// The target's back-pressure from the ACK_CC (UEC 1.0's scale, 0..127: the sender takes
    /// newlyAckedBytes x p / 128 off its window; 0 = none). UetNic::ReceiveRate.
    uint8_t receiverPressure{0};
};

/**
 * \ingroup ai-fabric
 * Congestion control of one UET PDC (the TcpCongestionOps / RdmaCongestionOps pattern): a small
 * object that sets the PDC's window (UetCcState::cwnd); the NIC sends a packet only while the
 * bytes in flight plus that packet fit in it (one packet is always allowed).
 *
 * The NIC creates one instance per sending PDC from an ObjectFactory (UetNic's
 * CongestionControl attribute): attributes are per-NIC configuration, members per-PDC state.
 * It receives, in simulated-time order: Init (once, state filled with the line rate, MSS and
 * network RTT; set cwnd and its bounds), AckReceived for every ACK (after the SACK was applied:
 * `s.inFlight` is already reduced), NackReceived for every NACK of a trimmed packet (its bytes
 * are already out of `s.inFlight`), and Timeout for every retransmission timeout (with the bytes
 * it declared lost). It must only set s.cwnd (the NIC clamps nothing: keep it within
 * [minCwnd, maxCwnd]); it never sends or drops packets.
 *
 * Receiver credit (RCCC): a subclass that sets s.useCredit in Init also gets CreditReceived
 * for every CREDIT from the target (the bytes newly granted; it sets s.credit), and is asked
 * CreditTarget when a packet leaves (the cumulative wire bytes of credit it asks the target
 * for, carried in that packet). The NIC spends s.credit; the subclass decides how much to ask
 * for and what to do with it.
 */
class UetCongestionOps : public Object
{
  public:
    static TypeId GetTypeId();
    ~UetCongestionOps() override;

    virtual std::string GetName() const = 0;
    /// The PDC starts: set cwnd, minCwnd and maxCwnd.
    virtual void Init(UetCcState& s) = 0;
    /// An ACK arrived.
    virtual void AckReceived(UetCcState& s, const UetAckSample& ack) = 0;
    /// A NACK for a trimmed packet of `bytes` arrived (`lastHop`: trimmed at the last hop).
    virtual void NackReceived(UetCcState& s, uint32_t bytes, bool lastHop);
    /// The retransmission timer declared `lostBytes` lost.
    virtual void Timeout(UetCcState& s, uint64_t lostBytes);
    /// RCCC: a CREDIT granted `bytes` more wire bytes (default: adds them to s.credit).
    virtual void CreditReceived(UetCcState& s, uint64_t bytes);
    /// RCCC: the cumulative credit (wire bytes) to ask the target for (default: d.granted).
    virtual uint64_t CreditTarget(const UetCcState& s, const UetCreditDemand& d) const;
};

} // namespace ns3

#endif // UET_CONGESTION_OPS_H

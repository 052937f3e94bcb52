// SPDX-License-Identifier: GPL-2.0-only
#ifndef IB_CREDIT_FLOW_CONTROL_H
#define IB_CREDIT_FLOW_CONTROL_H

#include "fabric-flow-control.h"

#include "ns3/event-id.h"
#include "ns3/fabric-timer.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <array>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * InfiniBand credit-based link-level flow control per virtual lane (IBA vol. 1 §7.9), on the
 * FabricFlowControl seam of a FabricNetDevice whose LinkLayer is InfiniBand.
 *
 * Credits are 64-byte blocks. The receive side of each port owns RxBufferBytes per data VL and
 * advertises a flow-control credit limit FCCL = (blocks released so far) + (buffer blocks); the
 * transmit side counts the blocks it sent (FCTBS) and may send on VL v only while
 * FCCL − FCTBS covers the largest packet the link carries (so a VL blocks exactly when the next
 * full-size packet would not fit). Credits are returned by flow-control packets (FCPs: 6 bytes,
 * no LRH, sent ahead of data like VL15, never subject to credits): one as soon as
 * CreditUpdateBlocks blocks have been released since the last FCP of that VL or the VL's buffer
 * has drained, and any smaller remainder after CreditUpdateDelay. Lossless by construction: a
 * packet only leaves when the peer has buffer for it; a receive buffer above its advertised size
 * would be a model error and is counted (GetOverruns) rather than hidden.
 *
 * SL→VL: a fabric-wide table (SlToVl) maps the 16 service levels onto NumDataVls data VLs; host
 * channel adapters apply it when a queue pair picks its VL (frame priority = VL), switches keep
 * the VL. VL arbitration is the device's egress scheduler (DwrrEgressScheduler weights = the
 * VLArbitration low-priority table; strict priority = the high-priority table).
 *
 * Congestion marking (IBA Annex A10 switch port setting) is configured here for the egress side
 * of switch ports: a data packet enqueued when the egress VL queue holds at least FecnThreshold
 * bytes is marked FECN if the port is the root of the congestion (it has credits for that VL) or
 * MarkVictims is set, if it is at least MinMarkBytes long, and then only one in MarkingRate + 1.
 *
 * A data packet lost on the way in (corrupt, link down, no route) returns its credits at once:
 * IBA recovers them when the next FCP's FCTBS resynchronizes the receiver's ABR; here the
 * receiver counts the lost blocks as released.
 *
 * With CreditRefreshInterval > 0 the receive side also re-sends the FCP of every VL that
 * received data, periodically (IBA: at least every 65,536 symbol times), for as long as data
 * keeps arriving, so an idle fabric still runs out of events.
 *
 * Not modelled: the initial credit exchange at link training (each side starts with the peer's
 * advertised buffer), lost FCPs (FCPs are never corrupted here, so the periodic refresh is off
 * by default), the 12-bit wrap of FCTBS/FCCL (counters are exact), and per-port SL→VL tables.
 */
class IbCreditFlowControl : public FabricFlowControl
{
  public:
    static TypeId GetTypeId();
    IbCreditFlowControl();
    ~IbCreditFlowControl() override;

    static constexpr uint32_t BLOCK_BYTES = 64; //!< one credit
    static constexpr uint32_t FCP_BYTES = 6;    //!< flow-control packet on the wire (with LPCRC)
    static constexpr uint32_t FCP_MAGIC = 0x1bfc0000; //!< aux[3] tag of an FCP descriptor

    /// \return the number of credits (64-byte blocks) a packet of `bytes` uses
    static uint32_t Blocks(uint32_t bytes)
    {
        return (bytes + BLOCK_BYTES - 1) / BLOCK_BYTES;
    }

    bool IsLossless(uint8_t prio) const override;
    void NotifyTransmit(uint8_t prio, uint32_t wireBytes) override;
    void ReceiveControl(const FabricFrame& frame) override;
    void NotifyReceive(uint8_t prio, uint32_t wireBytes) override;
    void NotifyRelease(uint8_t prio, uint32_t wireBytes) override;
    void NotifyLost(uint8_t prio, uint32_t bytes) override;
    void SetIngressCongested(uint8_t prio, bool congested) override;

    /// The VL a service level maps to.
    uint8_t GetVl(uint8_t sl) const;

    uint32_t GetNumDataVls() const;
    /// Receive buffer per VL in blocks (what this port advertises).
    uint32_t GetRxBufferBlocks() const;
    /// Transmit side: credits (blocks) available on `vl` now.
    uint64_t GetCreditsAvailable(uint8_t vl) const;
    /// Receive side: blocks held in the buffer of `vl` now, and the maximum ever held.
    uint32_t GetRxOccupancy(uint8_t vl) const;
    uint32_t GetRxMaxOccupancy(uint8_t vl) const;
    /// Receive side: blocks released on `vl` so far (lost packets' blocks included).
    uint64_t GetBlocksReleased(uint8_t vl) const;
    /// Receive side: times a VL held more than it advertised (0 unless the model is broken).
    uint64_t GetOverruns() const;
    /// Transmit side: total time `vl` was blocked waiting for credits, and how many times.
    Time GetStallTime(uint8_t vl) const;
    uint64_t GetStalls(uint8_t vl) const;
    uint64_t GetFcpsSent() const;
    uint64_t GetFcpsReceived() const;
    uint64_t GetFecnMarks() const;

    /**
     * Egress side (switch ports): should a data packet of `bytes` on `vl` entering an egress
     * queue that holds `queueBytes` be marked FECN? Counts the mark when it says yes.
     */
    bool ShouldMarkFecn(uint8_t vl, uint32_t queueBytes, uint32_t bytes);

    /**
     * \return the priorities (VLs, VCs) whose frames travel on credits: every one here; a
     * subclass may credit some only (the others are lossy and the switch buffer admits them).
     */
    virtual uint8_t GetCreditedMask() const;

    /// Signature of CreditsAvailable: VL, credits (blocks) available to the transmitter.
    typedef void (*CreditsTracedCallback)(uint8_t vl, uint64_t blocks);
    /// Signature of CreditStall: VL, how long the transmitter waited for credits.
    typedef void (*StallTracedCallback)(uint8_t vl, Time waited);

  protected:
    void DoDispose() override;
    /// Return credits once this many blocks were released (the CreditUpdateBlocks attribute).
    void SetCreditUpdateBlocks(uint32_t blocks);

  private:
    void InitTx();
    void SendFcp(uint8_t vl);
    void Flush(uint8_t vl);
    void Refresh();
    void UpdateBlocked(uint8_t vl);
    void SetSlToVl(std::string table);
    std::string GetSlToVl() const;

    // configuration
    uint32_t m_numDataVls{8};
    uint32_t m_rxBufferBytes{131072};
    uint32_t m_updateBlocks{1};
    Time m_updateDelay;
    Time m_refreshInterval;
    uint32_t m_maxPacketBytes{0};
    std::array<uint8_t, 16> m_slToVl{};
    uint32_t m_fecnThreshold{0};
    bool m_markVictims{false};
    uint32_t m_markingRate{0};
    uint32_t m_minMarkBytes{0};

    // transmit side
    bool m_txInit{false};
    uint32_t m_maxPacketBlocks{0};
    std::array<uint64_t, 8> m_txSent{};  //!< FCTBS: blocks sent
    std::array<uint64_t, 8> m_txLimit{}; //!< FCCL last received
    uint8_t m_blockedMask{0};
    std::array<int64_t, 8> m_stallStart{};
    std::array<int64_t, 8> m_stallSteps{};
    std::array<uint64_t, 8> m_stalls{};

    // receive side
    std::array<uint32_t, 8> m_rxUsed{};
    std::array<uint32_t, 8> m_rxMax{};
    std::array<uint64_t, 8> m_rxReleased{};   //!< blocks released (ABR when the buffer drains)
    std::array<uint64_t, 8> m_rxAdvertised{}; //!< FCCL last sent
    std::array<FabricTimer, 8> m_flush;
    FabricTimer m_refresh;
    uint8_t m_activeMask{0}; //!< VLs that received data since the last periodic refresh
    uint64_t m_overruns{0};

    // egress marking
    std::array<uint32_t, 8> m_markCounter{};
    uint64_t m_fecnMarks{0};

    uint64_t m_fcpsSent{0};
    uint64_t m_fcpsReceived{0};
    TracedCallback<uint8_t, uint64_t> m_creditsTrace;
    TracedCallback<uint8_t, Time> m_stallTrace;
};

} // namespace ns3

#endif // IB_CREDIT_FLOW_CONTROL_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef PFC_FLOW_CONTROL_H
#define PFC_FLOW_CONTROL_H

#include "fabric-flow-control.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <array>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * IEEE 802.1Qbb Priority-based Flow Control on a FabricNetDevice.
 *
 * Transmit side: a received PFC frame pauses each enabled class for quanta × 512 bit-times at
 * this link's rate (a frame already on the wire finishes); a quanta of 0 resumes at once; a new
 * PAUSE replaces the running timer. Receive side: when the switch buffer manager reports an
 * ingress priority congested (XOFF), a PAUSE with PauseQuanta is sent upstream at once and
 * refreshed before it expires while the congestion lasts; when it reports XON, a PAUSE with
 * quanta 0 (resume) is sent. PFC frames are real 64-byte MAC-control frames (84 bytes on the
 * wire with preamble and IFG) that bypass the data queues.
 *
 * Not modelled: PFC watchdog / deadlock recovery. PFC frames are lost to bit errors only with the
 * receiving device's ControlErrorRate (ReceiveErrorRate applies to data frames).
 */
class PfcFlowControl : public FabricFlowControl
{
  public:
    static TypeId GetTypeId();
    PfcFlowControl();
    ~PfcFlowControl() override;

    bool IsLossless(uint8_t prio) const override;
    bool CountsTraffic() const override; // false: the switch's buffer manager counts for PFC
    void ReceiveControl(const FabricFrame& frame) override;
    void SetIngressCongested(uint8_t prio, bool congested) override;

    /// \return true if transmissions of `prio` are paused by the peer now
    bool IsPaused(uint8_t prio) const;
    /// \return true if we currently hold the upstream of `prio` paused
    bool IsHoldingPause(uint8_t prio) const;
    /**
     * A pause storm: hold the peer's `prio` paused regardless of our buffer, refreshing the
     * PAUSE for as long as the storm lasts (a NIC or port whose pause generator is stuck: the
     * "PFC storm" of lossless-fabric operations). Ending it resumes the peer unless congestion
     * still holds it.
     */
    void SetStorm(uint8_t prio, bool on);
    /// \return true while SetStorm holds `prio`
    bool IsStorming(uint8_t prio) const;
    /**
     * Transmit side: honour PAUSE frames for `prio` or not (a PFC watchdog's mitigation). While
     * ignored, PAUSEs are still counted and traced but do not stop transmission; ignoring ends a
     * pause in force.
     */
    void SetIgnorePause(uint8_t prio, bool ignore);
    bool IsIgnoringPause(uint8_t prio) const;
    /**
     * \return when the pause in force on `prio` began (pauses refreshed before they expire
     * count as one); meaningful while IsPaused(prio)
     */
    Time GetPausedSince(uint8_t prio) const;
    /// \return when the last PAUSE (quanta > 0) for `prio` arrived, ignored or not (-1 s: never)
    Time GetLastPauseReceived(uint8_t prio) const;

    uint64_t GetPauseFramesSent() const;
    uint64_t GetResumeFramesSent() const;
    uint64_t GetPauseFramesReceived() const;
    /**
     * Time transmissions of `prio` have been paused by the peer so far (pauses still in force
     * counted up to now): the same measure as IbCreditFlowControl::GetStallTime.
     */
    Time GetPausedTime(uint8_t prio) const;

    /**
     * PFC headroom for one port and priority, in bytes (see doc/ai-fabric.rst, from IEEE
     * 802.1Qbb as worked in the Cisco PFC white paper): the largest frame the peer may be sending
     * when it gets the PAUSE, the largest frame we may be sending when we decide, the PFC frame
     * itself, the bytes on the cable in both directions, and the peer's interface and response
     * delays.
     * \param rate link rate
     * \param cableMeters cable length (5 ns/m)
     * \param mtuBytes largest frame on the wire (bytes, including headers)
     * \param responseBits the peer's response delay in bit-times (0: the 802.1Qbb upper bound
     *        for the rate: 3840 B at 10G, 201,728 bits at 100G, 463,360 bits at 400G and above)
     * \param interfaceBits interface delay in bit-times (122,880 at 100G in the Cisco paper)
     */
    static uint64_t ComputeHeadroom(DataRate rate,
                                    double cableMeters,
                                    uint32_t mtuBytes,
                                    uint64_t responseBits = 0,
                                    uint64_t interfaceBits = 0);

    /// The 802.1Qbb upper bound of the response delay for a link rate, in bit-times.
    static uint64_t DefaultResponseBits(DataRate rate);

    /// Signature of the PauseSent / PauseReceived traces: priority, quanta (0 = resume).
    typedef void (*PauseTracedCallback)(uint8_t prio, uint16_t quanta);

  protected:
    void DoDispose() override;

  private:
    void SendPause(uint8_t prio, uint16_t quanta);
    /// Start or stop holding the peer's `prio` paused as congestion or a storm requires.
    void UpdateHold(uint8_t prio);
    void Refresh(uint8_t prio);
    /// RefreshInterval, or half the pause time when it is zero.
    Time RefreshEvery() const;
    void Expire(uint8_t prio);

    uint8_t m_enabled{0x08}; //!< bitmask of lossless (PFC-enabled) priorities
    uint16_t m_pauseQuanta{0xffff};
    Time m_refreshInterval; //!< zero: half the pause time
    std::array<EventId, 8> m_expire;
    std::array<EventId, 8> m_refresh;
    uint8_t m_pausedMask{0};           //!< tx side: priorities paused by the peer
    std::array<Time, 8> m_pausedSince; //!< when each paused priority was paused
    std::array<Time, 8> m_pausedTotal; //!< paused time of each priority, ended pauses
    std::array<Time, 8> m_lastPause{Seconds(-1),
                                    Seconds(-1),
                                    Seconds(-1),
                                    Seconds(-1),
                                    Seconds(-1),
                                    Seconds(-1),
                                    Seconds(-1),
                                    Seconds(-1)};
    uint8_t m_holdingMask{0};   //!< rx side: priorities we hold paused upstream
    uint8_t m_congestedMask{0}; //!< rx side: priorities the buffer says are congested
    uint8_t m_stormMask{0};     //!< rx side: priorities a storm holds paused
    uint8_t m_ignoreMask{0};    //!< tx side: priorities whose PAUSEs are ignored
    uint64_t m_pauseSent{0};
    uint64_t m_resumeSent{0};
    uint64_t m_pauseReceived{0};
    TracedCallback<uint8_t, uint16_t> m_pauseSentTrace;
    TracedCallback<uint8_t, uint16_t> m_pauseReceivedTrace;
};

} // namespace ns3

#endif // PFC_FLOW_CONTROL_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef UET_CREDIT_SCHEDULER_H
#define UET_CREDIT_SCHEDULER_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/fabric-timer.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * RCCC's target side: one credit scheduler per NIC shares the NIC's line rate among the PDCs
 * that ask it for credit (UetRccc on their initiators), so that what arrives at the target's
 * link never exceeds it.
 *
 * Each target PDC has a credit target (the cumulative wire bytes its initiator asked for,
 * carried in its data packets and CREDIT_REQUESTs) and a cumulative grant. The scheduler
 * serves PDCs whose grant is below their target round robin: each turn grants up to
 * GrantBytes (never past the target), sends it as a CREDIT (the cumulative grant), and waits
 * the time that many bytes take at RateFraction x line rate before the next turn. A PDC whose
 * target is met leaves the round; while no PDC waits, satisfied PDCs get GrantBytes at a time
 * of idle (speculative) credit each, up to IdleCreditBdps x BDP since they were satisfied, so
 * a PDC that posts again can start at once. A turn that grants nothing waits IdleGapBytes.
 * One pending event per scheduler; none while nobody asks.
 *
 * Values: UEC's reference simulator (ultraethernet/uet-htsim, sim/uec.cpp UecPullPacer and
 * UecSink::pull; main_uec.cpp: rate modifier 0.99, 4 MSS of credit per pull "as per default in
 * UEC spec", credit in 256 B units, idle credit up to the configured maximum window).
 */
class UetCreditScheduler : public Object
{
  public:
    static TypeId GetTypeId();
    UetCreditScheduler();
    ~UetCreditScheduler() override;

    /// The NIC's line rate, its network RTT (the BDP of IdleCreditBdps) and how to send a
    /// CREDIT: (target PDC id, cumulative wire bytes granted).
    void Setup(DataRate lineRate, Time networkRtt, Callback<void, uint16_t, uint64_t> send);
    /// PDC `pdc` asks for credit up to `target` (cumulative wire bytes; lower values ignored).
    void Request(uint16_t pdc, uint64_t target);

    uint64_t GetTarget(uint16_t pdc) const;
    uint64_t GetGranted(uint16_t pdc) const;
    /// PDCs waiting for credit now.
    uint32_t GetNActive() const;
    /// The pace: wire bytes of credit per second.
    double GetCreditRate() const;
    uint64_t GetCreditsSent() const;

    typedef void (*GrantTracedCallback)(uint16_t pdc, uint32_t bytes, uint64_t granted);

  protected:
    void DoDispose() override;

  private:
    enum State : uint8_t
    {
        NONE = 0,
        ACTIVE = 1,
        IDLE = 2,
    };

    struct Pdc
    {
        uint64_t target{0};
        uint64_t granted{0};
        uint64_t idleGranted{0};
        State state{NONE};
        bool inIdleQueue{false};
    };

    Pdc& Get(uint16_t pdc);
    void Start();
    void Turn();

    double m_fraction{0.99};
    uint32_t m_grantBytes{16384};
    double m_idleBdps{1.5};
    uint32_t m_idleGap{1024};

    DataRate m_rate;
    double m_bytesPerSecond{0};
    uint64_t m_idleCap{0};
    Callback<void, uint16_t, uint64_t> m_send;
    std::vector<Pdc> m_pdcs;
    std::deque<uint16_t> m_active; //!< round robin of PDCs below their target
    std::deque<uint16_t> m_idle;   //!< satisfied PDCs (entries whose state changed are stale)
    uint32_t m_nActive{0};
    FabricTimer m_timer;
    double m_due{0}; //!< when the current turn was due (s): the pace does not drift
    uint64_t m_credits{0};
    TracedCallback<uint16_t, uint32_t, uint64_t> m_grantTrace;
};

} // namespace ns3

#endif // UET_CREDIT_SCHEDULER_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef SWITCH_BUFFER_MANAGER_H
#define SWITCH_BUFFER_MANAGER_H

#include "ns3/fabric-flagged-trace.h"
#include "ns3/fabric-frame.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace ns3
{

class UniformRandomVariable;

/**
 * \ingroup ai-fabric
 * The shared packet buffer of a switch: admission, PFC thresholds and ECN marking.
 *
 * The buffer of BufferSize bytes is carved into a reserved minimum per ingress port×priority
 * (ReservedPerQueue), PFC headroom per ingress port×lossless priority (set per port by the switch
 * from the link's rate, cable and MTU, or fixed by the Headroom attribute), and a shared pool.
 * Every lossless priority of a port gets its own headroom bucket (a port with PFC on priorities 0
 * and 3 reserves twice its headroom): each class is paused on its own, so the in-flight bytes of
 * several classes can land in their buckets at the same time.
 * Each admitted frame is charged first to its ingress port×priority reserved space, then to the
 * shared pool, and — for a lossless priority that has sent XOFF, or when the pool is full — to
 * headroom. A lossless ingress priority releases bytes from its headroom bucket first, then
 * shared, then reserved; a lossy frame releases exactly what it was charged (the split travels
 * with the frame), so the egress dynamic threshold stays exact.
 *
 * - Lossless priorities (PFC enabled on the ingress port): XOFF when the ingress shared use
 *   reaches the threshold, static (PfcStaticXoff) or dynamic α·(free shared bytes) (PfcAlpha,
 *   Choudhury–Hahne dynamic threshold); XON when it falls to threshold − XonDelta. A lossless
 *   frame is dropped only if headroom overflows (HEADROOM_FULL; a misconfiguration signal).
 * - Lossy priorities: egress dynamic threshold, a queue's shared use must stay ≤
 *   EgressAlpha·(free shared bytes); otherwise the frame is dropped (BUFFER_FULL).
 * - ECN: RED-style marking on the egress queue length q at enqueue, for ECN-capable frames:
 *   p = 0 for q ≤ Kmin, Pmax·(q−Kmin)/(Kmax−Kmin) in between, 1 above Kmax. With EcnBelowXoff,
 *   Kmin and Kmax shrink (ratio kept) so that Kmax is reached before the earliest XOFF.
 *
 * Headroom grows with rate × cable length (400G over 5 km: ≈2.6 MB per bucket), and can exceed
 * the nominal BufferPerPort. With BufferSize 0 the buffer is then sized for its links: a switch
 * built for such cables has the memory their headroom needs, so the shared pool keeps at least
 * MinSharedFraction of BufferPerPort × ports. A fixed BufferSize is a real chip: CheckConfig
 * says why it cannot hold the reserved space and headroom (Configure aborts on it).
 *
 * The object is independent of devices and of the simulation: tests drive Admit/Release
 * directly. Not modelled: per-port egress shaping, multiple service pools, WRED per drop
 * precedence, and buffer cells (accounting is in bytes).
 */
class SwitchBufferManager : public Object
{
  public:
    static TypeId GetTypeId();
    SwitchBufferManager();
    ~SwitchBufferManager() override;

    /// Result of an admission decision.
    struct Admission
    {
        bool admitted{false};
        FabricDropReason reason{FabricDropReason::BUFFER_FULL};
        bool pause{false};    //!< the ingress port×priority just crossed XOFF: send PAUSE
        bool ecnMark{false};  //!< mark CE
        uint32_t shared{0};   //!< bytes charged to the shared pool
        uint32_t headroom{0}; //!< bytes charged to headroom
    };

    /// Why a configuration cannot work: the attribute to change and what it must be.
    struct ConfigProblem
    {
        std::string attribute; //!< empty: no problem
        std::string message;   //!< e.g. "must be >= EcnKmin 200000 B (got 100000)"

        explicit operator bool() const
        {
            return !attribute.empty();
        }
    };

    /**
     * Size the per-port state (aborts on what CheckConfig reports: check first if the
     * configuration comes from a user).
     * \param headroom `headroom[i]`: PFC headroom of each lossless priority of ingress port i
     *        (bytes; the Headroom attribute overrides it when non-zero)
     * \param losslessMask `losslessMask[i]`: bit p set if priority p is lossless on port i; each
     *        set bit reserves one headroom bucket. Empty: all eight priorities of every port
     *        (the safe bound for a caller that does not know which classes are lossless).
     */
    void Configure(uint32_t nPorts,
                   const std::vector<uint64_t>& headroom,
                   const std::vector<uint8_t>& losslessMask = {});
    /**
     * What Configure would refuse with these arguments and the current attributes, if anything
     * (nPorts 0: only what does not depend on the ports, e.g. EcnKmax < EcnKmin).
     */
    /// EcnKmax below EcnKmin, checked from values alone (no object, no random stream used).
    static ConfigProblem CheckEcnThresholds(uint64_t kmin, uint64_t kmax);
    ConfigProblem CheckConfig(uint32_t nPorts,
                              const std::vector<uint64_t>& headroom,
                              const std::vector<uint8_t>& losslessMask = {}) const;
    /**
     * \return the BufferSize Configure would use: the attribute, or if it is 0, BufferPerPort ×
     *         ports grown to reserved + headroom + MinSharedFraction × BufferPerPort × ports
     */
    uint64_t GetRequiredBufferSize(uint32_t nPorts,
                                   const std::vector<uint64_t>& headroom,
                                   const std::vector<uint8_t>& losslessMask = {}) const;
    /// \return the bytes carved before the shared pool: reserved space and headroom buckets
    uint64_t GetCarvedBytes(uint32_t nPorts,
                            const std::vector<uint64_t>& headroom,
                            const std::vector<uint8_t>& losslessMask = {}) const;

    bool IsConfigured() const
    {
        return m_configured;
    }

    /**
     * Decide on a frame of `bytes` arriving on `inPort` for `outPort`, priority `prio`
     * (inline, below: it runs at every switch hop of every frame).
     * \param lossless PFC is enabled for `prio` on `inPort`
     * \param ecnCapable the frame is ECT and may be marked
     */
    Admission Admit(uint32_t inPort,
                    uint32_t outPort,
                    uint8_t prio,
                    uint32_t bytes,
                    bool lossless,
                    bool ecnCapable);

    /**
     * A frame admitted with `shared`/`headroom` charges leaves the buffer (for a lossless
     * priority the charges are ignored: buckets drain headroom first).
     * \return true if `inPort`×`prio` just fell below XON: send resume
     */
    bool Release(uint32_t inPort,
                 uint32_t outPort,
                 uint8_t prio,
                 uint32_t bytes,
                 uint32_t shared,
                 uint32_t headroom,
                 bool lossless);

    /**
     * EcnOnDequeue: decide whether a frame leaving egress queue `outPort` x `prio` is marked,
     * on that queue's bytes (the frame included), RED-style between EcnKmin and EcnKmax.
     * \return false unless ECN is enabled on dequeue
     */
    bool MarkOnDequeue(uint32_t outPort, uint8_t prio);
    /**
     * The same decision for a queue of `queueBytes` that this manager does not account (an
     * egress queue of frames admitted on credits: CBFC ports).
     */
    bool MarkQueueOnDequeue(uint64_t queueBytes);

    bool MarksOnDequeue() const
    {
        return m_ecnEnabled && m_ecnOnDequeue;
    }

    /// TrimEnabled: refused UET data frames are trimmed (FabricSwitch) instead of dropped.
    bool TrimsFrames() const
    {
        return m_trimEnabled;
    }

    uint32_t GetTrimBytes() const
    {
        return m_trimBytes;
    }

    uint8_t GetTrimPriority() const
    {
        return m_trimPriority;
    }

    /// \return the current XOFF threshold on the shared use of one ingress port×priority
    uint64_t GetXoffThreshold() const;
    /// \return the RED marking probability for an egress queue of `queueBytes`
    double GetMarkProbability(uint64_t queueBytes) const;

    uint64_t GetBufferSize() const;
    void SetBufferSize(uint64_t bytes);
    uint64_t GetSharedPoolSize() const;
    uint64_t GetUsedBytes() const;
    uint64_t GetSharedUsedBytes() const;
    uint64_t GetPeakUsedBytes() const;
    /**
     * The peaks since the last call (or since the start): the buffer occupancy and the largest
     * egress queue (one port x priority), in bytes. Then the window restarts: the occupancy peak
     * from the current occupancy, the queue peak from 0 (a sampler takes the larger of it and
     * the queues it reads at that instant). What a periodic sampler plots so that a burst
     * between two samples is not missed.
     */
    void TakeWindowPeaks(uint64_t& usedBytes, uint64_t& egressQueueBytes);
    uint64_t GetIngressBytes(uint32_t port, uint8_t prio) const;
    uint64_t GetPeakIngressBytes(uint32_t port, uint8_t prio) const;
    uint64_t GetEgressBytes(uint32_t port, uint8_t prio) const;
    /// \return the headroom of one lossless priority of `port` (bytes)
    uint64_t GetHeadroom(uint32_t port) const;
    /// \return the bytes reserved for headroom over all ports × lossless priorities
    uint64_t GetTotalHeadroom() const;
    uint32_t GetReservedPerQueue() const;
    bool IsIngressPaused(uint32_t port, uint8_t prio) const;
    uint64_t GetEcnMarks() const;
    /**
     * Scale the egress queue limit (the dynamic threshold EgressAlpha x free shared bytes, for
     * lossy traffic) and the ECN thresholds (Kmin, Kmax) of `port` when marked on dequeue
     * (EcnOnDequeue, as UEC's switches mark; marking on enqueue keeps the switch-wide
     * thresholds, so RoCE's per-hop admission pays nothing for this) by `factor` (> 0): a
     * port whose link runs at a fraction of its rate keeps queues as long in time as the others,
     * as htsim's failed links do (fat_tree_topology.cpp: queue size and ECN thresholds times
     * failed_link_ratio with the speed). 1 restores the switch-wide values.
     */
    void SetPortScale(uint32_t port, double factor);
    double GetPortScale(uint32_t port) const;

    int64_t AssignStreams(int64_t stream);

  private:
    // 64-bit: a bucket over 100 km at 100 Tb/s holds 12.5 GB.
    struct IngressState
    {
        uint64_t bytes{0};
        uint64_t sharedUsed{0};
        uint64_t headroomUsed{0};
        uint64_t headroom{0}; //!< this port×priority's headroom bucket (0: lossy)
        uint64_t peak{0};
        uint32_t reservedUsed{0};
        bool paused{false};
    };

    /// The lossy egress limit of `port` (EgressAlpha x free shared bytes, x its scale).
    double EgressLimit(uint32_t port, uint64_t poolFree) const
    {
        const double limit = m_egressAlpha * double(poolFree);
        return m_portScaled ? limit * m_portScale[port] : limit;
    }

    /// A queue of `bytes` on a scaled port as the switch-wide ECN thresholds see it (thresholds
    /// x f is the same as the queue / f).
    uint64_t ScaledQueue(uint64_t bytes, uint32_t port) const
    {
        return uint64_t(double(bytes) / m_portScale[port]);
    }

    /// Bounds-checked view of one ingress port×priority, for the getters.
    const IngressState& Ingress(uint32_t port, uint8_t prio) const;

    struct EgressState
    {
        uint64_t bytes{0};
        uint64_t sharedUsed{0};
    };

    uint64_t m_bufferSize{0};
    uint32_t m_perPort{0};
    double m_minShared{0.5};
    uint32_t m_reserved{0};
    uint32_t m_fixedHeadroom{0};
    bool m_dynamicXoff{true};
    double m_pfcAlpha{0.125};
    uint32_t m_staticXoff{0};
    uint32_t m_xonDelta{0};
    double m_egressAlpha{1.0};
    /// SetPortScale's factor per port; read only while m_portScaled (one port scaled or more).
    std::vector<double> m_portScale;
    bool m_portScaled{false};
    void SetEcnEnabled(bool on);
    bool GetEcnEnabled() const;
    void SetEcnOnDequeue(bool on);
    bool GetEcnOnDequeue() const;

    bool m_ecnEnabled{true};
    bool m_ecnOnDequeue{false};
    bool m_ecnAtEnqueue{true}; //!< m_ecnEnabled && !m_ecnOnDequeue
    bool m_trimEnabled{false};
    uint32_t m_trimBytes{84};
    uint8_t m_trimPriority{7};
    bool m_ecnBelowXoff{false};
    uint32_t m_kmin{0};
    uint32_t m_kmax{0};
    double m_pmax{1.0};

    bool m_configured{false};
    uint32_t m_nPorts{0};
    uint64_t m_sharedSize{0};
    uint64_t m_totalHeadroom{0}; //!< over all ports × lossless priorities
    uint64_t m_sharedUsed{0};
    uint64_t m_peakUsed{0};
    uint64_t m_windowPeakUsed{0};   //!< since the last TakeWindowPeaks
    uint64_t m_windowPeakEgress{0}; //!< largest egress queue since the last TakeWindowPeaks
    uint64_t m_ecnMarks{0};
    uint64_t m_used{0}; //!< bytes held; the Occupancy trace source follows it
    /// Occupancy (old, new) as a TracedValue<uint64_t> would call it; bit 1 of m_traceMask set
    /// while it has a sink, so the per-frame path reads one byte instead of a sink list.
    FabricFlaggedTrace<uint64_t, uint64_t> m_usedTrace;
    uint8_t m_traceMask{0};
    std::vector<IngressState> m_ingress;
    std::vector<EgressState> m_egress;
    std::vector<uint64_t> m_headroom;
    Ptr<UniformRandomVariable> m_rng;

    /// Set m_used, firing Occupancy (before the change, as TracedValue does) if it changes.
    void SetUsed(uint64_t v)
    {
        if ((m_traceMask & 1U) && v != m_used)
        {
            m_usedTrace(m_used, v);
        }
        m_used = v;
    }

    /// The RED draw of Admit on an egress queue of `queueBytes` > EcnKmin (counts the mark).
    bool DrawEnqueueMark(uint64_t queueBytes);
};

inline uint64_t
SwitchBufferManager::GetXoffThreshold() const
{
    if (!m_dynamicXoff)
    {
        return m_staticXoff;
    }
    return static_cast<uint64_t>(m_pfcAlpha * double(m_sharedSize - m_sharedUsed));
}

inline SwitchBufferManager::Admission
SwitchBufferManager::Admit(uint32_t inPort,
                           uint32_t outPort,
                           uint8_t prio,
                           uint32_t bytes,
                           bool lossless,
                           bool ecnCapable)
{
    Admission a;
    IngressState& in = m_ingress[size_t(inPort) * 8 + prio];
    EgressState& eg = m_egress[size_t(outPort) * 8 + prio];
    const uint32_t resFree = m_reserved > in.reservedUsed ? m_reserved - in.reservedUsed : 0;
    const uint32_t r = std::min(bytes, resFree);
    const uint32_t rest = bytes - r;
    const uint64_t poolFree = m_sharedSize - m_sharedUsed;
    uint32_t s = 0;
    uint32_t h = 0;
    if (lossless)
    {
        if (!in.paused)
        {
            s = static_cast<uint32_t>(std::min<uint64_t>(rest, poolFree));
        }
        h = rest - s;
        if (in.headroomUsed + h > in.headroom)
        {
            a.reason = FabricDropReason::HEADROOM_FULL;
            return a;
        }
    }
    else
    {
        s = rest;
        if (s > 0 && (s > poolFree || double(eg.sharedUsed) + s > EgressLimit(outPort, poolFree)))
        {
            a.reason = FabricDropReason::BUFFER_FULL;
            return a;
        }
    }
    // ECN decision on the egress queue as this frame finds it.
    if (m_ecnAtEnqueue && ecnCapable && eg.bytes > m_kmin)
    {
        a.ecnMark = DrawEnqueueMark(eg.bytes);
    }
    a.admitted = true;
    a.shared = s;
    a.headroom = h;
    in.bytes += bytes;
    in.reservedUsed += r;
    in.sharedUsed += s;
    in.headroomUsed += h;
    in.peak = std::max(in.peak, in.bytes);
    eg.bytes += bytes;
    m_windowPeakEgress = std::max(m_windowPeakEgress, eg.bytes);
    if (!lossless)
    {
        eg.sharedUsed += s;
    }
    m_sharedUsed += s;
    SetUsed(m_used + bytes);
    m_peakUsed = std::max<uint64_t>(m_peakUsed, m_used);
    m_windowPeakUsed = std::max<uint64_t>(m_windowPeakUsed, m_used);
    if (lossless && !in.paused && (h > 0 || in.sharedUsed >= GetXoffThreshold()))
    {
        in.paused = true;
        a.pause = true;
    }
    return a;
}

inline bool
SwitchBufferManager::Release(uint32_t inPort,
                             uint32_t outPort,
                             uint8_t prio,
                             uint32_t bytes,
                             uint32_t shared,
                             uint32_t headroom,
                             bool lossless)
{
    IngressState& in = m_ingress[size_t(inPort) * 8 + prio];
    EgressState& eg = m_egress[size_t(outPort) * 8 + prio];
    in.bytes -= bytes;
    eg.bytes -= bytes;
    if (lossless)
    {
        // A lossless ingress priority drains its buckets headroom first, then shared, then
        // reserved, whatever bucket each frame was charged to: headroom is a safety margin
        // that must empty before the port is allowed to resume (as in shared-buffer ASICs).
        uint32_t b = bytes;
        const uint32_t h = static_cast<uint32_t>(std::min<uint64_t>(b, in.headroomUsed));
        b -= h;
        in.headroomUsed -= h;
        const uint32_t s = static_cast<uint32_t>(std::min<uint64_t>(b, in.sharedUsed));
        b -= s;
        in.sharedUsed -= s;
        m_sharedUsed -= s;
        in.reservedUsed -= b;
    }
    else
    {
        in.reservedUsed -= bytes - shared - headroom;
        in.sharedUsed -= shared;
        in.headroomUsed -= headroom;
        eg.sharedUsed -= shared;
        m_sharedUsed -= shared;
    }
    SetUsed(m_used - bytes);
    if (in.paused)
    {
        const uint64_t xoff = GetXoffThreshold();
        const uint64_t xon = xoff > m_xonDelta ? xoff - m_xonDelta : 0;
        if (in.sharedUsed <= xon && in.headroomUsed == 0)
        {
            in.paused = false;
            return true;
        }
    }
    return false;
}

} // namespace ns3

#endif // SWITCH_BUFFER_MANAGER_H

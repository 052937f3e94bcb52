// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_TELEMETRY_H
#define FABRIC_TELEMETRY_H

#include <cstdint>
#include <utility>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * One switch hop's in-band network telemetry, as HPCC's INT records it (Li et al., SIGCOMM'19,
 * section 4; the HPCC simulator's IntHop): written by the egress port as the data packet leaves
 * its queue.
 */
struct FabricIntHop
{
    int64_t timeStep{0};   //!< when the packet left the egress queue (ns-3 time steps)
    uint64_t txBytes{0};   //!< wire bytes the port has transmitted, this packet included
    uint64_t rateBps{0};   //!< the port's line rate (bit/s)
    uint32_t qlenBytes{0}; //!< bytes queued on the port (all priorities) after this packet left
};

/**
 * \ingroup ai-fabric
 * The telemetry a data packet collects on its way (at most kMaxHops hops, HPCC's fixed-size
 * header), then echoed by the receiver in its ACK. Reference counted and pooled: frames hold it
 * through a FabricIntRef, so a hop costs no allocation and frames of queue pairs that did not
 * ask for telemetry carry a null reference.
 */
class FabricIntStack
{
  public:
    /// Hops the header has room for (HPCC simulator: IntHeader::maxHop 5).
    static constexpr uint32_t kMaxHops = 5;
    /**
     * Bytes the header adds to a packet on the wire: 8 per hop slot plus a 2-byte hop count, for
     * all kMaxHops slots whether filled or not (HPCC's IntHeader in its NORMAL mode: 42 bytes).
     */
    static constexpr uint32_t kWireBytes = 8 * kMaxHops + 2;

    uint32_t GetNHops() const
    {
        return m_nHops;
    }

    const FabricIntHop& GetHop(uint32_t i) const
    {
        return m_hops[i];
    }

    /// \return false once the receiver sealed it (an echo in an ACK collects nothing)
    bool IsCollecting() const
    {
        return m_collecting;
    }

    /// Record a hop; a packet that already crossed kMaxHops hops keeps its first kMaxHops.
    void Push(const FabricIntHop& hop)
    {
        if (m_nHops < kMaxHops)
        {
            m_hops[m_nHops++] = hop;
        }
    }

  private:
    friend class FabricIntRef;

    static FabricIntStack* Allocate();
    void Release();

    uint32_t m_refs{0};
    uint32_t m_nHops{0};
    bool m_collecting{true};
    FabricIntHop m_hops[kMaxHops];
};

/**
 * \ingroup ai-fabric
 * A movable reference to a pooled FabricIntStack (null: the frame carries no telemetry).
 */
class FabricIntRef
{
  public:
    FabricIntRef() = default;

    /// \return a reference to a new, empty stack
    static FabricIntRef Create()
    {
        FabricIntRef r;
        r.m_s = FabricIntStack::Allocate();
        r.m_s->m_refs = 1;
        return r;
    }

    FabricIntRef(const FabricIntRef& o)
        : m_s(o.m_s)
    {
        if (m_s != nullptr)
        {
            ++m_s->m_refs;
        }
    }

    FabricIntRef(FabricIntRef&& o) noexcept
        : m_s(o.m_s)
    {
        o.m_s = nullptr;
    }

    FabricIntRef& operator=(const FabricIntRef& o)
    {
        FabricIntRef copy(o);
        std::swap(m_s, copy.m_s);
        return *this;
    }

    FabricIntRef& operator=(FabricIntRef&& o) noexcept
    {
        std::swap(m_s, o.m_s);
        return *this;
    }

    ~FabricIntRef()
    {
        if (m_s != nullptr && --m_s->m_refs == 0)
        {
            m_s->Release();
        }
    }

    explicit operator bool() const
    {
        return m_s != nullptr;
    }

    const FabricIntStack* Get() const
    {
        return m_s;
    }

    /// Append a hop. The stack is copied first if another frame shares it (copy on write).
    void Push(const FabricIntHop& hop);

    /// The packet arrived: its telemetry is final (switches leave the echo in ACKs alone).
    void Seal() const
    {
        if (m_s != nullptr)
        {
            m_s->m_collecting = false;
        }
    }

  private:
    FabricIntStack* m_s{nullptr};
};

} // namespace ns3

#endif // FABRIC_TELEMETRY_H

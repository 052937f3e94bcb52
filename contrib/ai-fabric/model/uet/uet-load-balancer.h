// SPDX-License-Identifier: GPL-2.0-only
#ifndef UET_LOAD_BALANCER_H
#define UET_LOAD_BALANCER_H

#include "ns3/object.h"

#include <string>

namespace ns3
{

/// What the sender learnt about the path an entropy value took.
enum class UetPathFeedback : uint8_t
{
    GOOD = 0,    //!< an ACK without ECN
    ECN = 1,     //!< an ACK with ECN echo
    NACK = 2,    //!< a NACK (the packet was trimmed)
    TIMEOUT = 3, //!< the retransmission timer declared a packet on it lost
    /// a NACK for a packet trimmed at the last hop (the switch facing the target: no other
    /// path leads there; REPS and Bitmap take it as NACK, Mixed as GOOD, as htsim does)
    NACK_LAST_HOP = 4,
};

/**
 * \ingroup ai-fabric
 * A UET sender's multipath load balancer: it picks the entropy value (EV) of every packet a PDC
 * sends (the UDP source port, which the switches' ECMP hashes, so an EV is a path) and learns
 * from the feedback about EVs (the EV an ACK or NACK echoes, or that of a packet timed out).
 * The two methods of htsim's UecMultipath: choose the next path, learn about a path.
 *
 * One instance per PDC from UetNic's LoadBalancer factory; Init gives the number of EVs to use
 * (a power of two) and a seed for its random choices (deterministic per PDC).
 */
class UetLoadBalancer : public Object
{
  public:
    static TypeId GetTypeId();
    ~UetLoadBalancer() override;

    virtual std::string GetName() const = 0;
    /// Start with `paths` EVs (a power of two) and a random seed.
    virtual void Init(uint16_t paths, uint32_t seed);
    /// The EV of the next packet.
    virtual uint16_t NextEv() = 0;
    /// Feedback about `ev`.
    virtual void Feedback(uint16_t ev, UetPathFeedback fb);

    uint16_t GetPaths() const
    {
        return m_paths;
    }

  protected:
    /// A pseudo-random number (xorshift32 from the seed).
    uint32_t Random();
    /// `index` (0 .. paths-1) as an EV: its low bits, with this PDC's random upper bits.
    uint16_t ToEv(uint32_t index) const;

    uint16_t m_paths{64};
    uint16_t m_upper{0};

  private:
    uint32_t m_rng{1};
};

} // namespace ns3

#endif // UET_LOAD_BALANCER_H

// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_PATH_TIMING_H
#define FABRIC_PATH_TIMING_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ns3
{

class FabricTopology;
struct FabricFrame;

/**
 * \ingroup ai-fabric
 * Unloaded timing of one path through a built fabric, from the model's own parameters: per
 * cable the sender's rate, the propagation delay, and the receiver's ReceiveLatency and
 * cut-through setting (exactly what FabricChannel charges a frame). What an idle fabric
 * gives a flow is what congestion-control evaluations divide by (FCT slowdown) and what
 * window-based algorithms take as their base RTT.
 */
struct FabricPathTiming
{
    struct Hop
    {
        DataRate rate;       //!< the sending port's rate
        Time propagation;    //!< the cable's delay
        Time receiveLatency; //!< the receiving port's processing latency
        bool cutThrough{false};
        uint32_t link{0}; //!< its index in FabricTopology::GetLinks()
        bool fromA{true}; //!< sent from the link's end a (else from b)
    };

    std::vector<Hop> hops; //!< source host's cable first

    /**
     * Time from the first bit of a back-to-back train of frames leaving the source to its last
     * frame being handed to the destination's receiver, on an idle path. Some hop h is where
     * the train is serialized back to back: its first frame reaches h as a single frame (its
     * serialization again at every store-and-forward receiver before h), the whole train less
     * its last frame crosses h at h's rate, and the last frame goes on as a single frame; the
     * answer is the largest such time over h (the bottleneck's). Exact for frames of one size
     * (the first and last may differ by their headers and remainder: a few ns), and what the
     * simulator does up to its rounding to whole time steps, about 1 ns per hop.
     * \param trainWireBytes wire bytes of all frames of the train
     * \param firstWireBytes wire bytes of its first frame
     * \param lastWireBytes wire bytes of its last frame
     */
    Time TrainDelay(uint64_t trainWireBytes, uint32_t firstWireBytes, uint32_t lastWireBytes) const;
    /// Sum of the cables' propagation delays and the receivers' latencies.
    Time FixedDelay() const;
    /// The slowest sending rate on the path.
    DataRate Bottleneck() const;
};

/**
 * \ingroup ai-fabric
 * Builds FabricPathTiming for host pairs of a topology, following its forwarding tables
 * (FabricTopology::TracePath) for a given frame, so the ECMP choice is the frame's own.
 */
class FabricPathTimer
{
  public:
    explicit FabricPathTimer(Ptr<const FabricTopology> topo);
    /// The path host `src` -> host `dst` takes for `frame` out of `src`'s NIC port `port`
    /// (empty hops if unreachable).
    FabricPathTiming Path(uint32_t src, const FabricFrame& frame, uint32_t port = 0) const;

  private:
    Ptr<const FabricTopology> m_topo;
    std::unordered_map<uint64_t, uint32_t> m_linkOf; //!< (a << 32 | b) -> link index
};

} // namespace ns3

#endif // FABRIC_PATH_TIMING_H

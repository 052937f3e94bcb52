// SPDX-License-Identifier: GPL-2.0-only
#ifndef RING_COLLECTIVE_H
#define RING_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Ring collectives: ReduceScatter and AllGather in N-1 steps of S/N bytes, AllReduce as both
 * (2(N-1) steps). Each rank sends 2(N-1)/N·S (AllReduce) or (N-1)/N·S. The α-β time is
 * 2(N-1)·α + 2(N-1)/N·S/B for AllReduce (Thakur, Rabenseifner, Gropp 2005).
 *
 * The ring is laid over the servers as NCCL's graph search lays it on a rail-optimized cluster
 * (RailLocal, the default, when the ranks fill whole servers of G > 1 GPUs): channel c enters
 * every server at GPU r = c mod G, visits the server's GPUs r, r+1, ..., r+G-1 (mod G) over
 * NVLink, and leaves through the NIC of rail r to GPU r of the next server, so the G channels
 * use G distinct NICs and every network hop stays on one rail (no spine on a rail-local
 * fabric). The exit GPU's data reaches NIC r directly (one transfer), or with Pxn by an
 * NVLink transfer to GPU r first and then the network (NCCL's PXN data path, store and
 * forward per chunk). RailLocal false: ranks 0..N-1 in order on every
 * channel (server boundaries cross rails GPU G-1 -> GPU 0), for comparison.
 */
class RingCollective : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId();
    std::string GetName() const override;
    /// The ring order of channel `channel` and, per position, the rank whose NIC carries the
    /// send from it (UINT32_MAX: the sender's own).
    void Order(const CollectiveSpec& spec,
               uint32_t channel,
               std::vector<uint32_t>& order,
               std::vector<uint32_t>& nic) const;

  protected:
    void DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const override;

  private:
    bool m_railLocal{true};
    bool m_pxn{false};
};

} // namespace ns3

#endif // RING_COLLECTIVE_H

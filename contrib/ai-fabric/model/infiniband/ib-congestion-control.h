// SPDX-License-Identifier: GPL-2.0-only
#ifndef IB_CONGESTION_CONTROL_H
#define IB_CONGESTION_CONTROL_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/rdma-congestion-ops.h"
#include "ns3/traced-value.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * InfiniBand congestion control at the channel adapter (IBA Annex A10), one instance per queue
 * pair, on the same RdmaCongestionOps seam as DCQCN.
 *
 * Switches mark FECN (IbCreditFlowControl::ShouldMarkFecn), the destination adapter returns a
 * BECN (CNP, opcode 0x80), and each BECN raises the queue pair's congestion control table index
 * CCTI by CctiIncrease, up to CctiLimit. Every CctiTimer the index falls by one, down to
 * CctiMin. The table entry CCT[CCTI] is an inter-packet delay (IPD) inserted after each packet;
 * the queue pair's pacing rate is line × T / (T + IPD), where T is the serialization time of a
 * full path-MTU packet, so full-size packets leave exactly IPD apart.
 *
 * The table is linear by default, CCT[i] = i × CctStep (A10 leaves the contents to the subnet
 * manager); Table replaces it with explicit delays in nanoseconds. All default values are
 * UNCONFIRMED (the annex fixes the mechanism, not the numbers): see doc/ai-fabric.rst.
 */
class IbCongestionControl : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId();
    IbCongestionControl();
    ~IbCongestionControl() override;

    std::string GetName() const override;
    void Init(Ptr<RdmaQueuePair> qp) override;
    void CnpReceived(Ptr<RdmaQueuePair> qp) override;
    void Stop() override;

    /// The current table index.
    uint32_t GetCcti() const;
    /// The inter-packet delay of table entry `index`.
    Time GetIpd(uint32_t index) const;
    uint64_t GetBecns() const;

  private:
    void Timer();
    void ApplyRate();
    void SetTable(std::string table);
    std::string GetTable() const;

    uint32_t m_increase{1};
    uint32_t m_limit{127};
    uint32_t m_min{0};
    Time m_timer;
    Time m_step;
    std::vector<int64_t> m_tableNs; //!< explicit table (ns); empty = linear

    Ptr<RdmaQueuePair> m_qp;
    double m_packetSeconds{0}; //!< serialization time of a full packet at line rate
    TracedValue<uint32_t> m_ccti{0};
    uint64_t m_becns{0};
    EventId m_timerEvent;
};

} // namespace ns3

#endif // IB_CONGESTION_CONTROL_H

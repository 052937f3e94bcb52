// SPDX-License-Identifier: GPL-2.0-only
// UetNic's side of receiver credit (RCCC): what a PDC still has to send (its credit demand),
// CREDIT_REQUESTs when it is out of credit, and at the target the credit targets that arrive,
// the NIC's UetCreditScheduler and the CREDITs it sends. The credit check and spending on the
// send path are in uet-nic-datapath.cc.
#include "uet-header-sizes.h"
#include "uet-nic.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

using namespace uetwire;

UetCreditDemand
UetNic::Demand(const UetPdc* pdc) const
{
    UetCreditDemand d;
    d.granted = pdc->m_creditGranted;
    const uint32_t overhead = pdc->m_state.mtuWire - m_mtu;
    d.backlog = pdc->m_newBytes + pdc->m_lostBytes +
                uint64_t(pdc->m_psnEnd - pdc->m_sndNxt + pdc->m_lostPkts) * overhead;
    d.activeSources = std::max<uint32_t>(1, static_cast<uint32_t>(m_active.size()));
    return d;
}

void
UetNic::MaybeRequestCredit(UetPdc* pdc)
{
    const UetCcState& s = pdc->m_state;
    if (!s.useCredit || s.credit > 0 || pdc->m_failed ||
        (pdc->m_newBytes == 0 && pdc->m_lostPkts == 0))
    {
        return; // it can send (the data carries the target), or has nothing to send
    }
    const uint64_t target = pdc->m_cc->CreditTarget(s, Demand(pdc));
    if (target <= pdc->m_creditTarget)
    {
        return; // the target knows
    }
    pdc->m_creditTarget = target;
    FabricFrame r;
    r.kind = FabricFrame::DATA;
    r.l4Format = kL4Uet;
    r.protocol = 17;
    r.src = pdc->m_local.Get();
    r.dst = pdc->m_remote.Get();
    r.srcPort = pdc->m_lastEv;
    r.dstPort = kUdpPort;
    r.priority = m_ackPriority;
    r.dscp = static_cast<uint8_t>(m_ackPriority * 8);
    r.ecn = FabricFrame::ECN_NOT_ECT;
    r.flowId = pdc->m_flowId;
    r.txTimeStep = Simulator::Now().GetTimeStep();
    r.seq = static_cast<uint32_t>(target / kCreditUnit);
    r.aux[0] = CREDIT_REQUEST | (pdc->m_dpdcid == 0xffff ? kSyn : 0);
    r.aux[1] = pdc->m_id | (uint32_t(pdc->m_dpdcid) << 16);
    r.l3Bytes = kCtrl;
    r.ComputeFlowHash();
    ++pdc->m_stats.creditRequests;
    ++m_counters.creditRequestsSent;
    m_dev->Enqueue(std::move(r));
}

void
UetNic::HandleCreditRequest(const FabricFrame& f)
{
    bool created = false;
    RxPdc* rx = GetOrCreateRx(f, created);
    CreditTargetArrived(*rx, uint64_t(f.seq) * kCreditUnit);
}

void
UetNic::CreditTargetArrived(RxPdc& rx, uint64_t target)
{
    if (!m_credits)
    {
        m_credits = CreateObject<UetCreditScheduler>();
        m_credits->Setup(m_dev->GetDataRate(),
                         m_networkRtt,
                         MakeCallback(&UetNic::SendCredit, this));
    }
    m_credits->Request(rx.id, target);
}

void
UetNic::SendCredit(uint16_t id, uint64_t granted)
{
    const RxPdc& rx = m_rx[id];
    FabricFrame c;
    c.kind = FabricFrame::DATA;
    c.l4Format = kL4Uet;
    c.protocol = 17;
    c.src = m_dev->GetIpv4Address().Get();
    c.dst = rx.src;
    c.srcPort = static_cast<uint16_t>(m_creditEv++ & (m_paths - 1U)); // sprayed
    c.dstPort = kUdpPort;
    c.priority = m_ackPriority;
    c.dscp = static_cast<uint8_t>(m_ackPriority * 8);
    c.ecn = FabricFrame::ECN_NOT_ECT;
    c.flowId = rx.flowId;
    c.txTimeStep = Simulator::Now().GetTimeStep();
    c.seq = static_cast<uint32_t>(granted / kCreditUnit);
    c.aux[0] = CREDIT;
    c.aux[1] = rx.spdcid | (uint32_t(rx.id) << 16);
    c.l3Bytes = kCtrl;
    c.ComputeFlowHash();
    ++m_counters.creditsSent;
    m_dev->Enqueue(std::move(c));
}

void
UetNic::HandleCredit(UetPdc* pdc, const FabricFrame& f)
{
    const uint64_t granted = uint64_t(f.seq) * kCreditUnit;
    ++pdc->m_stats.credits;
    ++m_counters.creditsReceived;
    if (granted <= pdc->m_creditGranted)
    {
        return; // an older CREDIT overtaken by a newer one
    }
    const uint64_t more = granted - pdc->m_creditGranted;
    pdc->m_creditGranted = granted;
    pdc->m_cc->CreditReceived(pdc->m_state, more);
    Activate(pdc);
}

} // namespace ns3

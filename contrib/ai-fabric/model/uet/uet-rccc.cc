// SPDX-License-Identifier: GPL-2.0-only
#include "uet-rccc.h"

#include "uet-header-sizes.h"
#include "uet-registry.h"

#include "ns3/double.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(UetRccc);

TypeId
UetRccc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::UetRccc")
            .SetParent<UetCongestionOps>()
            .SetGroupName("AiFabric")
            .AddConstructor<UetRccc>()
            .AddAttribute("InitialCreditBdps",
                          "Speculative credit a new PDC starts with, in BDPs (htsim: the "
                          "configured maximum window, 1.5).",
                          DoubleValue(1.5),
                          MakeDoubleAccessor(&UetRccc::m_initialBdps),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("MaxCreditBdps",
                          "Credit cap, in BDPs; also the most credit asked for ahead (htsim "
                          "1.5).",
                          DoubleValue(1.5),
                          MakeDoubleAccessor(&UetRccc::m_maxBdps),
                          MakeDoubleChecker<double>(0.01))
            .AddAttribute("SenderCc",
                          "TypeId name of a window congestion control run alongside the credit "
                          "(\"ns3::UetNscc\": NSCC + RCCC); empty: credit alone.",
                          StringValue(""),
                          MakeStringAccessor(&UetRccc::m_senderCcName),
                          MakeStringChecker());
    return tid;
}

std::string
UetRccc::GetName() const
{
    return m_sender ? m_sender->GetName() + "+rccc" : "rccc";
}

void
UetRccc::DoDispose()
{
    m_sender = nullptr;
    UetCongestionOps::DoDispose();
}

Ptr<UetCongestionOps>
UetRccc::GetSenderCc() const
{
    return m_sender;
}

void
UetRccc::Init(UetCcState& s)
{
    if (!m_senderCcName.empty() && !m_sender)
    {
        ObjectFactory f;
        f.SetTypeId(m_senderCcName);
        m_sender = f.Create<UetCongestionOps>();
    }
    const double bdp = s.lineRate.GetBitRate() / 8.0 * s.networkRtt.GetSeconds();
    if (m_sender)
    {
        m_sender->Init(s);
    }
    else
    {
        // no window: credit alone limits what is in flight
        s.minCwnd = s.mss;
        s.maxCwnd = std::numeric_limits<uint64_t>::max() / 4;
        s.cwnd = s.maxCwnd;
    }
    s.useCredit = true;
    s.maxCredit = std::max<int64_t>(s.mtuWire, std::llround(m_maxBdps * bdp));
    s.credit = std::min<int64_t>(s.maxCredit, std::llround(m_initialBdps * bdp));
    s.speculating = true;
}

void
UetRccc::StopSpeculating(UetCcState& s)
{
    if (s.speculating)
    {
        s.speculating = false;
        s.credit = std::min<int64_t>(s.credit, 0);
    }
}

void
UetRccc::AckReceived(UetCcState& s, const UetAckSample& ack)
{
    StopSpeculating(s);
    if (m_sender)
    {
        m_sender->AckReceived(s, ack);
    }
}

void
UetRccc::NackReceived(UetCcState& s, uint32_t bytes, bool lastHop)
{
    StopSpeculating(s);
    if (m_sender)
    {
        m_sender->NackReceived(s, bytes, lastHop);
    }
}

void
UetRccc::Timeout(UetCcState& s, uint64_t lostBytes)
{
    StopSpeculating(s);
    if (m_sender)
    {
        m_sender->Timeout(s, lostBytes);
    }
}

void
UetRccc::CreditReceived(UetCcState& s, uint64_t bytes)
{
    StopSpeculating(s);
    s.credit = std::min<int64_t>(s.credit + static_cast<int64_t>(bytes), s.maxCredit);
}

uint64_t
UetRccc::CreditTarget(const UetCcState& s, const UetCreditDemand& d) const
{
    int64_t want = std::min<int64_t>(static_cast<int64_t>(d.backlog), s.maxCredit);
    if (m_sender)
    {
        want = std::min<int64_t>(want, static_cast<int64_t>(s.cwnd) + s.mtuWire);
    }
    int64_t ask = want - s.credit;
    if (s.speculating && d.backlog > 0 && ask < int64_t(s.mtuWire))
    {
        ask = s.mtuWire; // a short message still gets its request in while speculating
    }
    if (ask <= 0)
    {
        return d.granted;
    }
    if (d.activeSources > 1)
    {
        ask /= d.activeSources;
    }
    const uint64_t target = d.granted + static_cast<uint64_t>(ask);
    return (target + uetwire::kCreditUnit - 1) / uetwire::kCreditUnit * uetwire::kCreditUnit;
}

namespace
{

const bool g_rcccRegistered = UetCongestionRegistry::Add([] {
    UetCongestionInfo e;
    e.name = "rccc";
    e.typeId = "ns3::UetRccc";
    e.help = "RCCC, receiver credit";
    return e;
}());

const bool g_nsccRcccRegistered = UetCongestionRegistry::Add([] {
    UetCongestionInfo e;
    e.name = "nscc+rccc";
    e.typeId = "ns3::UetRccc";
    e.senderCc = "ns3::UetNscc";
    e.help = "both, credit within an NSCC window";
    return e;
}());

} // namespace

} // namespace ns3

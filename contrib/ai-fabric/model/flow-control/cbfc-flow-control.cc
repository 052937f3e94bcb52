// SPDX-License-Identifier: GPL-2.0-only
#include "cbfc-flow-control.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CbfcFlowControl");
NS_OBJECT_ENSURE_REGISTERED(CbfcFlowControl);

TypeId
CbfcFlowControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CbfcFlowControl")
            .SetParent<IbCreditFlowControl>()
            .SetGroupName("AiFabric")
            .AddConstructor<CbfcFlowControl>()
            .AddAttribute("LosslessVcs",
                          "Bit mask of the virtual channels (priorities) that travel on credits, "
                          "at most 4 (UEC CBFC: up to 4 lossless VCs). Default: UET data's "
                          "traffic class 2.",
                          UintegerValue(0x04),
                          MakeUintegerAccessor(&CbfcFlowControl::SetLosslessVcs,
                                               &CbfcFlowControl::GetLosslessVcs),
                          MakeUintegerChecker<uint8_t>())
            .AddAttribute("FreedCreditUpdateBytes",
                          "The receiver returns credits once this many bytes were freed on a VC "
                          "since its last update, or at once when the VC's buffer drains (UEC: "
                          "800 B to 64 KiB; the default, one 4 KiB packet, is UNCONFIRMED). "
                          "Sets CreditUpdateBlocks.",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&CbfcFlowControl::SetFreedCreditUpdateBytes,
                                               &CbfcFlowControl::GetFreedCreditUpdateBytes),
                          MakeUintegerChecker<uint32_t>(800, 65536));
    return tid;
}

CbfcFlowControl::CbfcFlowControl() = default;
CbfcFlowControl::~CbfcFlowControl() = default;

void
CbfcFlowControl::NotifyConstructionCompleted()
{
    IbCreditFlowControl::NotifyConstructionCompleted();
    // The base's CreditUpdateBlocks default was applied after ours: ours wins.
    SetCreditUpdateBlocks(Blocks(m_freedUpdateBytes));
}

void
CbfcFlowControl::SetLosslessVcs(uint8_t mask)
{
    NS_ABORT_MSG_IF(__builtin_popcount(mask) > 4,
                    "CbfcFlowControl::LosslessVcs: at most 4 lossless VCs (got mask "
                        << unsigned(mask) << ")");
    m_lossless = mask;
}

uint8_t
CbfcFlowControl::GetLosslessVcs() const
{
    return m_lossless;
}

void
CbfcFlowControl::SetFreedCreditUpdateBytes(uint32_t bytes)
{
    m_freedUpdateBytes = bytes;
    SetCreditUpdateBlocks(Blocks(bytes));
}

uint32_t
CbfcFlowControl::GetFreedCreditUpdateBytes() const
{
    return m_freedUpdateBytes;
}

bool
CbfcFlowControl::IsLossless(uint8_t prio) const
{
    return Credited(prio);
}

uint8_t
CbfcFlowControl::GetCreditedMask() const
{
    return m_lossless;
}

void
CbfcFlowControl::NotifyTransmit(uint8_t prio, uint32_t wireBytes)
{
    if (Credited(prio))
    {
        IbCreditFlowControl::NotifyTransmit(prio, wireBytes);
    }
}

void
CbfcFlowControl::NotifyReceive(uint8_t prio, uint32_t bytes)
{
    if (Credited(prio))
    {
        IbCreditFlowControl::NotifyReceive(prio, bytes);
    }
}

void
CbfcFlowControl::NotifyRelease(uint8_t prio, uint32_t bytes)
{
    if (Credited(prio))
    {
        IbCreditFlowControl::NotifyRelease(prio, bytes);
    }
}

void
CbfcFlowControl::NotifyLost(uint8_t prio, uint32_t bytes)
{
    if (Credited(prio))
    {
        IbCreditFlowControl::NotifyLost(prio, bytes);
    }
}

} // namespace ns3

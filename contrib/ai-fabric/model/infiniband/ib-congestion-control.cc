// SPDX-License-Identifier: GPL-2.0-only
#include "ib-congestion-control.h"

#include "ns3/abort.h"
#include "ns3/rdma-congestion-registry.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(IbCongestionControl);

TypeId
IbCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::IbCongestionControl")
            .SetParent<RdmaCongestionOps>()
            .SetGroupName("AiFabric")
            .AddConstructor<IbCongestionControl>()
            .AddAttribute("CctiIncrease",
                          "Table index increase per BECN (A10 CCTI_Increase).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&IbCongestionControl::m_increase),
                          MakeUintegerChecker<uint32_t>(1, 255))
            .AddAttribute("CctiLimit",
                          "Largest table index (A10 CCTI_Limit; the table has CctiLimit + 1 "
                          "entries).",
                          UintegerValue(127),
                          MakeUintegerAccessor(&IbCongestionControl::m_limit),
                          MakeUintegerChecker<uint32_t>(0, 16383))
            .AddAttribute("CctiMin",
                          "Smallest table index (A10 CCTI_Min).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&IbCongestionControl::m_min),
                          MakeUintegerChecker<uint32_t>(0, 16383))
            .AddAttribute("CctiTimer",
                          "Period after which the index falls by one (A10 CCTI_Timer, in "
                          "units of 1.024 us there). Default UNCONFIRMED.",
                          TimeValue(MicroSeconds(2)),
                          MakeTimeAccessor(&IbCongestionControl::m_timer),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("CctStep",
                          "Linear table: CCT[i] = i x CctStep inter-packet delay. Default "
                          "UNCONFIRMED (16 ns: index 127 leaves 4% of 400 Gb/s for 4 KB "
                          "packets).",
                          TimeValue(NanoSeconds(16)),
                          MakeTimeAccessor(&IbCongestionControl::m_step),
                          MakeTimeChecker(Time(0)))
            .AddAttribute(
                "Table",
                "Explicit table: comma-separated inter-packet delays in ns for index "
                "0, 1, ... (replaces the linear table; the last entry repeats).",
                StringValue(""),
                MakeStringAccessor(&IbCongestionControl::SetTable, &IbCongestionControl::GetTable),
                MakeStringChecker())
            .AddTraceSource("Ccti",
                            "The queue pair's congestion control table index.",
                            MakeTraceSourceAccessor(&IbCongestionControl::m_ccti),
                            "ns3::TracedValueCallback::Uint32");
    return tid;
}

IbCongestionControl::IbCongestionControl() = default;
IbCongestionControl::~IbCongestionControl() = default;

std::string
IbCongestionControl::GetName() const
{
    return "ib-cc";
}

void
IbCongestionControl::SetTable(std::string table)
{
    m_tableNs.clear();
    std::istringstream in(table);
    std::string item;
    while (std::getline(in, item, ','))
    {
        const long long ns = std::stoll(item);
        NS_ABORT_MSG_IF(ns < 0, "IbCongestionControl::Table: delays must be >= 0 ns");
        m_tableNs.push_back(ns);
    }
}

std::string
IbCongestionControl::GetTable() const
{
    std::ostringstream out;
    for (size_t i = 0; i < m_tableNs.size(); ++i)
    {
        out << (i ? "," : "") << m_tableNs[i];
    }
    return out.str();
}

Time
IbCongestionControl::GetIpd(uint32_t index) const
{
    if (!m_tableNs.empty())
    {
        return NanoSeconds(m_tableNs[std::min<size_t>(index, m_tableNs.size() - 1)]);
    }
    return m_step * int64_t(index);
}

void
IbCongestionControl::Init(Ptr<RdmaQueuePair> qp)
{
    NS_ABORT_MSG_IF(m_min > m_limit, "IbCongestionControl: CctiMin must be <= CctiLimit");
    m_qp = qp;
    m_packetSeconds =
        qp->GetNic()->GetMaxPacketWireBytes() * 8.0 / double(qp->GetLineRate().GetBitRate());
    m_ccti = m_min;
    ApplyRate();
}

void
IbCongestionControl::ApplyRate()
{
    if (!m_qp)
    {
        return;
    }
    const double ipd = GetIpd(m_ccti).GetSeconds();
    const double line = double(m_qp->GetLineRate().GetBitRate());
    const double rate = line * m_packetSeconds / (m_packetSeconds + ipd);
    m_qp->SetRate(DataRate(static_cast<uint64_t>(std::max(rate, 1.0))));
}

void
IbCongestionControl::CnpReceived(Ptr<RdmaQueuePair>)
{
    ++m_becns;
    m_ccti = std::min<uint32_t>(m_ccti.Get() + m_increase, m_limit);
    ApplyRate();
    if (m_ccti > m_min && m_timerEvent.IsExpired())
    {
        m_timerEvent = Simulator::Schedule(m_timer, &IbCongestionControl::Timer, this);
    }
}

void
IbCongestionControl::Timer()
{
    if (m_ccti > m_min)
    {
        m_ccti = m_ccti - 1;
        ApplyRate();
    }
    if (m_ccti > m_min)
    {
        m_timerEvent = Simulator::Schedule(m_timer, &IbCongestionControl::Timer, this);
    }
}

void
IbCongestionControl::Stop()
{
    Simulator::Remove(m_timerEvent);
    m_qp = nullptr;
}

uint32_t
IbCongestionControl::GetCcti() const
{
    return m_ccti;
}

uint64_t
IbCongestionControl::GetBecns() const
{
    return m_becns;
}

namespace
{

const bool g_ibCcRegistered = RdmaCongestionRegistry::Add([] {
    RdmaCongestionControlInfo e;
    e.name = "ib-cc";
    e.typeId = "ns3::IbCongestionControl";
    e.help = "InfiniBand's FECN/BECN congestion control";
    e.autoOn = {"infiniband"};
    e.check = [](const RdmaCcContext& c) -> std::string {
        return c.fabric != "infiniband" ? "needs fabric infiniband" : "";
    };
    return e;
}());

} // namespace

} // namespace ns3

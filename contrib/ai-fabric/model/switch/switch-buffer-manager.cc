// SPDX-License-Identifier: GPL-2.0-only
// SwitchBufferManager: shared-buffer admission with dynamic thresholds, PFC XOFF/XON and
// headroom, ECN marking (at enqueue or at dequeue, kept below XOFF for DCQCN) and the trimming
// outcome for UEC. About 600 lines because every outcome reads the same per-port and
// per-priority counters on the per-frame path; splitting them would pass that state around.
#include "switch-buffer-manager.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/random-variable-stream.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SwitchBufferManager");
NS_OBJECT_ENSURE_REGISTERED(SwitchBufferManager);

TypeId
SwitchBufferManager::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SwitchBufferManager")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<SwitchBufferManager>()
            .AddAttribute("BufferSize",
                          "Total packet buffer in bytes; 0 = BufferPerPort x number of ports.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SwitchBufferManager::m_bufferSize),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("BufferPerPort",
                          "Buffer bytes per port when BufferSize is 0 (2 MiB: a 128 MB "
                          "shared buffer over 64 ports, Spectrum-4 class; UNCONFIRMED size).",
                          UintegerValue(2 * 1024 * 1024),
                          MakeUintegerAccessor(&SwitchBufferManager::m_perPort),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MinSharedFraction",
                          "When BufferSize is 0 and the reserved space and PFC headroom of the "
                          "ports (long cables, fast links) leave less than this fraction of "
                          "BufferPerPort x ports as shared pool, the buffer grows until they do "
                          "(dimensionless, 0..1).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&SwitchBufferManager::m_minShared),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("ReservedPerQueue",
                          "Guaranteed bytes per ingress port x priority (HPCC simulator: 4 KB).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&SwitchBufferManager::m_reserved),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Headroom",
                          "PFC headroom per ingress port x lossless priority in bytes; 0 = "
                          "computed per port from rate, cable length and MTU (802.1Qbb).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SwitchBufferManager::m_fixedHeadroom),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PfcDynamicThreshold",
                          "XOFF at PfcAlpha x free shared bytes (true) or at PfcStaticXoff.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&SwitchBufferManager::m_dynamicXoff),
                          MakeBooleanChecker())
            .AddAttribute("PfcAlpha",
                          "Dynamic XOFF threshold factor alpha (HPCC simulator: 1/8).",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&SwitchBufferManager::m_pfcAlpha),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("PfcStaticXoff",
                          "Static XOFF threshold on an ingress port x priority's shared use "
                          "(bytes), when PfcDynamicThreshold is false.",
                          UintegerValue(256 * 1024),
                          MakeUintegerAccessor(&SwitchBufferManager::m_staticXoff),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("XonDelta",
                          "XON when shared use falls to XOFF threshold minus this many bytes "
                          "(Cumulus example: 18 KB).",
                          UintegerValue(18432),
                          MakeUintegerAccessor(&SwitchBufferManager::m_xonDelta),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EgressAlpha",
                          "Dynamic threshold factor for lossy egress queues (Choudhury-Hahne; "
                          "1 is the common choice).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&SwitchBufferManager::m_egressAlpha),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("EcnEnabled",
                          "Mark ECN-capable frames RED-style on egress queue length.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&SwitchBufferManager::SetEcnEnabled,
                                              &SwitchBufferManager::GetEcnEnabled),
                          MakeBooleanChecker())
            .AddAttribute("EcnOnDequeue",
                          "Decide ECN marks when a frame leaves its egress queue, on the "
                          "queue it leaves, instead of on arrival (UEC switches; htsim "
                          "marks on dequeue).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&SwitchBufferManager::SetEcnOnDequeue,
                                              &SwitchBufferManager::GetEcnOnDequeue),
                          MakeBooleanChecker())
            .AddAttribute("TrimEnabled",
                          "Packet trimming (UEC): a UET data frame the buffer refuses has its "
                          "payload cut off and is queued as a header on TrimPriority "
                          "instead of being dropped.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&SwitchBufferManager::m_trimEnabled),
                          MakeBooleanChecker())
            .AddAttribute("TrimBytes",
                          "IPv4 bytes a trimmed frame keeps (84: IPv4, UDP and the UET PDS "
                          "and SES headers; htsim trims to 64 B, Spectrum-4 to 256 B).",
                          UintegerValue(84),
                          MakeUintegerAccessor(&SwitchBufferManager::m_trimBytes),
                          MakeUintegerChecker<uint32_t>(28))
            .AddAttribute("TrimPriority",
                          "Traffic class trimmed headers are queued on (strict priority: "
                          "7 goes first).",
                          UintegerValue(7),
                          MakeUintegerAccessor(&SwitchBufferManager::m_trimPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("EcnKmin",
                          "Egress queue bytes below which nothing is marked (Cumulus RoCE "
                          "default 150 KB; DCQCN paper 5 KB at 40G).",
                          UintegerValue(150000),
                          MakeUintegerAccessor(&SwitchBufferManager::m_kmin),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EcnKmax",
                          "Egress queue bytes above which everything is marked (Cumulus "
                          "1500 KB; DCQCN paper 200 KB).",
                          UintegerValue(1500000),
                          MakeUintegerAccessor(&SwitchBufferManager::m_kmax),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EcnBelowXoff",
                          "Keep ECN ahead of PFC: when EcnKmax exceeds the egress queue at "
                          "which one ingress port filling one egress queue of an empty buffer "
                          "reaches XOFF (PfcAlpha x shared / (1 + PfcAlpha), or PfcStaticXoff), "
                          "scale EcnKmin and EcnKmax down to it (ratio kept).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&SwitchBufferManager::m_ecnBelowXoff),
                          MakeBooleanChecker())
            .AddAttribute("EcnPmax",
                          "Marking probability at Kmax (Cumulus 1.0; DCQCN paper 0.01).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&SwitchBufferManager::m_pmax),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddTraceSource("Occupancy",
                            "Bytes held in the buffer.",
                            MakeTraceSourceAccessor(&SwitchBufferManager::m_usedTrace),
                            "ns3::TracedValueCallback::Uint64");
    return tid;
}

SwitchBufferManager::SwitchBufferManager()
{
    m_rng = CreateObject<UniformRandomVariable>();
    m_usedTrace.Bind(&m_traceMask, 1);
}

SwitchBufferManager::~SwitchBufferManager() = default;

int64_t
SwitchBufferManager::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

namespace
{

/// Lossless priorities of port i: `mask[i]`, all eight if the caller gave no masks.
uint8_t
LosslessMask(const std::vector<uint8_t>& mask, uint32_t i)
{
    if (mask.empty())
    {
        return 0xff;
    }
    return i < mask.size() ? mask[i] : 0;
}

} // namespace

uint64_t
SwitchBufferManager::GetCarvedBytes(uint32_t nPorts,
                                    const std::vector<uint64_t>& headroom,
                                    const std::vector<uint8_t>& losslessMask) const
{
    uint64_t carved = uint64_t(m_reserved) * 8 * nPorts;
    for (uint32_t i = 0; i < nPorts; ++i)
    {
        const uint64_t h = m_fixedHeadroom       ? m_fixedHeadroom
                           : i < headroom.size() ? headroom[i]
                                                 : 0;
        for (uint8_t m = LosslessMask(losslessMask, i); m; m &= static_cast<uint8_t>(m - 1))
        {
            carved += h; // one bucket per lossless priority
        }
    }
    return carved;
}

uint64_t
SwitchBufferManager::GetRequiredBufferSize(uint32_t nPorts,
                                           const std::vector<uint64_t>& headroom,
                                           const std::vector<uint8_t>& losslessMask) const
{
    if (m_bufferSize != 0)
    {
        return m_bufferSize;
    }
    const uint64_t nominal = uint64_t(m_perPort) * nPorts;
    const uint64_t minShared = static_cast<uint64_t>(m_minShared * double(nominal));
    return std::max(nominal, GetCarvedBytes(nPorts, headroom, losslessMask) + minShared);
}

SwitchBufferManager::ConfigProblem
SwitchBufferManager::CheckEcnThresholds(uint64_t kmin, uint64_t kmax)
{
    if (kmax >= kmin)
    {
        return {};
    }
    std::ostringstream os;
    os << "must be >= EcnKmin " << kmin << " B (got " << kmax << ")";
    return {"EcnKmax", os.str()};
}

SwitchBufferManager::ConfigProblem
SwitchBufferManager::CheckConfig(uint32_t nPorts,
                                 const std::vector<uint64_t>& headroom,
                                 const std::vector<uint8_t>& losslessMask) const
{
    std::ostringstream os;
    if (ConfigProblem ecn = CheckEcnThresholds(m_kmin, m_kmax))
    {
        return ecn;
    }
    const uint64_t carved = GetCarvedBytes(nPorts, headroom, losslessMask);
    if (nPorts > 0 && carved >= GetRequiredBufferSize(nPorts, headroom, losslessMask))
    {
        if (m_bufferSize == 0)
        {
            os << "must be > 0: reserved space and PFC headroom (" << carved
               << " B) take all of BufferPerPort x " << nPorts << " ports (got " << m_minShared
               << ")";
            return {"MinSharedFraction", os.str()};
        }
        os << "must be > " << carved << " B = reserved (" << m_reserved
           << " B per port x priority) + PFC headroom per port x lossless priority over " << nPorts
           << " ports, or 0 to size the buffer for its links (got " << m_bufferSize << ")";
        return {"BufferSize", os.str()};
    }
    return {};
}

void
SwitchBufferManager::Configure(uint32_t nPorts,
                               const std::vector<uint64_t>& headroom,
                               const std::vector<uint8_t>& losslessMask)
{
    const ConfigProblem problem = CheckConfig(nPorts, headroom, losslessMask);
    NS_ABORT_MSG_IF(problem,
                    "SwitchBufferManager: " << problem.attribute << " " << problem.message);
    m_nPorts = nPorts;
    m_ingress.assign(size_t(nPorts) * 8, IngressState());
    m_egress.assign(size_t(nPorts) * 8, EgressState());
    m_portScale.assign(nPorts, 1.0);
    m_portScaled = false;
    m_headroom.assign(nPorts, m_fixedHeadroom);
    m_totalHeadroom = 0;
    for (uint32_t i = 0; i < nPorts; ++i)
    {
        if (m_fixedHeadroom == 0)
        {
            m_headroom[i] = i < headroom.size() ? headroom[i] : 0;
        }
        const uint8_t mask = LosslessMask(losslessMask, i);
        for (uint8_t p = 0; p < 8; ++p)
        {
            if ((mask >> p) & 1U)
            {
                m_ingress[size_t(i) * 8 + p].headroom = m_headroom[i];
                m_totalHeadroom += m_headroom[i];
            }
        }
    }
    m_bufferSize = GetRequiredBufferSize(nPorts, headroom, losslessMask);
    m_sharedSize = m_bufferSize - GetCarvedBytes(nPorts, headroom, losslessMask);
    if (m_ecnBelowXoff)
    {
        // The earliest PAUSE relative to an egress queue: one ingress port feeding one egress
        // queue, nothing else buffered, XOFF at alpha x (shared - q) = q.
        const uint64_t q1 =
            m_dynamicXoff
                ? static_cast<uint64_t>(m_pfcAlpha * double(m_sharedSize) / (1.0 + m_pfcAlpha))
                : m_staticXoff;
        if (m_kmax > q1 && m_kmax > 0)
        {
            const double f = double(q1) / double(m_kmax);
            m_kmin = static_cast<uint32_t>(double(m_kmin) * f);
            m_kmax = static_cast<uint32_t>(q1);
        }
    }
    m_configured = true;
}

double
SwitchBufferManager::GetMarkProbability(uint64_t q) const
{
    if (q <= m_kmin)
    {
        return 0.0;
    }
    if (q >= m_kmax)
    {
        return 1.0;
    }
    return m_pmax * double(q - m_kmin) / double(m_kmax - m_kmin);
}

void
SwitchBufferManager::SetEcnEnabled(bool on)
{
    m_ecnEnabled = on;
    m_ecnAtEnqueue = m_ecnEnabled && !m_ecnOnDequeue;
}

bool
SwitchBufferManager::GetEcnEnabled() const
{
    return m_ecnEnabled;
}

void
SwitchBufferManager::SetEcnOnDequeue(bool on)
{
    m_ecnOnDequeue = on;
    m_ecnAtEnqueue = m_ecnEnabled && !m_ecnOnDequeue;
}

bool
SwitchBufferManager::GetEcnOnDequeue() const
{
    return m_ecnOnDequeue;
}

bool
SwitchBufferManager::MarkOnDequeue(uint32_t outPort, uint8_t prio)
{
    const uint64_t q = m_egress[size_t(outPort) * 8 + prio].bytes;
    return MarkQueueOnDequeue(m_portScaled ? ScaledQueue(q, outPort) : q);
}

double
SwitchBufferManager::GetPortScale(uint32_t port) const
{
    return port < m_portScale.size() ? m_portScale[port] : 1.0;
}

void
SwitchBufferManager::SetPortScale(uint32_t port, double factor)
{
    NS_ABORT_MSG_IF(port >= m_portScale.size(),
                    "SwitchBufferManager::SetPortScale: no port " << port);
    NS_ABORT_MSG_IF(!(factor > 0 && factor < 1e6),
                    "SwitchBufferManager::SetPortScale: factor must be in (0, 1e6), got "
                        << factor);
    m_portScale[port] = factor;
    m_portScaled = false;
    for (double f : m_portScale)
    {
        m_portScaled = m_portScaled || f != 1.0;
    }
}

bool
SwitchBufferManager::MarkQueueOnDequeue(uint64_t q)
{
    if (!m_ecnEnabled || !m_ecnOnDequeue)
    {
        return false;
    }
    if (q <= m_kmin)
    {
        return false;
    }
    const double p = GetMarkProbability(q);
    if (p >= 1.0 || m_rng->GetValue() < p)
    {
        ++m_ecnMarks;
        return true;
    }
    return false;
}

bool
SwitchBufferManager::DrawEnqueueMark(uint64_t queueBytes)
{
    const double p = GetMarkProbability(queueBytes);
    if (p >= 1.0 || m_rng->GetValue() < p)
    {
        ++m_ecnMarks;
        return true;
    }
    return false;
}

uint64_t
SwitchBufferManager::GetBufferSize() const
{
    return m_bufferSize;
}

void
SwitchBufferManager::SetBufferSize(uint64_t bytes)
{
    m_bufferSize = bytes;
}

uint64_t
SwitchBufferManager::GetSharedPoolSize() const
{
    return m_sharedSize;
}

uint64_t
SwitchBufferManager::GetUsedBytes() const
{
    return m_used;
}

uint64_t
SwitchBufferManager::GetSharedUsedBytes() const
{
    return m_sharedUsed;
}

uint64_t
SwitchBufferManager::GetPeakUsedBytes() const
{
    return m_peakUsed;
}

void
SwitchBufferManager::TakeWindowPeaks(uint64_t& usedBytes, uint64_t& egressQueueBytes)
{
    usedBytes = m_windowPeakUsed;
    egressQueueBytes = m_windowPeakEgress;
    m_windowPeakUsed = m_used;
    m_windowPeakEgress = 0;
}

const SwitchBufferManager::IngressState&
SwitchBufferManager::Ingress(uint32_t port, uint8_t prio) const
{
    return m_ingress.at(size_t(port) * 8 + (prio & 7));
}

uint64_t
SwitchBufferManager::GetIngressBytes(uint32_t port, uint8_t prio) const
{
    return Ingress(port, prio).bytes;
}

uint64_t
SwitchBufferManager::GetPeakIngressBytes(uint32_t port, uint8_t prio) const
{
    return Ingress(port, prio).peak;
}

uint64_t
SwitchBufferManager::GetEgressBytes(uint32_t port, uint8_t prio) const
{
    return m_egress.at(size_t(port) * 8 + (prio & 7)).bytes;
}

uint64_t
SwitchBufferManager::GetHeadroom(uint32_t port) const
{
    return m_headroom.at(port);
}

uint64_t
SwitchBufferManager::GetTotalHeadroom() const
{
    return m_totalHeadroom;
}

uint32_t
SwitchBufferManager::GetReservedPerQueue() const
{
    return m_reserved;
}

bool
SwitchBufferManager::IsIngressPaused(uint32_t port, uint8_t prio) const
{
    return Ingress(port, prio).paused;
}

uint64_t
SwitchBufferManager::GetEcnMarks() const
{
    return m_ecnMarks;
}

} // namespace ns3

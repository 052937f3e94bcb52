// SPDX-License-Identifier: GPL-2.0-only
#include "host-stack-cost-model.h"

#include "ns3/fabric-net-device.h"
#include "ns3/fabric-tx-time.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HostStackCostModel");
NS_OBJECT_ENSURE_REGISTERED(HostStackCostModel);

TypeId
HostStackCostModel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HostStackCostModel")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddConstructor<HostStackCostModel>()
            .AddAttribute("Cores",
                          "CPU cores serving the network stack (UNCONFIRMED).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&HostStackCostModel::m_cores),
                          MakeUintegerChecker<uint32_t>(1, 1024))
            .AddAttribute("CopyBandwidth",
                          "memcpy bandwidth of one core (10.5 GiB/s measured, performance.md).",
                          DataRateValue(DataRate("90194313216bps")),
                          MakeDataRateAccessor(&HostStackCostModel::m_copyBandwidth),
                          MakeDataRateChecker())
            .AddAttribute("SyscallCost",
                          "CPU time of one send/recv system call (UNCONFIRMED, 0.1-1 us).",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&HostStackCostModel::m_syscall),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("TxProtocolCost",
                          "TCP/IP transmit processing per send chunk with TSO (UNCONFIRMED).",
                          TimeValue(NanoSeconds(1000)),
                          MakeTimeAccessor(&HostStackCostModel::m_txProtocol),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("SendChunk",
                          "Bytes per send call / GSO segment (GSO_LEGACY_MAX_SIZE 64 KiB).",
                          UintegerValue(65536),
                          MakeUintegerAccessor(&HostStackCostModel::m_sendChunk),
                          MakeUintegerChecker<uint32_t>(1024))
            .AddAttribute("PcieBandwidth",
                          "GPU <-> host copy bandwidth (PCIe Gen5 x16, 63 GB/s).",
                          DataRateValue(DataRate("504Gbps")),
                          MakeDataRateAccessor(&HostStackCostModel::m_pcieBandwidth),
                          MakeDataRateChecker())
            .AddAttribute("PcieLatency",
                          "Latency of one GPU <-> host copy (UNCONFIRMED).",
                          TimeValue(NanoSeconds(250)),
                          MakeTimeAccessor(&HostStackCostModel::m_pcieLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RxUsecs",
                          "Interrupt coalescing time (mlx5 rx-usecs: 16 us).",
                          TimeValue(MicroSeconds(16)),
                          MakeTimeAccessor(&HostStackCostModel::m_rxUsecs),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RxFrames",
                          "Interrupt coalescing frames (mlx5 rx-frames: 32).",
                          UintegerValue(32),
                          MakeUintegerAccessor(&HostStackCostModel::m_rxFrames),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("InterruptCost",
                          "CPU time of one receive interrupt (UNCONFIRMED, 1-5 us).",
                          TimeValue(NanoSeconds(2000)),
                          MakeTimeAccessor(&HostStackCostModel::m_interruptCost),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PerPacketRxCost",
                          "Softirq/TCP receive processing per packet (UNCONFIRMED).",
                          TimeValue(NanoSeconds(300)),
                          MakeTimeAccessor(&HostStackCostModel::m_perPacketRx),
                          MakeTimeChecker(Time(0)));
    return tid;
}

HostStackCostModel::HostStackCostModel() = default;
HostStackCostModel::~HostStackCostModel() = default;

void
HostStackCostModel::DoDispose()
{
    m_irqTimer.Cancel();
    m_pending.clear();
    m_processing.clear();
    if (m_dev)
    {
        m_dev->SetIpReceiveHandler(Callback<void, Ptr<Packet>>()); // it would call a dead model
    }
    m_dev = nullptr;
    Object::DoDispose();
}

void
HostStackCostModel::Attach(Ptr<FabricNetDevice> dev)
{
    m_dev = dev;
    dev->SetIpReceiveHandler(MakeCallback(&HostStackCostModel::ReceiveIpPacket, this));
}

uint32_t
HostStackCostModel::GetSendChunk() const
{
    return m_sendChunk;
}

uint32_t
HostStackCostModel::GetCores() const
{
    return m_cores;
}

Time
HostStackCostModel::SendCallCost(uint64_t bytes) const
{
    return m_syscall + FabricTxTime(m_copyBandwidth, bytes) + m_txProtocol;
}

Time
HostStackCostModel::RecvCallCost(uint64_t bytes) const
{
    return m_syscall + FabricTxTime(m_copyBandwidth, bytes);
}

Time
HostStackCostModel::RunOnCore(Time work, Time notBefore)
{
    if (m_coreFree.size() != m_cores)
    {
        m_coreFree.assign(m_cores, 0);
    }
    const int64_t now = std::max(Simulator::Now().GetTimeStep(), notBefore.GetTimeStep());
    auto core = std::min_element(m_coreFree.begin(), m_coreFree.end());
    const int64_t start = std::max(now, *core);
    *core = start + work.GetTimeStep();
    m_busy += work.GetTimeStep();
    return TimeStep(*core);
}

Time
HostStackCostModel::PcieCopy(uint64_t bytes, bool toHost)
{
    int64_t& free = m_pcieFree[toHost ? 0 : 1];
    const int64_t start = std::max(Simulator::Now().GetTimeStep(), free);
    free = start + FabricTxTime(m_pcieBandwidth, bytes).GetTimeStep();
    return TimeStep(free) + m_pcieLatency;
}

void
HostStackCostModel::ReceiveIpPacket(Ptr<Packet> packet)
{
    m_pending.push_back(packet);
    if (m_pending.size() >= m_rxFrames)
    {
        m_irqTimer.Cancel();
        Interrupt();
    }
    else if (m_irqTimer.IsExpired())
    {
        m_irqTimer = Simulator::Schedule(m_rxUsecs, &HostStackCostModel::Interrupt, this);
    }
}

void
HostStackCostModel::Interrupt()
{
    if (m_pending.empty())
    {
        return;
    }
    ++m_interrupts;
    const uint32_t n = static_cast<uint32_t>(m_pending.size());
    const Time end = RunOnCore(m_interruptCost + m_perPacketRx * double(n), Simulator::Now());
    m_processing.insert(m_processing.end(), m_pending.begin(), m_pending.end());
    m_pending.clear();
    Simulator::Schedule(end - Simulator::Now(), &HostStackCostModel::Deliver, this, n);
}

void
HostStackCostModel::Deliver(uint32_t n)
{
    std::vector<Ptr<Packet>> batch(m_processing.begin(), m_processing.begin() + n);
    m_processing.erase(m_processing.begin(), m_processing.begin() + n);
    for (auto& p : batch)
    {
        m_dev->DeliverToStack(p);
    }
}

uint64_t
HostStackCostModel::GetInterrupts() const
{
    return m_interrupts;
}

Time
HostStackCostModel::GetRxUsecs() const
{
    return m_rxUsecs;
}

uint32_t
HostStackCostModel::GetRxFrames() const
{
    return m_rxFrames;
}

Time
HostStackCostModel::InterruptWork(uint32_t frames) const
{
    return m_interruptCost + m_perPacketRx * double(frames);
}

void
HostStackCostModel::CountInterrupt()
{
    ++m_interrupts;
}

Time
HostStackCostModel::GetCoreBusyTime() const
{
    return TimeStep(m_busy);
}

} // namespace ns3

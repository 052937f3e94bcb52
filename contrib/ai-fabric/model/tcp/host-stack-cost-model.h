// SPDX-License-Identifier: GPL-2.0-only
#ifndef HOST_STACK_COST_MODEL_H
#define HOST_STACK_COST_MODEL_H

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

class FabricNetDevice;

/// Where one TCP message's time went (filled by TcpCollectiveTransport).
struct HostStackBreakdown
{
    uint32_t src{0};
    uint32_t dst{0};
    uint64_t bytes{0};
    Time pcieTx;  //!< GPU -> host copy over PCIe (incl. waiting for the PCIe engine)
    Time cpuTx;   //!< send syscalls + user -> kernel copies + protocol work, incl. core queueing
    Time network; //!< from the socket write to the data being readable at the receiver: wire,
                  //!< queues, TCP, interrupt-coalescing wait and softirq processing
    Time cpuRx;   //!< recv syscalls + kernel -> user copies, incl. core queueing
    Time pcieRx;  //!< host -> GPU copy over PCIe

    Time Total() const
    {
        return pcieTx + cpuTx + network + cpuRx + pcieRx;
    }
};

/**
 * \ingroup ai-fabric
 * The cost of the kernel TCP path on a GPU host (the "4-copy" path), aggregated to the host
 * Node: CPU cores that serve work as queues, a PCIe copy engine per direction, and receive
 * interrupt moderation on the host's fabric NIC.
 *
 * - Send: the message is copied GPU -> host over PCIe (PcieLatency + bytes / PcieBandwidth),
 *   then written to the socket in SendChunk pieces (GSO size), each a job on a core of
 *   SyscallCost + chunk / CopyBandwidth + TxProtocolCost (one writer per connection).
 * - Receive: frames for the IP stack wait in the NIC until an interrupt fires (RxFrames frames
 *   or RxUsecs after the first, mlx5 defaults 32 / 16 us); the interrupt is a core job of
 *   InterruptCost + n x PerPacketRxCost, after which the n packets enter TCP. The application
 *   then reads with a job of SyscallCost + bytes / CopyBandwidth per read (one reader per
 *   connection), and a finished message is copied host -> GPU over PCIe.
 * - Cores: Cores identical cores; a job starts on the first core that is free (FIFO), so busy
 *   cores both delay messages and cap throughput.
 *
 * Defaults: copy bandwidth = memcpy measured on this project's machines (10.5 GiB/s per core,
 * reference/performance.md); PCIe Gen5 x16 63 GB/s; interrupt coalescing from mlx5 (16 us / 32
 * frames); syscall, interrupt and per-packet costs and the core count are UNCONFIRMED estimates
 * (facts.md §4 gives 0.1-1 us and 1-5 us ranges). Not modelled: cache effects, NUMA, GRO
 * batching beyond the interrupt, zero-copy (MSG_ZEROCOPY, devmem TCP), pinned-memory limits.
 */
class HostStackCostModel : public Object
{
  public:
    static TypeId GetTypeId();
    HostStackCostModel();
    ~HostStackCostModel() override;

    /// Take over receive processing of IP frames on `dev` (interrupt moderation).
    void Attach(Ptr<FabricNetDevice> dev);

    /// Run `work` on the first free core, not before `notBefore`. \return when it ends
    Time RunOnCore(Time work, Time notBefore);
    /// Copy `bytes` GPU -> host (toHost) or host -> GPU. \return when the copy ends
    Time PcieCopy(uint64_t bytes, bool toHost);
    /// CPU time of one send call of `bytes`.
    Time SendCallCost(uint64_t bytes) const;
    /// CPU time of one receive call of `bytes`.
    Time RecvCallCost(uint64_t bytes) const;
    uint32_t GetSendChunk() const;
    uint32_t GetCores() const;

    /// The device's IP receive handler (set by Attach): a packet bound for the IP stack.
    void ReceiveIpPacket(Ptr<Packet> packet);

    uint64_t GetInterrupts() const;
    /// Interrupt moderation as set on the NIC (rx-usecs, rx-frames).
    Time GetRxUsecs() const;
    uint32_t GetRxFrames() const;
    /// CPU time of one receive interrupt that processes `frames` frames.
    Time InterruptWork(uint32_t frames) const;
    /// Count an interrupt taken by another receive path (LinuxTcpStack).
    void CountInterrupt();
    /// Total busy time of all cores so far.
    Time GetCoreBusyTime() const;

  protected:
    void DoDispose() override;

  private:
    void Interrupt();
    void Deliver(uint32_t n);

    uint32_t m_cores{4};
    DataRate m_copyBandwidth;
    Time m_syscall;
    Time m_txProtocol;
    uint32_t m_sendChunk{65536};
    DataRate m_pcieBandwidth;
    Time m_pcieLatency;
    Time m_rxUsecs;
    uint32_t m_rxFrames{32};
    Time m_interruptCost;
    Time m_perPacketRx;

    std::vector<int64_t> m_coreFree;
    int64_t m_pcieFree[2]{0, 0};
    int64_t m_busy{0};
    Ptr<FabricNetDevice> m_dev;
    std::vector<Ptr<Packet>> m_pending;    //!< waiting for an interrupt
    std::vector<Ptr<Packet>> m_processing; //!< being processed by an interrupt
    EventId m_irqTimer;
    uint64_t m_interrupts{0};
};

} // namespace ns3

#endif // HOST_STACK_COST_MODEL_H

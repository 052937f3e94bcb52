// SPDX-License-Identifier: GPL-2.0-only
//
// ns-3's distributed engine (src/mpi, as scripts/ns3-mpi.sh builds it for Debian's ns-3) on
// 2 ranks with one synchronizer (--sync=granted-time-window: DistributedSimulatorImpl,
// --sync=null-message: NullMessageSimulatorImpl), selected through SimulatorImplementationType
// as ns-3's own examples do. Every rank builds the same two nodes: node 0 on rank 0, node 1 on
// rank 1, each with one point-to-point device on a two-ended channel whose "Delay" is the
// engine's lookahead, and an MpiReceiver aggregated to each device. Rank 0 sends frames at
// chosen times; a device sends a frame to a peer on another rank with MpiInterface::SendPacket,
// due at now + serialization + delay. Rank 1 answers every frame with a short echo. Each rank
// checks that the frames reach it in order, at exactly the times worked out below, in the
// receiving node's context, with their header and packet tag intact.
// Run: mpirun -np 2 ai-fabric-mpi-engine-test --sync=granted-time-window|null-message
// (ctest: mpi-engine-*). Prints "<N> passed, <M> failed" on rank 0; exit 1 on any failure,
// 2 on bad usage.

#include "ns3/channel.h"
#include "ns3/global-value.h"
#include "ns3/header.h"
#include "ns3/mac48-address.h"
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/simulator-impl.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tag.h"

#include <cstdint>
#include <iostream>
#include <mpi.h>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{
namespace
{

// The frame's header: sequence number and the simulated time (ns) at which it was sent.
class SeqHeader : public Header
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::AiFabricMpiTestSeqHeader")
                                .SetParent<Header>()
                                .SetGroupName("AiFabricTest")
                                .AddConstructor<SeqHeader>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return 12;
    }

    void Serialize(Buffer::Iterator i) const override
    {
        i.WriteHtonU32(seq);
        i.WriteHtonU64(sentNs);
    }

    uint32_t Deserialize(Buffer::Iterator i) override
    {
        seq = i.ReadNtohU32();
        sentNs = i.ReadNtohU64();
        return 12;
    }

    void Print(std::ostream& os) const override
    {
        os << "seq=" << seq << " sent=" << sentNs << "ns";
    }

    uint32_t seq = 0;
    uint64_t sentNs = 0;
};

// A packet tag, to see that tags cross ranks with the packet.
class MarkTag : public Tag
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::AiFabricMpiTestMarkTag")
                                .SetParent<Tag>()
                                .SetGroupName("AiFabricTest")
                                .AddConstructor<MarkTag>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return 4;
    }

    void Serialize(TagBuffer i) const override
    {
        i.WriteU32(mark);
    }

    void Deserialize(TagBuffer i) override
    {
        mark = i.ReadU32();
    }

    void Print(std::ostream& os) const override
    {
        os << "mark=" << mark;
    }

    uint32_t mark = 0;
};

// A packet crossing ranks carries its tags as TypeId hashes (Packet::Serialize); the receiving
// rank resolves them with TypeId::LookupByHash while deserializing, so a tag type must be
// registered there before its first frame arrives, as NS_OBJECT_ENSURE_REGISTERED does at load
// time. (Registered only on first use, the first frame's tag is silently dropped: hash unknown,
// and Debian's release build does not assert.)
NS_OBJECT_ENSURE_REGISTERED(MarkTag);

// Two ends and the "Delay" attribute that DistributedSimulatorImpl and
// NullMessageSimulatorImpl read (CalculateLookAhead) for a point-to-point device whose peer
// node belongs to another rank.
class TwoEndChannel : public Channel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::AiFabricMpiTestChannel")
                .SetParent<Channel>()
                .SetGroupName("AiFabricTest")
                .AddConstructor<TwoEndChannel>()
                .AddAttribute("Delay",
                              "Propagation delay: the distributed engine's lookahead",
                              TimeValue(Seconds(0)),
                              MakeTimeAccessor(&TwoEndChannel::m_delay),
                              MakeTimeChecker());
        return tid;
    }

    void Attach(Ptr<NetDevice> device)
    {
        m_devices.push_back(device);
    }

    std::size_t GetNDevices() const override
    {
        return m_devices.size();
    }

    Ptr<NetDevice> GetDevice(std::size_t i) const override
    {
        return m_devices.at(i);
    }

    Time GetDelay() const
    {
        return m_delay;
    }

  private:
    void DoDispose() override
    {
        m_devices.clear();
        Channel::DoDispose();
    }

    Time m_delay;
    std::vector<Ptr<NetDevice>> m_devices;
};

// Serialization time of one byte: 1 ns (8 Gb/s; a whole number of ns, the default resolution).
const Time kByteTime = NanoSeconds(1);

struct Arrival
{
    int64_t atNs;
    uint32_t context;
    uint32_t seq;
    uint64_t sentNs;
    uint32_t size;
    uint32_t mark;
};

// A point-to-point device whose peer is on another rank: Send hands the frame to ns-3's MPI
// interface with its arrival time; frames from the other rank come in through the MpiReceiver
// aggregated to it.
class RemoteP2pDevice : public NetDevice
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::AiFabricMpiTestDevice")
                                .SetParent<NetDevice>()
                                .SetGroupName("AiFabricTest")
                                .AddConstructor<RemoteP2pDevice>();
        return tid;
    }

    void Attach(Ptr<TwoEndChannel> channel)
    {
        m_channel = channel;
        channel->Attach(this);
        Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
        receiver->SetReceiveCallback(MakeCallback(&RemoteP2pDevice::ReceiveFromRank, this));
        AggregateObject(receiver);
    }

    Ptr<NetDevice> Peer() const
    {
        return m_channel->GetDevice(m_channel->GetDevice(0) == this ? 1 : 0);
    }

    bool Send(Ptr<Packet> packet, const Address&, uint16_t) override
    {
        Ptr<NetDevice> peer = Peer();
        Time rxTime = Simulator::Now() + kByteTime * packet->GetSize() + m_channel->GetDelay();
        MpiInterface::SendPacket(packet, rxTime, peer->GetNode()->GetId(), peer->GetIfIndex());
        return true;
    }

    std::vector<Arrival> arrivals;
    Callback<void, Ptr<RemoteP2pDevice>, const Arrival&> onArrival;

    void SetIfIndex(const uint32_t index) override
    {
        m_ifIndex = index;
    }

    uint32_t GetIfIndex() const override
    {
        return m_ifIndex;
    }

    Ptr<Channel> GetChannel() const override
    {
        return m_channel;
    }

    void SetAddress(Address address) override
    {
        m_address = Mac48Address::ConvertFrom(address);
    }

    Address GetAddress() const override
    {
        return m_address;
    }

    bool SetMtu(const uint16_t) override
    {
        return false;
    }

    uint16_t GetMtu() const override
    {
        return 1500;
    }

    bool IsLinkUp() const override
    {
        return true;
    }

    void AddLinkChangeCallback(Callback<void>) override
    {
    }

    bool IsBroadcast() const override
    {
        return false;
    }

    Address GetBroadcast() const override
    {
        return Mac48Address::GetBroadcast();
    }

    bool IsMulticast() const override
    {
        return false;
    }

    Address GetMulticast(Ipv4Address) const override
    {
        return Mac48Address::GetMulticast(Ipv4Address());
    }

    Address GetMulticast(Ipv6Address) const override
    {
        return Mac48Address::GetMulticast(Ipv6Address());
    }

    bool IsBridge() const override
    {
        return false;
    }

    bool IsPointToPoint() const override
    {
        return true;
    }

    bool SendFrom(Ptr<Packet> packet, const Address&, const Address& dest, uint16_t proto) override
    {
        return Send(packet, dest, proto);
    }

    Ptr<Node> GetNode() const override
    {
        return m_node;
    }

    void SetNode(Ptr<Node> node) override
    {
        m_node = node;
    }

    bool NeedsArp() const override
    {
        return false;
    }

    void SetReceiveCallback(ReceiveCallback) override
    {
    }

    void SetPromiscReceiveCallback(PromiscReceiveCallback) override
    {
    }

    bool SupportsSendFrom() const override
    {
        return false;
    }

  private:
    void ReceiveFromRank(Ptr<Packet> packet)
    {
        Arrival a{};
        a.atNs = Simulator::Now().GetNanoSeconds();
        a.context = Simulator::GetContext();
        a.size = packet->GetSize();
        MarkTag tag;
        a.mark = packet->PeekPacketTag(tag) ? tag.mark : 0;
        SeqHeader header;
        packet->RemoveHeader(header);
        a.seq = header.seq;
        a.sentNs = header.sentNs;
        arrivals.push_back(a);
        if (!onArrival.IsNull())
        {
            onArrival(this, a);
        }
    }

    void DoDispose() override
    {
        m_channel = nullptr;
        m_node = nullptr;
        onArrival = MakeNullCallback<void, Ptr<RemoteP2pDevice>, const Arrival&>();
        NetDevice::DoDispose();
    }

    Ptr<TwoEndChannel> m_channel;
    Ptr<Node> m_node;
    uint32_t m_ifIndex = 0;
    Mac48Address m_address;
};

Ptr<Packet>
MakeFrame(uint32_t frameBytes, uint32_t seq, uint32_t mark)
{
    SeqHeader header;
    header.seq = seq;
    header.sentNs = Simulator::Now().GetNanoSeconds();
    Ptr<Packet> packet = Create<Packet>(frameBytes - header.GetSerializedSize());
    packet->AddHeader(header);
    MarkTag tag;
    tag.mark = mark;
    packet->AddPacketTag(tag);
    return packet;
}

// Rank 0's frames: 1,000 bytes each (1,000 ns at 8 Gb/s), sent at these times (ns). Two leave
// at the same instant (their order is the order they were scheduled in) and two 1 ns apart.
const std::vector<int64_t> kSendNs{500, 1500, 1500, 2300, 10000, 10001};
const uint32_t kFrameBytes = 1000;
// Rank 1's echo of each: 100 bytes (100 ns).
const uint32_t kEchoBytes = 100;
// The channel's delay: 2 us.
const Time kDelay = MicroSeconds(2);
// Arrival at node 1 = sent + 1,000 + 2,000 ns; of the echo at node 0 = that + 100 + 2,000 ns.
const std::vector<int64_t> kArriveNs{3500, 4500, 4500, 5300, 13000, 13001};
const std::vector<int64_t> kEchoNs{5600, 6600, 6600, 7400, 15100, 15101};

struct Checks
{
    uint64_t passed = 0;
    uint64_t failed = 0;
    uint32_t rank = 0;

    void Expect(bool ok, const std::string& what)
    {
        if (ok)
        {
            ++passed;
        }
        else
        {
            ++failed;
            std::cerr << "rank " << rank << ": FAILED " << what << std::endl;
        }
    }

    template <typename T>
    void Equal(const T& got, const T& want, const std::string& what)
    {
        std::ostringstream s;
        s << what << ": got " << got << ", want " << want;
        Expect(got == want, s.str());
    }
};

// Each frame exactly once, at its time, in the receiving node's context, intact; frames due at
// different times in the order of their times (so in the order they were sent). Two frames due
// at the same instant may come in either order: ns-3's granted-time-window interface posts one
// MPI receive per rank, all from any source, and takes completed ones lowest slot first, so two
// messages taken in the same window can be scheduled in reverse (seen here on 2 ranks); a
// reversal is printed, not failed.
void
CheckArrivals(Checks& c,
              const std::vector<Arrival>& got,
              const std::vector<int64_t>& wantNs,
              const std::vector<int64_t>& wantSentNs,
              uint32_t wantContext,
              uint32_t wantSize,
              uint32_t markBase)
{
    c.Equal(got.size(), wantNs.size(), "number of frames received");
    std::vector<int> seen(wantNs.size(), 0);
    for (std::size_t i = 0; i < got.size(); ++i)
    {
        const uint32_t seq = got[i].seq;
        const std::string n =
            "arrival " + std::to_string(i) + " (frame " + std::to_string(seq) + ") ";
        c.Expect(seq < wantNs.size(), n + "has a sequence number that was sent");
        if (seq >= wantNs.size())
        {
            continue;
        }
        c.Equal(++seen[seq], 1, n + "times received");
        c.Equal(got[i].atNs, wantNs[seq], n + "arrival time (ns)");
        c.Equal(got[i].sentNs,
                static_cast<uint64_t>(wantSentNs[seq]),
                n + "send time in its header");
        c.Equal(got[i].context, wantContext, n + "context of the receive event");
        c.Equal(got[i].size, wantSize, n + "size");
        c.Equal(got[i].mark, markBase + seq, n + "packet tag");
        if (i > 0 && got[i - 1].seq < wantNs.size())
        {
            const uint32_t prev = got[i - 1].seq;
            if (wantNs[prev] != wantNs[seq])
            {
                c.Expect(prev < seq, n + "comes after frame " + std::to_string(prev));
            }
            else if (prev > seq)
            {
                std::cerr << "rank " << c.rank << ": note: frames " << seq << " and " << prev
                          << ", both due at " << wantNs[seq]
                          << " ns, were delivered in reverse send order" << std::endl;
            }
        }
    }
}

int
Main(int argc, char** argv)
{
    std::string sync;
    for (int i = 1; i < argc; ++i)
    {
        std::string arg = argv[i];
        if (arg.rfind("--sync=", 0) == 0)
        {
            sync = arg.substr(7);
        }
    }
    std::string impl;
    if (sync == "granted-time-window")
    {
        impl = "ns3::DistributedSimulatorImpl";
    }
    else if (sync == "null-message")
    {
        impl = "ns3::NullMessageSimulatorImpl";
    }
    else
    {
        std::cerr << "mpi-engine-test: --sync must be granted-time-window or null-message, got '"
                  << sync << "'" << std::endl;
        return 2;
    }
    GlobalValue::Bind("SimulatorImplementationType", StringValue(impl));
    MpiInterface::Enable(&argc, &argv);
    Checks c;
    c.rank = MpiInterface::GetSystemId();
    if (MpiInterface::GetSize() != 2)
    {
        if (c.rank == 0)
        {
            std::cerr << "mpi-engine-test: needs exactly 2 ranks (mpirun -np 2), got "
                      << MpiInterface::GetSize() << std::endl;
        }
        MpiInterface::Disable();
        return 2;
    }

    // The same nodes on every rank; each belongs to the rank of its system id.
    Ptr<Node> node0 = CreateObject<Node>(0);
    Ptr<Node> node1 = CreateObject<Node>(1);
    Ptr<TwoEndChannel> channel = CreateObject<TwoEndChannel>();
    channel->SetAttribute("Delay", TimeValue(kDelay));
    Ptr<RemoteP2pDevice> dev0 = CreateObject<RemoteP2pDevice>();
    Ptr<RemoteP2pDevice> dev1 = CreateObject<RemoteP2pDevice>();
    dev0->SetAddress(Mac48Address::Allocate());
    dev1->SetAddress(Mac48Address::Allocate());
    node0->AddDevice(dev0);
    node1->AddDevice(dev1);
    dev0->Attach(channel);
    dev1->Attach(channel);

    c.Equal(Simulator::GetSystemId(), c.rank, "Simulator::GetSystemId");
    c.Equal(Simulator::GetImplementation()->GetInstanceTypeId().GetName(),
            impl,
            "simulator implementation");

    std::vector<int64_t> echoSentNs;
    if (c.rank == 0)
    {
        for (std::size_t i = 0; i < kSendNs.size(); ++i)
        {
            Simulator::ScheduleWithContext(node0->GetId(), NanoSeconds(kSendNs[i]), [dev0, i]() {
                dev0->Send(MakeFrame(kFrameBytes,
                                     static_cast<uint32_t>(i),
                                     static_cast<uint32_t>(100 + i)),
                           dev0->Peer()->GetAddress(),
                           0);
            });
        }
    }
    else
    {
        dev1->onArrival = MakeCallback(+[](Ptr<RemoteP2pDevice> dev, const Arrival& a) {
            dev->Send(MakeFrame(kEchoBytes, a.seq, 200 + a.seq), dev->Peer()->GetAddress(), 0);
        });
    }
    // The null-message engine never runs out of events (its null messages): stop it.
    Simulator::Stop(MicroSeconds(50));
    Simulator::Run();

    if (c.rank == 1)
    {
        CheckArrivals(c, dev1->arrivals, kArriveNs, kSendNs, node1->GetId(), kFrameBytes, 100);
        c.Equal(dev0->arrivals.size(), std::size_t{0}, "frames received by node 0 on rank 1");
    }
    else
    {
        CheckArrivals(c, dev0->arrivals, kEchoNs, kArriveNs, node0->GetId(), kEchoBytes, 200);
        c.Equal(dev1->arrivals.size(), std::size_t{0}, "frames received by node 1 on rank 0");
    }

    uint64_t local[2] = {c.passed, c.failed};
    uint64_t total[2] = {0, 0};
    MPI_Allreduce(local, total, 2, MPI_UINT64_T, MPI_SUM, MpiInterface::GetCommunicator());
    if (c.rank == 0)
    {
        std::cout << "mpi-engine-test " << sync << " (" << impl << ", 2 ranks): " << total[0]
                  << " passed, " << total[1] << " failed" << std::endl;
    }
    dev1->onArrival = MakeNullCallback<void, Ptr<RemoteP2pDevice>, const Arrival&>();
    Simulator::Destroy();
    MpiInterface::Disable();
    return total[1] == 0 ? 0 : 1;
}

} // namespace
} // namespace ns3

int
main(int argc, char** argv)
{
    return ns3::Main(argc, argv);
}

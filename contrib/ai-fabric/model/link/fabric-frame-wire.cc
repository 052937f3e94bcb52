// SPDX-License-Identifier: GPL-2.0-only
#include "fabric-frame-wire.h"

#include "ns3/header.h"

#include <array>
#include <cstring>

namespace ns3
{

namespace
{

/// The descriptor's 32-bit words, in the order both encodings write them.
template <typename Frame>
auto
Words(Frame& f)
{
    return std::array<decltype(&f.src), 13>{&f.src,
                                            &f.dst,
                                            &f.l3Bytes,
                                            &f.payloadBytes,
                                            &f.flowHash,
                                            &f.flowId,
                                            &f.seq,
                                            &f.aux[0],
                                            &f.aux[1],
                                            &f.aux[2],
                                            &f.aux[3],
                                            &f.bufShared,
                                            &f.bufHeadroom};
}

/// The descriptor's fields, written in network byte order.
class FabricFrameWireHeader : public Header
{
  public:
    static constexpr uint16_t kMagic = 0xAFF1; //!< marks a serialized FabricFrame
    static constexpr uint32_t kFixedBytes = 87;
    static constexpr uint32_t kHopBytes = 28;
    static constexpr uint32_t kKeyBytes = 12;

    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::FabricFrameWireHeader")
                                .SetParent<Header>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<FabricFrameWireHeader>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return kFixedBytes + (hasKey ? kKeyBytes : 0) +
               kHopBytes * static_cast<uint32_t>(hops.size());
    }

    void Serialize(Buffer::Iterator i) const override
    {
        i.WriteHtonU16(kMagic);
        i.WriteU8(hasPacket ? 1 : 0);
        i.WriteU8(
            static_cast<uint8_t>((hasTelemetry ? 1 : 0) | (collecting ? 2 : 0) | (hasKey ? 4 : 0)));
        i.WriteU8(static_cast<uint8_t>(hops.size()));
        i.WriteU8(f.kind);
        i.WriteU8(f.l4Format);
        i.WriteU8(f.protocol);
        i.WriteU8(f.priority);
        i.WriteU8(f.dscp);
        i.WriteU8(f.ecn);
        i.WriteU8(f.ttl);
        i.WriteU8(f.ipModified);
        i.WriteHtonU64(static_cast<uint64_t>(f.txTimeStep));
        i.WriteHtonU64(static_cast<uint64_t>(f.echoTimeStep));
        for (const uint32_t* v : Words(f))
        {
            i.WriteHtonU32(*v);
        }
        i.WriteHtonU16(f.srcPort);
        i.WriteHtonU16(f.dstPort);
        i.WriteHtonU16(f.ingressPort);
        if (hasKey)
        {
            i.WriteHtonU32(key.context);
            i.WriteHtonU64(key.seq);
        }
        for (const FabricIntHop& h : hops)
        {
            i.WriteHtonU64(static_cast<uint64_t>(h.timeStep));
            i.WriteHtonU64(h.txBytes);
            i.WriteHtonU64(h.rateBps);
            i.WriteHtonU32(h.qlenBytes);
        }
    }

    uint32_t Deserialize(Buffer::Iterator start) override
    {
        Buffer::Iterator i = start;
        if (i.GetRemainingSize() < kFixedBytes || i.ReadNtohU16() != kMagic)
        {
            valid = false;
            return 0;
        }
        hasPacket = i.ReadU8() != 0;
        const uint8_t t = i.ReadU8();
        hasTelemetry = (t & 1) != 0;
        collecting = (t & 2) != 0;
        hasKey = (t & 4) != 0;
        const uint8_t nHops = i.ReadU8();
        f.kind = i.ReadU8();
        f.l4Format = i.ReadU8();
        f.protocol = i.ReadU8();
        f.priority = i.ReadU8();
        f.dscp = i.ReadU8();
        f.ecn = i.ReadU8();
        f.ttl = i.ReadU8();
        f.ipModified = i.ReadU8();
        f.txTimeStep = static_cast<int64_t>(i.ReadNtohU64());
        f.echoTimeStep = static_cast<int64_t>(i.ReadNtohU64());
        for (uint32_t* v : Words(f))
        {
            *v = i.ReadNtohU32();
        }
        f.srcPort = i.ReadNtohU16();
        f.dstPort = i.ReadNtohU16();
        f.ingressPort = i.ReadNtohU16();
        hops.clear();
        if (hasKey)
        {
            if (i.GetRemainingSize() < kKeyBytes)
            {
                valid = false;
                return 0;
            }
            key.context = i.ReadNtohU32();
            key.seq = i.ReadNtohU64();
        }
        if (nHops > FabricIntStack::kMaxHops || i.GetRemainingSize() < kHopBytes * nHops)
        {
            valid = false;
            return 0;
        }
        for (uint8_t k = 0; k < nHops; ++k)
        {
            FabricIntHop h;
            h.timeStep = static_cast<int64_t>(i.ReadNtohU64());
            h.txBytes = i.ReadNtohU64();
            h.rateBps = i.ReadNtohU64();
            h.qlenBytes = i.ReadNtohU32();
            hops.push_back(h);
        }
        valid = true;
        return GetSerializedSize();
    }

    void Print(std::ostream& os) const override
    {
        os << "FabricFrame " << f.ToString();
    }

    FabricFrame f; //!< the descriptor's plain fields (its references stay empty)
    std::vector<FabricIntHop> hops;
    bool hasPacket{false};
    bool hasTelemetry{false};
    bool collecting{false};
    bool hasKey{false};
    FabricEventOrderKey key; //!< the delivery's place in the event order (when hasKey)
    bool valid{false};
};

// Registered before any frame arrives: a rank that receives one must know the header's TypeId.
NS_OBJECT_ENSURE_REGISTERED(FabricFrameWireHeader);

} // namespace

Ptr<Packet>
FabricFrameToWire(const FabricFrame& frame, const FabricEventOrderKey* key)
{
    FabricFrameWireHeader h;
    if (key != nullptr)
    {
        h.hasKey = true;
        h.key = *key;
    }
    h.f = frame;
    // The references travel below (telemetry) and behind the header (packet), not in it.
    h.f.packet = FabricPacketRef();
    h.f.telemetry = FabricIntRef();
    if (const FabricIntStack* s = frame.telemetry.Get())
    {
        h.hasTelemetry = true;
        h.collecting = s->IsCollecting();
        for (uint32_t k = 0; k < s->GetNHops(); ++k)
        {
            h.hops.push_back(s->GetHop(k));
        }
    }
    h.hasPacket = static_cast<bool>(frame.packet);
    Ptr<Packet> wire = h.hasPacket ? frame.packet.Get()->Copy() : Create<Packet>();
    wire->AddHeader(h);
    return wire;
}

bool
FabricFrameFromWire(Ptr<Packet> wire, FabricFrame& frame, std::optional<FabricEventOrderKey>* key)
{
    FabricFrameWireHeader h;
    if (wire->PeekHeader(h) == 0 || !h.valid)
    {
        return false;
    }
    wire->RemoveHeader(h);
    FabricFrame f = h.f;
    if (h.hasTelemetry)
    {
        f.telemetry = FabricIntRef::Create();
        for (const FabricIntHop& hop : h.hops)
        {
            f.telemetry.Push(hop);
        }
        if (!h.collecting)
        {
            f.telemetry.Seal();
        }
    }
    if (h.hasPacket)
    {
        f.packet = wire;
    }
    frame = std::move(f);
    if (key != nullptr)
    {
        *key = h.hasKey ? std::optional<FabricEventOrderKey>(h.key) : std::nullopt;
    }
    return true;
}

namespace
{

/// The flags byte of a batch entry.
constexpr uint8_t kBytesKey = 1;
constexpr uint8_t kBytesTelemetry = 2;
constexpr uint8_t kBytesCollecting = 4;

template <typename T>
void
Put(uint8_t*& p, const T& v)
{
    std::memcpy(p, &v, sizeof(T));
    p += sizeof(T);
}

template <typename T>
void
Get(const uint8_t*& p, T& v)
{
    std::memcpy(&v, p, sizeof(T));
    p += sizeof(T);
}

/// Bytes of the fixed part: flags, hop count, 2 x 8 time steps, 13 x 4 words, 3 x 2 ports, 8
/// one-byte fields.
constexpr size_t kFixedEntryBytes = 2 + 16 + 52 + 6 + 8;
constexpr size_t kHopEntryBytes = 28;
constexpr size_t kKeyEntryBytes = 12;

} // namespace

void
FabricFrameAppendBytes(const FabricFrame& f,
                       const FabricEventOrderKey* key,
                       std::vector<uint8_t>& out)
{
    const FabricIntStack* s = f.telemetry.Get();
    const uint32_t hops = s != nullptr ? s->GetNHops() : 0;
    const size_t at = out.size();
    out.resize(at + kFixedEntryBytes + hops * kHopEntryBytes + (key ? kKeyEntryBytes : 0));
    uint8_t* p = out.data() + at;
    Put(p,
        static_cast<uint8_t>((key ? kBytesKey : 0) | (s ? kBytesTelemetry : 0) |
                             (s && s->IsCollecting() ? kBytesCollecting : 0)));
    Put(p, static_cast<uint8_t>(hops));
    Put(p, f.txTimeStep);
    Put(p, f.echoTimeStep);
    for (const uint32_t* v : Words(f))
    {
        Put(p, *v);
    }
    Put(p, f.srcPort);
    Put(p, f.dstPort);
    Put(p, f.ingressPort);
    for (uint8_t v :
         {f.protocol, f.priority, f.dscp, f.ecn, f.ttl, f.kind, f.l4Format, f.ipModified})
    {
        Put(p, v);
    }
    for (uint32_t k = 0; k < hops; ++k)
    {
        const FabricIntHop& h = s->GetHop(k);
        Put(p, h.timeStep);
        Put(p, h.txBytes);
        Put(p, h.rateBps);
        Put(p, h.qlenBytes);
    }
    if (key)
    {
        Put(p, key->context);
        Put(p, key->seq);
    }
}

bool
FabricFrameReadBytes(const uint8_t*& p,
                     const uint8_t* end,
                     FabricFrame& f,
                     std::optional<FabricEventOrderKey>& key)
{
    if (end - p < static_cast<ptrdiff_t>(kFixedEntryBytes))
    {
        return false;
    }
    uint8_t flags = 0;
    uint8_t hops = 0;
    Get(p, flags);
    Get(p, hops);
    const size_t rest = hops * kHopEntryBytes + ((flags & kBytesKey) ? kKeyEntryBytes : 0);
    if (hops > FabricIntStack::kMaxHops ||
        end - p < static_cast<ptrdiff_t>(kFixedEntryBytes - 2 + rest))
    {
        return false;
    }
    f = FabricFrame();
    Get(p, f.txTimeStep);
    Get(p, f.echoTimeStep);
    for (uint32_t* v : Words(f))
    {
        Get(p, *v);
    }
    Get(p, f.srcPort);
    Get(p, f.dstPort);
    Get(p, f.ingressPort);
    for (uint8_t* v :
         {&f.protocol, &f.priority, &f.dscp, &f.ecn, &f.ttl, &f.kind, &f.l4Format, &f.ipModified})
    {
        Get(p, *v);
    }
    if (flags & kBytesTelemetry)
    {
        f.telemetry = FabricIntRef::Create();
        for (uint8_t k = 0; k < hops; ++k)
        {
            FabricIntHop h;
            Get(p, h.timeStep);
            Get(p, h.txBytes);
            Get(p, h.rateBps);
            Get(p, h.qlenBytes);
            f.telemetry.Push(h);
        }
        if (!(flags & kBytesCollecting))
        {
            f.telemetry.Seal();
        }
    }
    else if (hops != 0)
    {
        return false;
    }
    key.reset();
    if (flags & kBytesKey)
    {
        FabricEventOrderKey k;
        Get(p, k.context);
        Get(p, k.seq);
        key = k;
    }
    return true;
}

} // namespace ns3

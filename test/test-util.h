// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_TEST_UTIL_H
#define AI_FABRIC_TEST_UTIL_H

#include "ns3/ai-fabric-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <array>
#include <gtest/gtest.h>
#include <tuple>
#include <vector>

/// Every GoogleTest test starts from a fresh simulator and fixed seeds and destroys it after.
class FabricTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        ns3::RngSeedManager::SetSeed(1);
        ns3::RngSeedManager::SetRun(1);
        // FabricTest checks the physical model (its α-β from its parameters); tests of NCCL's
        // protocol latencies (CollectiveProtocol) turn them back on.
        ns3::Config::SetDefault("ns3::TrainingJob::ProtocolLatency", ns3::BooleanValue(false));
    }

    void TearDown() override
    {
        ns3::Config::Reset();
        ns3::Simulator::Destroy();
    }
};

/// Selects ns-3's simulator implementation for the simulators created while it lives.
struct SimulatorImplGuard
{
    explicit SimulatorImplGuard(const std::string& type)
    {
        ns3::GlobalValue::Bind("SimulatorImplementationType", ns3::StringValue(type));
    }

    ~SimulatorImplGuard()
    {
        ns3::GlobalValue::Bind("SimulatorImplementationType",
                               ns3::StringValue("ns3::DefaultSimulatorImpl"));
    }

    SimulatorImplGuard(const SimulatorImplGuard&) = delete;
    SimulatorImplGuard& operator=(const SimulatorImplGuard&) = delete;
};

/// Counts every drop in the fabric (devices and switches) by reason, through the trace sources.
struct DropCounter
{
    std::array<uint64_t, static_cast<size_t>(ns3::FabricDropReason::COUNT)> byReason{};
    uint64_t payloadBytes{0};

    void Count(const ns3::FabricFrame& f, ns3::FabricDropReason r)
    {
        ++byReason[static_cast<size_t>(r)];
        payloadBytes += f.payloadBytes;
    }

    uint64_t Total() const
    {
        uint64_t t = 0;
        for (auto v : byReason)
        {
            t += v;
        }
        return t;
    }

    uint64_t Of(ns3::FabricDropReason r) const
    {
        return byReason[static_cast<size_t>(r)];
    }

    /// Connect to every FabricNetDevice and FabricSwitch Drop trace that exists now.
    void ConnectAll()
    {
        ns3::Config::ConnectWithoutContextFailSafe(
            "/NodeList/*/DeviceList/*/$ns3::FabricNetDevice/Drop",
            ns3::MakeCallback(&DropCounter::Count, this));
        ns3::Config::ConnectWithoutContextFailSafe("/NodeList/*/$ns3::FabricSwitch/Drop",
                                                   ns3::MakeCallback(&DropCounter::Count, this));
    }
};

/// Install a probe source on `node` towards `dst`.
inline ns3::Ptr<ns3::FabricTrafficSource>
AddSource(ns3::Ptr<ns3::Node> node,
          ns3::Ipv4Address dst,
          uint32_t flowId,
          uint64_t maxBytes,
          uint32_t payload = 4096,
          uint8_t prio = 3)
{
    using namespace ns3;
    Ptr<FabricTrafficSource> s = CreateObject<FabricTrafficSource>();
    s->SetAttribute("Remote", Ipv4AddressValue(dst));
    s->SetAttribute("FlowId", UintegerValue(flowId));
    s->SetAttribute("MaxBytes", UintegerValue(maxBytes));
    s->SetAttribute("PayloadSize", UintegerValue(payload));
    s->SetAttribute("Priority", UintegerValue(prio));
    node->AddApplication(s);
    return s;
}

inline ns3::Ptr<ns3::FabricTrafficSink>
AddSink(ns3::Ptr<ns3::Node> node)
{
    ns3::Ptr<ns3::FabricTrafficSink> k = ns3::CreateObject<ns3::FabricTrafficSink>();
    node->AddApplication(k);
    return k;
}

/// Collects RDMA completions (requester or responder side).
struct Completions
{
    std::vector<ns3::RdmaCompletion> v;

    void Add(const ns3::RdmaCompletion& c)
    {
        v.push_back(c);
    }

    ns3::Callback<void, const ns3::RdmaCompletion&> Cb()
    {
        return ns3::MakeCallback(&Completions::Add, this);
    }
};

/// An incast: hosts 1..n of `topo` each post one RDMA WRITE of `bytes` to host 0, completions
/// to `done`. \return the requester queue pairs, host 1's first
inline std::vector<ns3::Ptr<ns3::RdmaQueuePair>>
PostIncast(ns3::Ptr<ns3::FabricTopology> topo, uint32_t n, uint64_t bytes, Completions& done)
{
    std::vector<ns3::Ptr<ns3::RdmaQueuePair>> senders;
    for (uint32_t i = 1; i <= n; ++i)
    {
        auto qp = ns3::RdmaHelper::Connect(topo->GetHostNode(i), topo->GetHostNode(0));
        qp.first->SetCompletionCallback(done.Cb());
        qp.first->PostWrite(bytes);
        senders.push_back(qp.first);
    }
    return senders;
}

/// Two hosts joined by one 400G cable of `link`'s kind, RDMA NICs installed, one queue pair
/// connected (qa on a, qb on b).
struct TwoHosts
{
    ns3::Ptr<ns3::Node> a = ns3::CreateObject<ns3::Node>();
    ns3::Ptr<ns3::Node> b = ns3::CreateObject<ns3::Node>();
    ns3::Ptr<ns3::FabricNetDevice> da;
    ns3::Ptr<ns3::FabricNetDevice> db;
    ns3::Ptr<ns3::RdmaQueuePair> qa;
    ns3::Ptr<ns3::RdmaQueuePair> qb;

    explicit TwoHosts(ns3::RdmaHelper& rdma,
                      double meters = 3.0,
                      ns3::FabricLinkHelper link = ns3::FabricLinkHelper(),
                      ns3::Ipv4Address addrA = ns3::Ipv4Address("10.0.0.1"),
                      ns3::Ipv4Address addrB = ns3::Ipv4Address("10.0.0.2"))
    {
        using namespace ns3;
        NetDeviceContainer d = link.Install(a, b, DataRate("400Gbps"), meters);
        da = DynamicCast<FabricNetDevice>(d.Get(0));
        db = DynamicCast<FabricNetDevice>(d.Get(1));
        da->SetIpv4Address(addrA);
        db->SetIpv4Address(addrB);
        rdma.Install(a);
        rdma.Install(b);
        std::tie(qa, qb) = RdmaHelper::Connect(a, b);
    }
};

/// Lose the first transmission of RoCEv2 data packet `psn` arriving at `dev` (once); `dropped`
/// tells whether it happened.
inline void
DropFirstRoceDataPsn(ns3::Ptr<ns3::FabricNetDevice> dev, uint32_t psn, bool* dropped)
{
    using namespace ns3;
    dev->SetReceiveFilter(MakeCallback(+[](uint32_t psn, bool* d, const FabricFrame& f) {
                              if (!*d && f.dstPort == 4791 && f.aux[0] <= 0x0a && f.seq == psn)
                              {
                                  *d = true;
                                  return true;
                              }
                              return false;
                          }).Bind(psn, dropped));
}

/// A star of `hosts` single-GPU servers at 400 Gb/s.
inline ns3::Ptr<ns3::FabricTopology>
BuildStar(uint32_t hosts, ns3::Ptr<ns3::StarTopologyHelper>* helperOut = nullptr)
{
    using namespace ns3;
    Ptr<StarTopologyHelper> star = CreateObject<StarTopologyHelper>();
    star->SetAttribute("Servers", UintegerValue(hosts));
    star->SetAttribute("GpusPerServer", UintegerValue(1));
    if (helperOut)
    {
        *helperOut = star;
    }
    return star->Build();
}

/// A training job over a topology: RDMA NICs, GPU apps, transports.
struct Cluster
{
    ns3::Ptr<ns3::FabricTopology> topo;
    ns3::Ptr<ns3::RdmaCollectiveTransport> rdma;
    ns3::Ptr<ns3::NvlinkTransport> nvlink;
    ns3::Ptr<ns3::TrainingJob> job;
};

/// Build hosts, RDMA NICs, GPU apps and a training job over `topo`.
inline Cluster
MakeJob(ns3::Ptr<ns3::FabricTopology> topo,
        const std::string& algorithm,
        const std::string& op,
        uint64_t bytes,
        uint32_t steps,
        ns3::Time compute,
        bool useNvlink,
        ns3::RdmaHelper rdmaHelper = ns3::RdmaHelper())
{
    using namespace ns3;
    Cluster c;
    c.topo = topo;
    rdmaHelper.Install(topo);
    c.rdma = CreateObject<RdmaCollectiveTransport>();
    c.rdma->SetRanks(topo->GetHosts());
    if (useNvlink)
    {
        c.nvlink = CreateObject<NvlinkTransport>();
        c.nvlink->SetRanks(topo->GetNHosts());
    }
    for (uint32_t r = 0; r < topo->GetNHosts(); ++r)
    {
        Ptr<GpuTrainingApp> app = CreateObject<GpuTrainingApp>();
        app->SetAttribute("ComputeTime", TimeValue(compute));
        topo->GetHostNode(r)->AddApplication(app);
    }
    c.job = CreateObject<TrainingJob>();
    c.job->SetAttribute("Steps", UintegerValue(steps));
    c.job->SetAttribute("Collective", StringValue(op));
    c.job->SetAttribute("Algorithm", TypeIdValue(TypeId::LookupByName(algorithm)));
    c.job->SetAttribute("Bytes", UintegerValue(bytes));
    c.job->Setup(topo->GetHosts(), topo->GetGpusPerServer(), c.rdma, c.nvlink);
    return c;
}

/// The training tests' small dense model: equal stages (no output head) and kernels of whole
/// nanoseconds at 1 PFLOP/s x 1.
inline ns3::TransformerModel
SmallModel(uint32_t layers)
{
    ns3::TransformerModel m;
    m.layers = layers;
    m.hidden = 1024;
    m.ffn = 4096;
    m.heads = 8;
    m.kvHeads = 8;
    m.seqLen = 1024;
    m.vocab = 0; // no head: every stage computes the same
    m.gated = false;
    return m;
}

/// `servers` one-GPU servers on a 2-tier fat-tree of radix-8 leaves (4 hosts each), 400G host
/// links and 100G fabric links (traffic between leaves shares the spines), RDMA NICs installed.
inline ns3::Ptr<ns3::FabricTopology>
SharedSpineFatTree(uint32_t servers)
{
    using namespace ns3;
    Ptr<FatTreeHelper> ft = CreateObject<FatTreeHelper>();
    ft->SetAttribute("Servers", UintegerValue(servers));
    ft->SetAttribute("GpusPerServer", UintegerValue(1));
    ft->SetAttribute("LeafRadix", UintegerValue(8));
    ft->SetAttribute("LinkRate", DataRateValue(DataRate("400Gbps")));
    ft->SetAttribute("FabricLinkRate", DataRateValue(DataRate("100Gbps")));
    Ptr<FabricTopology> topo = ft->Build();
    RdmaHelper rdma;
    rdma.Install(topo);
    return topo;
}

#endif

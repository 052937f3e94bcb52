// SPDX-License-Identifier: GPL-2.0-only
// A congestion control, a collective algorithm, a topology and a fabric defined and registered
// in this test binary, with no runner source edited: `ai-fabric run`'s own code path
// (RunCommand, in process) lists each and its key in --help, refuses a bad key value naming the
// key (exit 2), and selects and runs each by its scenario name, the keys' values reaching the
// plug-ins.
#include "fabric-registry.h"
#include "run-command.h"
#include "run-transports.h"

#include "ns3/ai-fabric-module.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace ns3;

namespace
{

// Wire bytes of a RoCEv2 data packet beyond its payload (IPv4 20, UDP 8, BTH 12, ICRC 4,
// Ethernet 14 + 802.1Q 4 + FCS 4, preamble + IFG 20).
constexpr double kRoceOverhead = 20 + 8 + 12 + 4 + 22 + 20;

/// Paces every queue pair at a fixed fraction of its line rate (key rdma.test-paced.fraction).
class TestPacedCc : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TestPacedCc")
                                .SetParent<RdmaCongestionOps>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<TestPacedCc>()
                                .AddAttribute("Fraction",
                                              "Sending rate as a fraction of the line rate.",
                                              DoubleValue(1.0),
                                              MakeDoubleAccessor(&TestPacedCc::m_fraction),
                                              MakeDoubleChecker<double>(0.01, 1.0));
        return tid;
    }

    std::string GetName() const override
    {
        return "test-paced";
    }

    void Init(Ptr<RdmaQueuePair> qp) override
    {
        ++inits;
        qp->SetRate(DataRate(static_cast<uint64_t>(qp->GetLineRate().GetBitRate() * m_fraction)));
    }

    double m_fraction{1.0};
    static uint32_t inits;
};

uint32_t TestPacedCc::inits = 0;
NS_OBJECT_ENSURE_REGISTERED(TestPacedCc);

const bool g_testCcRegistered = RdmaCongestionRegistry::Add([] {
    RdmaCongestionControlInfo e;
    e.name = "test-paced";
    e.typeId = "ns3::TestPacedCc";
    e.help = "a test's: every queue pair at a fixed fraction of the line rate";
    e.keys = {
        {"fraction", 0.01, 1, 1, false, "sending rate, fraction of the line rate", "Fraction"}};
    return e;
}());

/// AllReduce as gather to a root, then broadcast from it (key workload.test-gather.root).
class TestGatherCollective : public CollectiveAlgorithm
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TestGatherCollective")
                                .SetParent<CollectiveAlgorithm>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<TestGatherCollective>();
        return tid;
    }

    std::string GetName() const override
    {
        return "test-gather";
    }

    static uint32_t builds;

  protected:
    void DoBuild(const CollectiveSpec& spec, CollectiveSchedule& s) const override
    {
        ++builds;
        std::vector<uint32_t> gathered;
        for (uint32_t r = 1; r < spec.ranks; ++r)
        {
            gathered.push_back(s.Add(r, 0, spec.bytes, nullptr, 0));
        }
        for (uint32_t r = 1; r < spec.ranks; ++r)
        {
            s.Add(0, r, spec.bytes, gathered.data(), static_cast<uint32_t>(gathered.size()));
        }
    }
};

uint32_t TestGatherCollective::builds = 0;
NS_OBJECT_ENSURE_REGISTERED(TestGatherCollective);

const bool g_testCollectiveRegistered = CollectiveAlgorithmRegistry::Add([] {
    CollectiveAlgorithmInfo e;
    e.name = "test-gather";
    e.typeId = "ns3::TestGatherCollective";
    e.help = "a test's: gather to rank 0, then broadcast";
    e.keys = {{"root", 0, 65535, 0, true, "the gathering rank (this test's: 0 only)"}};
    e.collectives = {"allreduce"};
    e.otherwise = "ring";
    e.simpleOnly = true;
    e.check = [](const CollectiveScenario& s) -> std::string {
        return s.keys.at("root") != 0 ? "workload.test-gather.root: must be 0 in this test" : "";
    };
    return e;
}());

/// Two leaves joined through one spine, at topology.test-dumbbell.core_gbps (a dumbbell whose
/// bar has a middle switch, so that routes stay valley-free); the first half of the servers on
/// the left leaf, the rest on the right one.
class TestDumbbellHelper : public FabricTopologyHelper
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TestDumbbellHelper")
                                .SetParent<FabricTopologyHelper>()
                                .SetGroupName("AiFabric")
                                .AddConstructor<TestDumbbellHelper>()
                                .AddAttribute("CoreRate",
                                              "Rate of the link between the two switches.",
                                              DataRateValue(DataRate("100Gbps")),
                                              MakeDataRateAccessor(&TestDumbbellHelper::m_coreRate),
                                              MakeDataRateChecker());
        return tid;
    }

    static uint32_t builds;

  protected:
    void DoValidate() const override
    {
        if (m_servers < 2)
        {
            throw FabricConfigError("Servers",
                                    "must be >= 2 (got " + std::to_string(m_servers) + ")");
        }
    }

    void DoBuild(Ptr<FabricTopology> topo) override
    {
        ++builds;
        const uint32_t left = NewSwitch(topo, "leaf");
        const uint32_t right = NewSwitch(topo, "leaf");
        const uint32_t spine = NewSwitch(topo, "spine");
        const uint32_t half = (m_servers + 1) / 2 * m_gpusPerServer;
        for (uint32_t h = 0; h < GetNHosts(); ++h)
        {
            Connect(topo, h, h < half ? left : right, m_linkRate, m_hostCable);
        }
        Connect(topo, left, spine, m_coreRate, m_fabricCable);
        Connect(topo, spine, right, m_coreRate, m_fabricCable);
        topo->SetBisectionBandwidth(double(m_coreRate.GetBitRate()));
    }

    std::string GetKind() const override
    {
        return "test-dumbbell";
    }

    uint32_t PlannedSwitches() const override
    {
        return 3;
    }

  private:
    DataRate m_coreRate{"100Gbps"};
};

uint32_t TestDumbbellHelper::builds = 0;
NS_OBJECT_ENSURE_REGISTERED(TestDumbbellHelper);

const bool g_testTopologyRegistered = FabricTopologyRegistry::Add([] {
    FabricTopologyInfo e;
    e.name = "test-dumbbell";
    e.help = "a test's: two leaves joined through one spine";
    e.keys = {{"core_gbps", 1, 3200, 100, false, "the leaf-spine links, Gb/s"}};
    e.create = [](const TopologyParams& p) -> Ptr<FabricTopologyHelper> {
        Ptr<TestDumbbellHelper> h = CreateObject<TestDumbbellHelper>();
        h->SetAttribute("CoreRate",
                        DataRateValue(DataRate(uint64_t(p.keys.at("core_gbps") * 1e9))));
        h->SetAttribute("Servers", UintegerValue(p.servers));
        h->SetAttribute("GpusPerServer", UintegerValue(p.gpusPerServer));
        return h;
    };
    e.serversPerLeafGroup = [](const TopologyParams& p) { return (p.servers + 1) / 2; };
    e.size = [](const TopologyParams& p) {
        TopologySize s;
        s.switchPorts = uint64_t(p.servers) * p.gpusPerServer + 4;
        s.routes = 3 * uint64_t(p.servers) * p.gpusPerServer;
        return s;
    };
    return e;
}());

struct Command
{
    int status;
    std::string out;
    std::string err;
};

/// A fabric of its own: RoCEv2's NICs on Ethernet, with a key of its own (test-fabric.marker)
/// that its hooks carry from the scenario to summary.json and the dashboard.
struct TestFabric
{
    static double marker;     //!< test-fabric.marker as resolved
    static uint32_t installs; //!< its install hook's calls
};

double TestFabric::marker = 0;
uint32_t TestFabric::installs = 0;

const bool g_testFabricRegistered = aifabric::FabricRegistry::Add([] {
    aifabric::FabricInfo f;
    f.name = "test-fabric";
    f.help = "the test's own fabric, RoCEv2 NICs on Ethernet";
    f.linkLayer = "ethernet";
    f.packetLabel = "test packets";
    f.section = "test-fabric";
    // No defaults in the schema: the in-process default scenario (and the sweep points' ids
    // computed from it in this binary) stay those of the runner's binaries.
    f.schemaKeys = [] {
        return std::vector<aifabric::KeySpec>{
            aifabric::ObjectKey("test-fabric", "keys of the test's fabric"),
            aifabric::NumKey("test-fabric.marker",
                             aifabric::AtLeast(1),
                             aifabric::AtMost(10),
                             "a number the fabric reports back")};
    };
    f.resolve = [](const nlohmann::json& j, aifabric::RunConfig&) {
        TestFabric::marker =
            j.contains("test-fabric") ? j["test-fabric"].value("marker", 3.0) : 3.0;
    };
    f.install = [](const aifabric::RunConfig& c,
                   Ptr<FabricTopology> topo,
                   Ptr<LatencyHistogram> latency,
                   std::vector<Ptr<RdmaNic>>& nics) {
        ++TestFabric::installs;
        return aifabric::InstallRdma(c, topo, latency, nics);
    };
    f.summarize = [](const aifabric::RunConfig& c, const aifabric::Simulation&, nlohmann::json& s) {
        if (c.fabric.name == "test-fabric")
        {
            s["test-fabric"] = {{"marker", TestFabric::marker}};
        }
    };
    f.dashboardRows = [](const std::vector<const aifabric::RunConfig*>&,
                         const aifabric::DashboardRowAdder& row) {
        row("test fabric marker", [](const nlohmann::json& s) {
            return s.contains("test-fabric") ? s["test-fabric"]["marker"].dump() : "-";
        });
    };
    return f;
}());

/// RunCommand (ai-fabric run) with `args`, its stdout and stderr captured.
Command
RunRunner(std::vector<std::string> args)
{
    args.insert(args.begin(), "ai-fabric-runner");
    std::vector<char*> argv;
    for (auto& a : args)
    {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    Command c;
    c.status = aifabric::RunCommand(int(args.size()), argv.data());
    c.out = testing::internal::GetCapturedStdout();
    c.err = testing::internal::GetCapturedStderr();
    return c;
}

/// The three test plug-ins on two servers of one GPU each: 8 MiB gathered and sent back.
std::vector<std::string>
PluginScenario(const std::string& out, double fraction, double coreGbps)
{
    return {"--set",  "topology.kind=test-dumbbell",
            "--set",  "topology.servers=2",
            "--set",  "topology.gpus_per_server=1",
            "--set",  "topology.test-dumbbell.core_gbps=" + std::to_string(coreGbps),
            "--set",  "congestion_control=test-paced",
            "--set",  "rdma.test-paced.fraction=" + std::to_string(fraction),
            "--set",  "workload.algorithm=test-gather",
            "--set",  "workload.protocol=simple",
            "--set",  "workload.steps=1",
            "--set",  "workload.bytes=8388608",
            "--out",  out,
            "--quiet"};
}

std::string
TempPath(const std::string& name)
{
    const std::string p = (std::filesystem::temp_directory_path() /
                           ("ai-fabric-plugin-runner-" + std::to_string(::getpid()) + "-" + name))
                              .string();
    std::filesystem::remove_all(p);
    return p;
}

TEST(PluginRunner, HelpListsEachTestPluginAndItsKey)
{
    const Command c = RunRunner({"--help"});
    EXPECT_EQ(c.status, 0);
    for (const char* s : {"test-paced",
                          "rdma.test-paced.fraction: sending rate",
                          "test-gather",
                          "workload.test-gather.root: the gathering rank",
                          "test-dumbbell",
                          "topology.test-dumbbell.core_gbps: the leaf-spine links",
                          "test-fabric: the test's own fabric",
                          "test-fabric.marker: a number the fabric reports back"})
    {
        EXPECT_NE(c.out.find(s), std::string::npos) << s;
    }
}

TEST(PluginRunner, BadValueOfATestPluginsKeyIsExitTwoNamingTheKey)
{
    const std::string out = TempPath("bad");

    struct Bad
    {
        std::string set;
        std::string key;
    };

    for (const Bad& b :
         {Bad{"rdma.test-paced.fraction=2", "rdma.test-paced.fraction"},
          Bad{"topology.test-dumbbell.core_gbps=0", "topology.test-dumbbell.core_gbps"},
          Bad{"workload.test-gather.root=1", "workload.test-gather.root"},
          Bad{"workload.test-gather.root=-1", "workload.test-gather.root"},
          Bad{"test-fabric.marker=11", "test-fabric.marker"}})
    {
        std::vector<std::string> args = PluginScenario(out, 0.5, 100);
        args.insert(args.end(), {"--set", b.set}); // after the scenario's own value
        const Command c = RunRunner(args);
        EXPECT_EQ(c.status, 2) << b.set << ": " << c.err;
        EXPECT_NE(c.err.find("error: " + b.key), std::string::npos) << b.set << ": " << c.err;
        EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << c.err;
        EXPECT_FALSE(std::filesystem::exists(out)) << "no results for bad input";
    }
    // The test collective implements allreduce only: the registry's line for the others.
    std::vector<std::string> args = PluginScenario(out, 0.5, 100);
    args.insert(args.end(), {"--set", "workload.collective=allgather"});
    const Command c = RunRunner(args);
    EXPECT_EQ(c.status, 2);
    EXPECT_NE(c.err.find("workload.algorithm: 'test-gather' implements allreduce only (use ring "
                         "for allgather)"),
              std::string::npos)
        << c.err;
}

TEST(PluginRunner, EachTestPluginIsSelectedByNameAndRunsWithItsKeys)
{
    // Rank 1 sends its 8 MiB to rank 0 through the dumbbell's spine, then rank 0 sends the
    // result back: two transfers one after the other, each at the bottleneck's goodput,
    // min(400 Gb/s x fraction (the CC's pace), core_gbps) x 4096 / (4096 + overhead).
    const double bytes = 8 << 20;

    struct Case
    {
        double fraction;
        double coreGbps;
        double bottleneckGbps;
    };

    for (const Case& k : {Case{0.1, 100, 40}, Case{1, 25, 25}})
    {
        const uint32_t inits = TestPacedCc::inits;
        const uint32_t collectives = TestGatherCollective::builds;
        const uint32_t topologies = TestDumbbellHelper::builds;
        const std::string out = TempPath("run");
        const Command c = RunRunner(PluginScenario(out, k.fraction, k.coreGbps));
        ASSERT_EQ(c.status, 0) << c.err;
        EXPECT_GT(TestPacedCc::inits, inits) << "the queue pairs ran the test's CC";
        EXPECT_GT(TestGatherCollective::builds, collectives) << "its schedule was built";
        EXPECT_GT(TestDumbbellHelper::builds, topologies) << "the fabric was the dumbbell";
        std::ifstream in(out + "/summary.json");
        const nlohmann::json s = nlohmann::json::parse(in);
        EXPECT_EQ(s["congestion_control"], "test-paced");
        EXPECT_EQ(s["algorithm_used"], "test-gather");
        const double goodput = k.bottleneckGbps * 1e9 * 4096 / (4096 + kRoceOverhead);
        const double modelMs = 2 * bytes * 8 / goodput * 1e3;
        const double ms = s["collective_ms"]["mean"];
        EXPECT_NEAR(ms / modelMs, 1.0, 0.05) << ms << " ms vs " << modelMs << " ms";
        std::filesystem::remove_all(out);
    }
}

TEST(PluginRunner, TheTestFabricIsSelectedByNameAndItsHooksRun)
{
    // Same NICs and switches as rocev2: the same collective time to the nanosecond; its key
    // reaches its hooks (summary.json, the dashboard).
    auto run = [](const std::string& fabric, const std::string& out) {
        std::vector<std::string> args = {"--set",
                                         "topology.servers=2",
                                         "--set",
                                         "topology.gpus_per_server=1",
                                         "--set",
                                         "workload.steps=1",
                                         "--set",
                                         "workload.bytes=1048576",
                                         "--set",
                                         "fabric=" + fabric,
                                         "--set",
                                         "test-fabric.marker=7",
                                         "--out",
                                         out};
        return RunRunner(args);
    };
    const uint32_t installs = TestFabric::installs;
    const std::string outA = TempPath("fabric");
    const Command a = run("test-fabric", outA);
    ASSERT_EQ(a.status, 0) << a.err;
    EXPECT_GT(TestFabric::installs, installs) << "its install hook built the transport";
    EXPECT_NE(a.out.find("test fabric marker"), std::string::npos) << a.out;
    const std::string outB = TempPath("rocev2");
    const Command b = run("rocev2", outB);
    ASSERT_EQ(b.status, 0) << b.err;
    std::ifstream inA(outA + "/summary.json");
    std::ifstream inB(outB + "/summary.json");
    const nlohmann::json sa = nlohmann::json::parse(inA);
    const nlohmann::json sb = nlohmann::json::parse(inB);
    EXPECT_EQ(sa["fabric"], "test-fabric");
    EXPECT_EQ(sa["test-fabric"]["marker"], 7.0);
    EXPECT_FALSE(sb.contains("test-fabric"));
    EXPECT_EQ(sa["collective_ms"]["mean"], sb["collective_ms"]["mean"]);
    EXPECT_GT(sa["collective_ms"]["mean"].get<double>(), 0);
    std::filesystem::remove_all(outA);
    std::filesystem::remove_all(outB);
}

} // namespace

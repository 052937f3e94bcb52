// SPDX-License-Identifier: GPL-2.0-only
// routing.load_balancing on the doc's 128-GPU rank-order ring (one channel, not rail-local,
// 64 MiB, DCQCN): ECMP's collisions against queue-pair scaling, adaptive routing (at the
// collision-free bound) and packet spraying (reordered packets counted); bad input exits 2.
#include "process-util.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

using nlohmann::json;
namespace fs = std::filesystem;

namespace
{

const char* kRing = R"({"name": "flat-ring",
  "workload": {"algorithm": "ring", "channels": 1, "bytes": 67108864, "steps": 1,
               "compute_ms": 0},
  "attributes": {"ns3::RingCollective::RailLocal": false}})";

json
Ring(const fs::path& dir,
     const std::string& lb,
     const std::string& recovery,
     const std::string& sets = "",
     const std::string& name = "")
{
    const fs::path out = dir / (name.empty() ? lb : name);
    const Result r = Runner(
        WriteFile(dir / "ring.json", kRing).string() + " --set routing.load_balancing=" + lb +
        " --set loss_recovery=" + recovery + " " + sets + " --out " + out.string());
    EXPECT_EQ(r.status, 0) << r.err;
    std::ifstream f(out / "summary.json");
    return json::parse(f);
}

double
StepMs(const json& s)
{
    return s["barrier"][0]["step_ms"].get<double>();
}

} // namespace

TEST(RunnerLoadBalancingTest, PoliciesAgainstEcmpAndTheCollisionFreeBound)
{
    const fs::path dir = ScratchDir("aif-lb");
    const json ecmp = Ring(dir, "ecmp", "go-back-n");
    const json qp = Ring(dir, "qp-ecmp", "go-back-n");
    const json adaptive = Ring(dir, "adaptive", "selective-repeat");
    const json spray = Ring(dir, "spray", "selective-repeat");
    // Collision-free bound of a ring AllReduce: 2 (n-1)/n S / (line rate x payload share):
    // 127/64 x 64 MiB / (50 GB/s x 4096 / 4182 wire bytes per 4 KiB packet: IPv4 20, UDP 8,
    // BTH 12, ICRC 4, Ethernet + 802.1Q + FCS 22, preamble and IFG 20) = 2.72 ms.
    const double bound = 2.0 * 127 / 128 * 67108864.0 / (50e9 * 4096.0 / 4182.0) * 1e3;
    EXPECT_GT(StepMs(ecmp), 4 * bound) << "ECMP collisions on the leaves' uplinks";
    EXPECT_LT(StepMs(qp), 0.8 * StepMs(ecmp)) << "four queue pairs per connection hash apart";
    EXPECT_GE(StepMs(adaptive), bound);
    EXPECT_LT(StepMs(adaptive), 1.05 * bound) << "per-packet least-queued port: no collision";
    EXPECT_LT(StepMs(spray), 0.5 * StepMs(ecmp));
    EXPECT_EQ(ecmp["counters"]["out_of_order_packets"], 0);
    EXPECT_GT(spray["counters"]["out_of_order_packets"].get<uint64_t>(), 1000u)
        << "spraying reorders; the receiver keeps them (selective repeat)";
    EXPECT_EQ(ecmp["counters"]["retransmitted_packets"], 0);
}

// Spraying with IRN's selective repeat resends packets that were only late (a NAK per
// out-of-order arrival); a requester that waits until a packet 512 PSNs later has arrived
// (rdma.reorder_threshold, the receiver placing packets out of order as Spectrum-X's NICs do)
// resends none and, with PFC alone, sprays within 5% of the collision-free bound.
TEST(RunnerLoadBalancingTest, ReorderTolerantSprayingReachesTheBound)
{
    const fs::path dir = ScratchDir("aif-lb-reorder");
    const double bound = 2.0 * 127 / 128 * 67108864.0 / (50e9 * 4096.0 / 4182.0) * 1e3;
    const json irn = Ring(dir, "spray", "selective-repeat", "--set congestion_control=none");
    const json tolerant = Ring(dir,
                               "spray",
                               "selective-repeat",
                               "--set congestion_control=none --set rdma.reorder_threshold=512",
                               "tolerant");
    EXPECT_GT(irn["counters"]["retransmitted_packets"].get<uint64_t>(), 10000u);
    EXPECT_GT(tolerant["counters"]["out_of_order_packets"].get<uint64_t>(), 10000u);
    EXPECT_EQ(tolerant["counters"]["retransmitted_packets"], 0);
    EXPECT_EQ(tolerant["counters"]["timeouts"], 0);
    EXPECT_GE(StepMs(tolerant), bound);
    EXPECT_LT(StepMs(tolerant), 1.05 * bound);
    EXPECT_LT(StepMs(tolerant), 0.7 * StepMs(irn));
}

TEST(RunnerLoadBalancingTest, BadLoadBalancingInputExitsTwoNamingTheKey)
{
    const fs::path dir = ScratchDir("aif-lb-bad");
    const fs::path file = WriteFile(dir / "s.json", R"({"topology": {"servers": 2},
      "workload": {"bytes": 1048576, "steps": 1, "compute_ms": 1}})");
    const std::pair<std::string, std::string> cases[] = {
        {"--set routing.load_balancing=hash", "routing.load_balancing"},
        {"--set fabric=infiniband --set routing.load_balancing=spray", "routing.load_balancing"},
        {"--set fabric=tcp --set routing.load_balancing=qp-ecmp", "routing.load_balancing"},
        {"--set routing.qps_per_connection=65", "routing.qps_per_connection"},
        {"--set routing.flowlet_gap_us=-1", "routing.flowlet_gap_us"},
        {"--set topology.kind=star --set topology.tiers=3", "topology.tiers"},
        {"--set topology.kind=fat-tree --set topology.planes=2", "topology.planes"},
        {"--set rdma.reorder_threshold=64", "rdma.reorder_threshold: needs loss_recovery"},
        {"--set rdma.reorder_threshold=-1", "rdma.reorder_threshold"},
    };
    for (const auto& [sets, key] : cases)
    {
        const fs::path out = dir / "out";
        fs::remove_all(out);
        const Result r = Runner(file.string() + " " + sets + " --out " + out.string());
        EXPECT_EQ(r.status, 2) << sets << ": " << r.err;
        EXPECT_NE(r.err.find(key), std::string::npos) << sets << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(fs::exists(out / "summary.json")) << sets;
    }
}

// SPDX-License-Identifier: GPL-2.0-only
#include "dashboard.h"

#include "text-util.h"

#include <iomanip>
#include <sstream>

namespace aifabric
{

using nlohmann::json;

std::string
Dashboard(const std::vector<RunOutput>& runs)
{
    std::ostringstream os;
    const int w = 26;
    auto row = [&](const std::string& label, auto fn) {
        os << std::left << std::setw(28) << label;
        for (const auto& r : runs)
        {
            os << std::left << std::setw(w) << fn(r.summary);
        }
        os << "\n";
    };
    os << "\n  CLUSTER SYNC & TAIL LATENCY — " << runs.front().config.Gpus() << " GPUs, "
       << runs.front().config.topologyKind << ", " << runs.front().config.linkGbps
       << " Gb/s per GPU, " << runs.front().config.collective << " of "
       << Num(runs.front().config.bytes / 1048576.0) << " MiB (" << runs.front().config.algorithm
       << ", " << runs.front().config.protocol << "), " << runs.front().config.computeMs
       << " ms compute/step\n\n";
    row("", [](const json& s) { return s["name"].get<std::string>().substr(0, 24); });
    row("Effective MFU",
        [](const json& s) { return Num(s["mfu_effective"].get<double>() * 100, 3) + " %"; });
    row("AllReduce duration (mean)",
        [](const json& s) { return Num(s["collective_ms"]["mean"].get<double>(), 4) + " ms"; });
    row("Step time (mean / max)", [](const json& s) {
        return Num(s["step_ms"]["mean"].get<double>(), 4) + " / " +
               Num(s["step_ms"]["max"].get<double>(), 4) + " ms";
    });
    row("Idle cost", [](const json& s) {
        return "$" + Num(s["idle_cost_usd_per_hr"].get<double>(), 5) + "/hr";
    });
    row("p99 network latency",
        [](const json& s) { return Num(s["network_latency_us"]["p99"].get<double>(), 4) + " us"; });
    row("busbw",
        [](const json& s) { return Num(s["busbw_gbytes_per_s"].get<double>(), 4) + " GB/s"; });
    row("retransmits / timeouts", [](const json& s) {
        return std::to_string(s["counters"]["retransmitted_packets"].get<uint64_t>()) + " / " +
               std::to_string(s["counters"]["timeouts"].get<uint64_t>());
    });
    row("slowest step waited on", [](const json& s) {
        std::string best = "-";
        double worst = -1;
        for (const auto& b : s["barrier"])
        {
            if (b["step_ms"].get<double>() > worst)
            {
                worst = b["step_ms"].get<double>();
                best = "rank " + std::to_string(b["waited_on"].get<uint32_t>()) + " (" +
                       b["cause"].get<std::string>() + ")";
            }
        }
        return best;
    });
    row("simulation", [](const json& s) {
        return Num(s["sim"]["wall_s"].get<double>(), 3) + " s, " +
               Num(s["sim"]["events"].get<uint64_t>() / 1e6, 3) + " M ev";
    });
    return os.str();
}

} // namespace aifabric

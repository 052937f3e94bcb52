// SPDX-License-Identifier: GPL-2.0-only
#include "dashboard.h"

#include "fabric-registry.h"
#include "text-util.h"

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <vector>

namespace aifabric
{

using nlohmann::json;

namespace
{

/// The rank the slowest step waited on, and why.
std::string
SlowestStep(const json& s)
{
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
}

/// A collective as NCCL names it: "AllReduce", "ReduceScatter", ...
std::string
CollectiveTitle(const std::string& op)
{
    static const std::vector<std::pair<std::string, std::string>> names{
        {"allreduce", "AllReduce"},
        {"reducescatter", "ReduceScatter"},
        {"allgather", "AllGather"},
        {"alltoall", "AllToAll"},
        {"broadcast", "Broadcast"},
        {"sendrecv", "SendRecv"}};
    for (const auto& [k, v] : names)
    {
        if (k == op)
        {
            return v;
        }
    }
    return op;
}

/// "tp 8, pp 4, dp 32, ep 1, 1f1b, 16 micro-batches of 1, zero 1".
std::string
DescribeParallelism(const RunConfig& c)
{
    const ns3::ParallelismConfig& p = c.workload.parallelism;
    return "tp " + std::to_string(p.tp) + ", pp " + std::to_string(p.pp) + ", dp " +
           std::to_string(p.dp) + ", ep " + std::to_string(p.ep) + ", " +
           ns3::ParallelismConfig::ScheduleName(p.schedule) + ", " +
           std::to_string(p.microbatches) + " micro-batches of " +
           std::to_string(p.microBatchSize) + ", zero " + std::to_string(p.zero);
}

/// The rows of flow traffic (a flow workload, or background flows beside a job).
/// Latency rows: whole messages GPU memory to GPU memory (host path included) under the run's
/// own load and on the idle fabric, then data packets NIC to NIC.
template <typename Row>
void
LatencyRows(Row& row)
{
    row("p99 message latency GPU-GPU",
        [](const json& s) { return Num(s["message_latency_us"]["p99"].get<double>(), 4) + " us"; });
    row("idle 1 KiB message GPU-GPU", [](const json& s) {
        return Num(s["idle_message_latency_us"]["us"].get<double>(), 4) + " us";
    });
    row("p99 packet latency NIC-NIC",
        [](const json& s) { return Num(s["network_latency_us"]["p99"].get<double>(), 4) + " us"; });
}

template <typename Row>
void
FlowRows(Row& row)
{
    auto has = [](const json& s) { return s.contains("flows"); };
    row("flows completed / total", [&](const json& s) {
        return has(s) ? std::to_string(s["flows"]["completed"].get<uint64_t>()) + " / " +
                            std::to_string(s["flows"]["total"].get<uint64_t>())
                      : std::string("-");
    });
    row("FCT slowdown p50/p95/p99", [&](const json& s) {
        if (!has(s))
        {
            return std::string("-");
        }
        const json& q = s["flows"]["slowdown"];
        return Num(q["p50"].get<double>(), 3) + " / " + Num(q["p95"].get<double>(), 3) + " / " +
               Num(q["p99"].get<double>(), 3);
    });
    // The first bucket (<= 10 KB) and the open one (> 10 MB) frame the HPCC paper's figures.
    row("  flows <= 10 KB, p95", [&](const json& s) {
        return has(s) ? Num(s["flows"]["slowdown_by_size"][0]["p95"].get<double>(), 3)
                      : std::string("-");
    });
    row("  flows > 1 MB, p95", [&](const json& s) {
        if (!has(s))
        {
            return std::string("-");
        }
        // The two buckets above 1 MB, by their larger p95.
        const json& b = s["flows"]["slowdown_by_size"];
        return Num(std::max(b[3]["p95"].get<double>(), b[4]["p95"].get<double>()), 3);
    });
    row("switch queue p99", [&](const json& s) {
        return has(s) ? Num(s["flows"]["queue_p99_bytes"].get<double>() / 1000, 4) + " KB"
                      : std::string("-");
    });
    row("PFC paused / ECN marks", [&](const json& s) {
        return (has(s) ? Num(s["flows"]["pfc_pause_us"].get<double>(), 4) + " us" : "-") + " / " +
               std::to_string(s["counters"]["ecn_marks"].get<uint64_t>());
    });
}

/// Rows of a label and one cell per column; each column as wide as its widest cell (at least
/// `minWidth`, the labels' at least 28) so that cells never run into each other.
void
PrintTable(std::ostream& os,
           const std::vector<std::pair<std::string, std::vector<std::string>>>& table,
           size_t minWidth)
{
    std::vector<size_t> width(table.empty() ? 0 : table.front().second.size(), minWidth);
    size_t labels = 28;
    for (const auto& [label, cells] : table)
    {
        labels = std::max(labels, label.size() + 2);
        for (size_t i = 0; i < cells.size() && i < width.size(); ++i)
        {
            width[i] = std::max(width[i], cells[i].size() + 2);
        }
    }
    for (const auto& [label, cells] : table)
    {
        os << std::left << std::setw(static_cast<int>(labels)) << label;
        for (size_t i = 0; i < cells.size() && i < width.size(); ++i)
        {
            os << std::left << std::setw(static_cast<int>(width[i])) << cells[i];
        }
        os << "\n";
    }
}

/// A run with `jobs`: one column per job (its step, MFU or busbw, and slowdowns).
std::string
JobsDashboard(const RunOutput& run)
{
    const RunConfig& c = run.config;
    const json& jobs = run.summary["jobs"];
    std::ostringstream os;
    os << "\n  JOBS ON ONE FABRIC — " << run.summary["name"].get<std::string>() << ": " << c.Gpus()
       << " GPUs, " << c.topology.kind << ", " << c.topology.linkGbps << " Gb/s per GPU, "
       << jobs.size() << " jobs\n\n";
    std::vector<std::pair<std::string, std::vector<std::string>>> table;
    auto row = [&](const std::string& label, auto fn) {
        std::vector<std::string> cells;
        for (size_t k = 0; k < jobs.size(); ++k)
        {
            cells.push_back(fn(jobs[k], c.jobs[k]));
        }
        table.emplace_back(label, std::move(cells));
    };
    row("", [](const json& e, const JobConfig&) { return e["name"].get<std::string>(); });
    row("servers (placement)", [](const json&, const JobConfig& j) {
        return std::to_string(j.servers) + " (" + NameOf(j.placement) + ")";
    });
    row("transport, workload", [](const json&, const JobConfig& j) {
        return j.run.fabric.name + ", " +
               (j.run.RunsGraph() ? j.run.workload.model.name
                                  : ns3::CollectiveSpec::OpName(j.run.workload.collective));
    });
    row("Step time (mean / p99)", [](const json& e, const JobConfig&) {
        return Num(e["step_ms"]["mean"].get<double>(), 4) + " / " +
               Num(e["step_ms"]["p99"].get<double>(), 4) + " ms";
    });
    row("MFU / busbw", [](const json& e, const JobConfig& j) {
        return Num(e["mfu_effective"].get<double>() * 100, 3) + " % / " +
               (j.run.RunsGraph() ? std::string("-")
                                  : Num(e["busbw_gbytes_per_s"].get<double>(), 4) + " GB/s");
    });
    const bool baselines = !jobs.empty() && jobs[0].contains("slowdown");
    if (baselines)
    {
        row("Alone (mean)", [](const json& e, const JobConfig&) {
            return Num(e["alone_step_ms"]["mean"].get<double>(), 4) + " ms";
        });
        row("Slowdown (together/alone)", [](const json& e, const JobConfig&) {
            return "x" + Num(e["slowdown"].get<double>(), 4);
        });
        row("Slows the others by", [](const json& e, const JobConfig&) {
            std::string cell;
            for (auto it = e["slows_others"].begin(); it != e["slows_others"].end(); ++it)
            {
                cell +=
                    (cell.empty() ? "" : ", ") + it.key() + " x" + Num(it.value().get<double>(), 4);
            }
            return cell;
        });
    }
    PrintTable(os, table, 22);
    if (!baselines)
    {
        os << "  (slowdowns: jobs_baselines runs each job alone; off, or a job did not complete)\n";
    }
    return os.str();
}

} // namespace

std::string
Dashboard(const std::vector<RunOutput>& runs)
{
    if (!runs.empty() && !runs.front().config.jobs.empty())
    {
        std::string out;
        for (const auto& r : runs)
        {
            out += JobsDashboard(r);
        }
        return out;
    }
    std::ostringstream os;
    // Rows are kept until the end, so that each column is as wide as its widest cell (26
    // characters at least) and cells never run into each other.
    std::vector<std::pair<std::string, std::vector<std::string>>> table;
    auto row = [&](const std::string& label, auto fn) {
        std::vector<std::string> cells;
        for (const auto& r : runs)
        {
            cells.push_back(fn(r.summary));
        }
        table.emplace_back(label, std::move(cells));
    };
    auto print = [&]() {
        PrintTable(os, table, 26);
        return os.str();
    };
    const RunConfig& first = runs.front().config;
    if (first.workload.kind == WorkloadKind::MATRIX)
    {
        os << "\n  CONNECTION MATRIX — " << first.Gpus() << " hosts, " << first.topology.kind
           << ", " << first.topology.linkGbps << " Gb/s per host, "
           << first.workload.matrix->GetConnections().size() << " flows of "
           << std::filesystem::path(first.workload.matrixFile).filename().string() << "\n\n";
        // A compare entry may run another workload: its cells are "-".
        auto matrix = [](const json& s) {
            return s.contains("flows") && s["flows"].contains("fct_us");
        };
        row("", [](const json& s) { return s["name"].get<std::string>().substr(0, 24); });
        row("fabric / congestion control", [](const json& s) {
            return s["fabric"].get<std::string>() + " / " +
                   s["congestion_control"].get<std::string>();
        });
        row("flows completed / total", [&](const json& s) {
            if (!matrix(s))
            {
                return std::string("-");
            }
            return std::to_string(s["flows"]["completed"].get<uint64_t>()) + " / " +
                   std::to_string(s["flows"]["total"].get<uint64_t>());
        });
        row("FCT p50 / p99 / max", [&](const json& s) {
            if (!matrix(s))
            {
                return std::string("-");
            }
            const json& q = s["flows"]["fct_us"];
            return Num(q["p50"].get<double>(), 4) + " / " + Num(q["p99"].get<double>(), 4) + " / " +
                   Num(q["max"].get<double>(), 4) + " us";
        });
        row("FCT slowdown p50/p95/p99", [&](const json& s) {
            if (!matrix(s))
            {
                return std::string("-");
            }
            const json& q = s["flows"]["slowdown"];
            return Num(q["p50"].get<double>(), 3) + " / " + Num(q["p95"].get<double>(), 3) + " / " +
                   Num(q["p99"].get<double>(), 3);
        });
        row("most flows on a link", [&](const json& s) {
            if (!matrix(s))
            {
                return std::string("-");
            }
            return std::to_string(s["flows"]["paths"]["max_flows_per_link"].get<uint32_t>());
        });
        row("simulation", [](const json& s) {
            return Num(s["sim"]["wall_s"].get<double>(), 3) + " s, " +
                   Num(s["sim"]["events"].get<uint64_t>() / 1e6, 3) + " M ev";
        });
        return print();
    }
    if (first.workload.kind == WorkloadKind::FLOWS)
    {
        const FlowsConfig& f = first.workload.flows;
        os << "\n  FLOW COMPLETION — " << first.Gpus() << " hosts, " << first.topology.kind << ", "
           << first.topology.linkGbps << " Gb/s per host, " << f.cdf << " at "
           << Num(f.load * 100, 3) << "% load (" << NameOf(f.pattern) << ") for "
           << Num(f.durationMs, 4) << " ms";
        if (f.incastFanin > 0)
        {
            os << ", incast " << f.incastFanin << " x " << f.incastBytes << " B every "
               << Num(f.incastPeriodUs, 4) << " us";
        }
        os << "\n\n";
        row("", [](const json& s) { return s["name"].get<std::string>().substr(0, 24); });
        row("congestion control",
            [](const json& s) { return s["congestion_control"].get<std::string>(); });
        FlowRows(row);
        row("simulation", [](const json& s) {
            return Num(s["sim"]["wall_s"].get<double>(), 3) + " s, " +
                   Num(s["sim"]["events"].get<uint64_t>() / 1e6, 3) + " M ev";
        });
        return print();
    }
    if (first.RunsGraph())
    {
        os << "\n  TRAINING STEP — "
           << (first.workload.kind == WorkloadKind::CHAKRA ? "Chakra trace " + first.workload.trace
                                                           : first.workload.model.name)
           << " on " << first.Gpus() << " GPUs, " << first.topology.kind << ", "
           << first.topology.linkGbps << " Gb/s per GPU"
           << (first.workload.kind == WorkloadKind::CHAKRA ? "" : ", " + DescribeParallelism(first))
           << "\n\n";
        row("", [](const json& s) { return s["name"].get<std::string>().substr(0, 24); });
        row("MFU (model FLOPs)",
            [](const json& s) { return Num(s["mfu_effective"].get<double>() * 100, 3) + " %"; });
        row("Step time (mean / max)", [](const json& s) {
            return Num(s["step_ms"]["mean"].get<double>(), 4) + " / " +
                   Num(s["step_ms"]["max"].get<double>(), 4) + " ms";
        });
        for (const auto& [label, key] :
             std::vector<std::pair<std::string, std::string>>{{"  compute", "compute"},
                                                              {"  TP exposed", "tp_exposed"},
                                                              {"  PP bubble", "pp_bubble"},
                                                              {"  DP exposed", "dp_exposed"},
                                                              {"  EP exposed", "ep_exposed"},
                                                              {"  FSDP exposed", "fsdp_exposed"},
                                                              {"  barrier wait", "barrier_wait"}})
        {
            const std::string k = key;
            row(label, [k](const json& s) {
                return Num(s["training"]["phases_ms"][k].get<double>(), 4) + " ms";
            });
        }
        row("Idle cost", [](const json& s) {
            return "$" + Num(s["idle_cost_usd_per_hr"].get<double>(), 5) + "/hr";
        });
        LatencyRows(row);
        row("retransmits / timeouts", [](const json& s) {
            return std::to_string(s["counters"]["retransmitted_packets"].get<uint64_t>()) + " / " +
                   std::to_string(s["counters"]["timeouts"].get<uint64_t>());
        });
        row("slowest step waited on", SlowestStep);
        row("simulation", [](const json& s) {
            return Num(s["sim"]["wall_s"].get<double>(), 3) + " s, " +
                   Num(s["sim"]["events"].get<uint64_t>() / 1e6, 3) + " M ev";
        });
        return print();
    }
    // What every run shares goes in the header; what differs between runs gets a row.
    const std::vector<std::pair<std::string, std::string (*)(const RunConfig&)>> parts{
        {"GPUs", [](const RunConfig& c) { return std::to_string(c.Gpus()) + " GPUs"; }},
        {"topology", [](const RunConfig& c) { return c.topology.kind; }},
        {"link", [](const RunConfig& c) { return Num(c.topology.linkGbps) + " Gb/s per GPU"; }},
        {"collective",
         [](const RunConfig& c) {
             return ns3::CollectiveSpec::OpName(c.workload.collective) + std::string(" of ") +
                    Num(c.workload.bytes / 1048576.0) + " MiB";
         }},
        {"algorithm / protocol",
         [](const RunConfig& c) {
             return "(" + c.workload.algorithm + ", " +
                    ns3::CollectiveProtocol::Name(c.workload.protocol) + ")";
         }},
        {"compute",
         [](const RunConfig& c) { return Num(c.workload.computeMs) + " ms compute/step"; }}};
    std::string header;
    std::vector<std::pair<std::string, std::string (*)(const RunConfig&)>> differing;
    for (const auto& part : parts)
    {
        const std::string v = part.second(first);
        const bool same = std::all_of(runs.begin(), runs.end(), [&](const RunOutput& r) {
            return part.second(r.config) == v;
        });
        if (same)
        {
            header += (header.empty() || part.first == "algorithm / protocol" ? " " : ", ") + v;
        }
        else
        {
            differing.push_back(part);
        }
    }
    os << "\n  CLUSTER SYNC & TAIL LATENCY —" << header << "\n\n";
    row("", [](const json& s) { return s["name"].get<std::string>().substr(0, 24); });
    for (const auto& [label, fn] : differing)
    {
        std::vector<std::string> cells;
        for (const auto& r : runs)
        {
            cells.push_back(fn(r.config));
        }
        table.emplace_back(label, std::move(cells));
    }
    row("Effective MFU",
        [](const json& s) { return Num(s["mfu_effective"].get<double>() * 100, 3) + " %"; });
    const bool oneOp = std::all_of(runs.begin(), runs.end(), [&](const RunOutput& r) {
        return r.config.workload.collective == first.workload.collective;
    });
    row((oneOp ? CollectiveTitle(ns3::CollectiveSpec::OpName(first.workload.collective))
               : std::string("Collective")) +
            " duration (mean)",
        [](const json& s) { return Num(s["collective_ms"]["mean"].get<double>(), 4) + " ms"; });
    row("Step time (mean / max)", [](const json& s) {
        return Num(s["step_ms"]["mean"].get<double>(), 4) + " / " +
               Num(s["step_ms"]["max"].get<double>(), 4) + " ms";
    });
    row("Idle cost", [](const json& s) {
        return "$" + Num(s["idle_cost_usd_per_hr"].get<double>(), 5) + "/hr";
    });
    LatencyRows(row);
    row("algbw / busbw", [](const json& s) {
        return Num(s["algbw_gbytes_per_s"].get<double>(), 4) + " / " +
               Num(s["busbw_gbytes_per_s"].get<double>(), 4) + " GB/s";
    });
    row("retransmits / timeouts", [](const json& s) {
        return std::to_string(s["counters"]["retransmitted_packets"].get<uint64_t>()) + " / " +
               std::to_string(s["counters"]["timeouts"].get<uint64_t>());
    });
    row("slowest step waited on", SlowestStep);
    bool faults = false;
    for (const auto& r : runs)
    {
        faults = faults || r.summary["faults"]["events"].get<uint64_t>() > 0 ||
                 r.summary["faults"]["changes"].get<uint64_t>() > 0;
    }
    if (faults)
    {
        row("link changes / link-down drops", [](const json& s) {
            return std::to_string(s["faults"]["changes"].get<uint64_t>()) + " / " +
                   std::to_string(s["faults"]["link_down_drops"].get<uint64_t>());
        });
        // From the first link going down to the last frame lost to a down link.
        row("lost to down links: all / per conn. / 1st burst", [](const json& s) {
            return Num(s["faults"]["loss_window_us"].get<double>(), 4) + " / " +
                   Num(s["faults"]["connection_loss_window_us"]["max"].get<double>(), 4) + " / " +
                   Num(s["faults"]["connection_first_burst_us"]["max"].get<double>(), 4) + " us";
        });
    }
    // The fabrics' own rows (kernel TCP's loss repairs, ...).
    std::vector<const RunConfig*> configs;
    for (const auto& r : runs)
    {
        configs.push_back(&r.config);
    }
    const DashboardRowAdder addRow = [&](const std::string& label,
                                         std::function<std::string(const json&)> fn) {
        row(label, fn);
    };
    for (const FabricInfo& f : FabricRegistry::All())
    {
        if (f.dashboardRows)
        {
            f.dashboardRows(configs, addRow);
        }
    }
    if (first.workload.background)
    {
        FlowRows(row);
    }
    row("simulation", [](const json& s) {
        return Num(s["sim"]["wall_s"].get<double>(), 3) + " s, " +
               Num(s["sim"]["events"].get<uint64_t>() / 1e6, 3) + " M ev";
    });
    return print();
}

} // namespace aifabric

// SPDX-License-Identifier: GPL-2.0-only
//
// ai-fabric-chakra: Chakra execution traces of training steps.
//
//   ai-fabric chakra export [SCENARIO.json] [--set key.path=value]... --out DIR [--prefix P]
//   ai-fabric chakra show DIR
//
// export writes the step of the scenario's (first run's) training workload as a Chakra trace:
// <prefix>.<rank>.et per GPU and comm_group.json, into DIR (which must not exist; written
// whole or not at all). show reads a trace and prints its ranks, operations and communicators.
// Exit status: 0, 2 for bad input (one line naming the key or the file), 1 internal error.
#include "guarded-main.h"
#include "json-input.h"
#include "scenario-args.h"
#include "scenario.h"
#include "text-util.h"

#include "ns3/chakra-trace.h"
#include "ns3/transformer-workload.h"

#include <filesystem>
#include <iostream>
#include <map>
#include <tuple>
#include <unistd.h>
#include <vector>

using namespace aifabric;
namespace fs = std::filesystem;

namespace
{

void
Usage()
{
    std::cout
        << "usage: ai-fabric chakra export [SCENARIO.json] [--set key.path=value]... --out DIR "
           "[--prefix P]\n"
           "       ai-fabric chakra show DIR\n\n"
           "export: the step of the scenario's training workload (workload.kind training) as a "
           "Chakra\nexecution trace in DIR (<prefix>.<rank>.et per GPU, comm_group.json), which "
           "workload.kind chakra\nwith workload.trace DIR runs again. show: a trace's ranks, "
           "operations and communicators.\n";
}

ns3::WorkloadGraph
ReadOrBadInput(const std::string& dir)
{
    try
    {
        return ns3::ChakraTrace::Read(dir);
    }
    catch (const ns3::ChakraTraceError& e)
    {
        throw ScenarioError(e.what());
    }
}

int
Show(const std::string& dir)
{
    const ns3::WorkloadGraph g = ReadOrBadInput(dir);
    uint64_t kinds[4] = {0, 0, 0, 0};
    double flops = 0;
    for (uint32_t r = 0; r < g.ranks; ++r)
    {
        for (const auto& op : g.ops[r])
        {
            ++kinds[op.kind];
        }
        flops += g.ComputeFlops(r);
    }
    std::cout << "Chakra trace " << dir << ": " << g.ranks << " ranks, " << g.OpCount()
              << " operations (" << kinds[0] << " compute, " << kinds[1] << " collective, "
              << kinds[2] << " send, " << kinds[3] << " recv), " << g.groups.size()
              << " communicators, " << Num(flops / 1e12, 6) << " TFLOP of kernels, model "
              << Num(g.modelFlops / 1e12, 6) << " TFLOP per step\n";
    // The communicators, then the collectives each runs (as its first member runs them, in
    // order of first appearance) and the point-to-point messages, by size.
    constexpr size_t kMaxLines = 40;
    for (uint32_t k = 0; k < g.groups.size() && k < kMaxLines; ++k)
    {
        std::cout << "communicator " << k << ": " << g.groups[k].size() << " ranks (";
        for (size_t i = 0; i < g.groups[k].size() && i < 16; ++i)
        {
            std::cout << (i ? " " : "") << g.groups[k][i];
        }
        std::cout << (g.groups[k].size() > 16 ? " ...)\n" : ")\n");
    }
    std::vector<std::tuple<std::string, uint64_t, uint32_t>> order;
    std::map<std::tuple<std::string, uint64_t, uint32_t>, uint64_t> count;
    for (uint32_t r = 0; r < g.ranks; ++r)
    {
        for (const auto& op : g.ops[r])
        {
            const bool coll = op.kind == ns3::WorkloadOp::COLLECTIVE;
            if ((coll && g.groups[op.group][0] != r) || (!coll && op.kind != ns3::WorkloadOp::SEND))
            {
                continue;
            }
            const auto key = std::make_tuple(coll ? ns3::CollectiveSpec::OpName(op.op) : "send",
                                             op.bytes,
                                             coll ? op.group : UINT32_MAX);
            if (count[key]++ == 0)
            {
                order.push_back(key);
            }
        }
    }
    for (size_t i = 0; i < order.size() && i < kMaxLines; ++i)
    {
        const auto& [name, bytes, group] = order[i];
        std::cout << "  " << name << " " << bytes << " B"
                  << (name == "allgather"
                          ? " (output; comm_size " +
                                Num(double(bytes) / double(g.groups[group].size()), 12) + ")"
                          : "")
                  << (group == UINT32_MAX ? std::string(" (rank to rank)")
                                          : " on communicator " + std::to_string(group))
                  << " x " << count[order[i]] << "\n";
    }
    if (order.size() > kMaxLines)
    {
        std::cout << "  ... " << order.size() - kMaxLines << " more kinds\n";
    }
    return 0;
}

int
Export(int argc, char** argv)
{
    ScenarioArgs args;
    std::string prefix = "trace";
    for (int i = 2; i < argc; ++i)
    {
        const std::string a = argv[i];
        if (IsFlag(a, "--prefix"))
        {
            prefix = FlagValue(argc, argv, i, "--prefix");
            continue;
        }
        if (!args.Take(argc, argv, i) || args.quiet)
        {
            throw ScenarioError(EchoText(a) +
                                ": unknown option (allowed: --set, --out, --prefix, --help/-h)");
        }
    }
    if (args.out.empty())
    {
        throw ScenarioError("--out: missing (the directory to write the trace to)");
    }
    if (prefix.empty() || prefix.find('/') != std::string::npos || prefix.size() > 100)
    {
        throw ScenarioError("--prefix: must be a non-empty file-name prefix of at most 100 "
                            "bytes without '/' (got '" +
                            EchoText(prefix) + "')");
    }
    std::error_code ec;
    if (fs::exists(args.out, ec) || ec)
    {
        throw ScenarioError("--out: '" + EchoText(args.out) +
                            "' already exists (choose a new directory)");
    }
    const std::vector<RunConfig> runs = ResolveScenario(args.Load());
    const RunConfig& c = runs.front();
    if (!c.RunsGraph())
    {
        throw ScenarioError("workload.kind: chakra export writes a training step (kind training "
                            "or chakra; got " +
                            std::string(NameOf(c.workload.kind)) + ")");
    }
    const ns3::WorkloadGraph g =
        c.workload.graph
            ? *c.workload.graph
            : ns3::TransformerWorkload::Build(c.workload.model, c.workload.parallelism);
    // Written beside DIR, then renamed: DIR appears whole or not at all.
    const fs::path tmp =
        fs::path(args.out).parent_path() /
        (fs::path(args.out).filename().string() + ".tmp-" + std::to_string(::getpid()));
    try
    {
        ns3::ChakraTrace::Write(g,
                                tmp.string(),
                                prefix,
                                c.gpu.peakTflops * 1e12 * c.gpu.computeEfficiency);
        fs::rename(tmp, args.out);
    }
    catch (const ns3::ChakraTraceError& e)
    {
        fs::remove_all(tmp, ec);
        throw ScenarioError(std::string("--out: ") + e.what());
    }
    catch (const fs::filesystem_error& e)
    {
        fs::remove_all(tmp, ec);
        throw ScenarioError("--out: '" + EchoText(args.out) + "' cannot be written (" +
                            e.code().message() + ")");
    }
    std::cout << "wrote " << g.ranks << " ranks, " << g.OpCount() << " operations of "
              << c.workload.model.name << " to " << args.out << "\n";
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    return GuardedMain([&]() -> int {
        const std::string cmd = argc > 1 ? argv[1] : "";
        if (cmd == "--help" || cmd == "-h")
        {
            Usage();
            return 0;
        }
        if (cmd.empty())
        {
            throw ScenarioError("chakra: give a command: export or show (--help)");
        }
        for (int i = 2; i < argc; ++i)
        {
            if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h")
            {
                Usage();
                return 0;
            }
        }
        if (!ns3::ChakraTrace::Available())
        {
            throw ScenarioError("chakra: this build has no protobuf (apt-get install "
                                "libprotobuf-dev protobuf-compiler, then rebuild)");
        }
        if (cmd == "show")
        {
            if (argc != 3)
            {
                throw ScenarioError("chakra show: give one trace directory");
            }
            return Show(argv[2]);
        }
        if (cmd == "export")
        {
            return Export(argc, argv);
        }
        throw ScenarioError("chakra: unknown command '" + EchoText(cmd) +
                            "' (allowed: export, show)");
    });
}

// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_NCCL_TESTS_H
#define AI_FABRIC_NCCL_TESTS_H

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace aifabric
{

/**
 * `./ai-fabric nccl-tests`: one simulated collective per message size, reported in nccl-tests'
 * columns with its definitions (nccl-tests doc/PERFORMANCE.md): time is the mean time of one
 * collective (the slowest rank), algbw = size / time, busbw = algbw × the operation's factor
 * (AllReduce 2(n-1)/n; AllGather, ReduceScatter, AlltoAll (n-1)/n; Broadcast, SendRecv 1).
 */
struct NcclTestsOptions
{
    std::string op{"all_reduce"}; //!< all_reduce, all_gather, reduce_scatter, alltoall, ...
    uint64_t minBytes{32 << 20};  //!< -b (nccl-tests' default 32M)
    uint64_t maxBytes{32 << 20};  //!< -e
    uint64_t factor{2};           //!< -f: the next size is size × factor (when increment is 0)
    uint64_t increment{0};        //!< -i: the next size is size + increment
    uint32_t iters{1};            //!< -n: collectives per size (the time is their mean)
};

/// The op's workload.collective name ("all_reduce" -> "allreduce"); throws ScenarioError.
std::string NcclTestsCollective(const std::string& op);

/**
 * A size as nccl-tests reads it: digits with an optional K, M or G suffix (powers of 1024).
 * Throws ScenarioError naming `flag` and the allowed range (1 B .. 1 PiB).
 */
uint64_t ParseNcclTestsSize(const std::string& text, const std::string& flag);

/// The sizes -b .. -e with -f or -i (each at least 1 B), as nccl-tests steps through them.
/// Throws ScenarioError when the range is empty or has more than 64 sizes.
std::vector<uint64_t> NcclTestsSizes(const NcclTestsOptions& o);

/// One line of results.
struct NcclTestsRow
{
    uint64_t size{0};
    uint64_t count{0}; //!< elements (float) per rank, as nccl-tests prints them
    std::string type{"float"};
    std::string redop;
    int root{-1};
    double timeUs{0};
    double algbw{0};       //!< GB/s (1e9 B/s)
    double busbw{0};       //!< GB/s
    uint64_t wrong{0};     //!< collectives that did not complete (nccl-tests: wrong values)
    std::string algorithm; //!< the algorithm that ran
    std::string protocol;  //!< the protocol that ran
    uint32_t channels{0};
    uint32_t ranks{0};
};

/// The row of a run of `op` at `size` bytes, from the run's summary.json object.
NcclTestsRow NcclTestsRowFromSummary(const std::string& op,
                                     uint64_t size,
                                     uint32_t iters,
                                     const nlohmann::json& summary);

/// nccl-tests' header lines ('#'-prefixed) for these options and ranks.
std::string NcclTestsHeader(const NcclTestsOptions& o, uint32_t ranks);
/// One row, aligned under NcclTestsHeader.
std::string NcclTestsLine(const NcclTestsRow& r);
/// The closing lines: "# Avg bus bandwidth    : X" (the mean busbw over the sizes).
std::string NcclTestsFooter(const std::vector<NcclTestsRow>& rows);
/// The rows as CSV (header line first).
std::string NcclTestsCsv(const std::vector<NcclTestsRow>& rows);
/// A gnuplot script drawing busbw and algbw against size from nccl-tests.csv.
std::string NcclTestsPlotScript(const std::string& title);

} // namespace aifabric

#endif

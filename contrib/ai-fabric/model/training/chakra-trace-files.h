// SPDX-License-Identifier: GPL-2.0-only
// What the Chakra trace reader and writer share (not installed): attribute and file names, the
// trace's files in a directory, comm_group.json, and one-line errors.
#ifndef CHAKRA_TRACE_FILES_H
#define CHAKRA_TRACE_FILES_H

#include "workload-graph.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{
namespace chakra
{

// Chakra's own attributes (ASTRA-sim's feeder and Chakra's PyTorch converter use these names).
inline constexpr char kNumOps[] = "num_ops";
inline constexpr char kCommType[] = "comm_type";
inline constexpr char kCommSize[] = "comm_size";
inline constexpr char kCommSrc[] = "comm_src";
inline constexpr char kCommDst[] = "comm_dst";
inline constexpr char kCommTag[] = "comm_tag";
inline constexpr char kPgName[] = "pg_name";
inline constexpr char kIsCpuOp[] = "is_cpu_op";
inline constexpr char kTensorSize[] = "tensor_size";

// Ours: what a Chakra trace has no field for, so that a written graph reads back exactly.
inline constexpr char kDurationNs[] = "duration_ns";
inline constexpr char kFlops[] = "ai_fabric_flops";
inline constexpr char kPhase[] = "ai_fabric_phase";
inline constexpr char kSkew[] = "ai_fabric_skew";
inline constexpr char kHot[] = "ai_fabric_hot";
inline constexpr char kOutputBytes[] = "ai_fabric_output_bytes";
inline constexpr char kModelFlops[] = "ai_fabric_model_flops";

inline constexpr char kVersion[] = "0.0.4";
inline constexpr char kCommGroupFile[] = "comm_group.json";
inline constexpr char kExtension[] = ".et";

/// Throws ChakraTraceError("chakra trace <where>: <what>").
[[noreturn]] void Fail(const std::string& where, const std::string& what);

/// `s` in double quotes for a one-line message: control characters replaced, at most 64 kept.
std::string Quote(const std::string& s);

/// `limit` bytes for people: "4 GiB", "64 MiB", or in bytes.
std::string SizeLimit(uint64_t limit);

/// A file of the trace open for reading; closes it when it goes.
using InputFile = std::unique_ptr<FILE, int (*)(FILE*)>;

/**
 * Opens `file` for reading if it is a regular file of at most `limit` bytes: a FIFO, a device
 * such as /dev/zero or a directory is refused at once (opened without blocking, then checked
 * with fstat, so a file swapped after listing cannot block or stream forever).
 * \param[out] size the file's size
 * 	hrow ChakraTraceError "chakra trace <file>: is a FIFO, not a regular file", "... is larger
 * than ...", "... cannot be read: <reason>"
 */
InputFile OpenInputFile(const std::string& file, uint64_t limit, uint64_t& size);

/// Why `file` cannot be a trace file ("is a directory, not a regular file", "cannot be read:
/// No such file or directory"), or empty when it is a regular file (symbolic links followed).
std::string NotRegularFile(const std::string& file);

/// The whole of `file` (OpenInputFile's checks), refused when it is larger than `limit` bytes.
std::string ReadSmallFile(const std::string& file, uint64_t limit);

/// The files of the one trace in `dir` (`<prefix>.<rank>.et`, only `prefix` when not empty),
/// in rank order; refuses a gap in the ranks, a rank >= ChakraTrace::kMaxRanks, two files for
/// one rank, several prefixes.
std::vector<std::string> FindTraceFiles(const std::string& dir, const std::string& prefix);

/// The `prefix.<r>.et` files in `dir` with r >= `ranks` (or a rank written with leading zeros).
std::vector<std::string> StaleRankFiles(const std::string& dir,
                                        const std::string& prefix,
                                        uint32_t ranks);

struct ProcessGroup
{
    std::string name;
    std::vector<uint32_t> ranks; //!< in communicator order, as listed
};

/// comm_group.json's `{"<pg_name>": [ranks...], ...}` in the file's order (ranks not yet
/// checked against the trace). \throw ChakraTraceError naming `file` and the byte
std::vector<ProcessGroup> ParseCommGroups(const std::string& file, const std::string& text);

/**
 * A trace's communicators as it is read: comm_group.json's process groups (graph groups in the
 * file's order; two process groups over the same ranks stay two communicators, as NCCL runs
 * them apart), and, when a collective names none, the group of every rank.
 */
class CommGroups
{
  public:
    /// \param file comm_group.json's path (for messages), or empty when the trace has none
    CommGroups(WorkloadGraph& g, std::string file);
    /// Adds comm_group.json's process groups to the graph. \throw ChakraTraceError
    void Load(const std::string& text);
    /// The communicator of `pg` (absent, empty, or "0" not in comm_group.json: every rank).
    /// \throw ChakraTraceError naming `where` if the process group is unknown
    uint32_t Resolve(const std::optional<std::string>& pg, const std::string& where);
    /// Index of `rank` in group `g` (UINT32_MAX: not a member), cached for the last rank.
    uint32_t MemberIndex(uint32_t g, uint32_t rank);
    /// `"<pg_name>"`, or what the every-rank group is called.
    std::string Label(uint32_t g) const;

  private:
    static constexpr uint32_t kUnknown = UINT32_MAX - 1;
    uint32_t Add(const std::vector<uint32_t>& ranks, const std::string& name);

    WorkloadGraph& m_g;
    std::string m_file;
    std::unordered_map<std::string, uint32_t> m_byName;
    std::vector<std::string> m_names;
    uint32_t m_all{UINT32_MAX};
    uint32_t m_cacheRank{UINT32_MAX};
    std::vector<uint32_t> m_cache;
};

/// The pg_name of communicator `g` in our traces: "1", "2", ... (ASTRA-sim reads numeric names
/// and takes "0" for its every-rank default group).
std::string PgName(uint32_t g);

/// comm_group.json for `g`'s communicators, one process group a line.
std::string CommGroupJson(const WorkloadGraph& g);

} // namespace chakra
} // namespace ns3

#endif // CHAKRA_TRACE_FILES_H

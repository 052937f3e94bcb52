// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_FILE_UTIL_H
#define AI_FABRIC_FILE_UTIL_H

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace aifabric
{

/// Write a file under a temporary name, then rename it into place: readers never see half.
/// Throws std::runtime_error naming the file.
void WriteAtomically(const std::filesystem::path& p, const std::string& content);

/// Parse a JSON file. Throws std::runtime_error when it cannot be read.
nlohmann::json ReadJsonFile(const std::filesystem::path& p);

/// The largest scenario, sweep file or other JSON input read (64 MiB).
constexpr uint64_t kMaxInputFileBytes = 64ULL << 20;

/**
 * The bytes of a file a user names (a scenario, a sweep file, a flow-size CDF, a summary.json
 * to gather): it must be a regular file (a FIFO, a device such as /dev/zero or a directory is
 * refused at once: opened without blocking, checked with fstat) of at most `maxBytes`.
 * \throw std::runtime_error with the reason only ("is a FIFO, not a regular file", "is larger
 * than 64 MiB", "cannot be read: No such file or directory"); the caller names the file
 */
std::string ReadInputFile(const std::filesystem::path& p, uint64_t maxBytes = kMaxInputFileBytes);

/// A file's bytes ("" when it cannot be read).
std::string ReadText(const std::filesystem::path& p);

/// `s` with every character other than letters, digits, '-', '_' and '.' replaced by '_'.
std::string SafeFileName(const std::string& s);

/**
 * One directory or file name per entry of `names`, in order, all distinct and none in `taken`:
 * SafeFileName of the name, cut to 120 characters, a leading '.' replaced by '_' (so neither
 * "." nor ".." nor a hidden name), "run" for an empty name; a name already given out gets the
 * first free suffix "-2", "-3", ... ("a b" and "a_b" become "a_b" and "a_b-2").
 */
std::vector<std::string> UniqueFileNames(const std::vector<std::string>& names,
                                         std::set<std::string> taken = {});

} // namespace aifabric

#endif

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

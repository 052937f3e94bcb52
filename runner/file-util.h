// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_FILE_UTIL_H
#define AI_FABRIC_FILE_UTIL_H

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

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

} // namespace aifabric

#endif

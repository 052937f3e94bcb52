// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_PROCESS_UTIL_H
#define AI_FABRIC_PROCESS_UTIL_H

#include <array>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

/// What a command-line program did: exit status, stdout, stderr.
struct Result
{
    int status{-1};
    std::string out;
    std::string err;
};

/// Run `command` through the shell; capture stdout, stderr (via a per-process temporary file
/// named after `tag`) and the exit status.
inline Result
RunCommand(const std::string& command, const std::string& tag)
{
    const std::string errFile =
        ::testing::TempDir() + "aif-" + tag + "-stderr-" + std::to_string(::getpid()) + ".txt";
    Result r;
    FILE* p = popen((command + " 2>" + errFile).c_str(), "r");
    std::array<char, 4096> buf{};
    while (p && fgets(buf.data(), buf.size(), p))
    {
        r.out += buf.data();
    }
    const int st = p ? pclose(p) : -1;
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    std::ifstream e(errFile);
    std::stringstream ss;
    ss << e.rdbuf();
    r.err = ss.str();
    return r;
}

/// The lines (each with its trailing newline) a command prints on stdout; stderr is dropped.
inline std::vector<std::string>
CommandLines(const std::string& command)
{
    std::vector<std::string> lines;
    std::istringstream in(RunCommand(command, "lines").out);
    std::string line;
    while (std::getline(in, line))
    {
        lines.push_back(line + "\n");
    }
    return lines;
}

#endif

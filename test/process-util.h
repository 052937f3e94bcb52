// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_PROCESS_UTIL_H
#define AI_FABRIC_PROCESS_UTIL_H

#include <array>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <spawn.h>
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

#ifdef AIFABRIC_RUNNER
/// The scenario runner (`--quiet`) with `args` appended to its command line.
inline Result
Runner(const std::string& args)
{
    return RunCommand(std::string(AIFABRIC_RUNNER) + " --quiet " + args, "runner");
}
#endif

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

/// An empty scratch directory `name`-<pid> in GoogleTest's temporary directory.
inline std::filesystem::path
ScratchDir(const std::string& name)
{
    const std::filesystem::path d =
        std::filesystem::path(::testing::TempDir()) / (name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    return d;
}

/// Write `text` to `p`; \return p
inline std::filesystem::path
WriteFile(const std::filesystem::path& p, const std::string& text)
{
    std::ofstream(p) << text;
    return p;
}

/// A file's bytes ("" when it cannot be read).
inline std::string
ReadFile(const std::filesystem::path& p)
{
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

/**
 * Start `argv` without a shell, stdout to /dev/null, stderr to `errFile`; with `pathPrefix`, that
 * directory comes first on the child's PATH. \return its pid (-1 if it could not be started)
 */
inline pid_t
Spawn(const std::vector<std::string>& argv,
      const std::string& errFile,
      const std::string& pathPrefix = "")
{
    extern char** environ;
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
    {
        if (!pathPrefix.empty() && std::strncmp(*e, "PATH=", 5) == 0)
        {
            env.push_back("PATH=" + pathPrefix + ":" + (*e + 5));
        }
        else
        {
            env.emplace_back(*e);
        }
    }
    std::vector<char*> args;
    for (const auto& a : argv)
    {
        args.push_back(const_cast<char*>(a.c_str()));
    }
    args.push_back(nullptr);
    std::vector<char*> envp;
    for (auto& e : env)
    {
        envp.push_back(e.data());
    }
    envp.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa,
                                     STDERR_FILENO,
                                     errFile.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    return rc == 0 ? pid : -1;
}

/// Wait for `pid`: its exit status, or 128 + the signal that killed it (what a shell reports).
inline int
WaitExit(pid_t pid)
{
    int st = 0;
    if (::waitpid(pid, &st, 0) != pid)
    {
        return -1;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

#endif

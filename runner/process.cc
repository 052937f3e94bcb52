// SPDX-License-Identifier: GPL-2.0-only
#include "process.h"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace aifabric
{

namespace
{

/// In the child: point `fd` at `path` opened with `flags`. \return false on failure
bool
Redirect(int fd, const std::string& path, int flags)
{
    const int f = ::open(path.c_str(), flags, 0644);
    if (f < 0)
    {
        return false;
    }
    const bool ok = ::dup2(f, fd) >= 0;
    ::close(f);
    return ok;
}

/// In the child: set up one output stream as `how` asks.
bool
SetUpOutput(int fd, Output how, const std::string& file, int captureWrite)
{
    switch (how)
    {
    case Output::INHERIT:
        return true;
    case Output::DISCARD:
        return Redirect(fd, "/dev/null", O_WRONLY);
    case Output::CAPTURE:
        return captureWrite >= 0 && ::dup2(captureWrite, fd) >= 0;
    case Output::TRUNCATE:
        return Redirect(fd, file, O_WRONLY | O_CREAT | O_TRUNC);
    case Output::APPEND:
        return Redirect(fd, file, O_WRONLY | O_CREAT | O_APPEND);
    case Output::AS_STDOUT:
        return ::dup2(STDOUT_FILENO, fd) >= 0;
    }
    return false;
}

} // namespace

pid_t
StartProgram(const std::vector<std::string>& argv,
             const ProcessOptions& options,
             int& error,
             int* capture)
{
    error = 0;
    if (argv.empty())
    {
        error = EINVAL;
        return -1;
    }
    std::vector<char*> args;
    for (const auto& a : argv)
    {
        args.push_back(const_cast<char*>(a.c_str()));
    }
    args.push_back(nullptr);
    // The child reports a failed exec (its errno) through this close-on-exec pipe.
    std::array<int, 2> status{-1, -1};
    std::array<int, 2> out{-1, -1};
    const bool captured = options.out == Output::CAPTURE;
    if (::pipe2(status.data(), O_CLOEXEC) != 0 || (captured && ::pipe2(out.data(), O_CLOEXEC) != 0))
    {
        error = errno;
        for (int fd : {status[0], status[1], out[0], out[1]})
        {
            if (fd >= 0)
            {
                ::close(fd);
            }
        }
        return -1;
    }
    const pid_t pid = ::fork();
    if (pid == 0)
    {
        int e = 0;
        if (!Redirect(STDIN_FILENO, "/dev/null", O_RDONLY) ||
            !SetUpOutput(STDOUT_FILENO, options.out, options.outFile, out[1]) ||
            !SetUpOutput(STDERR_FILENO, options.err, options.errFile, -1) ||
            (!options.directory.empty() && ::chdir(options.directory.c_str()) != 0))
        {
            e = errno;
        }
        else if (options.searchPath)
        {
            ::execvp(args[0], args.data());
            e = errno;
        }
        else
        {
            ::execv(args[0], args.data());
            e = errno;
        }
        [[maybe_unused]] const ssize_t n = ::write(status[1], &e, sizeof(e));
        ::_exit(127);
    }
    if (pid < 0)
    {
        error = errno;
    }
    ::close(status[1]);
    if (captured)
    {
        ::close(out[1]);
    }
    int childError = 0;
    ssize_t n = 0;
    do
    {
        n = ::read(status[0], &childError, sizeof(childError));
    } while (n < 0 && errno == EINTR);
    ::close(status[0]);
    if (pid > 0 && n == ssize_t(sizeof(childError)))
    {
        ::waitpid(pid, nullptr, 0);
        error = childError;
    }
    if (error != 0)
    {
        if (captured)
        {
            ::close(out[0]);
        }
        return -1;
    }
    if (capture)
    {
        *capture = captured ? out[0] : -1;
    }
    return pid;
}

int
ExitStatus(int waitStatus)
{
    return WIFEXITED(waitStatus) ? WEXITSTATUS(waitStatus)
                                 : 128 + (WIFSIGNALED(waitStatus) ? WTERMSIG(waitStatus) : 0);
}

int
RunProgram(const std::vector<std::string>& argv, const ProcessOptions& options, std::string* output)
{
    if (output)
    {
        output->clear();
    }
    int error = 0;
    int fd = -1;
    const pid_t pid = StartProgram(argv, options, error, &fd);
    if (pid < 0)
    {
        return error == ENOENT || error == EACCES || error == ENOEXEC ? 127 : -1;
    }
    if (fd >= 0)
    {
        std::array<char, 4096> buf{};
        ssize_t n = 0;
        while ((n = ::read(fd, buf.data(), buf.size())) != 0)
        {
            if (n < 0 && errno == EINTR)
            {
                continue;
            }
            if (n < 0)
            {
                break;
            }
            if (output)
            {
                output->append(buf.data(), size_t(n));
            }
        }
        ::close(fd);
    }
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0)
    {
        if (errno != EINTR)
        {
            return -1;
        }
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

bool
OnPath(const std::string& program)
{
    auto executable = [](const std::string& p) {
        struct stat st
        {
        };
        return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
    };
    if (program.empty())
    {
        return false;
    }
    if (program.find('/') != std::string::npos)
    {
        return executable(program);
    }
    const char* path = std::getenv("PATH");
    const std::string dirs = path ? path : "/usr/bin:/bin";
    size_t start = 0;
    while (true)
    {
        const size_t colon = dirs.find(':', start);
        const std::string d =
            dirs.substr(start, colon == std::string::npos ? colon : colon - start);
        if (executable((d.empty() ? "." : d) + "/" + program))
        {
            return true;
        }
        if (colon == std::string::npos)
        {
            return false;
        }
        start = colon + 1;
    }
}

} // namespace aifabric

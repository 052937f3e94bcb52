// SPDX-License-Identifier: GPL-2.0-only
#include "sweep-lock.h"

#include "json-input.h"
#include "scenario.h"
#include "text-util.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <sys/file.h>
#include <unistd.h>

namespace aifabric
{

SweepLock::SweepLock(const std::string& dir)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const std::string file = (std::filesystem::path(dir) / kFileName).string();
    m_fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (m_fd < 0)
    {
        throw ScenarioError("--out: cannot open the sweep's lock file '" + EchoText(file) +
                            "': " + std::strerror(errno));
    }
    if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0)
    {
        const int why = errno;
        char buf[256] = {};
        const ssize_t n = ::pread(m_fd, buf, sizeof(buf) - 1, 0);
        ::close(m_fd);
        m_fd = -1;
        if (why != EWOULDBLOCK)
        {
            throw ScenarioError("--out: cannot lock '" + EchoText(file) +
                                "': " + std::strerror(why));
        }
        const std::string holder = Trim(std::string(buf, n > 0 ? size_t(n) : 0));
        throw ScenarioError("--out: another sweep is running in '" + EchoText(dir) + "' (" +
                            (holder.empty() ? std::string("holder unknown") : EchoText(holder)) +
                            "); wait for it or stop it first");
    }
    // Ours: say who holds it (a stale holder's line is replaced).
    const std::string me = "pid=" + std::to_string(::getpid()) + " host=" + Hostname() + "\n";
    if (::ftruncate(m_fd, 0) != 0 || ::pwrite(m_fd, me.data(), me.size(), 0) < 0)
    {
        // The lock holds regardless; only the holder's name is missing.
    }
}

SweepLock::~SweepLock()
{
    if (m_fd >= 0)
    {
        ::close(m_fd); // releases the lock; the file stays (removing it would race a taker)
    }
}

} // namespace aifabric

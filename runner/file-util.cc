// SPDX-License-Identifier: GPL-2.0-only
#include "file-util.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace aifabric
{

namespace fs = std::filesystem;

void
WriteAtomically(const fs::path& p, const std::string& content)
{
    const fs::path tmp =
        p.parent_path() / ("." + p.filename().string() + ".tmp-" + std::to_string(::getpid()));
    {
        errno = 0;
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f << content;
        f.flush();
        if (!f)
        {
            // The reason (No space left on device, Permission denied, ...), not only the name.
            const int e = errno;
            std::error_code ec;
            fs::remove(tmp, ec);
            throw std::runtime_error("cannot write " + tmp.string() + ": " +
                                     (e ? std::strerror(e) : "write error"));
        }
    }
    std::error_code ec;
    fs::rename(tmp, p, ec);
    if (ec)
    {
        fs::remove(tmp, ec);
        throw std::runtime_error("cannot write " + p.string() + ": " + ec.message());
    }
}

nlohmann::json
ReadJsonFile(const fs::path& p)
{
    // Regular, bounded, never blocking (a FIFO in a point's directory is refused).
    return nlohmann::json::parse(ReadInputFile(p));
}

std::string
ReadInputFile(const fs::path& p, uint64_t maxBytes)
{
    const int fd = ::open(p.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
    {
        throw std::runtime_error(std::string("cannot be read: ") + std::strerror(errno));
    }

    struct stat st
    {
    };

    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    {
        const mode_t m = st.st_mode;
        ::close(fd);
        throw std::runtime_error(S_ISDIR(m)                 ? "is a directory, not a regular file"
                                 : S_ISFIFO(m)              ? "is a FIFO, not a regular file"
                                 : S_ISCHR(m) || S_ISBLK(m) ? "is a device, not a regular file"
                                                            : "is not a regular file");
    }
    const std::string limit = std::to_string(maxBytes >> 20) + " MiB";
    if (uint64_t(st.st_size) > maxBytes)
    {
        ::close(fd);
        throw std::runtime_error("is larger than " + limit);
    }
    // Read to the end, at most one byte past the limit (a file that grows, procfs's size 0).
    std::string text;
    char buf[65536];
    for (;;)
    {
        const ssize_t n = ::read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
        {
            continue;
        }
        if (n < 0)
        {
            const int e = errno;
            ::close(fd);
            throw std::runtime_error(std::string("cannot be read: ") + std::strerror(e));
        }
        if (n == 0)
        {
            break;
        }
        text.append(buf, size_t(n));
        if (text.size() > maxBytes)
        {
            ::close(fd);
            throw std::runtime_error("is larger than " + limit);
        }
    }
    ::close(fd);
    return text;
}

std::string
ReadText(const fs::path& p)
{
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::string
SafeFileName(const std::string& s)
{
    std::string r;
    for (char ch : s)
    {
        r += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.')
                 ? ch
                 : '_';
    }
    return r;
}

std::vector<std::string>
UniqueFileNames(const std::vector<std::string>& names, std::set<std::string> taken)
{
    std::vector<std::string> r;
    for (const auto& n : names)
    {
        std::string base = SafeFileName(n.substr(0, 120));
        if (base.empty())
        {
            base = "run";
        }
        if (base[0] == '.')
        {
            base[0] = '_';
        }
        std::string name = base;
        for (int k = 2; taken.count(name); ++k)
        {
            name = base + "-" + std::to_string(k);
        }
        taken.insert(name);
        r.push_back(name);
    }
    return r;
}

} // namespace aifabric

// SPDX-License-Identifier: GPL-2.0-only
#include "report-server.h"

#include "file-util.h"
#include "interrupt.h"
#include "scenario.h"

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <netinet/in.h>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/stat.h>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <vector>

namespace aifabric
{

namespace fs = std::filesystem;

namespace
{

int
HexDigit(char c)
{
    if (c >= '0' && c <= '9')
    {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f')
    {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F')
    {
        return c - 'A' + 10;
    }
    return -1;
}

/// Write all of `s`; false when the client went away or stalled (SO_SNDTIMEO), which is not an
/// error of the server.
bool
SendAll(int fd, const std::string& s)
{
    size_t done = 0;
    while (done < s.size())
    {
        const ssize_t n = ::send(fd, s.data() + done, s.size() - done, MSG_NOSIGNAL);
        if (n <= 0)
        {
            if (n < 0 && errno == EINTR)
            {
                continue;
            }
            return false;
        }
        done += static_cast<size_t>(n);
    }
    return true;
}

std::string
Header(int status, const char* reason, const std::string& type, uint64_t length)
{
    return "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\nContent-Type: " + type +
           "\r\nContent-Length: " + std::to_string(length) +
           "\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
           "Connection: close\r\n\r\n";
}

std::string
Response(int status,
         const char* reason,
         const std::string& type,
         const std::string& body,
         bool head)
{
    return Header(status, reason, type, body.size()) + (head ? std::string() : body);
}

/// Send a file in chunks of 64 KiB (never the whole file in memory); false if it went away.
void
SendFile(int fd, const fs::path& file, const std::string& type, bool head)
{
    const int in = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);

    struct stat st
    {
    };

    if (in < 0 || ::fstat(in, &st) != 0 || !S_ISREG(st.st_mode))
    {
        if (in >= 0)
        {
            ::close(in);
        }
        SendAll(fd, Response(404, "Not Found", "text/plain", "not found\n", head));
        return;
    }
    SendAll(fd, Header(200, "OK", type, uint64_t(st.st_size)));
    uint64_t left = head ? 0 : uint64_t(st.st_size);
    std::vector<char> buf(65536);
    while (left > 0)
    {
        const ssize_t n = ::read(in, buf.data(), std::min<uint64_t>(buf.size(), left));
        if (n < 0 && errno == EINTR)
        {
            continue;
        }
        if (n <= 0 || !SendAll(fd, std::string(buf.data(), size_t(n))))
        {
            break; // the file shrank or the client left: the length tells it was cut
        }
        left -= uint64_t(n);
    }
    ::close(in);
}

/// Whether the request's Host header names this server: 127.0.0.1 or localhost, with our port
/// or none. Anything else is a page of another origin (DNS rebinding) reaching us.
bool
HostIsLocal(const std::string& head, uint16_t port)
{
    size_t at = 0;
    while ((at = head.find("\r\n", at)) != std::string::npos)
    {
        at += 2;
        const size_t end = head.find("\r\n", at);
        std::string line = head.substr(at, end == std::string::npos ? end : end - at);
        const size_t colon = line.find(':');
        if (colon == std::string::npos)
        {
            continue;
        }
        std::string name = line.substr(0, colon);
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) {
            return static_cast<char>(std::tolower(c));
        });
        if (name != "host")
        {
            continue;
        }
        std::string v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        v.erase(v.find_last_not_of(" \t") + 1);
        std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) {
            return static_cast<char>(std::tolower(c));
        });
        const std::string p = ":" + std::to_string(port);
        return v == "127.0.0.1" || v == "localhost" || v == "127.0.0.1" + p || v == "localhost" + p;
    }
    return false;
}

/// Read the request head (up to the blank line, at most 16 KiB, waiting at most 5 s).
std::string
ReadHead(int fd)
{
    std::string head;
    char buf[4096];
    while (head.find("\r\n\r\n") == std::string::npos && head.size() < 16384)
    {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 5000) <= 0)
        {
            break;
        }
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0)
        {
            break;
        }
        head.append(buf, static_cast<size_t>(n));
    }
    return head;
}

void
Answer(int fd, const fs::path& root, uint16_t port)
{
    const std::string head = ReadHead(fd);
    const size_t sp1 = head.find(' ');
    const size_t sp2 = sp1 == std::string::npos ? sp1 : head.find(' ', sp1 + 1);
    if (sp2 == std::string::npos)
    {
        SendAll(fd, Response(400, "Bad Request", "text/plain", "bad request\n", false));
        return;
    }
    const std::string method = head.substr(0, sp1);
    const std::string target = head.substr(sp1 + 1, sp2 - sp1 - 1);
    const bool isHead = method == "HEAD";
    if (method != "GET" && !isHead)
    {
        SendAll(fd, Response(405, "Method Not Allowed", "text/plain", "GET or HEAD only\n", false));
        return;
    }
    if (!HostIsLocal(head, port))
    {
        SendAll(fd,
                Response(421,
                         "Misdirected Request",
                         "text/plain",
                         "this server answers to 127.0.0.1 and localhost only\n",
                         isHead));
        return;
    }
    const fs::path file = ResolveRequest(root, target);
    if (file.empty())
    {
        SendAll(fd, Response(404, "Not Found", "text/plain", "not found\n", isHead));
        return;
    }
    SendFile(fd, file, ContentType(file), isHead);
}

} // namespace

fs::path
ResolveRequest(const fs::path& root, const std::string& target)
{
    std::string path = target.substr(0, target.find_first_of("?#"));
    if (path.empty() || path[0] != '/')
    {
        return {};
    }
    std::string decoded;
    for (size_t i = 0; i < path.size(); ++i)
    {
        if (path[i] == '%')
        {
            const int hi = i + 2 < path.size() ? HexDigit(path[i + 1]) : -1;
            const int lo = hi >= 0 ? HexDigit(path[i + 2]) : -1;
            if (lo < 0)
            {
                return {};
            }
            decoded += static_cast<char>(hi * 16 + lo);
            i += 2;
        }
        else
        {
            decoded += path[i];
        }
    }
    if (decoded.find('\0') != std::string::npos || decoded.find('\\') != std::string::npos)
    {
        return {};
    }
    if (decoded == "/")
    {
        decoded = "/index.html";
    }
    fs::path rel;
    size_t start = 1;
    while (start <= decoded.size())
    {
        const size_t end = std::min(decoded.find('/', start), decoded.size());
        const std::string part = decoded.substr(start, end - start);
        if (part.empty() || part[0] == '.')
        {
            return {}; // "", ".", ".." and hidden names (the temporary files of a writer)
        }
        rel /= part;
        start = end + 1;
    }
    std::error_code ec;
    const fs::path base = fs::canonical(root, ec);
    if (ec)
    {
        return {};
    }
    const fs::path file = fs::canonical(base / rel, ec);
    if (ec || !fs::is_regular_file(file, ec))
    {
        return {};
    }
    // A symbolic link out of the directory is not served.
    const auto mismatch = std::mismatch(base.begin(), base.end(), file.begin(), file.end());
    return mismatch.first == base.end() ? file : fs::path();
}

std::string
ContentType(const fs::path& p)
{
    const std::string e = p.extension().string();
    if (e == ".html")
    {
        return "text/html; charset=utf-8";
    }
    if (e == ".png")
    {
        return "image/png";
    }
    if (e == ".svg")
    {
        return "image/svg+xml";
    }
    if (e == ".json")
    {
        return "application/json";
    }
    if (e == ".csv" || e == ".txt" || e == ".gp" || e == ".dat" || e == ".log")
    {
        return "text/plain; charset=utf-8";
    }
    return "application/octet-stream";
}

int
ServeDirectory(const fs::path& root,
               uint16_t port,
               const std::function<void(uint16_t)>& ready,
               const std::function<bool()>& stop)
{
    const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
    {
        throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
    }
    const int one = 1;
    ::setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK); // 127.0.0.1 only
    if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(s, 64) != 0)
    {
        const int e = errno;
        ::close(s);
        if (e == EADDRINUSE || e == EACCES)
        {
            // Bad input (exit 2), not an internal error.
            throw ScenarioError("--port: 127.0.0.1:" + std::to_string(port) + " " +
                                (e == EADDRINUSE ? "is in use by another program; choose "
                                                   "another port, or 0 for a free one"
                                                 : "needs privileges (use a port >= 1024)"));
        }
        throw std::runtime_error("127.0.0.1:" + std::to_string(port) + ": " + std::strerror(e));
    }
    socklen_t len = sizeof a;
    ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
    const uint16_t bound = ntohs(a.sin_port);
    ready(bound);
    // A thread per connection, at most kMaxConnections at once (more are told 503 at once): a
    // slow client holds only its own thread; reads wait at most 5 s, writes 10 s.
    constexpr int kMaxConnections = 32;
    auto active = std::make_shared<std::atomic<int>>(0);
    while (InterruptSignal() == 0 && !(stop && stop()))
    {
        pollfd p{s, POLLIN, 0};
        if (::poll(&p, 1, 200) <= 0)
        {
            continue;
        }
        const int c = ::accept4(s, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0)
        {
            continue;
        }
        timeval timeout{10, 0};
        ::setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
        if (active->load() >= kMaxConnections)
        {
            SendAll(c, Response(503, "Service Unavailable", "text/plain", "busy\n", false));
            ::close(c);
            continue;
        }
        ++*active;
        try
        {
            std::thread([c, root, bound, active]() {
                Answer(c, root, bound);
                ::close(c);
                --*active;
            }).detach();
        }
        catch (const std::system_error&)
        {
            --*active;
            ::close(c);
        }
    }
    // Let the connections being answered finish (each is bounded by its timeouts).
    for (int i = 0; i < 200 && active->load() > 0; ++i)
    {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::close(s);
    return 0;
}

} // namespace aifabric

// SPDX-License-Identifier: GPL-2.0-only
// Regression tests of the second hostile pass (issue 40) on the results server (loopback only):
// one slow client used to block everyone (one connection at a time), any Host was served (DNS
// rebinding), a large file was read whole into memory, a port in use was an internal error.
#include "process-util.h"
#include "report-server.h"
#include "scenario.h"

#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace aifabric;
namespace fs = std::filesystem;

namespace
{

int
Connect(uint16_t port)
{
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
    {
        ::close(s);
        return -1;
    }
    return s;
}

std::string
Get(uint16_t port, const std::string& request)
{
    const int s = Connect(port);
    if (s < 0)
    {
        return "";
    }
    ::send(s, request.data(), request.size(), 0);
    std::string out;
    char buf[65536];
    ssize_t n;
    while ((n = ::recv(s, buf, sizeof buf, 0)) > 0)
    {
        out.append(buf, static_cast<size_t>(n));
    }
    ::close(s);
    return out;
}

/// A server on a free port over `dir`, stopped when this goes away.
struct Server
{
    std::atomic<bool> stop{false};
    std::atomic<int> port{-1};
    std::thread thread;

    explicit Server(const fs::path& dir)
        : thread([this, dir] {
              ServeDirectory(
                  dir,
                  0,
                  [this](uint16_t p) { port = p; },
                  [this] { return stop.load(); });
          })
    {
        while (port < 0)
        {
            std::this_thread::yield();
        }
    }

    ~Server()
    {
        stop = true;
        thread.join();
    }

    uint16_t Port() const
    {
        return static_cast<uint16_t>(port.load());
    }
};

} // namespace

// A page of another origin that rebinds its name to 127.0.0.1 sends its own Host: refused
// with 421; a request without Host too; 127.0.0.1 and localhost, with our port or none, served.
TEST(HardeningServer, HostHeaderMustBeLoopback)
{
    const fs::path d = ScratchDir("aif-server-host");
    WriteFile(d / "index.html", "hello");
    Server srv(d);
    const std::string p = std::to_string(srv.Port());
    for (const std::string& host : std::vector<std::string>{"localhost",
                                                            "127.0.0.1",
                                                            "localhost:" + p,
                                                            "127.0.0.1:" + p,
                                                            "LocalHost:" + p})
    {
        const std::string r = Get(srv.Port(), "GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
        EXPECT_EQ(r.rfind("HTTP/1.1 200", 0), 0u) << host << ": " << r;
    }
    for (const std::string& host :
         std::vector<std::string>{"evil.example", "evil.example:" + p, "localhost:1", "127.0.0.2"})
    {
        const std::string r = Get(srv.Port(), "GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
        EXPECT_EQ(r.rfind("HTTP/1.1 421", 0), 0u) << host << ": " << r;
        EXPECT_EQ(r.find("hello"), std::string::npos);
    }
    EXPECT_EQ(Get(srv.Port(), "GET / HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 421", 0), 0u);
}

// Three clients that connect and send nothing do not delay a fourth (it used to wait 5 s per
// silent client); a 24 MiB file arrives whole (streamed, its length announced).
TEST(HardeningServer, SlowClientsDoNotBlockOthersAndLargeFilesStream)
{
    const fs::path d = ScratchDir("aif-server-slow");
    WriteFile(d / "index.html", "hello");
    {
        std::ofstream big(d / "big.dat", std::ios::binary);
        const std::string block(1 << 20, 'x');
        for (int i = 0; i < 24; ++i)
        {
            big << block;
        }
    }
    Server srv(d);
    std::vector<int> silent;
    for (int i = 0; i < 3; ++i)
    {
        silent.push_back(Connect(srv.Port()));
    }
    const auto t0 = std::chrono::steady_clock::now();
    const std::string r = Get(srv.Port(), "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.rfind("HTTP/1.1 200", 0), 0u) << r;
    EXPECT_LT(s, 2.0);
    const std::string big = Get(srv.Port(), "GET /big.dat HTTP/1.1\r\nHost: localhost\r\n\r\n");
    EXPECT_NE(big.find("Content-Length: 25165824\r\n"), std::string::npos);
    EXPECT_EQ(big.size() - (big.find("\r\n\r\n") + 4), 24u << 20);
    for (int fd : silent)
    {
        ::close(fd);
    }
}

// A port in use is bad input (ScenarioError: exit 2 naming --port), not an internal error.
TEST(HardeningServer, PortInUseIsBadInput)
{
    const fs::path d = ScratchDir("aif-server-port");
    Server srv(d);
    try
    {
        ServeDirectory(
            d,
            srv.Port(),
            [](uint16_t) {},
            [] { return true; });
        ADD_FAILURE() << "a second server bound the same port";
    }
    catch (const ScenarioError& e)
    {
        EXPECT_NE(std::string(e.what()).find("--port"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("in use"), std::string::npos) << e.what();
    }
}

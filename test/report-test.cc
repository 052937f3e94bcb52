// SPDX-License-Identifier: GPL-2.0-only
// The results page (index.html) of a run and of a gathered sweep: written beside summary.json
// and results.csv, self-contained (no network address, no external script or style), its
// embedded data what the files say; ./ai-fabric view and its 127.0.0.1-only server.
#include "process-util.h"
#include "report-server.h"
#include "report.h"

#include <arpa/inet.h>
#include <atomic>
#include <filesystem>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>
#include <thread>

namespace fs = std::filesystem;
using namespace aifabric;
using nlohmann::json;

namespace
{

const char* kTwoRuns =
    R"({"name": "page", "topology": {"kind": "star", "servers": 2, "gpus_per_server": 2},
  "workload": {"steps": 2, "compute_ms": 1, "bytes": 1048576, "algorithm": "ring"},
  "compare": [{"name": "RoCEv2 </script> & <b>", "fabric": "rocev2"},
              {"name": "TCP", "fabric": "tcp", "pfc": false}]})";

const char* kSweep = R"({"name": "pagesweep",
  "base": {"name": "tiny", "topology": {"kind": "star", "servers": 2, "gpus_per_server": 2},
           "workload": {"steps": 1, "compute_ms": 1, "bytes": 1048576, "algorithm": "ring"}},
  "grid": {"fabric": ["rocev2", "tcp"]}, "seeds": [1]})";

/// The JSON a page embeds.
json
PageData(const std::string& page)
{
    const std::string open = "<script type=\"application/json\" id=\"aif-data\">";
    const size_t a = page.find(open);
    const size_t b = page.find("</script>", a);
    EXPECT_NE(a, std::string::npos);
    EXPECT_NE(b, std::string::npos);
    return json::parse(page.substr(a + open.size(), b - a - open.size()));
}

size_t
Count(const std::string& s, const std::string& what)
{
    size_t n = 0;
    for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1))
    {
        ++n;
    }
    return n;
}

/// What a page must not hold to open offline: a network address or an external resource.
void
ExpectSelfContained(const std::string& page)
{
    EXPECT_EQ(page.find("http://"), std::string::npos);
    EXPECT_EQ(page.find("https://"), std::string::npos);
    EXPECT_EQ(page.find("<script src"), std::string::npos);
    EXPECT_EQ(page.find("<link"), std::string::npos);
    EXPECT_EQ(page.find("@import"), std::string::npos);
    // Exactly the template's two script elements: nothing in the data ended one early.
    EXPECT_EQ(Count(page, "</script>"), 2u);
}

/// GET `target` from 127.0.0.1:port; \return the whole response.
std::string
Get(uint16_t port, const std::string& request)
{
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
    {
        ::close(s);
        return "";
    }
    ::send(s, request.data(), request.size(), 0);
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = ::recv(s, buf, sizeof buf, 0)) > 0)
    {
        out.append(buf, static_cast<size_t>(n));
    }
    ::close(s);
    return out;
}

} // namespace

TEST(ReportTest, RunPageIsSelfContainedAndEmbedsTheSummaryAndSteps)
{
    const fs::path d = ScratchDir("aif-report-run");
    const fs::path out = d / "out";
    const Result r =
        RunCommand(std::string(AIFABRIC_RUNNER) + " " + WriteFile(d / "s.json", kTwoRuns).string() +
                       " --quiet --out " + out.string(),
                   "report");
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string page = ReadFile(out / "index.html");
    ASSERT_FALSE(page.empty());
    ExpectSelfContained(page);
    const json data = PageData(page);
    EXPECT_EQ(data["kind"], "run");
    EXPECT_EQ(data["summary"], json::parse(ReadFile(out / "summary.json")));
    ASSERT_EQ(data["runs"].size(), 2u);
    // Each run's directory, its steps as steps.csv holds them, and its figures that exist.
    for (const auto& run : data["runs"])
    {
        const fs::path rd = out / run["dir"].get<std::string>();
        ASSERT_TRUE(fs::is_directory(rd)) << rd;
        EXPECT_EQ(run["steps_csv"].get<std::string>(), ReadFile(rd / "steps.csv"));
        EXPECT_EQ(run["trimmed"], "");
        for (const auto& f : run["figures"])
        {
            EXPECT_TRUE(fs::exists(rd / f.get<std::string>())) << f;
        }
    }
    // The run name with markup is in the data, escaped: never as markup in the page.
    EXPECT_EQ(data["summary"]["runs"][0]["name"], "RoCEv2 </script> & <b>");
    EXPECT_EQ(page.find("<b>"), std::string::npos);
}

TEST(ReportTest, EmbeddedJsonCannotEndItsElementAndMarksInTheDataStayData)
{
    json data;
    data["kind"] = "run";
    data["summary"] = {{"runs", json::array()}, {"scenario", "</script><script>x()</script>"}};
    data["text"] = "/*AIF-JS*/ /*AIF-DATA*/ <!-- & >";
    const std::string e = EmbeddedJson(data);
    EXPECT_EQ(e.find('<'), std::string::npos);
    EXPECT_EQ(e.find('>'), std::string::npos);
    EXPECT_EQ(e.find('&'), std::string::npos);
    EXPECT_EQ(json::parse(e), data);
    const std::string page = ReportPage(data);
    ExpectSelfContained(page);
    EXPECT_EQ(PageData(page), data);
    // The script, its three files in order, is in the page once, after the data, whatever the
    // data holds.
    size_t at = page.find("id=\"aif-data\"");
    for (const char* part : {"results page, part 1 of 3", "part 2 of 3", "part 3 of 3"})
    {
        EXPECT_EQ(Count(page, part), 1u) << part;
        EXPECT_LT(at, page.find(part)) << part;
        at = page.find(part);
    }
}

TEST(ReportTest, FirstCsvRowsKeepsTheHeaderAndSaysWhatItCut)
{
    bool cut = true;
    EXPECT_EQ(FirstCsvRows("a,b\n1,2\n3,4\n", 5, cut), "a,b\n1,2\n3,4\n");
    EXPECT_FALSE(cut);
    EXPECT_EQ(FirstCsvRows("a,b\n1,2\n3,4\n", 2, cut), "a,b\n1,2\n3,4\n");
    EXPECT_FALSE(cut);
    EXPECT_EQ(FirstCsvRows("a,b\n1,2\n3,4\n", 1, cut), "a,b\n1,2\n");
    EXPECT_TRUE(cut);
    EXPECT_EQ(FirstCsvRows("a,b\n1,2\n", 0, cut), "a,b\n");
    EXPECT_TRUE(cut);
    EXPECT_EQ(FirstCsvRows("", 3, cut), "");
    EXPECT_FALSE(cut);
}

TEST(ReportTest, SweepPageEmbedsResultsCsvAndEachRunsSteps)
{
    const fs::path d = ScratchDir("aif-report-sweep");
    const fs::path sweep = d / "sweep";
    const std::string spec = WriteFile(d / "sweep.json", kSweep).string();
    Result r =
        RunCommand(std::string(AIFABRIC_SWEEP) + " " + spec + " --out " + sweep.string() + " -j 2",
                   "report");
    ASSERT_EQ(r.status, 0) << r.err;
    r = RunCommand(std::string(AIFABRIC_SWEEP) + " gather " + sweep.string(), "report");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find((sweep / "gathered" / "index.html").string()), std::string::npos) << r.out;
    const std::string page = ReadFile(sweep / "gathered" / "index.html");
    ExpectSelfContained(page);
    const json data = PageData(page);
    EXPECT_EQ(data["kind"], "sweep");
    EXPECT_EQ(data["title"], "pagesweep");
    EXPECT_EQ(data["keys"], json::array({"fabric"}));
    EXPECT_EQ(data["csv"].get<std::string>(), ReadFile(sweep / "gathered" / "results.csv"));
    // One wave per run of each point: that run's steps.csv.
    ASSERT_EQ(data["waves"].size(), 2u);
    for (const auto& [key, steps] : data["waves"].items())
    {
        const std::string id = key.substr(0, key.find('/'));
        EXPECT_EQ(key.substr(id.size() + 1), "tiny");
        EXPECT_EQ(steps.get<std::string>(), ReadFile(sweep / id / "tiny" / "steps.csv")) << key;
    }
}

TEST(ReportTest, ViewPrintsThePageWritesAMissingOneAndRejectsWhatIsNot)
{
    const fs::path d = ScratchDir("aif-report-view");
    const fs::path out = d / "out";
    Result r =
        RunCommand(std::string(AIFABRIC_RUNNER) + " " + WriteFile(d / "s.json", kTwoRuns).string() +
                       " --quiet --out " + out.string(),
                   "report");
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string page = ReadFile(out / "index.html");
    fs::remove(out / "index.html"); // results from before the page existed
    r = RunCommand(std::string(AIFABRIC_VIEW) + " " + out.string() + "/", "report");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, (out / "index.html").string() + "\n");
    EXPECT_EQ(ReadFile(out / "index.html"), page);

    for (const auto& [args, mention] : std::vector<std::pair<std::string, std::string>>{
             {(d / "nothing").string(), "not a results directory"},
             {out.string() + " --port 65536", "--port: 65536 is not a port (allowed: 0..65535)"},
             {out.string() + " --port", "--port: needs a value"},
             {out.string() + " --bogus", "--bogus: unknown argument"},
             {"", "DIR: missing"}})
    {
        r = RunCommand(std::string(AIFABRIC_VIEW) + " " + args, "report");
        EXPECT_EQ(r.status, 2) << args;
        EXPECT_NE(r.err.find(mention), std::string::npos) << args << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    // Someone else's summary.json that is not what the runner writes: one line naming it, exit 2
    // (a summary without a runs list was an "internal error", exit 1).
    for (const auto& [text, mention] : std::vector<std::pair<std::string, std::string>>{
             {R"({"runs": 7})", "summary.json: no list \"runs\""},
             {R"([1, 2])", "summary.json: no list \"runs\""},
             {R"({"runs": [{"name": 3}]})", "summary.json: a field has the wrong type"},
             {R"({"runs": [)", "summary.json: "}})
    {
        const fs::path bad = d / "foreign";
        fs::remove_all(bad);
        fs::create_directories(bad);
        WriteFile(bad / "summary.json", text);
        r = RunCommand(std::string(AIFABRIC_VIEW) + " " + bad.string(), "report");
        EXPECT_EQ(r.status, 2) << text << ": " << r.err;
        EXPECT_NE(r.err.find(mention), std::string::npos) << text << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(fs::exists(bad / "index.html"));
    }
    // A sweep that has not been gathered says what to run.
    fs::create_directories(d / "sweep");
    WriteFile(d / "sweep" / "sweep.json", "{}");
    r = RunCommand(std::string(AIFABRIC_VIEW) + " " + (d / "sweep").string(), "report");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("ai-fabric gather"), std::string::npos) << r.err;
}

TEST(ReportTest, ResolveRequestServesOnlyFilesInsideTheDirectory)
{
    const fs::path d = ScratchDir("aif-report-resolve");
    fs::create_directories(d / "run");
    WriteFile(d / "index.html", "page");
    WriteFile(d / "run" / "a b.png", "png");
    WriteFile(d / ".hidden", "x");
    const fs::path outside = WriteFile(d.parent_path() / "aif-report-outside.txt", "secret");
    fs::create_symlink(outside, d / "link.txt");
    const fs::path base = fs::canonical(d);
    EXPECT_EQ(ResolveRequest(d, "/"), base / "index.html");
    EXPECT_EQ(ResolveRequest(d, "/index.html?x=1#y"), base / "index.html");
    EXPECT_EQ(ResolveRequest(d, "/run/a%20b.png"), base / "run" / "a b.png");
    for (const char* bad : {"/../aif-report-outside.txt",
                            "/%2e%2e/aif-report-outside.txt",
                            "/run/../index.html",
                            "/.hidden",
                            "/link.txt",
                            "/run",
                            "/run//a%20b.png",
                            "/nothing",
                            "/index.html%00.png",
                            "/%zz",
                            "index.html",
                            "*"})
    {
        EXPECT_TRUE(ResolveRequest(d, bad).empty()) << bad;
    }
    EXPECT_EQ(ContentType("x.html"), "text/html; charset=utf-8");
    EXPECT_EQ(ContentType("x.png"), "image/png");
    EXPECT_EQ(ContentType("x.svg"), "image/svg+xml");
}

TEST(ReportTest, ServeAnswersOnLoopbackOnly)
{
    const fs::path d = ScratchDir("aif-report-serve");
    WriteFile(d / "index.html", "<!DOCTYPE html><title>t</title>");
    std::atomic<bool> stop{false};
    std::atomic<int> port{-1};
    std::thread server([&] {
        ServeDirectory(
            d,
            0,
            [&](uint16_t p) { port = p; },
            [&] { return stop.load(); });
    });
    while (port < 0)
    {
        std::this_thread::yield();
    }
    const uint16_t p = static_cast<uint16_t>(port.load());
    // The listening socket's address, as the kernel reports it: 127.0.0.1 (0100007F), no other.
    char hexPort[8];
    std::snprintf(hexPort, sizeof hexPort, "%04X", p);
    const std::string tcp = ReadFile("/proc/net/tcp");
    EXPECT_NE(tcp.find("0100007F:" + std::string(hexPort) + " 00000000:0000 0A"), std::string::npos)
        << tcp;
    EXPECT_EQ(tcp.find("00000000:" + std::string(hexPort) + " 00000000:0000 0A"),
              std::string::npos);
    const std::string ok =
        Get(p, "GET / HTTP/1.1\r\nHost: localhost:" + std::to_string(p) + "\r\n\r\n");
    EXPECT_EQ(ok.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << ok;
    EXPECT_NE(ok.find("Content-Type: text/html"), std::string::npos);
    EXPECT_EQ(ok.substr(ok.find("\r\n\r\n") + 4), "<!DOCTYPE html><title>t</title>");
    const std::string head = Get(p, "HEAD /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    EXPECT_EQ(head.rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
    EXPECT_EQ(head.substr(head.find("\r\n\r\n") + 4), "");
    EXPECT_EQ(
        Get(p, "GET /../etc/passwd HTTP/1.1\r\nHost: localhost\r\n\r\n").rfind("HTTP/1.1 404", 0),
        0u);
    EXPECT_EQ(Get(p, "POST / HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 405", 0), 0u);
    EXPECT_EQ(Get(p, "garbage\r\n\r\n").rfind("HTTP/1.1 400", 0), 0u);
    stop = true;
    server.join();
}

// SPDX-License-Identifier: GPL-2.0-only
#include "sweep-directory.h"

#include "file-util.h"
#include "sweep-lock.h"
#include "text-util.h"

#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <sys/file.h>
#include <unistd.h>

namespace aifabric
{

using nlohmann::json;
namespace fs = std::filesystem;

const char* const kManifestFormat = "ai-fabric-sweep/1";

fs::path
LogPath(const fs::path& dir, const std::string& id)
{
    return dir / "logs" / (id + ".log");
}

fs::path
ExitPath(const fs::path& dir, const std::string& id)
{
    return dir / "logs" / (id + ".exit");
}

/// The exit status a finished attempt recorded, or -1 when there is none.
int
RecordedExit(const fs::path& dir, const std::string& id)
{
    std::ifstream f(ExitPath(dir, id));
    int rc = -1;
    if (!(f >> rc))
    {
        return -1;
    }
    return rc;
}

void
RecordExit(const fs::path& dir, const std::string& id, int rc)
{
    WriteAtomically(ExitPath(dir, id), std::to_string(rc) + "\n");
}

/// "key=value" fields of a log's first line ("# ai-fabric-sweep point=... engine=local ...").
namespace
{
fs::path
RunLockPath(const fs::path& dir, const std::string& id)
{
    return dir / "logs" / (id + ".run");
}
} // namespace

int
LockPointForRunner(const fs::path& dir, const std::string& id)
{
    // Not close-on-exec: the runner inherits it (the sweep starts one child at a time and
    // closes its copy at once, so no other runner inherits it).
    const int fd = ::open(RunLockPath(dir, id).c_str(), O_RDWR | O_CREAT | O_NOFOLLOW, 0644);
    if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) != 0)
    {
        ::close(fd);
        return -1;
    }
    return fd;
}

bool
PointRunnerAlive(const fs::path& dir, const std::string& id)
{
    const int fd = ::open(RunLockPath(dir, id).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
    {
        return false;
    }
    const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    ::close(fd);
    return held;
}

std::map<std::string, std::string>
LogHeader(const fs::path& log)
{
    std::map<std::string, std::string> h;
    std::ifstream f(log);
    std::string line;
    if (!std::getline(f, line) || line.rfind("# ai-fabric-sweep ", 0) != 0)
    {
        return h;
    }
    std::istringstream is(line.substr(18));
    std::string field;
    while (is >> field)
    {
        const size_t eq = field.find('=');
        if (eq != std::string::npos)
        {
            h[field.substr(0, eq)] = field.substr(eq + 1);
        }
    }
    return h;
}

namespace
{

/// The last line of `log` for which `keep` holds, trimmed ("" if none).
std::string
LastLineWhere(const fs::path& log, const std::function<bool(const std::string&)>& keep)
{
    std::ifstream f(log);
    std::string line;
    std::string last;
    while (std::getline(f, line))
    {
        if (keep(Trim(line)))
        {
            last = Trim(line);
        }
    }
    return last;
}

} // namespace

std::string
LastLine(const fs::path& log)
{
    return LastLineWhere(log, [](const std::string& l) { return !l.empty(); });
}

std::string
ReasonLine(const fs::path& log)
{
    const std::string reason = LastLineWhere(log, [](const std::string& l) {
        for (const char* mark :
             {"aborted. ", "assert failed. ", "msg=\"", "ai-fabric: ", "what(): "})
        {
            if (l.find(mark) != std::string::npos)
            {
                return true;
            }
        }
        return false;
    });
    return reason.empty() ? LastLine(log) : reason;
}

json
ReadManifest(const fs::path& dir)
{
    const fs::path m = dir / "sweep.json";
    if (!fs::exists(m))
    {
        throw ScenarioError(dir.string() + ": not a sweep directory (no sweep.json)");
    }
    json j;
    try
    {
        j = ReadJsonFile(m);
    }
    catch (const std::exception&)
    {
        throw ScenarioError(m.string() + ": not a valid sweep manifest");
    }
    if (j.value("format", std::string()) != kManifestFormat || !j.contains("points"))
    {
        throw ScenarioError(m.string() + ": not a valid sweep manifest (format " + kManifestFormat +
                            ")");
    }
    return j;
}

std::string
DescribeManifestPoint(const json& manifest, const json& p)
{
    std::string s;
    for (const auto& k : manifest["keys"])
    {
        s += k.get<std::string>() + "=" + Text(p["values"][k.get<std::string>()]) + " ";
    }
    return s + "seed=" + std::to_string(p["seed"].get<uint32_t>());
}

// ---- sweep directories

void
CheckSweepDirectory(const Sweep& sweep, const std::string& dir)
{
    std::error_code ec;
    if (dir.empty())
    {
        throw ScenarioError("--out: must name a directory");
    }
    if (!fs::exists(dir, ec))
    {
        fs::path parent = fs::absolute(dir, ec).parent_path();
        while (!parent.empty() && !fs::exists(parent, ec))
        {
            parent = parent.parent_path();
        }
        if (parent.empty() || ::access(parent.c_str(), W_OK) != 0)
        {
            throw ScenarioError("--out: cannot create '" + dir + "' (no write permission in '" +
                                parent.string() + "')");
        }
        return;
    }
    if (!fs::is_directory(dir, ec))
    {
        throw ScenarioError("--out: '" + dir + "' exists and is not a directory");
    }
    // Empty but for a lock file (a first sweep stopped before it wrote anything).
    bool empty = true;
    for (const auto& e : fs::directory_iterator(dir, ec))
    {
        empty = empty && e.path().filename() == SweepLock::kFileName;
    }
    if (empty)
    {
        return;
    }
    if (!fs::exists(fs::path(dir) / "sweep.json"))
    {
        throw ScenarioError("--out: '" + dir +
                            "' exists and is not a sweep directory (choose a new directory)");
    }
    json m;
    try
    {
        m = ReadManifest(dir);
    }
    catch (const ScenarioError& e)
    {
        throw ScenarioError(std::string("--out: ") + e.what());
    }
    if (m.value("sweep", std::string()) != sweep.name)
    {
        throw ScenarioError("--out: '" + dir + "' holds sweep '" + m.value("sweep", std::string()) +
                            "', not '" + sweep.name + "' (choose another directory)");
    }
    if (::access(dir.c_str(), W_OK) != 0)
    {
        throw ScenarioError("--out: '" + dir + "' is not writable");
    }
}

bool
PointDone(const std::string& dir, const std::string& id)
{
    std::error_code ec;
    return fs::is_regular_file(fs::path(dir) / id / "summary.json", ec);
}

std::vector<const SweepPoint*>
UnfinishedPoints(const Sweep& sweep, const std::string& dir)
{
    std::vector<const SweepPoint*> todo;
    for (const auto& p : sweep.points)
    {
        if (!PointDone(dir, p.id))
        {
            todo.push_back(&p);
        }
    }
    return todo;
}

std::vector<std::string>
RunnerArguments(const std::string& runner, const std::string& dir, const std::string& id)
{
    const fs::path d = fs::absolute(dir);
    return {runner,
            (d / "points" / (id + ".json")).string(),
            "--quiet",
            "--out",
            (d / id).string()};
}

void
PrepareSweepDirectory(const Sweep& sweep, const std::string& dir, const std::string& runner)
{
    const fs::path d = fs::absolute(dir);
    fs::create_directories(d / "points");
    fs::create_directories(d / "logs");
    json manifest;
    manifest["format"] = kManifestFormat;
    manifest["sweep"] = sweep.name;
    manifest["source"] = sweep.source;
    manifest["runner"] = runner;
    manifest["written"] = Stamp();
    manifest["point_id"] =
        "FNV-1a 64 (hex) of the canonical JSON list of the point's resolved runs";
    manifest["keys"] = sweep.Keys();
    manifest["grid_keys"] = sweep.gridKeys;
    manifest["zip_keys"] = sweep.zipKeys;
    manifest["seeds"] = sweep.seeds;
    manifest["points"] = json::array();
    std::vector<std::string> stale;
    for (const auto& p : sweep.points)
    {
        const fs::path scenario = d / "points" / (p.id + ".json");
        const std::string text = p.scenario.dump(2) + "\n";
        if (!fs::exists(scenario) || ReadText(scenario) != text)
        {
            WriteAtomically(scenario, text);
        }
        if (!PointDone(d.string(), p.id))
        {
            std::error_code ec;
            fs::remove(ExitPath(d, p.id), ec);
            stale.push_back(".tmp-" + p.id + "-");
        }
        manifest["points"].push_back(json{{"index", p.index},
                                          {"id", p.id},
                                          {"seed", p.seed},
                                          {"values", p.values},
                                          {"runs", p.runs},
                                          {"scenario", "points/" + p.id + ".json"}});
    }
    WriteAtomically(d / "sweep.json", manifest.dump(2) + "\n");
    // A killed runner leaves its temporary directory (".tmp-<id>-<pid>"); nothing runs these
    // points now (the engines refuse while Slurm still has some), so they can go.
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(d, ec))
    {
        const std::string name = e.path().filename().string();
        for (const auto& prefix : stale)
        {
            if (name.rfind(prefix, 0) == 0)
            {
                fs::remove_all(e.path(), ec);
                break;
            }
        }
    }
}

} // namespace aifabric

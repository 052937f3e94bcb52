// SPDX-License-Identifier: GPL-2.0-only
#include "slurm-queue.h"

#include "file-util.h"
#include "process.h"
#include "text-util.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace aifabric
{

using nlohmann::json;
namespace fs = std::filesystem;

QueueView
ReadQueue(const fs::path& dir)
{
    QueueView q;
    const fs::path jobsFile = dir / "slurm" / "jobs.json";
    if (!fs::exists(jobsFile))
    {
        return q;
    }
    json jobs = ReadJsonFile(jobsFile);
    std::map<std::string, std::vector<std::string>> tasks; // job id -> point ids by array index
    for (const auto& j : jobs)
    {
        const std::string id = j["job"].get<std::string>();
        q.jobs.push_back(id);
        std::ifstream f(dir / j["tasks"].get<std::string>());
        std::string line;
        while (std::getline(f, line))
        {
            tasks[id].push_back(Trim(line));
        }
    }
    q.submitted = !q.jobs.empty();
    auto pointOf = [&](const std::string& jobTask) -> std::string {
        const size_t us = jobTask.find('_');
        if (us == std::string::npos)
        {
            return "";
        }
        const auto it = tasks.find(jobTask.substr(0, us));
        const std::string idx = jobTask.substr(us + 1);
        if (it == tasks.end() || idx.empty() ||
            idx.find_first_not_of("0123456789") != std::string::npos)
        {
            return "";
        }
        const size_t i = std::stoul(idx);
        return i < it->second.size() ? it->second[i] : "";
    };
    // "<job id>|<state>" lines (squeue and sacct) -> state by point id.
    auto parseStates = [&pointOf](const std::string& text,
                                  std::map<std::string, std::string>& into) {
        std::istringstream is(text);
        std::string line;
        while (std::getline(is, line))
        {
            const size_t bar = line.find('|');
            if (bar == std::string::npos)
            {
                continue;
            }
            const std::string point = pointOf(Trim(line.substr(0, bar)));
            if (!point.empty())
            {
                into[point] = Trim(line.substr(bar + 1));
            }
        }
    };
    std::string text;
    ProcessOptions capture;
    capture.out = Output::CAPTURE;
    capture.err = Output::DISCARD;
    if (q.submitted && OnPath("squeue") &&
        RunProgram({"squeue", "-h", "-r", "-o", "%i|%t"}, capture, &text) == 0)
    {
        q.answered = true;
        parseStates(text, q.state);
    }
    std::string list;
    for (const auto& j : q.jobs)
    {
        list += (list.empty() ? "" : ",") + j;
    }
    if (q.submitted && OnPath("sacct") &&
        RunProgram({"sacct", "-n", "-X", "-P", "-o", "JobID,State", "-j", list}, capture, &text) ==
            0)
    {
        parseStates(text, q.final);
    }
    return q;
}

size_t
QueuedPoints(const std::string& dir)
{
    if (!fs::exists(fs::path(dir) / "sweep.json"))
    {
        return 0;
    }
    return ReadQueue(fs::absolute(dir)).state.size();
}

} // namespace aifabric

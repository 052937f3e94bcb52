// SPDX-License-Identifier: GPL-2.0-only
#include "file-util.h"

#include <fstream>
#include <sstream>
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
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f << content;
        f.flush();
        if (!f)
        {
            throw std::runtime_error("cannot write " + tmp.string());
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
    std::ifstream f(p);
    if (!f)
    {
        throw std::runtime_error("cannot read " + p.string());
    }
    return nlohmann::json::parse(f);
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

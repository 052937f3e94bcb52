// SPDX-License-Identifier: GPL-2.0-only
// The Chakra trace's files: which files in a directory make the trace, comm_group.json (read
// and written), and the one-line errors the reader and writer throw.
#include "chakra-trace-files.h"

#include "chakra-trace.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <unordered_map>

namespace ns3
{
namespace chakra
{

namespace fs = std::filesystem;

[[noreturn]] void
Fail(const std::string& where, const std::string& what)
{
    throw ChakraTraceError("chakra trace " + where + ": " + what);
}

std::string
Quote(const std::string& s)
{
    std::string q = "\"";
    for (size_t i = 0; i < s.size() && i < 64; ++i)
    {
        const auto c = static_cast<unsigned char>(s[i]);
        q += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
    }
    return q + (s.size() > 64 ? "...\"" : "\"");
}

namespace
{

/// What a file of mode `m` is, when it is not a regular file.
std::string
NotRegular(mode_t m)
{
    return S_ISDIR(m)                 ? "is a directory, not a regular file"
           : S_ISFIFO(m)              ? "is a FIFO, not a regular file"
           : S_ISCHR(m) || S_ISBLK(m) ? "is a device, not a regular file"
           : S_ISSOCK(m)              ? "is a socket, not a regular file"
                                      : "is not a regular file";
}

} // namespace

std::string
SizeLimit(uint64_t limit)
{
    return limit % (1ULL << 30) == 0   ? std::to_string(limit >> 30) + " GiB"
           : limit % (1ULL << 20) == 0 ? std::to_string(limit >> 20) + " MiB"
                                       : std::to_string(limit) + " bytes";
}

InputFile
OpenInputFile(const std::string& file, uint64_t limit, uint64_t& size)
{
    // O_NONBLOCK: opening a FIFO with no writer would wait forever; a regular file ignores it.
    const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
    {
        Fail(file, std::string("cannot be read: ") + std::strerror(errno));
    }

    struct stat st
    {
    };

    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    {
        const std::string why = NotRegular(st.st_mode);
        ::close(fd);
        Fail(file, why);
    }
    size = static_cast<uint64_t>(st.st_size);
    if (size > limit)
    {
        ::close(fd);
        Fail(file, std::to_string(size) + " bytes, more than the " + SizeLimit(limit) + " allowed");
    }
    FILE* f = ::fdopen(fd, "rb");
    if (!f)
    {
        const int e = errno;
        ::close(fd);
        Fail(file, std::string("cannot be read: ") + std::strerror(e));
    }
    return InputFile(f, &std::fclose);
}

std::string
NotRegularFile(const std::string& file)
{
    struct stat st
    {
    };

    if (::stat(file.c_str(), &st) != 0)
    {
        return std::string("cannot be read: ") + std::strerror(errno);
    }
    return S_ISREG(st.st_mode) ? std::string() : NotRegular(st.st_mode);
}

std::string
ReadSmallFile(const std::string& file, uint64_t limit)
{
    uint64_t size = 0;
    const InputFile in = OpenInputFile(file, limit, size);
    // Read to the end, at most one byte past the limit (a file that grows while it is read).
    std::string text;
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), in.get())) > 0)
    {
        text.append(buf, n);
        if (text.size() > limit)
        {
            Fail(file, "more than the " + SizeLimit(limit) + " allowed");
        }
    }
    if (std::ferror(in.get()))
    {
        Fail(file, "cannot read the file");
    }
    return text;
}

// --- the trace's files ------------------------------------------------------------------

std::vector<std::string>
FindTraceFiles(const std::string& dir, const std::string& wanted)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
    {
        Fail(dir, fs::exists(dir, ec) ? "not a directory" : "no such directory");
    }
    std::map<std::string, std::map<uint64_t, std::string>> found; // prefix -> rank -> file
    const std::string ext = kExtension;
    fs::directory_iterator it(dir, ec);
    for (; !ec && it != fs::directory_iterator(); it.increment(ec))
    {
        const std::string name = it->path().filename().string();
        if (name.size() <= ext.size() || name.compare(name.size() - ext.size(), ext.size(), ext))
        {
            continue;
        }
        const std::string stem = name.substr(0, name.size() - ext.size());
        const size_t dot = stem.rfind('.');
        if (dot == std::string::npos || dot == 0 || dot + 1 == stem.size() ||
            stem.find_first_not_of("0123456789", dot + 1) != std::string::npos)
        {
            continue;
        }
        const std::string prefix = stem.substr(0, dot);
        const std::string digits = stem.substr(dot + 1);
        if (!wanted.empty() && prefix != wanted)
        {
            continue;
        }
        // Named as a trace file but a FIFO, a device, a directory or a dangling link: refused
        // here, naming it, rather than skipped (a gap in the ranks) or read until it blocks.
        const std::string notRegular = NotRegularFile(it->path().string());
        if (!notRegular.empty())
        {
            Fail(it->path().string(), notRegular);
        }
        const uint64_t rank = digits.size() > 9 ? UINT64_MAX : std::stoull(digits);
        if (rank >= ChakraTrace::kMaxRanks)
        {
            Fail(it->path().string(),
                 "rank " + digits + ": a trace has at most " +
                     std::to_string(ChakraTrace::kMaxRanks) + " ranks");
        }
        const auto [pos, fresh] = found[prefix].emplace(rank, it->path().string());
        if (!fresh)
        {
            Fail(dir,
                 "two files for rank " + std::to_string(rank) + ": " + pos->second + " and " +
                     it->path().string());
        }
    }
    if (ec)
    {
        Fail(dir, "cannot list the directory: " + ec.message());
    }
    if (found.empty())
    {
        Fail(dir,
             wanted.empty() ? "no Chakra trace files (<prefix>.<rank>.et)"
                            : "no " + Quote(wanted) + ".<rank>.et files");
    }
    if (found.size() > 1)
    {
        std::string names;
        size_t listed = 0;
        for (const auto& [p, files] : found)
        {
            if (listed++ == 4)
            {
                names += ", ...";
                break;
            }
            names += (names.empty() ? "" : ", ") + Quote(p);
        }
        Fail(dir, "several traces (prefixes " + names + "): choose one (ChakraReadOptions)");
    }
    const auto& [prefix, ranks] = *found.begin();
    const uint64_t n = ranks.rbegin()->first + 1;
    std::vector<std::string> files;
    for (uint64_t r = 0; r < n; ++r)
    {
        const auto f = ranks.find(r);
        if (f == ranks.end())
        {
            Fail(dir,
                 "a gap in the ranks: " +
                     ChakraTrace::FileName(dir, prefix, static_cast<uint32_t>(r)) +
                     " is missing (ranks 0.." + std::to_string(n - 1) + " need a file each)");
        }
        files.push_back(f->second);
    }
    return files;
}

namespace
{

class CommGroupParser
{
  public:
    CommGroupParser(const std::string& file, const std::string& text)
        : m_file(file),
          m_s(text)
    {
    }

    std::vector<ProcessGroup> Parse()
    {
        std::vector<ProcessGroup> groups;
        std::unordered_map<std::string, size_t> seen;
        Expect('{');
        if (Peek('}'))
        {
            ++m_i;
        }
        else
        {
            for (;;)
            {
                ProcessGroup pg;
                pg.name = String();
                Expect(':');
                Expect('[');
                if (!Peek(']'))
                {
                    do
                    {
                        pg.ranks.push_back(Rank());
                    } while (Take(','));
                }
                Expect(']');
                if (!seen.emplace(pg.name, groups.size()).second)
                {
                    Bad("process group " + Quote(pg.name) + " is listed twice");
                }
                groups.push_back(std::move(pg));
                if (!Take(','))
                {
                    break;
                }
            }
            Expect('}');
        }
        Ws();
        if (m_i != m_s.size())
        {
            Bad("text after the JSON object");
        }
        return groups;
    }

  private:
    [[noreturn]] void Bad(const std::string& what) const
    {
        Fail(m_file, "byte " + std::to_string(m_i) + ": " + what);
    }

    void Ws()
    {
        while (m_i < m_s.size() &&
               (m_s[m_i] == ' ' || m_s[m_i] == '\t' || m_s[m_i] == '\n' || m_s[m_i] == '\r'))
        {
            ++m_i;
        }
    }

    bool Peek(char c)
    {
        Ws();
        return m_i < m_s.size() && m_s[m_i] == c;
    }

    bool Take(char c)
    {
        if (!Peek(c))
        {
            return false;
        }
        ++m_i;
        return true;
    }

    void Expect(char c)
    {
        if (!Take(c))
        {
            Bad(std::string("expected '") + c + "' (comm_group.json is {\"<pg_name>\": [ranks]})");
        }
    }

    std::string String()
    {
        Expect('"');
        std::string out;
        for (;;)
        {
            if (m_i >= m_s.size())
            {
                Bad("an unterminated string");
            }
            const char c = m_s[m_i++];
            if (c == '"')
            {
                return out;
            }
            if (static_cast<unsigned char>(c) < 0x20)
            {
                Bad("a control character in a string");
            }
            if (c != '\\')
            {
                out += c;
                continue;
            }
            const char e = m_i < m_s.size() ? m_s[m_i++] : '\0';
            static const std::string plain = "\"\\/bfnrt";
            static const std::string meant = "\"\\/\b\f\n\r\t";
            if (plain.find(e) != std::string::npos && e != '\0')
            {
                out += meant[plain.find(e)];
            }
            else if (e == 'u' && m_i + 4 <= m_s.size() &&
                     m_s.substr(m_i, 4).find_first_not_of("0123456789abcdefABCDEF") ==
                         std::string::npos)
            {
                const auto cp = static_cast<uint32_t>(std::stoul(m_s.substr(m_i, 4), nullptr, 16));
                m_i += 4;
                if (cp < 0x80)
                {
                    out += static_cast<char>(cp);
                }
                else if (cp < 0x800)
                {
                    out += static_cast<char>(0xc0 | (cp >> 6));
                    out += static_cast<char>(0x80 | (cp & 0x3f));
                }
                else
                {
                    out += static_cast<char>(0xe0 | (cp >> 12));
                    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
                    out += static_cast<char>(0x80 | (cp & 0x3f));
                }
            }
            else
            {
                Bad("a bad escape in a string");
            }
        }
    }

    uint32_t Rank()
    {
        Ws();
        uint64_t v = 0;
        size_t digits = 0;
        while (m_i < m_s.size() && m_s[m_i] >= '0' && m_s[m_i] <= '9')
        {
            v = v * 10 + static_cast<uint64_t>(m_s[m_i++] - '0');
            if (++digits > 9)
            {
                Bad("a rank too large");
            }
        }
        if (digits == 0 ||
            (m_i < m_s.size() && (m_s[m_i] == '.' || m_s[m_i] == 'e' || m_s[m_i] == 'E')))
        {
            Bad("a rank must be a non-negative integer");
        }
        return static_cast<uint32_t>(v);
    }

    const std::string m_file;
    const std::string& m_s;
    size_t m_i{0};
};

} // namespace

std::vector<ProcessGroup>
ParseCommGroups(const std::string& file, const std::string& text)
{
    return CommGroupParser(file, text).Parse();
}

CommGroups::CommGroups(WorkloadGraph& g, std::string file)
    : m_g(g),
      m_file(std::move(file))
{
}

void
CommGroups::Load(const std::string& text)
{
    for (ProcessGroup& pg : ParseCommGroups(m_file, text))
    {
        if (pg.ranks.empty())
        {
            Fail(m_file, "process group " + Quote(pg.name) + " lists no ranks");
        }
        std::vector<uint8_t> seen(m_g.ranks, 0);
        for (uint32_t r : pg.ranks)
        {
            if (r >= m_g.ranks || seen[r]++)
            {
                Fail(m_file,
                     "process group " + Quote(pg.name) + ": rank " + std::to_string(r) +
                         (r >= m_g.ranks
                              ? " is not in the " + std::to_string(m_g.ranks) + "-rank trace"
                              : " is listed twice"));
            }
        }
        m_byName.emplace(pg.name, Add(pg.ranks, pg.name));
    }
}

uint32_t
CommGroups::Resolve(const std::optional<std::string>& pg, const std::string& where)
{
    if (pg && !pg->empty())
    {
        const auto it = m_byName.find(*pg);
        if (it != m_byName.end())
        {
            return it->second;
        }
        if (*pg != "0")
        {
            Fail(where,
                 "pg_name " + Quote(*pg) +
                     (m_file.empty() ? " names a process group, but the trace has no " +
                                           std::string(kCommGroupFile)
                                     : " is not in " + m_file));
        }
    }
    if (m_all == UINT32_MAX)
    {
        std::vector<uint32_t> every(m_g.ranks);
        for (uint32_t r = 0; r < m_g.ranks; ++r)
        {
            every[r] = r;
        }
        m_all = Add(every, "");
    }
    return m_all;
}

uint32_t
CommGroups::MemberIndex(uint32_t g, uint32_t rank)
{
    if (rank != m_cacheRank)
    {
        m_cache.assign(m_g.groups.size(), kUnknown);
        m_cacheRank = rank;
    }
    if (m_cache[g] == kUnknown)
    {
        m_cache[g] = m_g.MemberIndex(g, rank);
    }
    return m_cache[g];
}

std::string
CommGroups::Label(uint32_t g) const
{
    return m_names[g].empty() ? "of every rank (no pg_name)" : Quote(m_names[g]);
}

uint32_t
CommGroups::Add(const std::vector<uint32_t>& ranks, const std::string& name)
{
    m_g.groups.push_back(ranks);
    m_names.push_back(name);
    m_cache.resize(m_g.groups.size(), kUnknown);
    return static_cast<uint32_t>(m_g.groups.size() - 1);
}

std::vector<std::string>
StaleRankFiles(const std::string& dir, const std::string& prefix, uint32_t ranks)
{
    std::vector<std::string> stale;
    const std::string head = prefix + ".";
    const std::string ext = kExtension;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator();
         it.increment(ec))
    {
        const std::string name = it->path().filename().string();
        if (name.size() <= head.size() + ext.size() || name.compare(0, head.size(), head) != 0 ||
            name.compare(name.size() - ext.size(), ext.size(), ext) != 0)
        {
            continue;
        }
        const std::string digits = name.substr(head.size(), name.size() - head.size() - ext.size());
        if (digits.empty() || digits.size() > 9 ||
            digits.find_first_not_of("0123456789") != std::string::npos)
        {
            continue;
        }
        const uint64_t r = std::stoull(digits);
        if (r >= ranks || digits != std::to_string(r))
        {
            stale.push_back(it->path().string());
        }
    }
    return stale;
}

std::string
PgName(uint32_t g)
{
    return std::to_string(uint64_t(g) + 1);
}

std::string
CommGroupJson(const WorkloadGraph& g)
{
    std::string s = "{";
    for (uint32_t k = 0; k < g.groups.size(); ++k)
    {
        s += k ? ",\n  \"" : "\n  \"";
        s += PgName(k) + "\": [";
        for (uint32_t j = 0; j < g.groups[k].size(); ++j)
        {
            s += (j ? ", " : "") + std::to_string(g.groups[k][j]);
        }
        s += "]";
    }
    s += g.groups.empty() ? "}\n" : "\n}\n";
    return s;
}

} // namespace chakra
} // namespace ns3

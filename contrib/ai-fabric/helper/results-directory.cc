// SPDX-License-Identifier: GPL-2.0-only
#include "results-directory.h"

#include <cctype>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <sys/wait.h>
#include <unistd.h>

namespace ns3
{

namespace fs = std::filesystem;

ResultsDirectory::~ResultsDirectory()
{
    if (!m_tmp.empty() && !m_committed)
    {
        std::error_code ec;
        fs::remove_all(m_tmp, ec);
    }
}

std::string
ResultsDirectory::Open(const std::string& path)
{
    std::error_code ec;
    // "DIR/", "DIR/." and "a/../DIR" name DIR: without this, the temporary directory would be
    // made inside DIR and the final rename onto DIR would fail after everything was simulated.
    fs::path final = fs::absolute(path, ec).lexically_normal();
    if (!final.has_filename())
    {
        final = final.parent_path();
    }
    if (ec || path.empty() || !final.has_filename() || final.filename() == "..")
    {
        return "'" + path + "' is not a valid directory name";
    }
    // symlink_status: a dangling symbolic link also exists (the final rename would fail on it
    // after everything was simulated).
    if (fs::exists(fs::symlink_status(final, ec)))
    {
        return "'" + path + "' already exists (choose a new directory)";
    }
    fs::create_directories(final.parent_path(), ec);
    const fs::path tmp = final.parent_path() /
                         (".tmp-" + final.filename().string() + "-" + std::to_string(::getpid()));
    fs::remove_all(tmp, ec);
    if (!fs::create_directory(tmp, ec) || ec)
    {
        return "cannot create directories in '" + final.parent_path().string() + "'";
    }
    m_final = final.string();
    m_tmp = tmp.string();
    return "";
}

const std::string&
ResultsDirectory::GetPath() const
{
    return m_tmp;
}

const std::string&
ResultsDirectory::GetFinalPath() const
{
    return m_final;
}

bool
ResultsDirectory::HaveGnuplot()
{
    // What `command -v gnuplot` answers, without a shell: an executable gnuplot on the PATH.
    const char* env = std::getenv("PATH");
    std::string dirs = env ? env : "/usr/bin:/bin";
    for (size_t start = 0, end = 0; end != std::string::npos; start = end + 1)
    {
        end = dirs.find(':', start);
        const std::string d = dirs.substr(start, end == std::string::npos ? end : end - start);
        const fs::path candidate = fs::path(d.empty() ? "." : d) / "gnuplot";
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
        {
            return true;
        }
    }
    return false;
}

bool
ResultsDirectory::RenderGnuplot(const std::string& script, const std::string& subdir) const
{
    if (!HaveGnuplot())
    {
        return true; // scripts stay for the user; nothing failed
    }
    const fs::path dir = subdir.empty() ? fs::path(m_tmp) : fs::path(m_tmp) / subdir;
    // `gnuplot SCRIPT` in `dir`, run with an argument vector: no shell reads the names.
    const pid_t pid = ::fork();
    if (pid == 0)
    {
        const int null = ::open("/dev/null", O_RDWR);
        if (null < 0 || ::dup2(null, STDIN_FILENO) < 0 || ::dup2(null, STDOUT_FILENO) < 0 ||
            ::dup2(null, STDERR_FILENO) < 0 || ::chdir(dir.c_str()) != 0)
        {
            ::_exit(127);
        }
        ::execlp("gnuplot", "gnuplot", script.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) != pid)
    {
        return false;
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string
ResultsDirectory::Commit()
{
    std::error_code ec;
    fs::rename(m_tmp, m_final, ec);
    if (ec)
    {
        return "cannot create '" + m_final + "': " + ec.message();
    }
    m_committed = true;
    return "";
}

void
ResultsDirectory::Start(std::string out, const std::string& program)
{
    if (out.empty())
    {
        out = DefaultPath(program);
    }
    const std::string err = Open(out);
    if (!err.empty())
    {
        std::cerr << program << ": out: " << err << std::endl;
        std::exit(2);
    }
}

int
ResultsDirectory::Finish(const std::string& gnuplotScript, const std::string& program)
{
    if (!RenderGnuplot(gnuplotScript))
    {
        std::cerr << program << ": gnuplot failed; " << gnuplotScript << " left for you to run"
                  << std::endl;
    }
    const std::string err = Commit();
    if (!err.empty())
    {
        std::cerr << program << ": " << err << std::endl;
        return 1;
    }
    std::cout << "results in " << m_final << std::endl;
    return 0;
}

std::string
ResultsDirectory::DefaultPath(const std::string& prefix)
{
    char stamp[32];
    std::time_t t = std::time(nullptr);
    std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", std::localtime(&t));
    // The prefix is a name from the user: only [A-Za-z0-9._-] reach the path, so "a/b" or
    // "../x" stays one directory under results/ (no '/' survives; a leading '.' is replaced).
    std::string safe;
    for (char ch : prefix.substr(0, 120))
    {
        safe += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' ||
                 (ch == '.' && !safe.empty()))
                    ? ch
                    : '_';
    }
    return "results/" + (safe.empty() ? std::string("run") : safe) + "-" + stamp;
}

} // namespace ns3

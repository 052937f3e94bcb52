// SPDX-License-Identifier: GPL-2.0-only
#ifndef RESULTS_DIRECTORY_H
#define RESULTS_DIRECTORY_H

#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * A results directory that appears only when complete: Open() checks the final path (it must
 * not exist, its parent must be writable) and creates a hidden temporary sibling to write into;
 * Commit() renames it into place; a directory never committed is removed on destruction, so a
 * failed or interrupted run leaves nothing half-written.
 */
class ResultsDirectory
{
  public:
    ResultsDirectory() = default;
    ~ResultsDirectory();
    ResultsDirectory(const ResultsDirectory&) = delete;
    ResultsDirectory& operator=(const ResultsDirectory&) = delete;

    /**
     * `path` is taken lexically normalized: "DIR/", "DIR/." and "x/../DIR" all mean DIR.
     * \return empty on success, else one line saying what is wrong with `path`
     */
    std::string Open(const std::string& path);
    /// Where to write now (the temporary directory).
    const std::string& GetPath() const;
    /// Where the results will be after Commit().
    const std::string& GetFinalPath() const;
    /**
     * Run `gnuplot script` in GetPath()/subdir if gnuplot is installed, with an argument vector
     * (no shell), its output discarded. \return false on failure
     */
    bool RenderGnuplot(const std::string& script, const std::string& subdir = "") const;
    /// \return empty on success, else the error
    std::string Commit();

    /**
     * The start of an example program: open `out` (DefaultPath(`program`) when empty); if it
     * cannot be used, print "<program>: out: <why>" and exit with status 2 (bad input), before
     * anything was simulated or written.
     */
    void Start(std::string out, const std::string& program);

    /**
     * The end of an example program: render `gnuplotScript` (a warning names `program` if
     * gnuplot fails), commit, and print where the results are.
     * \return the process exit status: 0, or 1 if the directory could not be committed
     */
    int Finish(const std::string& gnuplotScript, const std::string& program);

    /**
     * "results/<prefix>-<YYYYmmdd-HHMMSS>", the prefix (a user's name) cut to 120 characters
     * with every character outside [A-Za-z0-9._-], and a leading '.', replaced by '_': one
     * directory inside results/, whatever the name.
     */
    static std::string DefaultPath(const std::string& prefix);
    /// \return true if gnuplot is on the PATH
    static bool HaveGnuplot();

  private:
    std::string m_final;
    std::string m_tmp;
    bool m_committed{false};
};

} // namespace ns3

#endif // RESULTS_DIRECTORY_H

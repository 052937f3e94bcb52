// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_PROCESS_H
#define AI_FABRIC_PROCESS_H

#include <string>
#include <sys/types.h>
#include <vector>

namespace aifabric
{

/**
 * Running external programs (the runner, sbatch, squeue, sacct, gnuplot) with an argument
 * vector: the program gets exactly these arguments and no shell ever reads them, so names and
 * paths need no quoting. Deliberately left out: pipelines, environment changes, time limits.
 */

/// Where a child's stdout or stderr goes.
enum class Output
{
    INHERIT,   //!< the parent's
    DISCARD,   //!< /dev/null
    CAPTURE,   //!< read back by RunProgram (stdout only)
    TRUNCATE,  //!< ProcessOptions' file, truncated
    APPEND,    //!< ProcessOptions' file, appended to
    AS_STDOUT, //!< wherever stdout goes (stderr only)
};

struct ProcessOptions
{
    std::string directory; //!< run in this directory (empty: the current one)
    bool searchPath{true}; //!< look argv[0] up on the PATH (false: it is a path)
    Output out{Output::INHERIT};
    std::string outFile;
    Output err{Output::INHERIT};
    std::string errFile;
};

/**
 * Start argv[0] with arguments argv; stdin is /dev/null. \return the child's pid, or -1 with
 * the reason (an errno value, e.g. ENOENT when the program cannot be executed) in `error`.
 * With Output::CAPTURE, `capture` receives the read end of the child's stdout.
 */
pid_t StartProgram(const std::vector<std::string>& argv,
                   const ProcessOptions& options,
                   int& error,
                   int* capture = nullptr);

/// A waitpid status as an exit status: the program's, or 128 + the signal that killed it.
int ExitStatus(int waitStatus);

/**
 * Run a program to completion; with Output::CAPTURE its stdout in `output`.
 * \return its exit status; 127 if it could not be executed, -1 if it was killed by a signal
 * or could not be started at all (what a shell reports for the same)
 */
int RunProgram(const std::vector<std::string>& argv,
               const ProcessOptions& options,
               std::string* output = nullptr);

/// Whether `program` is an executable file on the PATH (or, containing '/', at that path).
bool OnPath(const std::string& program);

} // namespace aifabric

#endif

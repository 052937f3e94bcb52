// SPDX-License-Identifier: GPL-2.0-only
// Shared measurement helpers of the benchmark programs.
#ifndef AI_FABRIC_BENCH_UTIL_H
#define AI_FABRIC_BENCH_UTIL_H

#include <ctime>
#include <fstream>
#include <string>

namespace aifabricbench
{

/// CPU time of this process, in seconds.
inline double
CpuSeconds()
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/// A field of /proc/self/status in MB ("VmRSS:" now, "VmHWM:" peak).
inline double
StatusMb(const char* field)
{
    std::ifstream f("/proc/self/status");
    std::string line;
    const std::string key(field);
    while (std::getline(f, line))
    {
        if (line.rfind(key, 0) == 0)
        {
            return std::stod(line.substr(key.size())) / 1024.0;
        }
    }
    return 0;
}

inline double
RssMb()
{
    return StatusMb("VmRSS:");
}

inline double
PeakRssMb()
{
    return StatusMb("VmHWM:");
}

} // namespace aifabricbench

#endif
